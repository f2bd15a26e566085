// SPDX-License-Identifier: BSL-1.0
// tl::sum, tl::mean, tl::prod, tl::squared_norm, tl::norm, tl::dot, tl::log_sum_exp, tl::max_element,
// tl::min_element, tl::softmax and tl::log_softmax of arrays of run-time extents and of elementwise formulas over them
// (transforms/run_time_reduction.hpp, expr/run_time_elementwise.hpp), with tl::slice(v, start, length) and rows
// and columns broadcast over matrices (and on plain matrices, matrix/shape.hpp): against the
// fixed-shape twin at the same values at sizes around a SIMD batch and 31, 32, 33, 256; against central differences at
// seeded points; against the gradient by hand at 0 and 1 elements; every shape error and out-of-range slice; a bounded
// vector in a constant expression and without allocation.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <operations.hpp>
#include <run_time_twin.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

using run_time_twin::dynamic_vector;
using run_time_twin::seeded;

/// One formula of every reduction, over x (n elements), data y and w, a number a: written with
/// run-time slices, or (Fixed) with fixed ones.
template <bool Fixed, class Y, class W>
auto model(const Y& y, const W& w) {
  return [&y, &w](const auto& x, const auto& a) {
    const auto shifted = [&] {
      if constexpr (Fixed) {
        constexpr std::size_t n = tl::value_type_of_t<decltype(x)>::size();
        return tl::slice<1, n - 1>(x) - tl::slice<0, n - 1>(x);
      } else
        return tl::slice(x, 1, x.size() - 1) - tl::slice(x, 0, x.size() - 1);
    };
    return tl::sum(a * tl::square(x - tl::cref(y)) + tl::exp(0.1 * x)) + tl::dot(x, tl::cref(w)) +
           tl::mean(tl::sin(x) / (2.0 + tl::cref(y))) + 0.5 * tl::squared_norm(shifted()) +
           0.3 * tl::log_sum_exp(a * x - tl::cref(y)) + tl::norm(x - tl::cref(w)) + 0.25 * tl::max_element(a * x) -
           0.5 * tl::min_element(tl::square(x) - tl::cref(y));
  };
}

template <std::size_t N>
void check_against_fixed_twin() {
  CAPTURE(N);
  const auto x = seeded<dynamic_vector>(N, 1 + N), y = seeded<dynamic_vector>(N, 2 + N),
             w = seeded<dynamic_vector>(N, 3 + N);
  const auto yf = run_time_twin::fixed_copy<N>(y), wf = run_time_twin::fixed_copy<N>(w);
  run_time_twin::check_against_twin(model<false>(y, w), model<true>(yf, wf), x, run_time_twin::fixed_copy<N>(x), 0.75);
}

/// f(x, a)'s gradient against central differences, at x of each size n in `sizes` drawn from [lo, hi)
/// (seed + n) and at a.
template <class F>
void check_central_differences(const F& f, std::initializer_list<std::size_t> sizes, std::uint64_t seed, double lo,
                               double hi, double a) {
  for (const std::size_t n : sizes) {
    CAPTURE(n);
    const auto x = seeded<dynamic_vector>(n, seed + n, lo, hi);
    const auto [gx, ga] = tl::grad(f)(x, a);
    for (std::size_t k = 0; k < n; ++k) {
      CAPTURE(k);
      CHECK(fd::rel_error(gx[k], fd::partial([&](const dynamic_vector& v) { return f(v, a); }, x, k)) < 1e-7);
    }
    CHECK(fd::rel_error(ga, fd::derivative([&](double b) { return f(x, b); }, a)) < 1e-7);
  }
}

using dynamic_matrix = tl::matrix<double, tl::dynamic, tl::dynamic>;
using dynamic_row = tl::matrix<double, 1, tl::dynamic>;

/// The run-time matrix of the values of a fixed one, with extents of type M.
template <class M, class F>
M run_time_copy(const F& fixed) {
  M out(F::rows(), F::cols());
  for (std::size_t i = 0; i < F::rows(); ++i)
    for (std::size_t j = 0; j < F::cols(); ++j) out(i, j) = fixed(i, j);
  return out;
}

template <class A, class B>
void check_same_elements(const A& a, const B& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  for (std::size_t i = 0; i < a.rows(); ++i)
    for (std::size_t j = 0; j < a.cols(); ++j) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK(fd::rel_error(a(i, j), b(i, j)) < 1e-13);
    }
}

