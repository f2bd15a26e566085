// SPDX-License-Identifier: BSL-1.0
// tapeless/math/cx/power.hpp (sqrt, cbrt, pow, hypot) against std:: and in constant expressions, by the
// accuracy rule of test/support/constexpr_math_check.hpp.

#include <tapeless/math/cx/power.hpp>

#include <doctest/doctest.h>

#include <constexpr_math_check.hpp>

#include <cmath>
#include <initializer_list>
#include <vector>

using namespace constexpr_math_check;  // the checks and sweeps of test/support

namespace {

// Reference values computed with 50-digit arithmetic (mpmath) and rounded to double.
static_assert(near(cx::sqrt(2.0), 1.4142135623730951) && cx::sqrt(1e-310) > 0 && cx::sqrt(81.0) == 9.0);
static_assert(near(cx::cbrt(-5.0), -1.709975946676697) && cx::cbrt(-27.0) == -3.0);
static_assert(near(cx::pow(2.5, -3.7), 0.03369938443095647));
static_assert(cx::pow(10.0, 2.0) == 100.0 && cx::pow(-2.0, 3.0) == -8.0);
static_assert(near(cx::hypot(1e300, 1e300), 1.4142135623730952e+300) && cx::hypot(3.0, 4.0) == 5.0);

// IEEE special cases.
#define TAPELESS_CX_POWER_IEEE_CASES(CHECK_)                                                                          \
  /* NaN and domain errors */                                                                                         \
  CHECK_(is_nan(cx::sqrt(qnan)) && is_nan(cx::cbrt(qnan)) && is_nan(cx::sqrt(-1.0)) && is_nan(cx::sqrt(-inf)));       \
  CHECK_(is_nan(cx::pow(qnan, 2.0)) && is_nan(cx::pow(2.0, qnan)));                                                   \
  CHECK_(is_nan(cx::hypot(qnan, 1.0)) && is_nan(cx::hypot(1.0, qnan)));                                               \
  /* limits, exact values and signed zeros */                                                                         \
  CHECK_(cx::sqrt(inf) == inf && cx::cbrt(-inf) == -inf);                                                             \
  CHECK_(is_neg_zero(cx::sqrt(-0.0)) && is_neg_zero(cx::cbrt(-0.0)) && cx::sqrt(4.0) == 2.0 && cx::cbrt(8.0) == 2.0); \
  /* hypot */                                                                                                         \
  CHECK_(cx::hypot(inf, qnan) == inf && cx::hypot(qnan, -inf) == inf && cx::hypot(-inf, 1.0) == inf);                 \
  CHECK_(cx::hypot(dbl_max, dbl_max) == inf && cx::hypot(-3.0, 0.0) == 3.0);                                          \
  CHECK_(is_pos_zero(cx::hypot(-0.0, -0.0)) && cx::hypot(5e-324, 0.0) == 5e-324);                                     \
  /* pow, C Annex F.10.4.4 */                                                                                         \
  CHECK_(cx::pow(qnan, 0.0) == 1.0 && cx::pow(qnan, -0.0) == 1.0 && cx::pow(1.0, qnan) == 1.0);                       \
  CHECK_(cx::pow(-inf, 0.0) == 1.0 && cx::pow(1.0, inf) == 1.0 && cx::pow(-1.0, inf) == 1.0);                         \
  CHECK_(cx::pow(-1.0, -inf) == 1.0 && cx::pow(-1.0, 0x1p60) == 1.0 && cx::pow(-1.0, 3.0) == -1.0);                   \
  CHECK_(is_nan(cx::pow(-2.0, 0.5)) && is_nan(cx::pow(-8.0, 1.0 / 3.0)) && is_nan(cx::pow(-1.0, 1.5)));               \
  CHECK_(cx::pow(-2.0, 3.0) == -8.0 && cx::pow(-2.0, 2.0) == 4.0 && cx::pow(-2.0, -1.0) == -0.5);                     \
  CHECK_(cx::pow(0.0, -1.0) == inf && cx::pow(-0.0, -1.0) == -inf && cx::pow(-0.0, -3.0) == -inf);                    \
  CHECK_(cx::pow(0.0, -2.0) == inf && cx::pow(-0.0, -2.0) == inf && cx::pow(-0.0, -0.5) == inf);                      \
  CHECK_(cx::pow(0.0, -inf) == inf && cx::pow(-0.0, -inf) == inf);                                                    \
  CHECK_(is_pos_zero(cx::pow(0.0, 3.0)) && is_neg_zero(cx::pow(-0.0, 3.0)));                                          \
  CHECK_(is_pos_zero(cx::pow(-0.0, 2.0)) && is_pos_zero(cx::pow(-0.0, 0.5)) && is_pos_zero(cx::pow(0.0, inf)));       \
  CHECK_(cx::pow(0.5, -inf) == inf && is_pos_zero(cx::pow(2.0, -inf)));                                               \
  CHECK_(is_pos_zero(cx::pow(0.5, inf)) && cx::pow(2.0, inf) == inf && cx::pow(-2.0, inf) == inf);                    \
  CHECK_(is_neg_zero(cx::pow(-inf, -3.0)) && is_pos_zero(cx::pow(-inf, -2.0)) && is_pos_zero(cx::pow(-inf, -0.5)));   \
  CHECK_(cx::pow(-inf, 3.0) == -inf && cx::pow(-inf, 2.0) == inf && cx::pow(-inf, 0.5) == inf);                       \
  CHECK_(is_pos_zero(cx::pow(inf, -1.0)) && cx::pow(inf, 0.5) == inf);                                                \
  CHECK_(cx::pow(10.0, 400.0) == inf && is_pos_zero(cx::pow(10.0, -400.0)));                                          \
  CHECK_(cx::pow(-10.0, 401.0) == -inf && is_neg_zero(cx::pow(-10.0, -401.0)));                                       \
  CHECK_(cx::pow(2.0, 1e300) == inf && is_pos_zero(cx::pow(2.0, -1e300)) && cx::pow(0.5, -1e300) == inf);             \
  CHECK_(cx::pow(2.0, -1074.0) == denorm_min && cx::pow(2.0, 1023.0) == 0x1p1023);                                    \
  /* subnormal arguments do not hang or crash */                                                                      \
  CHECK_(cx::sqrt(denorm_min) > 0 && cx::cbrt(-denorm_min) < 0)

TAPELESS_CX_POWER_IEEE_CASES(TAPELESS_CX_STATIC_CHECK);

// Edge inputs in constant expressions.
TAPELESS_CX_EDGES(sqrt);
TAPELESS_CX_EDGES(cbrt);
TAPELESS_CX_EDGE_PAIRS(pow);
TAPELESS_CX_EDGE_PAIRS(hypot);

}  // namespace

