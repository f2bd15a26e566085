// SPDX-License-Identifier: BSL-1.0
// erf, erfc, sigmoid, softplus: gradients against finite differences and the closed forms, the
// numerical stability of sigmoid and softplus far out (+-40, +-700) against long double references,
// NaN, and plain numbers.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <unary_check.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <type_traits>

namespace tl = tapeless;

namespace {

constexpr int points = 200;

const double qnan = std::numeric_limits<double>::quiet_NaN();

using fd::check_unary;

const auto erf_ = [](auto&& x) { return tl::erf(x); };
const auto erfc_ = [](auto&& x) { return tl::erfc(x); };
const auto sigmoid_ = [](auto&& x) { return tl::sigmoid(x); };
const auto softplus_ = [](auto&& x) { return tl::softplus(x); };

// References in long double (64-bit mantissa, exponent range to 1e4932: e^700 is no trouble).
double sigmoid_ref(double x) { return static_cast<double>(1.0L / (1.0L + std::exp(-static_cast<long double>(x)))); }
/// sigmoid'(x) = e^-|x| / (1 + e^-|x|)^2, even in x.
double sigmoid_derivative_ref(double x) {
  const long double e = std::exp(-std::abs(static_cast<long double>(x)));
  return static_cast<double>(e / ((1.0L + e) * (1.0L + e)));
}
double softplus_ref(double x) { return static_cast<double>(std::log1p(std::exp(static_cast<long double>(x)))); }
double erf_derivative(double x) { return 2.0 / std::sqrt(std::numbers::pi) * std::exp(-x * x); }

}  // namespace

TEST_CASE("erf") {
  check_unary(
      "erf", erf_, [](double x) { return std::erf(x); }, erf_derivative, -4, 4, 501);
}

TEST_CASE("erfc") {
  SUBCASE("random points") {
    check_unary(
        "erfc", erfc_, [](double x) { return std::erfc(x); }, [](double x) { return -erf_derivative(x); }, -4, 4, 502);
  }
  SUBCASE("erf + erfc = 1: their gradients cancel") {
    fd::rng r{503};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-6, 6);
      CAPTURE(x);
      CHECK(std::abs(tl::grad([](auto a) { return tl::erf(a) + tl::erfc(a); })(x)) < 1e-15);
    }
  }
}

TEST_CASE("sigmoid") {
  SUBCASE("random points") { check_unary("sigmoid", sigmoid_, sigmoid_ref, sigmoid_derivative_ref, -30, 30, 504); }
  SUBCASE("sigmoid(0) = 1/2 with slope 1/4; sigmoid(x) + sigmoid(-x) = 1") {
    CHECK(tl::value_and_grad(sigmoid_)(0.0) == std::pair{0.5, 0.25});
    fd::rng r{505};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-30, 30);
      CAPTURE(x);
      const auto a = tl::value_and_grad(sigmoid_)(x), b = tl::value_and_grad(sigmoid_)(-x);
      CHECK(fd::rel_error(a.first + b.first, 1.0) < 1e-15);
      CHECK(fd::rel_error(a.second, b.second) < 1e-15);
    }
  }
}

TEST_CASE("softplus") {
  SUBCASE("random points") { check_unary("softplus", softplus_, softplus_ref, sigmoid_ref, -30, 30, 506); }
  SUBCASE("softplus(x) - softplus(-x) = x") {
    fd::rng r{507};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-30, 30);
      CAPTURE(x);
      const auto vg = tl::value_and_grad([](auto a) { return tl::softplus(a) - tl::softplus(-a); })(x);
      CHECK(fd::rel_error(vg.first, x) < 1e-14);
      CHECK(fd::rel_error(vg.second, 1.0) < 1e-15);
    }
    CHECK(fd::rel_error(tl::softplus(0.0), std::numbers::ln2) < 1e-16);
  }
}

