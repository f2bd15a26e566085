// SPDX-License-Identifier: BSL-1.0
// tapeless/matrix/column_coloring.hpp: column_coloring<C>, a partition of a pattern's columns into
// groups that share no row, computed in a constant expression.
//
// Two columns of one color never have an entry in the same row (a distance-2 coloring of the column
// graph, "structurally orthogonal" columns), so the product of the derivative matrix with the sum of
// the unit vectors of one color holds, in row i, the one entry of row i of that color: every entry is
// read directly from one such product, with no system to solve (Gebremedhin, Manne and Pothen, "What
// color is your Jacobian?", 2005). A tridiagonal pattern takes 3 colors whatever its size; a 5-point
// stencil on a grid 5. A coloring with the fewest colors is NP-hard to find; two greedy ones are made
// (in the columns' order, and DSATUR's) and the one with fewer colors kept.
#pragma once

#include <tapeless/matrix/sparsity_pattern.hpp>

#include <array>
#include <cstddef>

namespace tapeless {

template <std::size_t C>
struct column_coloring {
  /// color[j]: the color of column j, below count (0 for a column with no entry, which no product needs).
  std::array<std::size_t, C> color{};
  std::size_t count = 0;

  /// The columns of color c, as a set.
  constexpr detail::dependencies<C> columns_of(std::size_t c) const {
    detail::dependencies<C> s{};
    for (std::size_t j = 0; j < C; ++j)
      if (color[j] == c) s += detail::dependencies<C>::of(j);
    return s;
  }
  friend constexpr bool operator==(const column_coloring&, const column_coloring&) = default;
};

namespace detail {

/// The columns that share a row with each column j (j itself among them where it has an entry): the
/// union of the rows that hold j. Two columns of one color must not be neighbours.
template <std::size_t R, std::size_t C>
constexpr std::array<dependencies<C>, C> column_neighbours(const sparsity_pattern<R, C>& p) {
  std::array<dependencies<C>, C> neighbours{};
  for (const auto& row : p.row_sets) row.each([&](std::size_t j) { neighbours[j] += row; });
  return neighbours;
}

/// The smallest color that no colored neighbour of j has.
template <std::size_t C>
constexpr std::size_t free_color(const dependencies<C>& neighbours, std::size_t j,
                                 const std::array<std::size_t, C>& color, std::size_t unset) {
  dependencies<C + 1> taken{};
  neighbours.each([&](std::size_t k) {
    if (k != j && color[k] != unset) taken += dependencies<C + 1>::of(color[k]);
  });
  return taken.first_missing();
}

/// Greedy in the columns' order: each column gets the smallest color its neighbours leave free.
template <std::size_t C>
constexpr column_coloring<C> greedy_coloring(const std::array<dependencies<C>, C>& neighbours) {
  column_coloring<C> out;
  out.color.fill(C);
  for (std::size_t j = 0; j < C; ++j) {
    out.color[j] = neighbours[j].empty() ? 0 : free_color(neighbours[j], j, out.color, C);
    if (!neighbours[j].empty() && out.color[j] + 1 > out.count) out.count = out.color[j] + 1;
  }
  return out;
}

/// DSATUR (Brelaz, 1979): the next column is the one whose neighbours already have the most colors
/// (ties: the most neighbours, then the first), which colors a 5-point stencil with 5 where the
/// columns' order takes 7.
template <std::size_t C>
constexpr column_coloring<C> saturation_coloring(const std::array<dependencies<C>, C>& neighbours) {
  column_coloring<C> out;
  out.color.fill(C);
  std::array<dependencies<C>, C> seen{};  // the colors among each column's colored neighbours
  std::array<std::size_t, C> saturation{}, degree{};
  // The uncolored columns by their saturation (the number of colors seen), so that the next one is
  // found among the few of the highest, not among all.
  std::array<dependencies<C>, C + 1> by_saturation{};
  std::size_t left = 0, top = 0;
  for (std::size_t j = 0; j < C; ++j) {
    degree[j] = neighbours[j].count();
    if (neighbours[j].empty()) {
      out.color[j] = 0;  // a column with no entry is in no product: color 0 serves, at no cost
    } else {
      by_saturation[0] += dependencies<C>::of(j);
      ++left;
    }
  }
  for (; left > 0; --left) {
    while (by_saturation[top].empty()) --top;
    std::size_t next = C;
    by_saturation[top].each([&](std::size_t j) {
      if (next == C || degree[j] > degree[next]) next = j;
    });
    by_saturation[top].erase(next);
    const std::size_t c = free_color(neighbours[next], next, out.color, C);
    out.color[next] = c;
    if (c + 1 > out.count) out.count = c + 1;
    neighbours[next].each([&](std::size_t k) {
      if (out.color[k] != C || seen[k].contains(c)) return;
      seen[k] += dependencies<C>::of(c);
      by_saturation[saturation[k]].erase(k);
      by_saturation[++saturation[k]] += dependencies<C>::of(k);
      if (saturation[k] > top) top = saturation[k];
    });
  }
  return out;
}

}  // namespace detail

/// A coloring of p's columns in which no two columns of one color share a row (see the file comment):
/// the fewer colors of the greedy coloring in the columns' order and of DSATUR's.
template <std::size_t R, std::size_t C>
constexpr column_coloring<C> color_columns(const sparsity_pattern<R, C>& p) {
  const auto neighbours = detail::column_neighbours(p);
  const column_coloring<C> in_order = detail::greedy_coloring(neighbours);
  const column_coloring<C> saturated = detail::saturation_coloring(neighbours);
  return saturated.count < in_order.count ? saturated : in_order;
}

}  // namespace tapeless