/// op broadcast between an R x 4 matrix of run-time extents and a 1 x 4 row (fixed, or of run-time
/// columns) or an R x 1 column of run-time rows, against the fixed-shape twin at the same values:
/// each differentiated in turn, the others data; a fixed row beside the matrix, both differentiated;
/// a column beside a row (R x 4); the plain values.
template <std::size_t R, class Op>
void check_broadcast_against_fixed_twin(const Op& op, std::uint64_t seed) {
  CAPTURE(R);
  constexpr std::size_t C = 4;
  fd::rng u(seed);
  tl::matrix<double, R, C> Mf;
  tl::matrix<double, 1, C> bf;
  tl::matrix<double, R, 1> cf;
  for (double& m : Mf) m = u.uniform(0.5, 1.5);
  for (double& b : bf) b = u.uniform(0.5, 1.5);
  for (double& c : cf) c = u.uniform(0.5, 1.5);
  const auto M = run_time_copy<dynamic_matrix>(Mf);
  const auto b = run_time_copy<dynamic_row>(bf);
  const auto c = run_time_copy<dynamic_vector>(cf);

  // The matrix and a fixed row, both differentiated, in both orders.
  const auto both = [&](const auto& m, const auto& r) { return tl::sum(tl::square(op(m, r)) + op(r, m)); };
  const auto [gm, gb] = tl::grad(both)(M, bf);
  const auto [fixed_gm, fixed_gb] = tl::grad(both)(Mf, bf);
  check_same_elements(gm, fixed_gm);
  check_same_elements(gb, fixed_gb);
  CHECK(fd::rel_error(both(M, bf), tl::value_and_grad(both)(Mf, bf).first) < 1e-13);
  // A row of run-time columns, and a column of run-time rows, differentiated beside the matrix as data.
  const auto row = [&](const auto& data) {
    return [&data, &op](const auto& r) { return tl::sum(op(tl::cref(data), r) * op(r, tl::cref(data))); };
  };
  check_same_elements(tl::grad(row(M))(b), tl::grad(row(Mf))(bf));
  check_same_elements(tl::grad(row(M))(c), tl::grad(row(Mf))(cf));
  // A column beside a row: the R x 4 matrix of every pair.
  const auto outer = [&](const auto& data) {
    return [&data, &op](const auto& v) { return tl::sum(op(v, tl::cref(data))); };
  };
  check_same_elements(tl::grad(outer(bf))(c), tl::grad(outer(bf))(cf));
  check_same_elements(tl::grad(outer(cf))(b), tl::grad(outer(cf))(bf));
  // Plain values: the broadcast matrix itself.
  check_same_elements(op(M, b), op(Mf, bf));
  check_same_elements(op(c, M), op(cf, Mf));
  check_same_elements(op(c, b), op(cf, bf));
}

}  // namespace

TEST_CASE("every reduction of a formula at run-time size against its fixed-shape twin at the same values") {
  run_time_twin::at_sizes([]<std::size_t N>() { check_against_fixed_twin<N>(); });
}

TEST_CASE("elementwise functions of a run-time vector against central differences at seeded points") {
  const auto f = [](const auto& x, const auto& a) {
    return tl::sum(tl::log(1.0 + tl::square(x)) * tl::tanh(a * x) + tl::sqrt(2.0 + x) / (1.5 + tl::cos(x)) +
                   tl::pow(tl::abs(x) + 1.0, 1.5) - tl::max(x, 0.25) * tl::min(a, x));
  };
  check_central_differences(f, {1, 3, 5, 33}, 10, -1.0, 1.0, 0.7);
}

TEST_CASE("no elements and one: the sums by hand; the mean of none is NaN") {
  const auto f = [](const auto& x) { return tl::sum(tl::square(x)) + tl::dot(x, 3.0 * x); };
  const dynamic_vector none(0);
  const auto [v0, g0] = tl::value_and_grad(f)(none);
  CHECK(v0 == 0.0);
  CHECK(g0.size() == 0);
  const dynamic_vector one{2.0};
  const auto [v1, g1] = tl::value_and_grad(f)(one);
  CHECK(v1 == 16.0);
  CHECK(g1[0] == 16.0);
  CHECK(std::isnan(tl::value_and_grad([](const auto& x) { return tl::mean(x); })(none).first));
  // A slice of length 0 and one at the end.
  const auto tail = [](const auto& x) { return tl::sum(tl::slice(x, x.size(), 0)) + tl::sum(tl::slice(x, 1, 1)); };
  const dynamic_vector two{1.0, 5.0};
  CHECK(tl::grad(tail)(two) == dynamic_vector{0.0, 1.0});
}