TEST_CASE("sigmoid and softplus are stable far out: +-40 and +-700") {
  for (const double x : {40.0, -40.0, 700.0, -700.0}) {
    CAPTURE(x);
    const auto s = tl::value_and_grad(sigmoid_)(x);
    const auto p = tl::value_and_grad(softplus_)(x);
    INFO("sigmoid: value " << fd::str(s.first) << " (reference " << fd::str(sigmoid_ref(x)) << "), derivative "
                           << fd::str(s.second) << " (reference " << fd::str(sigmoid_derivative_ref(x)) << ")");
    INFO("softplus: value " << fd::str(p.first) << " (reference " << fd::str(softplus_ref(x)) << "), derivative "
                            << fd::str(p.second) << " (reference " << fd::str(sigmoid_ref(x)) << ")");
    CHECK(std::isfinite(s.first));
    CHECK(std::isfinite(s.second));
    CHECK(std::isfinite(p.first));
    CHECK(std::isfinite(p.second));
    // values: relative accuracy, however small (sigmoid(-700) = 9.86e-305)
    CHECK(fd::strict_rel_error(s.first, sigmoid_ref(x)) < 1e-15);
    CHECK(fd::strict_rel_error(p.first, softplus_ref(x)) < 1e-15);
    // softplus' = sigmoid: relative accuracy on both sides
    CHECK(fd::strict_rel_error(p.second, sigmoid_ref(x)) < 1e-15);
    // sigmoid': in [0, 1/4], and within an ulp of the reference in absolute terms
    CHECK(s.second >= 0.0);
    CHECK(s.second <= 0.25);
    CHECK(std::abs(s.second - sigmoid_derivative_ref(x)) < 1e-16);
    if (x < 0) CHECK(fd::strict_rel_error(s.second, sigmoid_derivative_ref(x)) < 1e-15);
  }
}

TEST_CASE("sigmoid' keeps its relative accuracy in the saturated tail, like sigmoid itself") {
  // sigmoid'(x) = sigmoid'(-x) = e^-|x| / (1 + e^-|x|)^2 is a normal double for |x| <= 700, and the
  // library gets it to the last digit for x < 0. For x > 0, y (1 - y) loses it: 1 - y cancels.
  for (const double x : {20.0, 40.0, 700.0}) {
    const double g = tl::grad(sigmoid_)(x), ref = sigmoid_derivative_ref(x);
    INFO("sigmoid'(" << x << "): AD " << fd::str(g) << ", reference " << fd::str(ref) << ", AD at -x "
                     << fd::str(tl::grad(sigmoid_)(-x)));
    CHECK(fd::strict_rel_error(g, ref) < 1e-14);
  }
}

TEST_CASE("special: NaN propagates to the value and the gradient") {
  const auto check = [](const std::string& name, auto f) {
    const auto vg = tl::value_and_grad(f)(qnan);
    INFO(name << ": value " << fd::str(vg.first) << ", gradient " << fd::str(vg.second));
    CHECK(std::isnan(vg.first));
    CHECK(std::isnan(vg.second));
  };
  check("erf", erf_);
  check("erfc", erfc_);
  check("sigmoid", sigmoid_);
  check("softplus", softplus_);
}

TEST_CASE("special: plain numbers through tl:: functions are plain numbers") {
  volatile double input = 0.6;  // not a constant: the run-time path
  const double x = input;
  static_assert(std::is_same_v<decltype(tl::erf(1.0)), double>);
  static_assert(std::is_same_v<decltype(tl::sigmoid(1.0f)), float>);
  static_assert(std::is_same_v<decltype(tl::softplus(1)), double>);
  CHECK(tl::erf(x) == std::erf(x));
  CHECK(tl::erfc(x) == std::erfc(x));
  CHECK(fd::rel_error(tl::sigmoid(x), sigmoid_ref(x)) < 1e-16);
  CHECK(fd::rel_error(tl::softplus(x), softplus_ref(x)) < 1e-16);
  CHECK(tl::sigmoid(0.0) == 0.5);
  CHECK(tl::sigmoid(-1000.0) == 0.0);
  CHECK(tl::sigmoid(1000.0) == 1.0);
  CHECK(tl::softplus(1000.0) == 1000.0);
}
