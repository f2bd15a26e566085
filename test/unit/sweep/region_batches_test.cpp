// SPDX-License-Identifier: BSL-1.0
// A small region whose inputs with an adjoint are slices of one leaf at starts at most a batch apart
// (sweep_region_window in sweep/region_batches.hpp): its loop adds the slices' adjoints into a window of
// two batches (simd/window.hpp) and each element of the leaf's adjoint once. Every offset from 1 to a
// batch and past it, the slices in either order, three of them, starts away from 0 and elements of the
// leaf no slice reaches, at region sizes 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17 and 31 (and 32, 33, where
// the region is large enough to be a region of its own), against the exact gradient in long double,
// the node-by-node sweep (value_and_grad) and central finite differences at seeded random points; inf
// and NaN; -0 where every adjoint an element receives is -0, +0 where none. Built again with AVX2's 4
// lanes (test/CMakeLists.txt).
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <matrix_check.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>

namespace tl = tapeless;

namespace {

using mx::seeded;
namespace d = tl::detail;

/// sum(100 (b - a^2)^2 + (1 - a)^2 + c a b) with a and b slices of x of L elements from A and B, and a
/// third slice from C (none where C is A): Rosenbrock's shape, for any offsets.
template <std::size_t L, std::size_t A, std::size_t B, std::size_t C = A>
struct shifted {
  template <class X>
  auto operator()(const X& x) const {
    const auto a = tl::slice<A, L>(x);
    const auto b = tl::slice<B, L>(x);
    if constexpr (C == A)
      return tl::sum(100.0 * tl::square(b - tl::square(a)) + tl::square(1.0 - a) + 0.5 * a * b);
    else
      return tl::sum(100.0 * tl::square(b - tl::square(a)) + tl::square(1.0 - a) + 0.5 * a * tl::slice<C, L>(x));
  }
};

/// Its exact gradient, in long double.
template <std::size_t L, std::size_t A, std::size_t B, std::size_t C, std::size_t N>
std::array<long double, N> shifted_gradient(const tl::vector<double, N>& x) {
  std::array<long double, N> g{};
  for (std::size_t i = 0; i < L; ++i) {
    const long double a = x[A + i], b = x[B + i], c = x[C + i];
    const long double u = b - a * a;
    g[A + i] += -400.0L * u * a - 2.0L * (1.0L - a) + 0.5L * (C == A ? b : c);
    g[B + i] += 200.0L * u + (C == A ? 0.5L * a : 0.0L);
    if (C != A) g[C + i] += 0.5L * a;
  }
  return g;
}

/// The region of shifted<L, A, B, C> over x of N elements.
template <std::size_t L, std::size_t A, std::size_t B, std::size_t C, std::size_t N>
using region_t = decltype(shifted<L, A, B, C>{}(std::declval<const tl::argument<0, tl::vector<double, N>>&>()).arg);

/// Whether the window should take that region: smaller than fuse_min_elements, slices at most a batch
/// and at most L apart.
template <std::size_t L, std::size_t A, std::size_t B, std::size_t C>
constexpr bool windowed() {
#if TAPELESS_SIMD
  constexpr std::size_t least = std::min({A, B, C}), greatest = std::max({A, B, C});
  return L < d::fuse_min_elements && greatest - least <= d::simd::width<double> && greatest - least <= L;
#else
  return false;
#endif
}

/// grad against the exact gradient, the node-by-node sweep and finite differences; E more elements of
/// x than the slices reach, which receive +0.
template <std::size_t L, std::size_t A, std::size_t B, std::size_t C = A, std::size_t E = 0>
void check_shifted() {
  constexpr std::size_t n = std::max({A, B, C}) + L + E;
  using V = tl::vector<double, n>;
  static_assert(d::region_in_window<region_t<L, A, B, C, n>, double> == windowed<L, A, B, C>());
  const shifted<L, A, B, C> f;
  const std::string what = "L = " + std::to_string(L) + ", slices from " + std::to_string(A) + ", " +
                           std::to_string(B) + ", " + std::to_string(C) + ", n = " + std::to_string(n);
  INFO(what);
  const auto x = seeded<n>(7 * L + A + 3 * B + 5 * C, -1.5, 1.5);
  const V g = tl::grad(f)(x);
  const auto exact = shifted_gradient<L, A, B, C>(x);
  long double largest = 0;
  for (const long double e : exact) largest = std::max(largest, std::fabs(e));
  for (std::size_t i = 0; i < n; ++i) {
    INFO("element " << i << ": " << fd::str(g[i]) << " against " << fd::str(static_cast<double>(exact[i])));
    CHECK(std::fabs(g[i] - exact[i]) <= 1e-14L * largest);
  }
  for (std::size_t i = std::max({A, B, C}) + L; i < n; ++i) CHECK((g[i] == 0.0 && !std::signbit(g[i])));
  // Node by node adds head's and tail's adjoints, of opposite signs, in another order: within a rounding
  // of the largest.
  const V node_by_node = tl::value_and_grad(f)(x).second;
  for (std::size_t i = 0; i < n; ++i) {
    INFO("element " << i << ": " << fd::str(g[i]) << ", node by node " << fd::str(node_by_node[i]));
    CHECK(std::fabs(g[i] - node_by_node[i]) <= 1e-14L * largest);
  }
  CHECK(tl::check_gradient(f, x));
}

TEST_CASE("shifted slices of one leaf: every size around a batch, offset 1") {
  check_shifted<1, 0, 1>();
  check_shifted<2, 0, 1>();
  check_shifted<3, 0, 1>();
  check_shifted<4, 0, 1>();
  check_shifted<5, 0, 1>();
  check_shifted<7, 0, 1>();
  check_shifted<8, 0, 1>();
  check_shifted<9, 0, 1>();
  check_shifted<15, 0, 1>();  // Rosenbrock at n = 16, benchmark case S3
  check_shifted<16, 0, 1>();
  check_shifted<17, 0, 1>();
  check_shifted<31, 0, 1>();
  check_shifted<32, 0, 1>();  // a region of its own size: the loop that gathers each slice
  check_shifted<33, 0, 1>();
}

TEST_CASE("shifted slices of one leaf: every offset within a batch and past it, either order") {
  check_shifted<5, 0, 2>();
  check_shifted<5, 0, 3>();
  check_shifted<5, 0, 4>();
  check_shifted<5, 0, 5>();  // past 4 lanes: another loop
  check_shifted<9, 0, 8>();  // past any batch this build runs, but AVX-512's
  check_shifted<15, 3, 0>();
  check_shifted<15, 4, 1>();
  check_shifted<2, 0, 2>();  // the slices touch
  check_shifted<1, 0, 2>();  // a gap between them: not a window
  check_shifted<7, 2, 3, 2, 4>();
  check_shifted<3, 1, 2, 1, 3>();
}

TEST_CASE("shifted slices of one leaf: three slices") {
  check_shifted<1, 0, 1, 2>();
  check_shifted<4, 0, 1, 2>();
  check_shifted<15, 0, 1, 2>();
  check_shifted<15, 2, 0, 1>();
  check_shifted<6, 1, 4, 0, 2>();
  static_assert(d::region_in_window<region_t<15, 0, 1, 2, 17>, double> == TAPELESS_SIMD);
}

TEST_CASE("shifted slices of one leaf: inf and NaN reach the elements node by node reaches") {
  constexpr std::size_t n = 16;
  const shifted<15, 0, 1> f;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (const std::size_t at : {std::size_t{0}, std::size_t{3}, std::size_t{4}, std::size_t{12}, std::size_t{15}}) {
    for (const double bad : {inf, -inf, nan}) {
      auto x = seeded<n>(at, -1, 1);
      x[at] = bad;
      const auto g = tl::grad(f)(x);
      const auto node_by_node = tl::value_and_grad(f)(x).second;
      double largest = 0;
      for (std::size_t i = 0; i < n; ++i)
        if (std::isfinite(node_by_node[i])) largest = std::max(largest, std::fabs(node_by_node[i]));
      for (std::size_t i = 0; i < n; ++i) {
        INFO("x[" << at << "] = " << bad << ", element " << i << ": " << fd::str(g[i]) << " against "
                  << fd::str(node_by_node[i]));
        CHECK(std::isnan(g[i]) == std::isnan(node_by_node[i]));
        if (std::isinf(node_by_node[i]))
          CHECK(g[i] == node_by_node[i]);
        else if (!std::isnan(g[i]))
          CHECK(std::fabs(g[i] - node_by_node[i]) <= 1e-14 * largest);
      }
    }
  }
}

TEST_CASE("shifted slices of one leaf: -0 where every adjoint is -0") {
  // sum(a * b) at x = -0: every adjoint is -0. Where the first slice reaches, its adjoints are the sum's
  // first terms (as where the loop claims the leaf's sum for it), so -0; past it, +0 plus the second
  // slice's; beyond both, +0.
  constexpr std::size_t n = 19;
  const auto f = [](const auto& x) { return tl::sum(tl::slice<0, 15>(x) * tl::slice<2, 15>(x)); };
  using R = decltype(f(std::declval<const tl::argument<0, tl::vector<double, n>>&>()).arg);
  static_assert(d::region_in_window<R, double> == TAPELESS_SIMD);
  const auto g = tl::grad(f)(tl::vector<double, n>::filled(-0.0));
  for (std::size_t i = 0; i < n; ++i) {
    INFO("element " << i << ": " << fd::str(g[i]));
    CHECK(g[i] == 0.0);
    CHECK(std::signbit(g[i]) == (i < 15));
  }
}

}  // namespace