TEST_CASE("tl::log_sum_exp of a run-time argument is the fixed-shape operation: its bits, one allocation") {
  // An argument whose elements lie contiguous goes to the fixed-shape log_sum_exp itself, over its
  // run-time count: the same SIMD passes, so the value and the gradient are the fixed twin's bit for
  // bit; the exps it keeps for the rule become the gradient.
  const auto lse = [](const auto& x) { return tl::log_sum_exp(x); };
  const auto same_bits = [](double a, double b) { return a == b && std::signbit(a) == std::signbit(b); };
  const auto at = [&]<std::size_t N>() {
    CAPTURE(N);
    for (const double spread : {1.0, 40.0, 800.0}) {  // 800: exps that overflow unshifted
      CAPTURE(spread);
      const auto x = seeded<dynamic_vector>(N, 70 + N, -spread, spread);
      const tl::vector<double, tl::bounded<256>> xb(x);
      const auto [v, g] = tl::value_and_grad(lse)(x);
      const auto [vb, gb] = tl::value_and_grad(lse)(xb);
      const auto [vf, gf] = tl::value_and_grad(lse)(run_time_twin::fixed_copy<N>(x));
      CHECK(same_bits(v, vf));
      CHECK(same_bits(vb, vf));
      for (std::size_t k = 0; k < N; ++k) {
        CAPTURE(k);
        CHECK(same_bits(g[k], gf[k]));
        CHECK(same_bits(gb[k], gf[k]));
      }
      CHECK(same_bits(tl::grad(lse)(x)[N - 1], gf[N - 1]));
      CHECK(test_support::allocations_during([&] { (void)tl::grad(lse)(x); }) == 1);
      CHECK(test_support::allocations_during([&] { (void)tl::grad(lse)(xb); }) == 0);
    }
  };
  // One element, a batch less one, a batch, one more (AVX2's 4), 33 and 256.
  [&]<std::size_t... N>(std::index_sequence<N...>) { (at.template operator()<N>(), ...); }
  (std::index_sequence<1, 3, 4, 5, 33, 256>{});
  // In a constant expression, shifted by the largest element as the fixed twin is there.
  constexpr auto g = tl::grad(lse)(tl::vector<double, tl::bounded<4>>{0.5, 0.5, 0.5});
  static_assert(g.size() == 3 && g[0] == g[2]);
  static_assert(g[0] > 0.333333333333333 && g[0] < 0.333333333333334);
}

TEST_CASE("tl::log_sum_exp of a run-time vector: central differences, no elements and one, infinities and NaN") {
  const auto f = [](const auto& x, const auto& a) { return tl::log_sum_exp(a * x + tl::square(x)); };
  check_central_differences(f, {1, 3, 5, 33}, 20, -3.0, 3.0, 1.3);
  const auto lse = [](const auto& x) { return tl::log_sum_exp(x); };
  // Large elements: shifted by the largest, no exp overflows. The gradient is softmax(x).
  const auto [big, g_big] = tl::value_and_grad(lse)(dynamic_vector{1000.0, 1000.0, 999.0});
  const double e = std::exp(-1.0);
  CHECK(fd::rel_error(big, 1000.0 + std::log(2.0 + e)) < 1e-15);
  CHECK(fd::rel_error(g_big[0], 1.0 / (2.0 + e)) < 1e-15);
  CHECK(fd::rel_error(g_big[2], e / (2.0 + e)) < 1e-15);
  // None: log 0 = -inf; one: the element, and gradient 1.
  const auto [v0, g0] = tl::value_and_grad(lse)(dynamic_vector(0));
  CHECK(v0 == -std::numeric_limits<double>::infinity());
  CHECK(g0.size() == 0);
  const auto [v1, g1] = tl::value_and_grad(lse)(dynamic_vector{-0.75});
  CHECK(v1 == -0.75);
  CHECK(g1[0] == 1.0);
  // As the fixed-shape log_sum_exp: +inf elements share the gradient, all -inf gives -inf and the
  // uniform gradient, a NaN makes everything NaN.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const auto [v_inf, g_inf] = tl::value_and_grad(lse)(dynamic_vector{1.0, inf, -inf, inf});
  CHECK(v_inf == inf);
  CHECK(g_inf == dynamic_vector{0.0, 0.5, 0.0, 0.5});
  const auto [v_minus, g_minus] = tl::value_and_grad(lse)(dynamic_vector{-inf, -inf});
  CHECK(v_minus == -inf);
  CHECK(g_minus == dynamic_vector{0.5, 0.5});
  const auto [v_nan, g_nan] = tl::value_and_grad(lse)(dynamic_vector{1.0, nan, 2.0});
  CHECK(std::isnan(v_nan));
  for (std::size_t k = 0; k < 3; ++k) CHECK(std::isnan(g_nan[k]));
  // The same as the fixed-shape twin's.
  const auto [fixed_v_inf, fixed_g_inf] = tl::value_and_grad(lse)(tl::vector<double, 4>{1.0, inf, -inf, inf});
  CHECK(fixed_v_inf == v_inf);
  for (std::size_t k = 0; k < 4; ++k) CHECK(fixed_g_inf[k] == g_inf[k]);
  const auto [fixed_v_minus, fixed_g_minus] = tl::value_and_grad(lse)(tl::vector<double, 2>{-inf, -inf});
  CHECK(fixed_v_minus == v_minus);
  for (std::size_t k = 0; k < 2; ++k) CHECK(fixed_g_minus[k] == g_minus[k]);
}

