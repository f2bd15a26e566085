// SPDX-License-Identifier: BSL-1.0
// tapeless/math/cx/special.hpp (erf, erfc) against std:: and in constant expressions, by the
// accuracy rule of test/support/constexpr_math_check.hpp.

#include <tapeless/math/cx/special.hpp>

#include <doctest/doctest.h>

#include <constexpr_math_check.hpp>

#include <cmath>
#include <initializer_list>
#include <vector>

using namespace constexpr_math_check;  // the checks and sweeps of test/support

namespace {

// Reference values computed with 50-digit arithmetic (mpmath) and rounded to double.
static_assert(near(cx::erf(0.5), 0.5204998778130465));
static_assert(near(cx::erfc(5.0), 1.537459794428035e-12));
static_assert(near(cx::erfc(26.0), 5.663192408856143e-296));

// IEEE special cases.
#define TAPELESS_CX_SPECIAL_IEEE_CASES(CHECK_)                                                       \
  /* NaN and limits */                                                                               \
  CHECK_(is_nan(cx::erf(qnan)) && is_nan(cx::erfc(qnan)));                                           \
  CHECK_(cx::erf(inf) == 1.0 && cx::erf(-inf) == -1.0 && cx::erfc(inf) == 0 && cx::erfc(-inf) == 2); \
  CHECK_(cx::erfc(30.0) == 0 && cx::erfc(-30.0) == 2.0 && cx::erf(10.0) == 1.0);                     \
  /* exact values, signed zeros, subnormal arguments */                                              \
  CHECK_(is_neg_zero(cx::erf(-0.0)) && cx::erfc(0.0) == 1.0 && cx::erf(denorm_min) > 0)

TAPELESS_CX_SPECIAL_IEEE_CASES(TAPELESS_CX_STATIC_CHECK);

// Edge inputs in constant expressions.
TAPELESS_CX_EDGES(erf);
TAPELESS_CX_EDGES(erfc);

}  // namespace

TEST_CASE("cx/special.hpp: the IEEE special cases at run time") {
  TAPELESS_CX_SPECIAL_IEEE_CASES(TAPELESS_CX_RUNTIME_CHECK);
}

TEST_CASE("erf, erfc against std") {
  points p(0x5EED0081);
  p.add_grid(-7.0, 7.0, 6000);
  p.add_uniform(-6.0, 6.0, 3000);
  p.add_log_uniform(-300, 0, 2000, true);
  for (const double x : {0.0, -0.0, 1e-300, 0x1p-28, 0x1p-56, 0.25, 0.84375, -0.84375, 1.25, -1.25, 2.857142857142857,
                         -2.857142857142857, 6.0, -6.0}) {
    p.add_around(x);
  }
  TAPELESS_RUN1(erf, p.xs);

  points q(0x5EED0082);
  q.add_grid(-7.0, 28.0, 7000);
  q.add_uniform(-6.0, 27.3, 3000);
  q.add_uniform(20.0, 27.3, 3000);  // the tail, down to underflow
  q.add_log_uniform(-300, 0, 2000, true);
  for (const double x : {0.0, -0.0, 1e-300, 0x1p-56, 0.25, 0.84375, -0.84375, 1.25, -1.25, 2.857142857142857, 6.0, -6.0,
                         26.5, 26.55, 27.0, 27.2, 27.3, 28.0}) {
    q.add_around(x);
  }
  TAPELESS_RUN1(erfc, q.xs);
}
