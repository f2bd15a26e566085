// SPDX-License-Identifier: BSL-1.0
// tapeless/math/functions.hpp: its functions of numbers call tapeless::math::cx in constant
// expressions and std:: at run time.

#include <tapeless/math/constexpr_math.hpp>
#include <tapeless/math/functions.hpp>

#include <doctest/doctest.h>

#include <cmath>

namespace {

namespace cx = tapeless::math::cx;
namespace tmath = tapeless::math;

}  // namespace

TEST_CASE("the dispatch in tapeless/math/functions.hpp uses cx in constant expressions") {
  // The constexpr variables are computed by cx (clang could not compile them otherwise); the
  // right-hand sides run cx at run time (volatile defeats folding). They must agree bit for bit.
  volatile double a = 0.7;
  volatile double b = 2.5;
  constexpr double v_exp = tmath::exp(0.7), v_exp2 = tmath::exp2(0.7), v_expm1 = tmath::expm1(0.7);
  constexpr double v_log = tmath::log(0.7), v_log2 = tmath::log2(0.7), v_log10 = tmath::log10(0.7);
  constexpr double v_log1p = tmath::log1p(0.7), v_sqrt = tmath::sqrt(0.7), v_cbrt = tmath::cbrt(0.7);
  constexpr double v_sin = tmath::sin(0.7), v_cos = tmath::cos(0.7), v_tan = tmath::tan(0.7);
  constexpr double v_asin = tmath::asin(0.7), v_acos = tmath::acos(0.7), v_atan = tmath::atan(0.7);
  constexpr double v_sinh = tmath::sinh(0.7), v_cosh = tmath::cosh(0.7), v_tanh = tmath::tanh(0.7);
  constexpr double v_asinh = tmath::asinh(0.7), v_acosh = tmath::acosh(2.5), v_atanh = tmath::atanh(0.7);
  constexpr double v_erf = tmath::erf(0.7), v_erfc = tmath::erfc(2.5);
  constexpr double v_pow = tmath::pow(0.7, 2.5), v_atan2 = tmath::atan2(0.7, 2.5), v_hypot = tmath::hypot(0.7, 2.5);
  CHECK(v_exp == cx::exp(a));
  CHECK(v_exp2 == cx::exp2(a));
  CHECK(v_expm1 == cx::expm1(a));
  CHECK(v_log == cx::log(a));
  CHECK(v_log2 == cx::log2(a));
  CHECK(v_log10 == cx::log10(a));
  CHECK(v_log1p == cx::log1p(a));
  CHECK(v_sqrt == cx::sqrt(a));
  CHECK(v_cbrt == cx::cbrt(a));
  CHECK(v_sin == cx::sin(a));
  CHECK(v_cos == cx::cos(a));
  CHECK(v_tan == cx::tan(a));
  CHECK(v_asin == cx::asin(a));
  CHECK(v_acos == cx::acos(a));
  CHECK(v_atan == cx::atan(a));
  CHECK(v_sinh == cx::sinh(a));
  CHECK(v_cosh == cx::cosh(a));
  CHECK(v_tanh == cx::tanh(a));
  CHECK(v_asinh == cx::asinh(a));
  CHECK(v_acosh == cx::acosh(b));
  CHECK(v_atanh == cx::atanh(a));
  CHECK(v_erf == cx::erf(a));
  CHECK(v_erfc == cx::erfc(b));
  CHECK(v_pow == cx::pow(a, b));
  CHECK(v_atan2 == cx::atan2(a, b));
  CHECK(v_hypot == cx::hypot(a, b));

  // float goes through the double implementation.
  constexpr float f = tmath::sin(0.5f);
  static_assert(f == static_cast<float>(cx::sin(0.5)));
  // At run time the dispatch calls std::.
  CHECK(tmath::sin(static_cast<double>(a)) == std::sin(static_cast<double>(a)));
}
