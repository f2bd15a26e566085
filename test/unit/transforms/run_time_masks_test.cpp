// SPDX-License-Identifier: BSL-1.0
// Comparisons of arrays of run-time extents, formulas of bools (expr/run_time_elementwise.hpp, ops/mask.hpp),
// and tl::if_else, tl::any, tl::all and tl::count of them (transforms/run_time_masks.hpp): against the
// fixed-shape twin at the same values at sizes around a SIMD batch and 31, 32, 33, 256; against central
// differences at seeded points away from the kinks; against the gradient by hand at 0 and 1 elements; plain
// values; broadcast rows; every shape error; a bounded vector without allocation and in a constant expression.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <run_time_twin.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

using run_time_twin::dynamic_vector;
using run_time_twin::seeded;
using dynamic_matrix = tl::matrix<double, tl::dynamic, tl::dynamic>;

/// Every comparison and mask operation in if_else, over x, data y and a number a; the same text serves the
/// fixed twin (its comparisons give tl::mask) and the run-time form (formulas of bools).
template <class Y>
auto model(const Y& y) {
  return [&y](const auto& x, const auto& a) {
    const auto above = x > tl::cref(y);
    const auto leaky = tl::if_else(x > 0.0, x, 0.1 * x);
    const auto band = (x >= -0.5) & (x <= 0.5);
    return tl::sum(tl::if_else(above, a * x, tl::square(x))) + tl::sum(tl::square(leaky)) +
           tl::sum(tl::if_else(band | (x < tl::cref(y)), tl::exp(x), a)) +
           tl::sum(tl::if_else(~above ^ (x < -1.0), 2.0, tl::sin(a * x))) +
           tl::sum(tl::if_else(tl::not_equal(x, tl::cref(y)), x * tl::cref(y), 0.0)) +
           tl::sum(tl::if_else(tl::equal(x, tl::cref(y)), 1.0, tl::cos(x)));
  };
}

template <std::size_t N>
void check_against_fixed_twin() {
  CAPTURE(N);
  const auto x = seeded<dynamic_vector>(N, 1 + N), y = seeded<dynamic_vector>(N, 2 + N);
  const auto xf = run_time_twin::fixed_copy<N>(x), yf = run_time_twin::fixed_copy<N>(y);
  run_time_twin::check_against_twin(model(y), model(yf), x, xf, 0.75);
  // The masks themselves, of plain vectors and inside f, against the fixed ones.
  const auto m = (x > y) | (x < -1.0);
  const auto mf = (xf > yf) | (xf < -1.0);
  CHECK(tl::count(m) == tl::count(mf));
  CHECK(tl::any(m) == tl::any(mf));
  CHECK(tl::all(m) == tl::all(mf));
  for (std::size_t k = 0; k < N; ++k) CHECK(m[k] == mf[k]);
  const auto counted = [&y](const auto& v) {
    return static_cast<double>(tl::count(v > tl::cref(y))) * tl::sum(tl::if_else(v > tl::cref(y), v, 0.0));
  };
  CHECK(tl::grad(counted)(x)[N - 1] == tl::grad(counted)(xf)[N - 1]);
}

}  // namespace

TEST_CASE("tl::if_else of comparisons of a run-time vector against its fixed-shape twin at the same values") {
  check_against_fixed_twin<1>();
  run_time_twin::at_sizes([]<std::size_t N>() { check_against_fixed_twin<N>(); });
}

TEST_CASE("tl::if_else of a run-time vector against central differences at seeded points away from the kinks") {
  const dynamic_vector y = seeded<dynamic_vector>(64, 7);
  for (const std::size_t n : {1, 3, 5, 33, 64}) {
    CAPTURE(n);
    auto x = seeded<dynamic_vector>(n, 200 + n);
    // The differences step up to 1e-3: an element that near a kink moves off it by steps of 0.01.
    const auto near_kink = [&](std::size_t k) {
      return std::abs(x[k] - y[k]) < 2e-3 || std::abs(x[k]) < 2e-3 || std::abs(x[k] + 1.0) < 2e-3;
    };
    for (std::size_t k = 0; k < n; ++k)
      while (near_kink(k)) x[k] += 0.01;
    const dynamic_vector y_n = [&] {
      dynamic_vector out(n);
      for (std::size_t k = 0; k < n; ++k) out[k] = y[k];
      return out;
    }();
    const auto g_of = [&y_n](const auto& x, const auto& a) {
      return tl::sum(tl::if_else(x > tl::cref(y_n), a * tl::square(x), tl::exp(a * x)) +
                     tl::if_else((x < 0.0) & (x > -1.0), tl::sin(x), a));
    };
    const auto [gx, ga] = tl::grad(g_of)(x, 0.8);
    for (std::size_t k = 0; k < n; ++k) {
      CAPTURE(k);
      CHECK(fd::rel_error(gx[k], fd::partial([&](const dynamic_vector& v) { return g_of(v, 0.8); }, x, k)) < 1e-7);
    }
    CHECK(fd::rel_error(ga, fd::derivative([&](double b) { return g_of(x, b); }, 0.8)) < 1e-7);
  }
}

