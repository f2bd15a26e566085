// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/index_rows.hpp: the rows of tl::indices and tl::pairs as the loop of a sum reads them.
//
// A column of indices holds no data: its row r is an index computed from r (data/indices.hpp). The
// loop of a sum over rows (sweep/sum_over_rows.hpp) reads a column through row_lanes; for an index
// column that is the index itself, a std::size_t that body receives as it is, to read the parameters'
// elements with (x[i], A(i, j), tl::row(A, i): nodes of one element or one line, ops/shape.hpp).
// Tests: test/unit/transforms/sum_over/indices_test.cpp
#pragma once

#include <tapeless/data/indices.hpp>

#include <cstddef>
#include <type_traits>

namespace tapeless::detail {

/// Row i of a column of indices, as body receives it: a std::size_t.
template <class L>
constexpr std::size_t row_lanes(index_column c, std::size_t i, std::size_t) noexcept {
  return c.first + i;
}
template <class L>
constexpr std::size_t row_lanes(same_index_column c, std::size_t, std::size_t) noexcept {
  return c.index;
}

/// Whether a row's value is an index (passed to body as it is, not as a leaf).
template <class V>
inline constexpr bool is_row_index = std::is_same_v<V, std::size_t>;

/// Whether a view's rows hold an index column, or are runs of pairs.
template <class View>
inline constexpr bool reads_indices = false;
template <class... E>
inline constexpr bool reads_indices<rows_view<E...>> = (is_index_column<E> || ...);
template <>
inline constexpr bool reads_indices<pairs_view> = true;

/// Whether a view's rows come in runs (segments), each a view of its own: pairs_view.
template <class View>
concept in_segments = requires {
  typename View::segment;
};

}  // namespace tapeless::detail