TEST_CASE("tl::softmax and tl::log_softmax of a run-time vector: formulas of x's size, exact and as the fixed twin") {
  const auto f = [](const auto& x, const auto& a) {
    return tl::sum(tl::softmax(a * x) * tl::square(x)) + tl::sum(tl::log_softmax(x - a) * x);
  };
  check_central_differences(f, {1, 3, 5, 33}, 30, -3.0, 3.0, 0.8);
  // The exact gradient of c . log_softmax(x), c - softmax(x) sum(c), and of c . softmax(x),
  // softmax(x) (c - c . softmax(x)), at 0, 1 and 33 elements; the values on plain numbers.
  for (const std::size_t n : {0u, 1u, 33u}) {
    CAPTURE(n);
    const auto x = seeded<dynamic_vector>(n, 40 + n, -20.0, 20.0);
    const auto c = seeded<dynamic_vector>(n, 50 + n);
    const auto soft = tl::softmax(x);
    const auto log_soft = tl::log_softmax(x);
    double largest = -std::numeric_limits<double>::infinity(), sum_exp = 0.0, sum_c = 0.0, c_soft = 0.0;
    for (std::size_t k = 0; k < n; ++k) largest = std::max(largest, x[k]);
    for (std::size_t k = 0; k < n; ++k) sum_exp += std::exp(x[k] - largest), sum_c += c[k];
    for (std::size_t k = 0; k < n; ++k) c_soft += c[k] * std::exp(x[k] - largest) / sum_exp;
    const auto g_log = tl::grad([&](const auto& x) { return tl::dot(tl::cref(c), tl::log_softmax(x)); })(x);
    const auto g_soft = tl::grad([&](const auto& x) { return tl::dot(tl::cref(c), tl::softmax(x)); })(x);
    REQUIRE(soft.size() == n);
    for (std::size_t k = 0; k < n; ++k) {
      CAPTURE(k);
      const double p = std::exp(x[k] - largest) / sum_exp;
      CHECK(fd::rel_error(soft[k], p) < 1e-15);
      CHECK(std::abs(log_soft[k] - (x[k] - largest - std::log(sum_exp))) < 1e-14 * (1.0 + std::abs(log_soft[k])));
      CHECK(std::abs(g_log[k] - (c[k] - p * sum_c)) < 1e-14 * (1.0 + std::abs(sum_c)));
      CHECK(std::abs(g_soft[k] - p * (c[k] - c_soft)) < 1e-15 * (1.0 + std::abs(c[k])));
    }
  }
  // Where softmax underflows to 0, log_softmax is exact; +inf elements share softmax equally, all -inf
  // gives the uniform softmax, a NaN makes every element NaN: as the fixed-shape twin (to rounding
  // where finite, whose exps it scales otherwise).
  const auto agrees = [](double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b || std::abs(a - b) < 1e-15 * std::abs(b);
  };
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const auto log_soft = tl::log_softmax(dynamic_vector{0.0, -1000.0});
  CHECK(log_soft[0] == 0.0);
  CHECK(log_soft[1] == -1000.0);
  const auto both = [](const auto& x) { return tl::concat(tl::softmax(x), tl::log_softmax(x)); };
  for (const auto& values : {tl::vector<double, 4>{1.0, inf, -inf, inf}, tl::vector<double, 4>{-inf, -inf, -inf, -inf},
                             tl::vector<double, 4>{1.0, nan, 2.0, 0.5}, tl::vector<double, 4>{3.0, -1.0, 0.25, 3.0}}) {
    const dynamic_vector x = run_time_copy<dynamic_vector>(values);
    const auto fixed = both(values);
    const auto soft = tl::softmax(x);
    const auto log_soft = tl::log_softmax(x);
    for (std::size_t k = 0; k < 4; ++k) {
      CAPTURE(k);
      CHECK(agrees(soft[k], fixed[k]));
      CHECK(agrees(log_soft[k], fixed[4 + k]));
    }
  }
  // Returned by f: tl::jacobian against the fixed twin's, at 4 elements.
  const auto soft = [](const auto& x) { return tl::softmax(x); };
  const tl::vector<double, 4> values{0.5, -1.0, 2.0, 0.25};
  const auto j_fixed = tl::jacobian(soft)(values);
  const auto j = tl::jacobian(soft)(run_time_copy<dynamic_vector>(values));
  REQUIRE(j.rows() == 4);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t k = 0; k < 4; ++k) CHECK(std::abs(j(i, k) - j_fixed(i, k)) < 1e-16);
}

