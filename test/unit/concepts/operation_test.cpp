// SPDX-License-Identifier: BSL-1.0
// An operation of one's own through tl::make_unary and tl::make_binary: examples/sinc.hpp's sinc, with a
// series branch near 0, on numbers, vars, matrices (fused loops), SIMD batches, dual numbers, to second
// order and in constant expressions, against central differences and a reference of its own (long
// double, its own series); and a binary operation of one's own beside numbers and matrices.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include "../../../examples/sinc.hpp"

#include <finite_difference.hpp>
#include <unary_check.hpp>

#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <string>
#include <tuple>
#include <utility>

namespace tl = tapeless;
using example::sinc;
using example::sinc_op;

namespace {

// The reference: below |x| = 1, 24 terms of each Taylor series in long double; above, the closed
// forms in long double, whose cancellation (a relative 3 eps / x^2 for the first derivative, 6 eps /
// x^2 for the second) is below 1e-18 there.
constexpr int series_terms = 24;

/// The k-th derivative (k = 0, 1, 2) of sin(x) / x, from sum (-1)^n x^2n / (2n + 1)!.
long double series(long double x, int k) {
  long double sum = 0, factorial = 1;  // (2n + 1)!
  for (int n = 0; n < series_terms; ++n) {
    if (n > 0) factorial *= (2.0L * n) * (2.0L * n + 1);
    const int p = 2 * n;  // the power of x, differentiated k times
    if (p < k) continue;
    long double term = (n % 2 == 0 ? 1 : -1) / factorial;
    for (int j = 0; j < k; ++j) term *= p - j;
    sum += term * std::pow(x, static_cast<long double>(p - k));
  }
  return sum;
}

double sinc_ref(double x) {
  const long double t = x;
  return static_cast<double>(std::abs(t) < 1 ? series(t, 0) : std::sin(t) / t);
}
double sinc_slope_ref(double x) {
  const long double t = x;
  return static_cast<double>(std::abs(t) < 1 ? series(t, 1) : (t * std::cos(t) - std::sin(t)) / (t * t));
}
double sinc_curvature_ref(double x) {
  const long double t = x;
  return static_cast<double>(std::abs(t) < 1 ? series(t, 2)
                                             : ((2 - t * t) * std::sin(t) - 2 * t * std::cos(t)) / (t * t * t));
}

const auto f = [](const auto& x) { return sinc(x); };

// Where the branch matters: 0, tiny, small, both sides of |x| = 1/2, and far from it.
const std::initializer_list<double> points{0.0,   -0.0, 1e-300, -1e-300, 1e-8, 1e-3,
                                           -1e-3, 0.1,  0.49,   0.5,     -0.5, 0.5000000000000001,
                                           0.51,  1.0,  -2.0,   3.0,     10.0, -37.5};

/// d/dx of a function of one number returning a number, by central differences.
template <class G>
double slope(const G& g, double x) {
  return fd::derivative([&](double t) { return double(g(t)); }, x);
}

}  // namespace

TEST_CASE("sinc of numbers and vars: value, gradient against differences and the reference") {
  fd::check_unary("sinc near 0", f, sinc_ref, sinc_slope_ref, -0.7, 0.7, 9101);
  fd::check_unary("sinc", f, sinc_ref, sinc_slope_ref, -20.0, 20.0, 9102);
  for (double x : points) {
    const auto [value, gradient] = tl::value_and_grad(f)(x);
    const double v = value, g = gradient;  // not the bindings: clang 14 cannot capture them (INFO)
    INFO("x = " << fd::str(x) << ": value " << fd::str(v) << ", gradient " << fd::str(g) << " against "
                << fd::str(sinc_slope_ref(x)));
    // Every digit near 0, where the closed form of the derivative keeps fewer than 10 at x = 1e-3.
    CHECK(fd::strict_rel_error(v, sinc_ref(x)) < 1e-15);
    CHECK(fd::rel_error(g, sinc_slope_ref(x)) < (std::abs(x) < 0.5 ? 1e-15 : 1e-14));
    if (x != 0.0) CHECK(fd::strict_rel_error(g, sinc_slope_ref(x)) < (std::abs(x) < 0.5 ? 1e-15 : 1e-14));
  }
  CHECK(sinc(0.0) == 1.0);  // a plain number gives a plain number
  CHECK(tl::grad(f)(0.0) == 0.0);
}

