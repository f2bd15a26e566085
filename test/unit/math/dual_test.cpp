// SPDX-License-Identifier: BSL-1.0
// Dual numbers (math/dual.hpp), which the forward-mode transforms run on: the tangent of every elementary
// function against differences of its value, and the second derivative in a dual of duals.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <cmath>
#include <string>

namespace tl = tapeless;

TEST_CASE("dual numbers: every elementary function's tangent, and a dual of duals") {
  using D = tl::dual<double>;
  using DD = tl::dual<D>;
  fd::rng r{7006};
  auto check = [&](std::string name, auto f, double lo, double hi) {
    for (int i = 0; i < 50; ++i) {
      const double x = r.uniform(lo, hi);
      INFO(name << " at x = " << fd::str(x));
      const D d = f(D{x, 1.0});
      const double slope = fd::derivative([&](double t) { return f(D{t, 0.0}).value; }, x);
      CHECK(d.value == f(D{x, 0.0}).value);
      CHECK(fd::rel_error(d.tangent, slope) < 1e-8);
      const DD dd = f(DD{D{x, 1.0}, D{1.0, 0.0}});  // second derivative in the tangent's tangent
      CHECK(dd.tangent.value == d.tangent);
      CHECK(fd::rel_error(dd.tangent.tangent, fd::derivative(
                                                  [&](double t) {
                                                    return f(D{t, 1.0}).tangent;
                                                  },
                                                  x)) < 1e-6);
    }
  };
  namespace m = tl::math;
  check(
      "exp", [](auto x) { return m::exp(x); }, -5, 5);
  check(
      "exp2", [](auto x) { return m::exp2(x); }, -5, 5);
  check(
      "expm1", [](auto x) { return m::expm1(x); }, -5, 5);
  check(
      "log", [](auto x) { return m::log(x); }, 0.1, 10);
  check(
      "log2", [](auto x) { return m::log2(x); }, 0.1, 10);
  check(
      "log10", [](auto x) { return m::log10(x); }, 0.1, 10);
  check(
      "log1p", [](auto x) { return m::log1p(x); }, -0.9, 10);
  check(
      "sqrt", [](auto x) { return m::sqrt(x); }, 0.1, 10);
  check(
      "cbrt", [](auto x) { return m::cbrt(x); }, 0.1, 10);
  check(
      "sin", [](auto x) { return m::sin(x); }, -5, 5);
  check(
      "cos", [](auto x) { return m::cos(x); }, -5, 5);
  check(
      "tan", [](auto x) { return m::tan(x); }, -1.3, 1.3);
  check(
      "asin", [](auto x) { return m::asin(x); }, -0.9, 0.9);
  check(
      "acos", [](auto x) { return m::acos(x); }, -0.9, 0.9);
  check(
      "atan", [](auto x) { return m::atan(x); }, -5, 5);
  check(
      "sinh", [](auto x) { return m::sinh(x); }, -3, 3);
  check(
      "cosh", [](auto x) { return m::cosh(x); }, -3, 3);
  check(
      "tanh", [](auto x) { return m::tanh(x); }, -3, 3);
  check(
      "asinh", [](auto x) { return m::asinh(x); }, -5, 5);
  check(
      "acosh", [](auto x) { return m::acosh(x); }, 1.1, 5);
  check(
      "atanh", [](auto x) { return m::atanh(x); }, -0.9, 0.9);
  check(
      "erf", [](auto x) { return m::erf(x); }, -3, 3);
  check(
      "erfc", [](auto x) { return m::erfc(x); }, -3, 3);
  check(
      "abs", [](auto x) { return m::abs(x) * x; }, -3, 3);
  check(
      "pow",
      [](auto x) {
        using T = decltype(x);
        return m::pow(x, T(2.5)) + m::pow(T(1.5), x) + m::pow(x, x);
      },
      0.2, 3);
  check(
      "atan2",
      [](auto x) {
        using T = decltype(x);
        return m::atan2(x, T(0.7)) + m::atan2(T(-0.3), x);
      },
      0.2, 3);
  check(
      "hypot",
      [](auto x) {
        using T = decltype(x);
        return m::hypot(x, T(0.7)) * m::hypot(T(2), x * x);
      },
      -3, 3);
  check(
      "arithmetic", [](auto x) { return (x * x + 1.0) / (2.0 - x) - 3.0 * x; }, -1, 1);
  // A constant (tangent 0) at a point where the slope is infinite keeps tangent 0, not NaN.
  CHECK(m::sqrt(D{0.0, 0.0}).tangent == 0.0);
  CHECK(m::pow(D{-2.0, 1.0}, D{3.0, 0.0}).tangent == 12.0);  // a constant exponent needs no log of -2
  CHECK(std::isnan(m::log(D{-1.0, 1.0}).value));
}