TEST_CASE("cx/power.hpp: the IEEE special cases at run time") {
  TAPELESS_CX_POWER_IEEE_CASES(TAPELESS_CX_RUNTIME_CHECK);
}

TEST_CASE("sqrt, cbrt against std") {
  points p(0x5EED0021);
  p.add_log_uniform(-323.5, 308.2, 8000, false);
  p.add_grid(0.25, 4.0, 3000);
  for (int k = 1; k <= 1000; ++k) p.add(static_cast<double>(k) * k);
  for (const double x : {denorm_min, 1e-310, dbl_min, 0.5, 1.0, 2.0, 3.0, dbl_max}) p.add_around(x);
  TAPELESS_RUN1(sqrt, p.xs);

  points q(0x5EED0022);
  q.add_log_uniform(-323.5, 308.2, 8000, true);
  q.add_grid(-8.0, 8.0, 3000);
  for (int k = -200; k <= 200; ++k) q.add(static_cast<double>(k) * k * k);
  for (const double x : {denorm_min, -1e-310, dbl_min, 0.5, 1.0, 2.0, 4.0, -dbl_max}) q.add_around(x);
  TAPELESS_RUN1(cbrt, q.xs);
}

TEST_CASE("pow against std") {
  points p(0x5EED0091);
  std::vector<double> xs, ys;
  const auto add = [&](double x, double y) {
    xs.push_back(x);
    ys.push_back(y);
  };
  for (int i = 0; i < 6000; ++i) {  // ordinary arguments, results within the double range
    const double x = p.log_uniform(-6, 6);
    const double limit = 700.0 / std::fabs(std::log(x));
    add(x, p.uniform(-1.0, 1.0) * (limit < 60.0 ? limit : 60.0));
  }
  for (int i = 0; i < 3000; ++i) {  // any magnitude, results anywhere including over/underflow
    const double x = p.log_uniform(-300, 300);
    const double limit = 760.0 / std::fabs(std::log(x));
    add(x, p.uniform(-1.0, 1.0) * limit);
  }
  for (int i = 0; i < 2000; ++i) {  // x close to 1 with large y: the accuracy of log(x) matters most
    const double x = 1.0 + p.sign() * p.log_uniform(-15, -3);
    add(x, p.uniform(-1.0, 1.0) * 650.0 / std::fabs(std::log(x)));
  }
  for (int i = 0; i < 2000; ++i) {  // integral exponents, negative bases
    const double x = p.sign() * p.log_uniform(-3, 3);
    add(x, std::floor(p.uniform(-100.0, 100.0)));
  }
  for (int i = 0; i < 1000; ++i) {  // subnormal results
    const double x = p.log_uniform(-3, -1);
    add(x, (-708.0 - p.uniform(0.0, 36.0)) / std::log(x));
  }
  for (const double x : {2.0, 10.0, 0.1, 3.0, 1.5, 1.0000001}) {
    for (const double y : {0.5, -0.5, 2.0, 3.0, -1.0, 1.0 / 3.0, 100.0, -100.0, 1e-300, 1e10}) add(x, y);
  }
  TAPELESS_RUN2(pow, xs, ys);
}

TEST_CASE("hypot against std") {
  points p(0x5EED00A1);
  std::vector<double> xs, ys;
  for (int i = 0; i < 6000; ++i) {
    xs.push_back(p.sign() * p.log_uniform(-320, 308));
    ys.push_back(p.sign() * p.log_uniform(-320, 308));
  }
  for (int i = 0; i < 6000; ++i) {
    const double m = p.log_uniform(-300, 300);
    xs.push_back(p.sign() * m * p.uniform(0.0, 1.0));
    ys.push_back(p.sign() * m * p.uniform(0.0, 1.0));
  }
  for (const double x : {1e308, dbl_max, 1e-310, denorm_min, 3.0, 1.0}) {
    for (const double y : {1e308, dbl_max, 1e-310, denorm_min, 4.0, 0x1p-30, 0.0}) {
      xs.push_back(x);
      ys.push_back(y);
    }
  }
  TAPELESS_RUN2(hypot, xs, ys);
}
