// SPDX-License-Identifier: BSL-1.0
// tapeless/math/cx/hyperbolic.hpp (sinh, cosh, tanh, asinh, acosh, atanh) against std:: and in constant expressions, by
// the accuracy rule of test/support/constexpr_math_check.hpp.

#include <tapeless/math/cx/hyperbolic.hpp>

#include <doctest/doctest.h>

#include <constexpr_math_check.hpp>

#include <cmath>
#include <initializer_list>
#include <vector>

using namespace constexpr_math_check;  // the checks and sweeps of test/support

namespace {

// Reference values computed with 50-digit arithmetic (mpmath) and rounded to double.
static_assert(near(cx::sinh(2.0), 3.6268604078470186));
static_assert(near(cx::sinh(710.0), 1.1169973830808555e+308));
static_assert(near(cx::cosh(3.0), 10.067661995777765));
static_assert(near(cx::tanh(0.4), 0.3799489622552249));
static_assert(near(cx::asinh(5.0), 2.3124383412727525));
static_assert(near(cx::acosh(1.5), 0.9624236501192069));
static_assert(near(cx::atanh(0.9), 1.4722194895832204));

// IEEE special cases.
#define TAPELESS_CX_HYPERBOLIC_IEEE_CASES(CHECK_)                                                           \
  /* NaN and domain errors */                                                                               \
  CHECK_(is_nan(cx::sinh(qnan)) && is_nan(cx::cosh(qnan)) && is_nan(cx::tanh(qnan)));                       \
  CHECK_(is_nan(cx::asinh(qnan)) && is_nan(cx::acosh(qnan)) && is_nan(cx::atanh(qnan)));                    \
  CHECK_(is_nan(cx::atanh(2.0)) && is_nan(cx::acosh(0.5)));                                                 \
  /* poles and limits */                                                                                    \
  CHECK_(cx::atanh(1.0) == inf && cx::atanh(-1.0) == -inf);                                                 \
  CHECK_(cx::sinh(inf) == inf && cx::sinh(-inf) == -inf && cx::sinh(711.0) == inf);                         \
  CHECK_(cx::cosh(-inf) == inf && cx::cosh(711.0) == inf && cx::sinh(-711.0) == -inf);                      \
  CHECK_(cx::tanh(inf) == 1.0 && cx::tanh(-inf) == -1.0 && cx::tanh(30.0) == 1.0);                          \
  CHECK_(cx::tanh(-1e300) == -1.0 && cx::asinh(-inf) == -inf && cx::acosh(inf) == inf);                     \
  /* exact values, signed zeros, subnormal arguments */                                                     \
  CHECK_(is_neg_zero(cx::sinh(-0.0)) && is_pos_zero(cx::acosh(1.0)) && cx::tanh(denorm_min) == denorm_min); \
  CHECK_(is_neg_zero(cx::tanh(-0.0)) && is_neg_zero(cx::asinh(-0.0)) && is_neg_zero(cx::atanh(-0.0)))

TAPELESS_CX_HYPERBOLIC_IEEE_CASES(TAPELESS_CX_STATIC_CHECK);

// Edge inputs in constant expressions.
TAPELESS_CX_EDGES(sinh);
TAPELESS_CX_EDGES(cosh);
TAPELESS_CX_EDGES(tanh);
TAPELESS_CX_EDGES(asinh);
TAPELESS_CX_EDGES(acosh);
TAPELESS_CX_EDGES(atanh);

}  // namespace

TEST_CASE("cx/hyperbolic.hpp: the IEEE special cases at run time") {
  TAPELESS_CX_HYPERBOLIC_IEEE_CASES(TAPELESS_CX_RUNTIME_CHECK);
}

TEST_CASE("sinh, cosh, tanh against std") {
  points p(0x5EED0061);
  p.add_grid(-710.47, 710.47, 6000);
  p.add_grid(-3.0, 3.0, 3000);
  p.add_log_uniform(-300, 2.85, 4000, true);
  for (const double x : {0.0, -0.0, 1e-300, 0x1p-28, 0x1p-27, 0x1p-55, 0.34657359027997264, 0.5, 1.0, -1.0, 22.0, -22.0,
                         709.78, 709.782712893384, 710.4758600739439, -710.4758600739439}) {
    p.add_around(x);
  }
  TAPELESS_RUN1(sinh, p.xs);
  TAPELESS_RUN1(cosh, p.xs);
  TAPELESS_RUN1(tanh, p.xs);
}

TEST_CASE("asinh, acosh, atanh against std") {
  points p(0x5EED0071);
  p.add_log_uniform(-300, 308, 6000, true);
  p.add_grid(-5.0, 5.0, 4000);
  for (const double x : {0.0, -0.0, 0x1p-28, 2.0, -2.0, 0x1p28, -0x1p28, dbl_max, -dbl_max}) p.add_around(x);
  TAPELESS_RUN1(asinh, p.xs);

  points q(0x5EED0072);
  q.add_log_uniform(0, 308, 4000, false);
  for (int i = 0; i < 3000; ++i) q.add(1.0 + q.log_uniform(-16, 0.5));
  q.add_grid(1.0, 5.0, 4000);
  for (const double x : {1.0, 1.0000000000000002, 2.0, 0x1p28, dbl_max}) q.add_around(x);
  TAPELESS_RUN1(acosh, q.xs);

  points r(0x5EED0073);
  r.add_grid(-0.9999, 0.9999, 5000);
  r.add_log_uniform(-300, 0, 3000, true);
  for (int i = 0; i < 2000; ++i) r.add(r.sign() * (1.0 - r.log_uniform(-16, -1)));
  for (const double x : {0.0, -0.0, 0x1p-28, 0.5, -0.5, 0.9999999999999999, -0.9999999999999999}) r.add_around(x);
  TAPELESS_RUN1(atanh, r.xs);
}