TEST_CASE("reductions that read values, of formulas holding computed numbers, and tl::prod of a matrix") {
  // max_element, min_element, log_sum_exp, norm and prod read the formula's values before their sum:
  // here those hold numbers the gradient computes (log_sum_exp(x), sum(x), a max_element), which were
  // read after their lifetime. Against the fixed twin at the same values, and central differences.
  const auto f = [](const auto& x) {
    return tl::max_element(x - tl::log_sum_exp(x)) + tl::min_element(tl::softmax(x)) + tl::norm(x - 0.25 * tl::sum(x)) +
           tl::prod(x * tl::mean(x) + 1.0) + tl::log_sum_exp(x * tl::max_element(x));
  };
  const tl::vector<double, 5> fixed_x{0.5, 1.5, 0.7, -2.0, 0.25};
  const auto x = run_time_copy<dynamic_vector>(fixed_x);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(f)(fixed_x);
  const auto [value, g] = tl::value_and_grad(f)(x);
  CHECK(fd::rel_error(value, fixed_value) < 1e-14);
  for (std::size_t k = 0; k < 5; ++k) {
    CAPTURE(k);
    CHECK(std::abs(g[k] - fixed_g[k]) < 1e-13 * (1.0 + std::abs(fixed_g[k])));
    CHECK(fd::rel_error(g[k], fd::partial([&](const dynamic_vector& v) { return f(v); }, x, k)) < 1e-7);
  }
  CHECK(fd::rel_error(f(x), fixed_value) < 1e-14);  // on plain values
  // The product of a matrix's elements: the slopes have its shape (they had n x 1).
  const auto product = [](const auto& a) { return tl::prod(0.5 * a + 1.0) + tl::prod(tl::exp(a)); };
  const tl::matrix<double, 2, 3> fixed_a{{0.5, -1.5, 0.7}, {0.0, 2.0, -0.25}};
  const auto a = run_time_copy<dynamic_matrix>(fixed_a);
  const auto [fixed_p, fixed_ga] = tl::value_and_grad(product)(fixed_a);
  const auto [p, ga] = tl::value_and_grad(product)(a);
  CHECK(fd::rel_error(p, fixed_p) < 1e-14);
  REQUIRE(ga.rows() == 2);
  REQUIRE(ga.cols() == 3);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      CHECK(std::abs(ga(i, j) - fixed_ga(i, j)) < 1e-14 * (1.0 + std::abs(fixed_ga(i, j))));
}

TEST_CASE("tl::norm, tl::max_element and tl::min_element of a run-time vector: zeros, ties, huge values, NaN") {
  const auto norm = [](const auto& x) { return tl::norm(x); };
  const auto largest = [](const auto& x) { return tl::max_element(x); };
  const auto smallest = [](const auto& x) { return tl::min_element(x); };
  // The norm of zeros is 0 with gradient 0; of huge or tiny elements, scaled: no square overflows or
  // underflows.
  const auto [v0, g0] = tl::value_and_grad(norm)(dynamic_vector{0.0, 0.0, 0.0});
  CHECK(v0 == 0.0);
  CHECK(g0 == dynamic_vector{0.0, 0.0, 0.0});
  for (const double scale : {1e-200, 1.0, 1e200}) {
    CAPTURE(scale);
    const auto [v, g] = tl::value_and_grad(norm)(dynamic_vector{3.0 * scale, -4.0 * scale});
    CHECK(fd::rel_error(v, 5.0 * scale) < 1e-15);
    CHECK(fd::rel_error(g[0], 0.6) < 1e-15);
    CHECK(fd::rel_error(g[1], -0.8) < 1e-15);
  }
  // Ties go to the first; a NaN element wins, with a NaN gradient there, as for fixed shapes.
  const dynamic_vector ties{1.0, 3.0, -2.0, 3.0, -2.0};
  const auto [v_max, g_max] = tl::value_and_grad(largest)(ties);
  CHECK(v_max == 3.0);
  CHECK(g_max == dynamic_vector{0.0, 1.0, 0.0, 0.0, 0.0});
  const auto [v_min, g_min] = tl::value_and_grad(smallest)(ties);
  CHECK(v_min == -2.0);
  CHECK(g_min == dynamic_vector{0.0, 0.0, 1.0, 0.0, 0.0});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto nan_wins = [nan](const auto& pick) {
    const auto [v, g] = tl::value_and_grad(pick)(dynamic_vector{1.0, nan, 5.0, nan});
    CHECK(std::isnan(v));
    CHECK(g[0] == 0.0);
    CHECK(std::isnan(g[1]));
    CHECK(g[2] == 0.0);
    CHECK(g[3] == 0.0);
  };
  nan_wins(largest);
  nan_wins(smallest);
  const auto [v_nan, g_nan] = tl::value_and_grad(norm)(dynamic_vector{1.0, nan});
  CHECK(std::isnan(v_nan));
  CHECK(std::isnan(g_nan[0]));
  // No elements: no largest element.
  CHECK_THROWS_WITH_AS(tl::grad(largest)(dynamic_vector(0)),
                       "tl::max_element of an array of no elements: it has no largest element", std::invalid_argument);
  CHECK_THROWS_WITH_AS(tl::grad(smallest)(dynamic_vector(0)),
                       "tl::min_element of an array of no elements: it has no smallest element", std::invalid_argument);
  // Central differences of the three, of a formula, at seeded points.
  const auto f = [](const auto& x, const auto& a) {
    return tl::norm(a * x + 1.0) + tl::max_element(tl::sin(x)) * tl::min_element(a * tl::exp(x));
  };
  check_central_differences(f, {1, 4, 33}, 30, -1.5, 1.5, 0.8);
}