TEST_CASE("sinc of matrices: element by element in the fused loop, beside the library's operations") {
  // 0 beside large elements in one batch: the closed form's 0 / 0 is computed for that lane, and dropped.
  const tl::matrix<double, 4, 4> a{
      {0.0, 3.0, 1e-3, -2.0}, {0.49, 0.5, 0.51, -0.3}, {7.0, -1e-8, 1.0, 0.25}, {-0.5, 2.5, -4.0, 1e-300}};
  tl::matrix<double, 4, 4> w;
  fd::rng r{9103};
  for (auto& e : w) e = r.uniform(0.5, 1.5);
  const auto loss = [&w](const auto& m) { return tl::sum(w * sinc(m) + tl::exp(0.1 * m)); };
  const auto [value, g] = tl::value_and_grad(loss)(a);
  double expected = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("element " << i << ", a = " << fd::str(a[i]));
    expected += w[i] * sinc_ref(a[i]) + std::exp(0.1 * a[i]);
    const double exact = w[i] * sinc_slope_ref(a[i]) + 0.1 * std::exp(0.1 * a[i]);
    CHECK(fd::rel_error(g[i], exact) < 1e-14);
    CHECK(fd::rel_error(g[i], fd::derivative(
                                  [&](double t) {
                                    auto b = a;
                                    b[i] = t;
                                    return loss(b);
                                  },
                                  a[i])) < 1e-6);
  }
  CHECK(fd::rel_error(value, expected) < 1e-14);
  // A shape that leaves a partial batch, and a number beside the matrix.
  const tl::matrix<double, 3, 1> v{0.0, 0.4, 5.0};
  const auto [gv, gs] = tl::grad<0, 1>([](const auto& m, const auto& s) { return tl::sum(sinc(m * s)); })(v, 2.0);
  double sum = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    CHECK(fd::rel_error(gv[i], 2.0 * sinc_slope_ref(2.0 * v[i])) < 1e-14);
    sum += v[i] * sinc_slope_ref(2.0 * v[i]);
  }
  CHECK(fd::rel_error(gs, sum) < 1e-14);
  const tl::matrix<double, 3, 1> plain = sinc(v);  // plain data gives plain data
  for (std::size_t i = 0; i < v.size(); ++i) CHECK(plain[i] == sinc(v[i]));
}

#if TAPELESS_SIMD
static_assert(tl::detail::simd::vectorised<sinc_op, double>, "sinc's matrix loops run in SIMD batches");

TEST_CASE("sinc on SIMD batches: every lane as one number, whichever branch its neighbours take") {
  using B = tl::detail::simd::batch<double>;
  constexpr std::size_t n = tl::detail::simd::width<double>;
  // Lanes all in the series, all in the closed form, and mixed, with 0 among large numbers.
  const double lanes[][8] = {{0.0, 1e-3, -0.2, 0.49, 1e-8, -0.3, 0.1, 0.25},
                             {3.0, -2.0, 0.5, 10.0, -0.7, 1.5, 4.0, -6.0},
                             {0.0, 3.0, 1e-3, -2.0, 0.51, -0.0, 8.0, 0.49},
                             {7.0, 0.0, -1e-300, 0.5, -0.5, 1e-3, 2.0, 0.3}};
  for (const auto& l : lanes) {
    static_assert(n <= 8);
    const B x = B::load_unaligned(l);
    const B y = sinc_op::value(x);
    const B d = sinc_op::derivative(x, y);
    for (std::size_t k = 0; k < n; ++k) {
      INFO("x = " << fd::str(l[k]));
      CHECK(fd::ulp_distance(y.get(k), sinc_op::value(l[k])) <= 2);
      CHECK(fd::ulp_distance(d.get(k), sinc_op::derivative(l[k], sinc_op::value(l[k]))) <= 4);
    }
  }
}
#endif

