// SPDX-License-Identifier: BSL-1.0
// tapeless/math/cx/trigonometric.hpp (sin, cos, tan, asin, acos, atan, atan2) against std:: and in constant
// expressions, by the accuracy rule of test/support/constexpr_math_check.hpp.

#include <tapeless/math/cx/trigonometric.hpp>

#include <doctest/doctest.h>

#include <constexpr_math_check.hpp>

#include <cmath>
#include <initializer_list>
#include <vector>

using namespace constexpr_math_check;  // the checks and sweeps of test/support

namespace {

// Reference values computed with 50-digit arithmetic (mpmath) and rounded to double.
static_assert(near(cx::sin(1.0), 0.8414709848078965));
static_assert(near(cx::sin(10000.0), -0.30561438888825215));
static_assert(near(cx::sin(1e22), -0.8522008497671888));                  // Payne-Hanek range
static_assert(near(cx::sin(3.141592653589793), 1.2246467991473532e-16));  // near a zero: still relative
static_assert(near(cx::cos(2.0), -0.4161468365471424));
static_assert(near(cx::cos(1.5707963267948966), 6.123233995736766e-17));
static_assert(near(cx::tan(1.5), 14.101419947171719));
static_assert(near(cx::tan(-7853.981633974483), 1.2142058848921225e-13));  // near -2500 pi
static_assert(near(cx::asin(0.7), 0.775397496610753));
static_assert(near(cx::acos(-0.3), 1.8754889808102941));
static_assert(near(cx::atan(3.0), 1.2490457723982544));
static_assert(near(cx::atan2(-1.0, -2.0), -2.677945044588987));

// IEEE special cases.
#define TAPELESS_CX_TRIGONOMETRIC_IEEE_CASES(CHECK_)                                                \
  /* NaN */                                                                                         \
  CHECK_(is_nan(cx::sin(qnan)) && is_nan(cx::cos(qnan)) && is_nan(cx::tan(qnan)));                  \
  CHECK_(is_nan(cx::asin(qnan)) && is_nan(cx::acos(qnan)) && is_nan(cx::atan(qnan)));               \
  CHECK_(is_nan(cx::atan2(qnan, 1.0)) && is_nan(cx::atan2(1.0, qnan)));                             \
  /* domain errors */                                                                               \
  CHECK_(is_nan(cx::acos(2.0)) && is_nan(cx::asin(2.0)) && is_nan(cx::asin(-1.0000000000000002)));  \
  CHECK_(is_nan(cx::sin(inf)) && is_nan(cx::cos(-inf)) && is_nan(cx::tan(inf)));                    \
  /* limits */                                                                                      \
  CHECK_(cx::atan(inf) == pi / 2 && cx::atan(-inf) == -pi / 2);                                     \
  /* exact values and signed zeros */                                                               \
  CHECK_(cx::cos(0.0) == 1.0 && is_neg_zero(cx::sin(-0.0)) && is_neg_zero(cx::tan(-0.0)));          \
  CHECK_(is_neg_zero(cx::asin(-0.0)) && is_neg_zero(cx::atan(-0.0)) && is_pos_zero(cx::acos(1.0))); \
  CHECK_(cx::acos(-1.0) == pi && cx::asin(1.0) == pi / 2 && cx::asin(-1.0) == -pi / 2);             \
  /* atan2: quadrants and signed zeros as in C */                                                   \
  CHECK_(is_pos_zero(cx::atan2(0.0, 1.0)) && is_neg_zero(cx::atan2(-0.0, 1.0)));                    \
  CHECK_(is_pos_zero(cx::atan2(0.0, 0.0)) && is_neg_zero(cx::atan2(-0.0, 0.0)));                    \
  CHECK_(cx::atan2(0.0, -0.0) == pi && cx::atan2(-0.0, -0.0) == -pi);                               \
  CHECK_(cx::atan2(0.0, -1.0) == pi && cx::atan2(-0.0, -1.0) == -pi);                               \
  CHECK_(cx::atan2(1.0, 0.0) == pi / 2 && cx::atan2(-1.0, -0.0) == -pi / 2);                        \
  CHECK_(cx::atan2(inf, inf) == pi / 4 && cx::atan2(-inf, inf) == -pi / 4);                         \
  CHECK_(cx::atan2(inf, -inf) == 3 * pi / 4 && cx::atan2(-inf, -inf) == -3 * pi / 4);               \
  CHECK_(is_pos_zero(cx::atan2(1.0, inf)) && is_neg_zero(cx::atan2(-1.0, inf)));                    \
  CHECK_(cx::atan2(1.0, -inf) == pi && cx::atan2(-1.0, -inf) == -pi);                               \
  CHECK_(cx::atan2(inf, 1.0) == pi / 2 && cx::atan2(-inf, -5.0) == -pi / 2);                        \
  CHECK_(cx::atan2(1e300, 1e-300) == pi / 2 && cx::atan2(-1e-300, -1e300) == -pi);                  \
  CHECK_(cx::atan2(1.0, 1.0) == pi / 4 && cx::atan2(-1.0, -1.0) == -3 * pi / 4);                    \
  /* subnormal arguments do not hang or crash */                                                    \
  CHECK_(cx::sin(denorm_min) == denorm_min && cx::atan(denorm_min) == denorm_min)

TAPELESS_CX_TRIGONOMETRIC_IEEE_CASES(TAPELESS_CX_STATIC_CHECK);

// Edge inputs in constant expressions.
TAPELESS_CX_EDGES(sin);
TAPELESS_CX_EDGES(cos);
TAPELESS_CX_EDGES(tan);
TAPELESS_CX_EDGES(asin);
TAPELESS_CX_EDGES(acos);
TAPELESS_CX_EDGES(atan);
TAPELESS_CX_EDGE_PAIRS(atan2);

// Arguments near the multiples of pi/2 up to about 1e4, the hardest for argument reduction.
void add_near_pio2_multiples(points& p) {
  for (int k = -6400; k <= 6400; k += (k > -40 && k < 40) ? 1 : 37) p.add_around(k * (pi / 2), 2);
}

}  // namespace

