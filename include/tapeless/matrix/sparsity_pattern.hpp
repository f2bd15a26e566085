// SPDX-License-Identifier: BSL-1.0
// tapeless/matrix/sparsity_pattern.hpp: sparsity_pattern<R, C>, where an R x C derivative matrix can be
// nonzero, as a value that a constant expression can compute, compare and count.
//
// Row i is the set of columns j where entry (i, j) may be nonzero (math/dependencies.hpp: the set a
// pattern sweep leaves in row i's tangent). Entries are counted in row-major order, row by row and
// column by column within a row: the order of a sparse_matrix's values. The type is structural, so a
// pattern can be a template argument.
#pragma once

#include <tapeless/math/dependencies.hpp>

#include <array>
#include <cstddef>
#include <string>

namespace tapeless {

template <std::size_t R, std::size_t C>
struct sparsity_pattern {
  /// Row i's columns.
  std::array<detail::dependencies<C>, R> row_sets{};

  static constexpr std::size_t rows() noexcept { return R; }
  static constexpr std::size_t cols() noexcept { return C; }

  /// Whether entry (i, j) may be nonzero.
  constexpr bool operator()(std::size_t i, std::size_t j) const { return row_sets[i].contains(j); }
  constexpr void insert(std::size_t i, std::size_t j) { row_sets[i] += detail::dependencies<C>::of(j); }

  /// The number of entries that may be nonzero.
  [[nodiscard]] constexpr std::size_t nonzeros() const {
    std::size_t n = 0;
    for (const auto& row : row_sets) n += row.count();
    return n;
  }
  /// The number of entries of row i that may be nonzero.
  [[nodiscard]] constexpr std::size_t nonzeros_in_row(std::size_t i) const { return row_sets[i].count(); }

  friend constexpr bool operator==(const sparsity_pattern&, const sparsity_pattern&) = default;
};

/// The pattern and its transpose together: a Hessian's pattern holds both triangles.
template <std::size_t N>
constexpr sparsity_pattern<N, N> symmetric_closure(const sparsity_pattern<N, N>& p) {
  sparsity_pattern<N, N> s = p;
  for (std::size_t i = 0; i < N; ++i) p.row_sets[i].each([&](std::size_t j) { s.insert(j, i); });
  return s;
}

/// The pattern as text, a line per row: '*' where an entry may be nonzero, '.' where it is 0.
template <std::size_t R, std::size_t C>
std::string to_string(const sparsity_pattern<R, C>& p) {
  std::string s;
  s.reserve(R * (C + 1));
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t j = 0; j < C; ++j) s += p(i, j) ? '*' : '.';
    s += '\n';
  }
  return s;
}

}  // namespace tapeless