TEST_CASE("tl::prod of a run-time vector: zeros, infinities, overflow and NaN as the fixed twin, no elements") {
  const auto product = [](const auto& x) { return tl::prod(x); };
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  // The gradient is the product of the others, from prefix and suffix products as the fixed prod's:
  // the same numbers, bit for bit, where no division could give them (one zero, two, an infinity, a
  // product that overflows where the others' does not, NaN).
  const auto against_fixed = [&]<std::size_t N>(const tl::vector<double, N>& fixed) {
    CAPTURE(fixed);
    dynamic_vector x(N);
    for (std::size_t k = 0; k < N; ++k) x[k] = fixed[k];
    const auto [v, g] = tl::value_and_grad(product)(x);
    const auto [fixed_v, fixed_g] = tl::value_and_grad(product)(fixed);
    CHECK(same(v, fixed_v));
    for (std::size_t k = 0; k < N; ++k) {
      CAPTURE(k);
      CHECK(same(g[k], fixed_g[k]));
    }
    CHECK(same(tl::prod(x), fixed_v));  // on plain values, the product alone
  };
  against_fixed(tl::vector<double, 4>{1.5, -2.0, 0.5, 3.0});
  against_fixed(tl::vector<double, 4>{1.5, 0.0, 0.5, 3.0});
  against_fixed(tl::vector<double, 4>{0.0, 2.0, 0.0, 3.0});
  against_fixed(tl::vector<double, 3>{inf, 2.0, -0.5});
  against_fixed(tl::vector<double, 3>{inf, 0.0, 2.0});
  against_fixed(tl::vector<double, 3>{1e300, 1e300, 1e-300});
  against_fixed(tl::vector<double, 3>{2.0, nan, 3.0});
  tl::vector<double, 1> one;
  one[0] = -4.0;
  against_fixed(one);
  // By hand: one zero gets the product of the others, the rest 0.
  const auto [v_zero, g_zero] = tl::value_and_grad(product)(dynamic_vector{2.0, 0.0, 3.0});
  CHECK(v_zero == 0.0);
  CHECK(g_zero == dynamic_vector{0.0, 6.0, 0.0});
  // No elements: the empty product, 1, and an empty gradient.
  const auto [v_none, g_none] = tl::value_and_grad(product)(dynamic_vector(0));
  CHECK(v_none == 1.0);
  CHECK(g_none.size() == 0);
  // A formula, against central differences at seeded points, and the Hessian against the fixed twin's.
  const auto f = [](const auto& x, const auto& a) { return tl::prod(1.0 + a * tl::sin(x)) + tl::prod(x); };
  check_central_differences(f, {1, 2, 5, 33}, 40, -1.2, 1.2, 0.3);
  const auto x = seeded<dynamic_vector>(5, 50);
  tl::vector<double, 5> xf;
  for (std::size_t k = 0; k < 5; ++k) xf[k] = x[k];
  const auto h = tl::hessian([&](const auto& v) { return f(v, 0.3); })(x);
  const auto fixed_h = tl::hessian([&](const auto& v) { return f(v, 0.3); })(xf);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 5; ++j) CHECK(fd::rel_error(h(i, j), fixed_h(i, j)) < 1e-13);
  // One allocation for the products of the others, beside what a sum of the same vector allocates.
  const auto x33 = seeded<dynamic_vector>(33, 60);
  const auto sum_allocations =
      test_support::allocations_during([&] { (void)tl::grad([](const auto& v) { return tl::sum(v); })(x33); });
  CHECK(test_support::allocations_during([&] { (void)tl::grad(product)(x33); }) == sum_allocations + 1);
}

TEST_CASE("a matrix of run-time rows and columns, and a fixed vector and a number beside a run-time vector") {
  const dynamic_matrix B{{1.0, 2.0, 3.0, 4.0}, {5.0, 6.0, 7.0, 8.0}, {-1.0, -2.0, -3.0, -4.0}};
  dynamic_matrix A(3, 4);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) A(i, j) = 0.1 * static_cast<double>(i + 1) - 0.2 * static_cast<double>(j);
  const auto g = tl::grad([&](const auto& M) { return tl::sum(tl::square(M) * tl::cref(B)); })(A);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(g)>, dynamic_matrix>);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) CHECK(fd::rel_error(g(i, j), 2 * A(i, j) * B(i, j)) < 1e-15);

  // x * s with s a fixed vector argument of x's length, and a number: every gradient.
  const auto f = [](const auto& x, const auto& s, const auto& a) { return tl::sum(x * s * a); };
  const dynamic_vector x{1.0, 2.0, 3.0};
  const tl::vector<double, 3> s{0.5, -1.0, 2.0};
  const auto [gx, gs, ga] = tl::grad(f)(x, s, 2.0);
  CHECK(gx == dynamic_vector{1.0, -2.0, 4.0});
  CHECK(gs == tl::vector<double, 3>{2.0, 4.0, 6.0});
  CHECK(ga == 0.5 - 2.0 + 6.0);

  // Two arrays of run-time extents, one differentiated: the other is data (tl::grad<0>).
  const dynamic_vector y{4.0, 5.0, 6.0};
  CHECK(tl::grad<0>([](const auto& a, const auto& b) { return tl::dot(a, b); })(x, y) == y);
}