TEST_CASE("cx/trigonometric.hpp: the IEEE special cases at run time") {
  TAPELESS_CX_TRIGONOMETRIC_IEEE_CASES(TAPELESS_CX_RUNTIME_CHECK);
}

TEST_CASE("sin, cos, tan against std") {
  points p(0x5EED0031);
  p.add_uniform(-1e4, 1e4, 6000);
  p.add_grid(-10.0, 10.0, 4000);
  p.add_log_uniform(-300, 0, 2000, true);
  p.add_log_uniform(4, 22, 1500, true);  // beyond the required range: Cody-Waite and Payne-Hanek
  p.add_log_uniform(22, 308, 500, true);
  add_near_pio2_multiples(p);
  for (const double x : {0.0, -0.0, 1e-300, 0x1p-26, 0x1p-27, 0.7853981633974483, 1.0, 1e4, -1e4, 1.6e6, 1e22, dbl_max,
                         -dbl_max, 0x1.6ac5b262ca1ffp+849}) {
    p.add_around(x);
  }
  TAPELESS_RUN1(sin, p.xs);
  TAPELESS_RUN1(cos, p.xs);
  TAPELESS_RUN1(tan, p.xs);
}

TEST_CASE("asin, acos, atan against std") {
  points p(0x5EED0041);
  p.add_grid(-1.0, 1.0, 6000);
  p.add_uniform(-1.0, 1.0, 3000);
  p.add_log_uniform(-300, 0, 2000, true);
  for (int i = 0; i < 1000; ++i) p.add(p.sign() * (1.0 - p.log_uniform(-16, -1)));  // near +-1
  for (const double x : {0.0, -0.0, 1e-300, 0x1p-26, 0x1p-57, 0.5, -0.5, 0.975, -0.975, 1.0, -1.0}) p.add_around(x);
  TAPELESS_RUN1(asin, p.xs);
  TAPELESS_RUN1(acos, p.xs);

  points q(0x5EED0042);
  q.add_log_uniform(-300, 300, 6000, true);
  q.add_grid(-10.0, 10.0, 4000);
  for (const double x : {0.0, -0.0, 0x1p-27, 0.4375, 0.6875, 1.1875, 2.4375, 1.0, -1.0, 0x1p66, dbl_max})
    q.add_around(x);
  TAPELESS_RUN1(atan, q.xs);
}

TEST_CASE("atan2 against std") {
  points p(0x5EED0051);
  std::vector<double> ys, xs;
  for (int i = 0; i < 6000; ++i) {  // magnitudes across the whole range, all quadrants
    ys.push_back(p.sign() * p.log_uniform(-300, 300));
    xs.push_back(p.sign() * p.log_uniform(-300, 300));
  }
  for (int i = 0; i < 6000; ++i) {  // comparable magnitudes
    const double m = p.log_uniform(-5, 5);
    ys.push_back(p.sign() * m * p.uniform(0.01, 100.0));
    xs.push_back(p.sign() * m * p.uniform(0.01, 100.0));
  }
  for (int i = 0; i <= 4000; ++i) {  // around the unit circle
    const double t = -pi + 2 * pi * i / 4000;
    ys.push_back(std::sin(t));
    xs.push_back(std::cos(t));
  }
  TAPELESS_RUN2(atan2, ys, xs);
}