TEST_CASE("no elements and one, by hand: the taken branch alone receives the adjoint, ties as the fixed twin") {
  const auto leaky = [](const auto& x) { return tl::sum(tl::if_else(x > 0.0, x, 0.1 * x)); };
  const dynamic_vector none(0);
  const auto [v0, g0] = tl::value_and_grad(leaky)(none);
  CHECK(v0 == 0.0);
  CHECK(g0.size() == 0);
  CHECK(!tl::any(none > 0.0));
  CHECK(tl::all(none > 0.0));
  CHECK(tl::count(none > 0.0) == 0);
  const auto [v1, g1] = tl::value_and_grad(leaky)(dynamic_vector{-2.0});
  CHECK(v1 == -0.2);
  CHECK(g1 == dynamic_vector{0.1});
  // At the kink the comparison decides: 0 > 0 is false, the 0.1 branch; as the fixed twin.
  const dynamic_vector x{-1.0, 0.0, 2.0};
  CHECK(tl::grad(leaky)(x) == dynamic_vector{0.1, 0.1, 1.0});
  CHECK(tl::grad(leaky)(tl::vector<double, 3>{-1.0, 0.0, 2.0}) == tl::vector<double, 3>{0.1, 0.1, 1.0});
  // A number branch receives the adjoints of the elements that took it; a number read by the condition
  // alone receives nothing from it.
  const auto clipped = [](const auto& v, const auto& c) { return tl::sum(tl::if_else(v > c, c, 3.0 * v)); };
  const auto [gv, gc] = tl::grad(clipped)(x, 0.5);
  CHECK(gv == dynamic_vector{3.0, 3.0, 0.0});
  CHECK(gc == 1.0);
  // NaN: every comparison with NaN is false, as for fixed shapes.
  const dynamic_vector nan{std::nan("")};
  CHECK(tl::grad(leaky)(nan) == dynamic_vector{0.1});
}

TEST_CASE("comparisons of plain run-time arrays: formulas of bools, read by element; tl::if_else of plain values") {
  const dynamic_vector x{-1.0, 2.0, 0.5, 4.0}, y{0.0, 3.0, 0.5, 1.0};
  const auto m = x < y;
  CHECK(m.size() == 4);
  CHECK(m.rows() == 4);
  CHECK(m.cols() == 1);
  CHECK((m[0] && m[1] && !m[2] && !m[3]));
  CHECK(m(1, 0));
  CHECK(tl::count(m) == 2);
  CHECK(tl::count(~m) == 2);
  CHECK(tl::count(m & (x > 0.0)) == 1);
  CHECK(tl::count(m | (x > 3.0)) == 3);
  CHECK(tl::count(m ^ (x > 0.0)) == 3);
  CHECK(tl::count(tl::equal(x, y)) == 1);
  CHECK(tl::count(tl::not_equal(x, y)) == 3);
  CHECK(tl::count(x <= y) == 3);
  CHECK(tl::count(x >= y) == 2);
  CHECK(tl::count(1.0 <= x) == 2);
  const auto chosen = tl::if_else(m, x, 10.0 * y);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(chosen)>, dynamic_vector>);
  CHECK(chosen == dynamic_vector{-1.0, 2.0, 5.0, 10.0});
  CHECK(tl::if_else(true, x, y) == x);
  CHECK(tl::if_else(false, x, 0.0) == dynamic_vector{0.0, 0.0, 0.0, 0.0});
  CHECK_THROWS_AS((void)m[4], std::out_of_range);
  CHECK_THROWS_AS((void)m(0, 1), std::out_of_range);
}