TEST_CASE("broadcast: a row or a column beside a matrix of run-time extents, as the fixed twin") {
  // Three operations of the registry (test/support/operations.hpp) whose rules differ in kind: add
  // (constant partials), div (both partials read both operands), max (piecewise), at 1 and 3 rows, and
  // add at 33. The operation is a function object in the formula, the same record for all of them; the
  // fixed-shape broadcasts of every operation are tested in ops/elementwise/broadcast_test.cpp. (All
  // nine at three sizes tripled this file's compile time.)
  std::uint64_t seed = 70;
  const auto at_1_and_3 = [&](const auto& e) {
    CAPTURE(e.info.name);
    check_broadcast_against_fixed_twin<1>(e.apply, ++seed);
    check_broadcast_against_fixed_twin<3>(e.apply, ++seed);
  };
  at_1_and_3(std::get<0>(registry::binary_operations));
  at_1_and_3(std::get<3>(registry::binary_operations));
  at_1_and_3(std::get<8>(registry::binary_operations));
  static_assert(std::get<0>(registry::binary_operations).info.name == "add" &&
                std::get<3>(registry::binary_operations).info.name == "div" &&
                std::get<8>(registry::binary_operations).info.name == "max");
  check_broadcast_against_fixed_twin<33>(std::get<0>(registry::binary_operations).apply, ++seed);
  // A bias row over the data of a least-squares fit: its gradient is the sum down the rows.
  const dynamic_matrix X{{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}};
  const auto g =
      tl::grad([&](const auto& bias) { return tl::sum(tl::cref(X) + bias); })(tl::matrix<double, 1, 2>{{0.0, 0.0}});
  CHECK(g == tl::matrix<double, 1, 2>{{3.0, 3.0}});
  // Extents that must agree and do not: std::invalid_argument naming both shapes.
  const dynamic_row wide{{1.0, 2.0, 3.0}};
  CHECK_THROWS_WITH_AS(tl::grad([&](const auto& r) { return tl::sum(tl::cref(X) * r); })(wide),
                       "tl: * of a 3 x 2 and a 1 x 3 array; a row (1 x C) or a column (R x 1) repeats over a matrix "
                       "of as many columns or rows",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)(X - dynamic_vector{1.0, 2.0}),
                       "tl::matrix -: shapes 3 x 2 and 2 x 1 differ; a row (1 x C) or a column (R x 1) repeats over "
                       "a matrix of as many columns or rows",
                       std::invalid_argument);
  // A matrix whose extent is 1 only at run time repeats nothing: its shape must agree.
  const dynamic_matrix one_row{{1.0, 2.0}};
  CHECK_THROWS_WITH_AS(tl::grad([&](const auto& r) { return tl::sum(tl::cref(X) * r); })(one_row),
                       "tl: * of a 3 x 2 and a 1 x 2 array; elementwise operands have one shape",
                       std::invalid_argument);
}

