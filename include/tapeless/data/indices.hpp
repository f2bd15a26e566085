// SPDX-License-Identifier: BSL-1.0
// tapeless/data/indices.hpp: tl::indices and tl::pairs, rows that are indices, for loops over elements.
//
// Rosenbrock is a sum over i of a term in x[i] and x[i + 1]; a pair potential a sum over i < j of a
// term in row i and row j of the positions. tl::indices(n) is a row source whose row i is the index i,
// and tl::pairs(n) one whose rows are the pairs (i, j), 0 <= i < j < n, in row-major order: summed
// over by tl::sum_over, the body receives the index as a std::size_t and reads the parameters' elements
// with it (x[i], A(i, j), tl::row(A, i)), each read an O(1) node whose adjoint goes to its elements
// alone. Neither holds any data: a row is computed from the row's number. An index is zipped with data
// columns by tl::rows(tl::indices(n), y).
#pragma once

#include <tapeless/data/rows.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

/// The column of tl::indices: row r holds the index first + r. It computes its rows and holds no data.
struct index_column {
  static constexpr bool computed_rows = true;
  std::size_t first;
  constexpr index_column operator+(std::size_t k) const noexcept { return {first + k}; }
};

/// The column of a pair's first index within the run of pairs (i, j) of one i: i in every row.
struct same_index_column {
  static constexpr bool computed_rows = true;
  std::size_t index;
  constexpr same_index_column operator+(std::size_t) const noexcept { return *this; }
};

/// Whether a column of a rows_view holds indices.
template <class E>
inline constexpr bool is_index_column = std::is_same_v<E, index_column> || std::is_same_v<E, same_index_column>;

/// The number of pairs (k, j), k < j < n, with k < i: those before the first pair of i, in row-major order.
constexpr std::size_t pairs_before(std::size_t n, std::size_t i) noexcept { return i * (2 * n - i - 1) / 2; }

/// The indices zipped with the columns of `data`, of as many rows.
template <class... E, std::size_t... K>
constexpr rows_view<index_column, E...> with_index(const rows_view<index_column>& index, const rows_view<E...>& data,
                                                   std::index_sequence<K...>) noexcept {
  return rows_view<index_column, E...>(index.size(), index.template column<0>(), data.template column<K>()...);
}

}  // namespace detail

/// The pairs (i, j), 0 <= i < j < n, in row-major order, as rows: rows [begin, begin + count) of them.
/// A sum over it runs each i's pairs as one run of rows (i, j0), (i, j0 + 1), ..., so a run reads i
/// once and j consecutively: `segment` is the view of one run.
class pairs_view {
 public:
  static constexpr std::size_t columns = 2;
  using segment = rows_view<detail::same_index_column, detail::index_column>;

  constexpr explicit pairs_view(std::size_t n, std::size_t begin, std::size_t count) noexcept
      : n_(n), begin_(begin), count_(count) {}

  /// The number of rows (pairs).
  [[nodiscard]] constexpr std::size_t size() const noexcept { return count_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return count_ == 0; }
  /// The number of indices the pairs are drawn from.
  [[nodiscard]] constexpr std::size_t indices() const noexcept { return n_; }

  /// The rows [begin, begin + count) of these rows.
  [[nodiscard]] constexpr pairs_view part(std::size_t begin, std::size_t count) const noexcept {
    return pairs_view(n_, begin_ + begin, count);
  }

  /// The runs of one i each, in order: f(segment) for each, the first and the last possibly partial.
  template <class F>
  constexpr void each_segment(const F& f) const {
    if (count_ == 0) return;
    // The first pair's i: the largest i whose pairs start at or before begin_, by bisection (exact in
    // integers, and constant-evaluable where std::sqrt is not).
    std::size_t low = 0, high = n_ - 1;
    while (low + 1 < high) {
      const std::size_t middle = low + (high - low) / 2;
      (detail::pairs_before(n_, middle) <= begin_ ? low : high) = middle;
    }
    std::size_t i = low;
    std::size_t j = i + 1 + (begin_ - detail::pairs_before(n_, i));
    std::size_t left = count_;
    while (left > 0) {
      const std::size_t run = n_ - j < left ? n_ - j : left;
      f(segment(run, detail::same_index_column{i}, detail::index_column{j}));
      left -= run;
      ++i;
      j = i + 1;
    }
  }

 private:
  std::size_t n_, begin_, count_;
};

/// The indices 0, 1, ..., n - 1 as rows: row i is the index i, a std::size_t in body. To sum over with
/// tl::sum_over or tl::mean_over, alone or zipped with data columns by tl::rows(tl::indices(n), y...).
///
///   // Rosenbrock: the sum over i < N - 1 of 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2
///   auto f = [&](const auto& x) {
///     return tl::sum_over(tl::indices(n - 1), [](std::size_t i, const auto& x) {
///       return 100.0 * tl::square(x[i + 1] - tl::square(x[i])) + tl::square(1.0 - x[i]);
///     }, x);
///   };
constexpr rows_view<detail::index_column> indices(std::size_t n) noexcept {
  return rows_view<detail::index_column>(n, detail::index_column{0});
}

/// The pairs (i, j), 0 <= i < j < n, in row-major order ((0, 1), (0, 2), ..., (1, 2), ...), as rows of
/// two indices: n (n - 1) / 2 of them, each a std::size_t in body.
constexpr pairs_view pairs(std::size_t n) noexcept { return pairs_view(n, 0, n < 2 ? 0 : n * (n - 1) / 2); }

/// The indices zipped with data columns: row i is (i, c1[i], c2[i], ...). Throws std::invalid_argument,
/// naming both lengths, where a column's length differs from the indices' count.
template <class... More>
  requires(sizeof...(More) > 0)
&&(detail::column_argument<More>&&...) constexpr auto rows(const rows_view<detail::index_column>& index,
                                                           const More&... more) {
  const auto data = rows(more...);
  if (data.size() != index.size())
    throw std::invalid_argument("tl::rows: column 2 has " + std::to_string(data.size()) +
                                " rows where the indices have " + std::to_string(index.size()));
  return detail::with_index(index, data, std::make_index_sequence<sizeof...(More)>{});
}

}  // namespace tapeless