TEST_CASE("tl::if_else of one bool over run-time arrays, a matrix's rows against a repeated row, as the fixed twin") {
  const dynamic_vector x{-1.0, 2.0, 0.5};
  const auto pick = [&x](bool first) {
    return [first, &x](const auto& v, const auto& a) {
      return tl::sum(tl::if_else(first, a * v * tl::cref(x), tl::square(v)));
    };
  };
  const auto [gv, ga] = tl::grad(pick(true))(2.0 * x, 3.0);
  CHECK(gv == 3.0 * x);
  CHECK(ga == 2.0 * tl::squared_norm(x));
  const auto [hv, ha] = tl::grad(pick(false))(2.0 * x, 3.0);
  CHECK(hv == 4.0 * x);
  CHECK(ha == 0.0);

  // A row of limits repeated over a matrix's rows: each element clipped at its column's limit. The fixed
  // twin, whose comparisons take one shape, reads the limits written out for every row.
  tl::matrix<double, 3, 4> Af, Rf;
  const double limits[4] = {0.1, -0.2, 0.3, 0.0};
  fd::rng u(5);
  for (double& a : Af) a = u.uniform(-1.0, 1.0);
  dynamic_matrix A(3, 4);
  tl::matrix<double, 1, tl::dynamic> r(1, 4);
  for (std::size_t k = 0; k < 12; ++k) A.data()[k] = Af.data()[k], Rf.data()[k] = limits[k % 4];
  for (std::size_t j = 0; j < 4; ++j) r(0, j) = limits[j];
  const auto clip = [](const auto& data) {
    return
        [&data](const auto& M) { return tl::sum(tl::square(tl::if_else(M > tl::cref(data), tl::cref(data), M)) * M); };
  };
  const auto g = tl::grad(clip(r))(A);
  const auto gf = tl::grad(clip(Rf))(Af);
  for (std::size_t k = 0; k < 12; ++k) CHECK(fd::rel_error(g.data()[k], gf.data()[k]) < 1e-14);
  // The formula as f's result: tl::jacobian is the diagonal of the slopes.
  const auto J = tl::jacobian([](const auto& v) { return tl::if_else(v > 0.0, tl::square(v), -v); })(x);
  CHECK(J == dynamic_matrix{{1.0, 0.0, 0.0}, {0.0, 4.0, 0.0}, {0.0, 0.0, 1.0}} * -1.0 +
                 dynamic_matrix{{0.0, 0.0, 0.0}, {0.0, 8.0, 0.0}, {0.0, 0.0, 2.0}});
}

TEST_CASE("shapes that differ throw std::invalid_argument naming the operation and both") {
  const dynamic_vector x{1.0, 2.0, 3.0, 4.0}, y3{1.0, 2.0, 3.0};
  CHECK_THROWS_WITH_AS(tl::grad([&](const auto& v) { return tl::sum(tl::if_else(v < tl::cref(y3), v, 0.0)); })(x),
                       "tl: operator< of a 4 x 1 and a 3 x 1 array; elementwise operands have one shape",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)(x >= y3),
                       "tl: operator>= of a 4 x 1 and a 3 x 1 array; elementwise operands have one shape",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)tl::equal(x, y3),
                       "tl: tl::equal of a 4 x 1 and a 3 x 1 array; elementwise operands have one shape",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(tl::grad([&](const auto& v) { return tl::sum(tl::if_else(y3 > 0.0, v, 0.0)); })(x),
                       "tl: tl::if_else of a 3 x 1 and a 4 x 1 array; elementwise operands have one shape",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)((x > 0.0) & (y3 > 0.0)),
                       "tl: operator& of a 4 x 1 and a 3 x 1 array; elementwise operands have one shape",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)tl::if_else(true, x, y3),
                       "tl: tl::if_else of a 4 x 1 and a 3 x 1 array; elementwise operands have one shape",
                       std::invalid_argument);
}

TEST_CASE("a bounded vector: no allocation, and the gradient in a constant expression") {
  using bounded_vector = tl::vector<double, tl::bounded<8>>;
  const auto leaky = [](const auto& x) { return tl::sum(tl::if_else(x > 0.0, x, 0.1 * x)); };
  const bounded_vector x{-1.0, 2.0, 4.0};
  CHECK(test_support::allocations_during([&] { (void)tl::grad(leaky)(x); }) == 0);
  CHECK(test_support::allocations_during([&] { (void)tl::count((x > 0.0) & ~(x > 3.0)); }) == 0);
  constexpr auto g = [] {
    return tl::grad([](const auto& x) { return tl::sum(tl::if_else(x > 0.0, tl::square(x), 0.1 * x)); })(
        bounded_vector{-1.0, 2.0, 4.0});
  }();
  static_assert(g[0] == 0.1 && g[1] == 4.0 && g[2] == 8.0);
  static_assert(tl::count(bounded_vector{-1.0, 2.0, 4.0} > 0.0) == 2);
}