TEST_CASE("sinc to second order: grad of grad, hessian, dual numbers, against the reference") {
  using D = tl::dual<double>;
  const auto first = [](double x) { return tl::grad(f)(x); };
  for (double x : points) {
    INFO("x = " << fd::str(x));
    const double d2 = tl::grad(tl::grad(f))(x);
    // The series is in x, not a constant: the second derivative at 0 is -1/3, not 0.
    CHECK(fd::rel_error(d2, sinc_curvature_ref(x)) < 1e-13);
    CHECK(fd::rel_error(d2, slope(first, x)) < 1e-7);
    CHECK(tl::hessian(f)(x) == d2);
    CHECK(fd::rel_error(tl::jvp(tl::grad(f), std::tuple{x}, std::tuple{1.0}).second, d2) < 1e-13);
    const D y = sinc(D{x, 1.0});  // forward mode: the tangent is the derivative
    CHECK(y.value == sinc(x));
    CHECK(fd::rel_error(y.tangent, sinc_slope_ref(x)) < 1e-14);
  }
  CHECK(fd::rel_error(tl::grad(tl::grad(f))(0.0), -1.0 / 3) < 1e-16);
}

TEST_CASE("sinc in constant expressions") {
  static_assert(sinc(0.0) == 1.0);
  static_assert(tl::grad(f)(0.0) == 0.0);
  constexpr double g_series = tl::grad(f)(0.25);  // the series branch
  constexpr double g_closed = tl::grad(f)(2.0);   // the closed form, through constexpr sin and cos
  constexpr double h0 = tl::grad(tl::grad(f))(0.0);
  static_assert(g_series < 0.0 && g_series > -0.25 / 3 && g_closed < 0.0 && h0 < -0.33 && h0 > -0.34);
  CHECK(fd::rel_error(g_series, sinc_slope_ref(0.25)) < 1e-15);
  CHECK(fd::rel_error(g_closed, sinc_slope_ref(2.0)) < 1e-13);
  CHECK(fd::rel_error(h0, -1.0 / 3) < 1e-16);
}

namespace {
/// z = x y + x: a binary operation of one's own, with the library's defaults for every option.
struct mul_add_op {
  template <class T>
  static constexpr T value(T x, T y) {
    return x * y + x;
  }
  template <class T>
  static constexpr std::pair<T, T> vjp(T g, T x, T y, T) {
    return {g * (y + T(1)), g * x};
  }
};
template <tl::Operand X, tl::Operand Y>
constexpr auto mul_add(X&& x, Y&& y) {
  return tl::make_binary(mul_add_op{}, std::forward<X>(x), std::forward<Y>(y));
}
}  // namespace

TEST_CASE("a binary operation of one's own: numbers, a number beside a matrix, its name by default") {
  const auto [gx, gy] = tl::grad<0, 1>([](auto x, auto y) { return mul_add(x, y) * y; })(1.5, -2.0);
  CHECK(fd::rel_error(gx, -2.0 * (-2.0 + 1)) < 1e-15);
  CHECK(fd::rel_error(gy, 1.5 * -2.0 + (1.5 * -2.0 + 1.5)) < 1e-15);
  static_assert(mul_add(2.0, 3.0) == 8.0);
  const tl::matrix<double, 2, 2> a{{1.0, 2.0}, {3.0, 4.0}};
  const auto [ga, gs] = tl::grad<0, 1>([](const auto& m, auto s) { return tl::sum(mul_add(m, s)); })(a, 0.5);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(ga[i] == 1.5);
  CHECK(gs == 10.0);
  CHECK(tl::trace([](auto x) { return mul_add(x, 2.0); }, 1.0).str().find("op(x1, 2)") != std::string::npos);
  CHECK(tl::trace(f, 1.0).str().find("sinc(x1)") != std::string::npos);
}
