// SPDX-License-Identifier: BSL-1.0
// tapeless/matrix/sparse_matrix.hpp: sparse_matrix<T, Structure>, the values of a matrix at the entries
// of a sparsity pattern that is a compile-time constant.
//
// The pattern belongs to the type (Structure::pattern, a constexpr sparsity_pattern), so only the
// values are stored, contiguous and in the pattern's row-major order, with no heap; the positions of
// the entries are tables computed once for the type. sparse_hessian and sparse_jacobian return one.
// A Structure is named by a type rather than holding the pattern as a template argument itself: a
// pattern of n x n bits would be spelled out in the name of every function of the type.
#pragma once

#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/sparsity_pattern.hpp>

#include <array>
#include <cstddef>
#include <span>
#include <type_traits>

namespace tapeless {

namespace detail {
/// The positions of a pattern's entries in row-major order, and where each row starts among them.
template <std::size_t R, std::size_t C, std::size_t NNZ>
struct entry_positions {
  std::array<std::size_t, NNZ> row{};
  std::array<std::size_t, NNZ> col{};
  std::array<std::size_t, R + 1> row_start{};
};
template <std::size_t NNZ, std::size_t R, std::size_t C>
constexpr entry_positions<R, C, NNZ> positions_of(const sparsity_pattern<R, C>& p) {
  entry_positions<R, C, NNZ> e;
  std::size_t k = 0;
  for (std::size_t i = 0; i < R; ++i) {
    e.row_start[i] = k;
    p.row_sets[i].each([&](std::size_t j) {
      e.row[k] = i;
      e.col[k] = j;
      ++k;
    });
  }
  e.row_start[R] = k;
  return e;
}
}  // namespace detail

template <class T, class Structure>
class sparse_matrix {
 public:
  using value_type = T;
  using structure = Structure;
  static constexpr auto pattern = Structure::pattern;

 private:
  static constexpr std::size_t nnz = pattern.nonzeros();
  static constexpr auto positions = detail::positions_of<nnz>(pattern);
  std::array<T, nnz> values_;

 public:
  /// All values 0.
  constexpr sparse_matrix() : values_{} {}
  /// The values left for the caller to write, each of them (a transform that assigns most of them).
  constexpr explicit sparse_matrix(detail::uninitialized_t) {}  // NOLINT(cppcoreguidelines-pro-type-member-init)

  static constexpr std::size_t rows() noexcept { return pattern.rows(); }
  static constexpr std::size_t cols() noexcept { return pattern.cols(); }
  /// The number of entries stored: the pattern's.
  static constexpr std::size_t nonzeros() noexcept { return nnz; }
  /// The row and the column of value k.
  static constexpr std::size_t row_index(std::size_t k) { return positions.row[k]; }
  static constexpr std::size_t col_index(std::size_t k) { return positions.col[k]; }
  /// Where row i's values start among the values, and where they end (at row_start(i + 1)): the row
  /// pointers of compressed sparse row storage.
  static constexpr std::size_t row_start(std::size_t i) { return positions.row_start[i]; }

  /// The values, in the pattern's row-major order.
  [[nodiscard]] constexpr std::span<T, nnz> values() noexcept { return values_; }
  [[nodiscard]] constexpr std::span<const T, nnz> values() const noexcept { return values_; }

  /// Where entry (i, j)'s value is among values(), or nonzeros() outside the pattern: a binary
  /// search of row i's columns.
  static constexpr std::size_t position(std::size_t i, std::size_t j) {
    std::size_t lo = positions.row_start[i], hi = positions.row_start[i + 1];
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (positions.col[mid] < j)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo < positions.row_start[i + 1] && positions.col[lo] == j ? lo : nnz;
  }

  /// Entry (i, j): its value in the pattern, 0 outside it.
  constexpr T operator()(std::size_t i, std::size_t j) const {
    const std::size_t k = position(i, j);
    return k < nnz ? values_[k] : T(0);
  }

  friend constexpr bool operator==(const sparse_matrix&, const sparse_matrix&) = default;
};

/// The dense matrix of h: its values at their places, 0 elsewhere.
template <class T, class Structure>
constexpr auto dense(const sparse_matrix<T, Structure>& h) {
  using H = sparse_matrix<T, Structure>;
  matrix<T, H::rows(), H::cols()> d{};
  for (std::size_t k = 0; k < H::nonzeros(); ++k) d(H::row_index(k), H::col_index(k)) = h.values()[k];
  return d;
}

}  // namespace tapeless

// Eigen's SparseMatrix as Eigen declares it, so that to_eigen names it without Eigen: the definition is
// the caller's, from <Eigen/SparseCore>.
namespace Eigen {
template <typename Scalar, int Options, typename StorageIndex>
class SparseMatrix;
}  // namespace Eigen

namespace tapeless {

/// h as an Eigen::SparseMatrix<T> (column-major, compressed), where <Eigen/SparseCore> is included.
template <class T, class Structure>
auto to_eigen(const sparse_matrix<T, Structure>& h) {
  using H = sparse_matrix<T, Structure>;
  using S = std::conditional_t<sizeof(T) != 0, Eigen::SparseMatrix<T, 0, int>, void>;  // named when called
  if constexpr (!requires { sizeof(S); }) {
    static_assert(sizeof(T) == 0, "tl::to_eigen(h): include <Eigen/SparseCore> before calling it");
  } else {
    S m(static_cast<int>(H::rows()), static_cast<int>(H::cols()));
    m.reserve(static_cast<int>(H::nonzeros()));
    // Column-major storage is filled column by column, each in increasing rows.
    for (std::size_t j = 0; j < H::cols(); ++j) {
      m.startVec(static_cast<int>(j));
      for (std::size_t i = 0; i < H::rows(); ++i)
        if (H::pattern(i, j)) m.insertBack(static_cast<int>(i), static_cast<int>(j)) = h(i, j);
    }
    m.finalize();
    return m;
  }
}

}  // namespace tapeless
