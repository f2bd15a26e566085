// SPDX-License-Identifier: BSL-1.0
// tl::color_columns (matrix/column_coloring.hpp): no two columns of one color share a row, for
// diagonal, banded, stencil, dense and empty patterns and columns without entries; the counts of
// colors of the banded and stencil patterns.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;

namespace {

// The pattern of a matrix with bandwidth B: entries (i, j) with |i - j| <= B.
template <std::size_t N, std::size_t B>
constexpr tl::sparsity_pattern<N, N> banded() {
  tl::sparsity_pattern<N, N> p{};
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < N; ++j)
      if (i <= j + B && j <= i + B) p.insert(i, j);
  return p;
}

// The 5-point stencil of a G x G grid.
template <std::size_t G>
constexpr tl::sparsity_pattern<G * G, G * G> stencil() {
  tl::sparsity_pattern<G * G, G * G> p{};
  for (std::size_t i = 0; i < G; ++i)
    for (std::size_t j = 0; j < G; ++j) {
      const std::size_t a = i * G + j;
      p.insert(a, a);
      if (j + 1 < G) p.insert(a, a + 1), p.insert(a + 1, a);
      if (i + 1 < G) p.insert(a, a + G), p.insert(a + G, a);
    }
  return p;
}

// Whether no row holds two columns of one color.
template <std::size_t R, std::size_t C>
constexpr bool structurally_orthogonal(const tl::sparsity_pattern<R, C>& p, const tl::column_coloring<C>& c) {
  bool distinct = true;
  for (std::size_t i = 0; i < R; ++i) {
    tl::detail::dependencies<C> colors{};
    p.row_sets[i].each([&](std::size_t j) {
      distinct = distinct && !colors.contains(c.color[j]);
      colors += tl::detail::dependencies<C>::of(c.color[j]);
    });
  }
  return distinct;
}

}  // namespace

TEST_CASE("banded patterns take bandwidth 2 B + 1 colors whatever their size, a stencil 5") {
  constexpr auto diagonal = banded<40, 0>(), tri = banded<40, 1>(), penta = banded<40, 2>();
  static_assert(tl::color_columns(diagonal).count == 1);
  static_assert(tl::color_columns(tri).count == 3 && tl::color_columns(banded<200, 1>()).count == 3);
  static_assert(tl::color_columns(penta).count == 5);
  static_assert(structurally_orthogonal(tri, tl::color_columns(tri)));
  static_assert(structurally_orthogonal(penta, tl::color_columns(penta)));
  constexpr auto grid = stencil<9>();
  constexpr auto c = tl::color_columns(grid);
  static_assert(c.count == 5 && structurally_orthogonal(grid, c));
}

TEST_CASE("dense, empty and partly empty patterns") {
  constexpr auto dense = [] {
    tl::sparsity_pattern<6, 4> p{};
    for (std::size_t i = 0; i < 6; ++i)
      for (std::size_t j = 0; j < 4; ++j) p.insert(i, j);
    return p;
  }();
  static_assert(tl::color_columns(dense).count == 4 && structurally_orthogonal(dense, tl::color_columns(dense)));
  static_assert(tl::color_columns(tl::sparsity_pattern<5, 5>{}).count == 0);
  // Columns 1 and 3 have no entry: they need no color of their own, and the others share none.
  constexpr auto partly = [] {
    tl::sparsity_pattern<3, 4> p{};
    p.insert(0, 0);
    p.insert(0, 2);
    p.insert(2, 2);
    return p;
  }();
  constexpr auto c = tl::color_columns(partly);
  static_assert(c.count == 2 && structurally_orthogonal(partly, c));
  CHECK(c.columns_of(c.color[0]).contains(0));
  CHECK(!c.columns_of(c.color[0]).contains(2));
}
