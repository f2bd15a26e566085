// SPDX-License-Identifier: BSL-1.0
// tapeless/math/cx/exponential.hpp (exp, exp2, expm1, log, log2, log10, log1p) against std:: and in constant
// expressions, by the accuracy rule of test/support/constexpr_math_check.hpp.

#include <tapeless/math/cx/exponential.hpp>

#include <doctest/doctest.h>

#include <constexpr_math_check.hpp>

#include <cmath>
#include <initializer_list>
#include <vector>

using namespace constexpr_math_check;  // the checks and sweeps of test/support

namespace {

// Reference values computed with 50-digit arithmetic (mpmath) and rounded to double.
static_assert(near(cx::exp(1.0), 2.718281828459045));
static_assert(near(cx::exp(-700.0), 9.85967654375977e-305));
static_assert(near(cx::exp(709.0), 8.218407461554972e+307));
static_assert(cx::exp(-740.0) == 4.2e-322);  // subnormal result
static_assert(near(cx::exp2(0.5), 1.4142135623730951));
static_assert(cx::exp2(-1074.0) == denorm_min && cx::exp2(1023.0) == 0x1p1023 && cx::exp2(10.0) == 1024.0);
static_assert(near(cx::expm1(1e-10), 1.00000000005e-10));
static_assert(near(cx::expm1(-0.5), -0.3934693402873666));
static_assert(near(cx::expm1(30.0), 10686474581523.463));
static_assert(near(cx::log(10.0), 2.302585092994046));
static_assert(near(cx::log(1.0 + 0x1p-52), 2.2204460492503128e-16));
static_assert(near(cx::log(5e-324), -744.4400719213812));
static_assert(near(cx::log2(3.0), 1.584962500721156) && cx::log2(0x1p-1074) == -1074.0);
static_assert(near(cx::log10(7.0), 0.8450980400142568) && cx::log10(1e22) == 22.0);
static_assert(near(cx::log1p(1e-3), 0.0009995003330835331));
static_assert(near(cx::log1p(-0.999), -6.907755278982136));

// IEEE special cases.
#define TAPELESS_CX_EXPONENTIAL_IEEE_CASES(CHECK_)                                                                   \
  /* NaN */                                                                                                          \
  CHECK_(is_nan(cx::exp(qnan)) && is_nan(cx::exp2(qnan)) && is_nan(cx::expm1(qnan)));                                \
  CHECK_(is_nan(cx::log(qnan)) && is_nan(cx::log2(qnan)) && is_nan(cx::log10(qnan)) && is_nan(cx::log1p(qnan)));     \
  /* domain errors */                                                                                                \
  CHECK_(is_nan(cx::log(-1.0)) && is_nan(cx::log2(-1.0)) && is_nan(cx::log10(-1e-300)) && is_nan(cx::log1p(-2.0)) && \
         is_nan(cx::log(-inf)));                                                                                     \
  /* poles and limits */                                                                                             \
  CHECK_(cx::log(0.0) == -inf && cx::log(-0.0) == -inf && cx::log2(0.0) == -inf);                                    \
  CHECK_(cx::log10(0.0) == -inf && cx::log1p(-1.0) == -inf && cx::log(inf) == inf && cx::log1p(inf) == inf);         \
  CHECK_(cx::exp(1000.0) == inf && cx::exp(710.0) == inf && cx::exp(inf) == inf);                                    \
  CHECK_(is_pos_zero(cx::exp(-1000.0)) && is_pos_zero(cx::exp(-inf)) && cx::exp(-745.0) > 0);                        \
  CHECK_(cx::exp2(1024.0) == inf && is_pos_zero(cx::exp2(-1080.0)) && cx::exp2(-inf) == 0);                          \
  CHECK_(cx::expm1(inf) == inf && cx::expm1(-inf) == -1.0 && cx::expm1(800.0) == inf);                               \
  /* exact values and signed zeros */                                                                                \
  CHECK_(cx::exp(0.0) == 1.0 && cx::exp2(0.0) == 1.0 && cx::log(1.0) == 0);                                          \
  CHECK_(is_neg_zero(cx::expm1(-0.0)) && is_neg_zero(cx::log1p(-0.0)));                                              \
  /* subnormal arguments do not hang or crash */                                                                     \
  CHECK_(cx::log(denorm_min) < -744 && cx::exp(denorm_min) == 1.0);                                                  \
  CHECK_(cx::expm1(denorm_min) == denorm_min && cx::log1p(denorm_min) == denorm_min)

TAPELESS_CX_EXPONENTIAL_IEEE_CASES(TAPELESS_CX_STATIC_CHECK);

// Edge inputs in constant expressions.
TAPELESS_CX_EDGES(exp);
TAPELESS_CX_EDGES(exp2);
TAPELESS_CX_EDGES(expm1);
TAPELESS_CX_EDGES(log);
TAPELESS_CX_EDGES(log2);
TAPELESS_CX_EDGES(log10);
TAPELESS_CX_EDGES(log1p);

}  // namespace