TEST_CASE("operands of two shapes throw std::invalid_argument naming both, a slice past the end std::out_of_range") {
  const dynamic_vector x{1.0, 2.0, 3.0, 4.0}, y3{1.0, 2.0, 3.0};
  CHECK_THROWS_WITH_AS(tl::grad([&](const auto& v) { return tl::sum(v - tl::cref(y3)); })(x),
                       "tl: - of a 4 x 1 and a 3 x 1 array; elementwise operands have one shape",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(tl::grad([&](const auto& v) { return tl::dot(v, tl::cref(y3)); })(x),
                       "tl: tl::dot of a 4 x 1 and a 3 x 1 array; elementwise operands have one shape",
                       std::invalid_argument);
  const tl::vector<double, 3> fixed{1.0, 2.0, 3.0};
  CHECK_THROWS_WITH_AS(tl::grad([&](const auto& v) { return tl::sum(v * fixed); })(x),
                       "tl: * of a 4 x 1 and a 3 x 1 array; elementwise operands have one shape",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(tl::grad([](const auto& v) { return tl::sum(tl::slice(v, 2, 3)); })(x),
                       "tl::slice(v, start, length): elements 2 to 2 + 3 are past the size 4 of v", std::out_of_range);
  const tl::matrix<double, tl::dynamic, tl::dynamic> A(2, 3);
  CHECK_THROWS_WITH_AS(tl::grad([](const auto& M) { return tl::sum(tl::slice(M, 0, 1)); })(A),
                       "tl::slice(v, start, length): v is a 2 x 3 matrix, not a vector", std::invalid_argument);
}

TEST_CASE("a bounded vector: no allocation, and the gradient in a constant expression") {
  using bounded_vector = tl::vector<double, tl::bounded<8>>;
  const auto f = [](const auto& x, const auto& a) {
    return tl::sum(a * tl::square(tl::slice(x, 1, x.size() - 1) - tl::slice(x, 0, x.size() - 1)));
  };
  const bounded_vector x{1.0, 2.0, 4.0};
  CHECK(test_support::allocations_during([&] { (void)tl::grad(f)(x, 2.0); }) == 0);
  constexpr auto g = [] {
    const auto h = [](const auto& x, const auto& a) {
      return tl::sum(a * tl::square(tl::slice(x, 1, x.size() - 1) - tl::slice(x, 0, x.size() - 1)));
    };
    return tl::grad(h)(bounded_vector{1.0, 2.0, 4.0}, 2.0);
  }();
  // f = a ((x1 - x0)^2 + (x2 - x1)^2): df/dx = 2a (-(x1 - x0), (x1 - x0) - (x2 - x1), x2 - x1).
  static_assert(std::get<0>(g)[0] == -4.0);
  static_assert(std::get<0>(g)[1] == -4.0);
  static_assert(std::get<0>(g)[2] == 8.0);
  static_assert(std::get<1>(g) == 5.0);
  // log_sum_exp: two equal elements share the gradient; exact in a constant expression too.
  const auto lse = [](const auto& x) { return tl::log_sum_exp(2.0 * x); };
  CHECK(test_support::allocations_during([&] { (void)tl::grad(lse)(x); }) == 0);
  constexpr auto g_lse = [] {
    return tl::grad([](const auto& x) { return tl::log_sum_exp(2.0 * x); })(bounded_vector{0.5, 0.5});
  }();
  static_assert(g_lse[0] == 1.0 && g_lse[1] == 1.0);
  // max_element and norm too.
  constexpr auto g_max = [] {
    return tl::grad([](const auto& x) { return tl::max_element(x) + tl::norm(x); })(bounded_vector{3.0, 4.0});
  }();
  // (0, 1) and x / 5, to a rounding.
  static_assert(g_max[0] - 0.6 < 1e-15 && 0.6 - g_max[0] < 1e-15 && g_max[1] - 1.8 < 1e-15 && 1.8 - g_max[1] < 1e-15);
  // prod: the products of the others live inline.
  CHECK(test_support::allocations_during([&] { (void)tl::grad([](const auto& v) { return tl::prod(v); })(x); }) == 0);
  constexpr auto g_prod = [] {
    return tl::grad([](const auto& x) { return tl::prod(x * x); })(bounded_vector{3.0, 0.5, 2.0});
  }();
  // d/dx_k of the product of the squares: 2 x_k times the product of the others' squares.
  static_assert(g_prod[0] == 6.0 && g_prod[1] == 36.0 && g_prod[2] == 9.0);
}

TEST_CASE("tl::matmul of data of run-time rows by a fixed vector: a logistic regression against its fixed twin") {
  constexpr std::size_t n = 33;
  using features = tl::matrix<double, tl::dynamic, 3>;
  features X(n, 3);
  dynamic_vector y(n);
  tl::matrix<double, n, 3> Xf;
  tl::vector<double, n> yf;
  fd::rng u(7);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < 3; ++j) Xf(i, j) = X(i, j) = u.uniform(-1.0, 1.0);
    yf[i] = y[i] = u.uniform(0.0, 1.0) < 0.5 ? 0.0 : 1.0;
  }
  const auto loss = [](const auto& X, const auto& y) {
    return [&X, &y](const auto& w, const auto& b) {
      const auto z = tl::matmul(tl::cref(X), w) + b;
      return tl::sum(tl::softplus(z) - tl::cref(y) * z);
    };
  };
  const tl::vector<double, 3> w{0.5, -0.25, 1.0};
  const auto [value, g] = tl::value_and_grad(loss(X, y))(w, 0.1);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(loss(Xf, yf))(w, 0.1);
  CHECK(fd::rel_error(value, fixed_value) < 1e-13);
  for (std::size_t j = 0; j < 3; ++j) CHECK(fd::rel_error(std::get<0>(g)[j], std::get<0>(fixed_g)[j]) < 1e-13);
  CHECK(fd::rel_error(std::get<1>(g), std::get<1>(fixed_g)) < 1e-13);
  CHECK(fd::rel_error(loss(X, y)(w, 0.1), value) < 1e-13);  // plain values
  // The features' columns must be w's size.
  const tl::matrix<double, tl::dynamic, tl::dynamic> wide(n, 4);
  CHECK_THROWS_WITH_AS(tl::grad(loss(wide, y))(w, 0.1),
                       "tl::matmul(A, B): A is 33 x 4 and B 3 x 1; A's columns must be B's rows",
                       std::invalid_argument);

  // A differentiated matrix times data: d/dA sum(A c) = 1 c^T, row by row.
  const tl::vector<double, 3> c{2.0, -1.0, 0.5};
  const auto gA = tl::grad([&c](const auto& A) { return tl::sum(tl::square(tl::matmul(A, tl::cref(c)))); })(X);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(gA)>, features>);
  for (std::size_t i = 0; i < n; ++i) {
    const double r = X(i, 0) * c[0] + X(i, 1) * c[1] + X(i, 2) * c[2];
    for (std::size_t j = 0; j < 3; ++j) CHECK(fd::rel_error(gA(i, j), 2 * r * c[j]) < 1e-14);
  }
}
