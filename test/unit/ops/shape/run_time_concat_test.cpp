// SPDX-License-Identifier: BSL-1.0
// tl::concat of vectors of run-time extents, numbers and fixed vectors (ops/shape.hpp, run_time_concat):
// its value and extents, its gradient against the fixed-shape twin at the same values and by hand at
// sizes 0, 1, around a SIMD batch, 31, 32, 33 and 256, central differences at seeded points, bounded
// operands in a constant expression and without allocation, an Eigen vector read in place.
#include <doctest/doctest.h>
#include <tapeless/interop/eigen.hpp>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <run_time_twin.hpp>

#include <Eigen/Core>

#include <cstddef>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

using run_time_twin::dynamic_vector;
using run_time_twin::seeded;

/// sum(w * concat(a, s, b)^2) + concat(a, b)[0] s: weights w (data) of n + m + 1 elements.
template <class W>
auto weighted(const W& w) {
  return [&w](const auto& a, const auto& s, const auto& b) {
    const auto z = tl::concat(a, s, b);
    return tl::sum(tl::cref(w) * tl::square(z)) + tl::sum(tl::concat(a, b)) * s;
  };
}

TEST_CASE("tl::concat of vectors of run-time extents: value, extents and type") {
  const dynamic_vector a{1.0, 2.0}, b{3.0, 4.0, 5.0};
  const double expected[] = {1, 2, 7, 3, 4, 5};
  // Of plain values, the plain vector.
  const auto v = tl::concat(a, 7.0, b);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(v)>, dynamic_vector>);
  REQUIRE(v.size() == 6);
  for (std::size_t k = 0; k < 6; ++k) CHECK(v[k] == expected[k]);
  // Of a node, a node that knows its extents.
  const auto g = tl::grad([&](const auto& x) {
    const auto z = tl::concat(x, 7.0, tl::cref(b));
    CHECK(z.rows() == 6);
    CHECK(z.cols() == 1);
    CHECK(z.size() == 6);
    for (std::size_t k = 0; k < 6; ++k) CHECK(z.value()[k] == expected[k]);
    return tl::sum(z);
  })(a);
  CHECK(g[0] == 1.0);
  CHECK(g[1] == 1.0);
  // Bounded and fixed operands: a bounded result, no heap.
  const tl::vector<double, tl::bounded<4>> c{1.0, 2.0, 3.0};
  const auto zb = tl::concat(c, tl::vector<double, 2>{8.0, 9.0});
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(zb)>, tl::vector<double, tl::bounded<6>>>);
  CHECK(zb.size() == 5);
  CHECK(zb[4] == 9.0);
}

template <class V>
void check_by_hand(std::size_t n, std::size_t m) {
  CAPTURE(n);
  CAPTURE(m);
  const V a = seeded<V>(n, 1 + n), b = seeded<V>(m, 2 + m);
  const dynamic_vector w = seeded<dynamic_vector>(n + m + 1, 3 + n + m, 0.5, 2.0);
  const double s = -0.8;
  const auto [value, g] = tl::value_and_grad(weighted(w))(a, s, b);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(g))>, V>);
  REQUIRE(std::get<0>(g).size() == n);
  REQUIRE(std::get<2>(g).size() == m);
  double expected = w[n] * s * s, total = 0;
  for (std::size_t k = 0; k < n; ++k) {
    expected += w[k] * a[k] * a[k];
    total += a[k];
    CHECK(fd::rel_error(std::get<0>(g)[k], 2 * w[k] * a[k] + s) < 1e-13);
  }
  for (std::size_t k = 0; k < m; ++k) {
    expected += w[n + 1 + k] * b[k] * b[k];
    total += b[k];
    CHECK(fd::rel_error(std::get<2>(g)[k], 2 * w[n + 1 + k] * b[k] + s) < 1e-13);
  }
  expected += total * s;
  CHECK(fd::rel_error(value, expected) < 1e-12);
  CHECK(fd::rel_error(std::get<1>(g), 2 * w[n] * s + total) < 1e-12);
}

TEST_CASE("tl::concat: the gradient by hand at every size, dynamic and bounded") {
  for (std::size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 256}) {
    check_by_hand<dynamic_vector>(n, 3);
    check_by_hand<dynamic_vector>(2, n);
    check_by_hand<tl::vector<double, tl::bounded<256>>>(n, n);
  }
}