TEST_CASE("cx/exponential.hpp: the IEEE special cases at run time") {
  TAPELESS_CX_EXPONENTIAL_IEEE_CASES(TAPELESS_CX_RUNTIME_CHECK);
}

TEST_CASE("exp, exp2, expm1 against std") {
  points p(0x5EED0001);
  p.add_grid(-745.0, 709.78, 4000);
  p.add_uniform(-745.0, 709.78, 4000);
  p.add_log_uniform(-300, 2.8, 4000, true);
  p.add_grid(-1.0, 1.0, 2000);
  for (const double x : {0.0,
                         -0.0,
                         1e-300,
                         -1e-300,
                         1e-20,
                         1e-10,
                         0.34657359027997264,
                         0.5,
                         1.0,
                         2.0,
                         -1.0,
                         709.0,
                         709.78,
                         709.782712893383973096,
                         -708.3964185322641,
                         -708.4,
                         -740.0,
                         -744.0,
                         -745.0,
                         -745.1332191019411,
                         700.0,
                         -700.0}) {
    p.add_around(x);
  }
  TAPELESS_RUN1(exp, p.xs);

  points q(0x5EED0002);
  q.add_grid(-1074.0, 1023.99, 6000);
  q.add_uniform(-1080.0, 1024.0, 4000);
  q.add_log_uniform(-300, 3.0, 2000, true);
  for (int k = -1074; k <= 1023; ++k) q.add(k);  // exact powers of two
  for (const double x : {0.0, -0.0, 0.5, -0.5, 1023.5, 1023.9999999999999, -1022.0, -1022.5, -1074.5, -1075.0}) {
    q.add_around(x);
  }
  TAPELESS_RUN1(exp2, q.xs);

  points r(0x5EED0003);
  r.add_grid(-45.0, 709.78, 4000);
  r.add_grid(-1.0, 1.0, 2000);
  r.add_log_uniform(-300, 2.8, 5000, true);
  for (const double x : {0.0,
                         -0.0,
                         1e-300,
                         -1e-300,
                         1e-17,
                         -1e-17,
                         1e-10,
                         -1e-10,
                         0.34657359027997264,
                         -0.34657359027997264,
                         0.5,
                         -0.5,
                         1.0,
                         -1.0,
                         36.0,
                         37.0,
                         38.0,
                         -37.0,
                         -38.0,
                         -40.0,
                         709.78,
                         709.782712893383973096}) {
    r.add_around(x);
  }
  TAPELESS_RUN1(expm1, r.xs);
}

TEST_CASE("log, log2, log10, log1p against std") {
  points p(0x5EED0011);
  p.add_log_uniform(-307.5, 308.2, 8000, false);
  p.add_grid(0.5, 2.0, 4000);
  p.add_uniform(0.9, 1.1, 2000);
  p.add_log_uniform(-323.5, -308, 500, false);  // subnormal arguments
  for (int k = 1; k <= 64; ++k) {
    p.add(1.0 + k * 0x1p-52);
    p.add(1.0 - k * 0x1p-53);
    p.add(1.0 + k * 1e-10);
    p.add(1.0 - k * 1e-10);
  }
  for (const double x : {denorm_min, 1e-310, dbl_min, 0.5, 1.0, 2.0, 10.0, 100.0, 1e22, dbl_max, 1.5, 0.75, 1.9921875,
                         0.99609375, 1.0078125, 3.0}) {
    p.add_around(x);
  }
  TAPELESS_RUN1(log, p.xs);
  TAPELESS_RUN1(log2, p.xs);
  TAPELESS_RUN1(log10, p.xs);

  points q(0x5EED0012);
  q.add_log_uniform(-300, 300, 5000, false);
  for (int i = 0; i < 3000; ++i) q.add(-q.log_uniform(-300, 0) * 0.9999999);  // (-1, 0)
  for (int i = 0; i < 1000; ++i) q.add(-1.0 + q.log_uniform(-15.9, -1));      // just above -1
  q.add_grid(-0.999, 3.0, 3000);
  for (const double x : {0.0, -0.0, 1e-300, -1e-300, 0x1p-54, -0x1p-54, 1e-16, -1e-16, 1e-10, -1e-10, 0.5, -0.5, 1.0,
                         -0.9999999999999999, 0x1p53, 1e300, dbl_max, -0.29289321881345254, 0.41421356237309503}) {
    q.add_around(x);
  }
  TAPELESS_RUN1(log1p, q.xs);
}