TEST_CASE("tl::concat: the fixed-shape twin, and central differences") {
  run_time_twin::at_sizes([]<std::size_t N>() {
    CAPTURE(N);
    const auto a = seeded<dynamic_vector>(N, 11 + N), b = seeded<dynamic_vector>(N, 12 + N);
    const auto w = seeded<dynamic_vector>(2 * N + 1, 13 + N, 0.5, 2.0);
    const auto wf = run_time_twin::fixed_copy<2 * N + 1>(w);
    const auto [value, g] = tl::value_and_grad(weighted(w))(a, 0.3, b);
    const auto [fixed_value, fixed_g] =
        tl::value_and_grad(weighted(wf))(run_time_twin::fixed_copy<N>(a), 0.3, run_time_twin::fixed_copy<N>(b));
    CHECK(fd::rel_error(value, fixed_value) < 1e-13);
    CHECK(fd::rel_error(std::get<1>(g), std::get<1>(fixed_g)) < 1e-13);
    for (std::size_t k = 0; k < N; ++k) {
      CHECK(fd::rel_error(std::get<0>(g)[k], std::get<0>(fixed_g)[k]) < 1e-13);
      CHECK(fd::rel_error(std::get<2>(g)[k], std::get<2>(fixed_g)[k]) < 1e-13);
    }
  });
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const auto a = seeded<dynamic_vector>(4 + seed, 21 * seed), b = seeded<dynamic_vector>(seed, 22 * seed);
    const auto w = seeded<dynamic_vector>(5 + 2 * seed, 23 * seed, 0.5, 2.0);
    const auto f = weighted(w);
    const auto g = tl::grad(f)(a, 0.6, b);
    for (std::size_t k = 0; k < a.size(); ++k)
      CHECK(fd::rel_error(std::get<0>(g)[k], fd::partial([&](const auto& x) { return f(x, 0.6, b); }, a, k)) < 1e-8);
    for (std::size_t k = 0; k < b.size(); ++k)
      CHECK(fd::rel_error(std::get<2>(g)[k], fd::partial([&](const auto& x) { return f(a, 0.6, x); }, b, k)) < 1e-8);
    CHECK(fd::rel_error(std::get<1>(g), fd::derivative([&](double s) { return f(a, s, b); }, 0.6)) < 1e-8);
  }
}

TEST_CASE("tl::concat of bounded vectors: a constant expression, and no allocation") {
  using V = tl::vector<double, tl::bounded<8>>;
  static constexpr auto g = [] {
    V a(2), b(3);
    for (std::size_t k = 0; k < 2; ++k) a[k] = 1.0 + double(k);
    for (std::size_t k = 0; k < 3; ++k) b[k] = 0.5 * double(k);
    return tl::grad([](const auto& a, const auto& b) { return tl::squared_norm(tl::concat(b, a)); })(a, b);
  }();
  static_assert(std::get<0>(g)[1] == 4.0);
  static_assert(std::get<1>(g)[2] == 2.0);
  const V a = seeded<V>(5, 31), b = seeded<V>(8, 32);
  const dynamic_vector w = seeded<dynamic_vector>(14, 33);
  const long count = test_support::allocations_during([&] {
    const auto r = tl::grad([](const auto& a, const auto& b) { return tl::squared_norm(tl::concat(b, a)); })(a, b);
    CHECK(std::get<1>(r).size() == 8);
  });
  CHECK(count == 0);
}

TEST_CASE("tl::concat of an Eigen vector and a tl::dynamic one: the same gradient") {
  const auto a = seeded<dynamic_vector>(6, 41), b = seeded<dynamic_vector>(4, 42);
  const auto w = seeded<dynamic_vector>(11, 43, 0.5, 2.0);
  Eigen::VectorXd ae(6);
  for (std::size_t k = 0; k < 6; ++k) ae(Eigen::Index(k)) = a[k];
  const auto g = tl::grad(weighted(w))(a, 0.2, b);
  const auto ge = tl::grad(weighted(w))(ae, 0.2, b);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(ge))>, Eigen::VectorXd>);
  for (std::size_t k = 0; k < 6; ++k) CHECK(std::get<0>(ge)(Eigen::Index(k)) == std::get<0>(g)[k]);
  for (std::size_t k = 0; k < 4; ++k) CHECK(std::get<2>(ge)[k] == std::get<2>(g)[k]);
  CHECK(std::get<1>(ge) == std::get<1>(g));
}

}  // namespace
