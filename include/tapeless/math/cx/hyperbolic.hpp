// SPDX-License-Identifier: BSL-1.0
// tapeless/math/cx/hyperbolic.hpp: constexpr sinh, cosh, tanh, asinh, acosh and atanh.
#pragma once

#include <tapeless/math/cx/common.hpp>
#include <tapeless/math/cx/exponential.hpp>
#include <tapeless/math/cx/power.hpp>

namespace tapeless::math::cx {

namespace detail {

// Beyond this, sinh and cosh overflow (e^x / 2 > DBL_MAX); below it e^x / 2 is formed as
// 2^-1 * e^x by exp_dd's scale, so nothing overflows on the way.
inline constexpr double hyperbolic_overflow = 710.4758600739439;

// log(x) + ln 2 = log(2x) for large x, in double-double so that nothing is lost to the addition.
constexpr double log_twice(double x) noexcept { return dd_add(log_dd(x), ln2).hi; }

}  // namespace detail

constexpr double sinh(double x) noexcept {
  if (detail::is_nan(x) || detail::is_inf(x)) return x;
  const double ax = detail::fabs(x);
  if (ax < 0x1p-28) return x;  // sinh x = x + x^3/6 rounds to x; keeps -0
  double r = 0;
  if (ax < 22.0) {
    // sinh = (t + t/(t + 1)) / 2 with t = e^|x| - 1: no cancellation near 0; in double-double.
    const detail::dd t = detail::expm1_dd(ax);
    r = 0.5 * detail::dd_add(t, detail::dd_div(t, detail::dd_add({1.0, 0.0}, t))).hi;
  } else if (ax <= detail::hyperbolic_overflow) {
    r = detail::exp_dd(ax, 0.0, -1);  // e^-|x| is negligible
  } else {
    r = detail::inf;
  }
  return detail::copysign(r, x);
}

constexpr double cosh(double x) noexcept {
  if (detail::is_nan(x)) return x;
  const double ax = detail::fabs(x);
  if (ax < 0x1p-27) return 1.0;
  if (ax < 22.0) {
    // cosh = 1 + t^2 / (2 (1 + t)) with t = e^|x| - 1, in double-double.
    const detail::dd t = detail::expm1_dd(ax);
    const detail::dd w = detail::dd_add({1.0, 0.0}, t);
    const detail::dd excess = detail::dd_div(detail::dd_mul(t, t), detail::dd_add(w, w));
    return detail::dd_add({1.0, 0.0}, excess).hi;
  }
  if (ax <= detail::hyperbolic_overflow) return detail::exp_dd(ax, 0.0, -1);
  return detail::inf;
}

constexpr double tanh(double x) noexcept {
  if (detail::is_nan(x)) return x;
  const double ax = detail::fabs(x);
  if (ax >= 22.0) return detail::copysign(1.0, x);  // 1 - tanh(22) < 2^-63; includes +-inf
  if (ax < 0x1p-55) return x;
  double r = 0;
  if (ax >= 1.0) {
    const double t = expm1(2.0 * ax);
    r = 1.0 - 2.0 / (t + 2.0);
  } else {
    // tanh = -t / (t + 2) with t = e^(-2|x|) - 1: no cancellation for small |x|. t is kept as a
    // double-double and the quotient corrected by its residual, which saves about one ulp.
    const detail::dd t = detail::expm1_dd(-2.0 * ax);
    detail::dd d = detail::two_sum(2.0, t.hi);
    d.lo += t.lo;
    const double q = -t.hi / d.hi;
    const detail::dd p = detail::two_prod(q, d.hi);
    const double residual = (((-t.hi - p.hi) - p.lo) - t.lo) - q * d.lo;  // -t - q (t + 2)
    r = q + residual / d.hi;
  }
  return detail::copysign(r, x);
}

constexpr double asinh(double x) noexcept {
  if (detail::is_nan(x) || detail::is_inf(x)) return x;
  const double ax = detail::fabs(x);
  if (ax < 0x1p-28) return x;
  double r = 0;
  if (ax > 0x1p28) {
    r = detail::log_twice(ax);  // sqrt(x^2 + 1) = x to double precision
  } else if (ax > 2.0) {
    r = log(2.0 * ax + 1.0 / (sqrt(ax * ax + 1.0) + ax));
  } else {
    // log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) avoids the cancellation in log(|x| + sqrt(x^2 + 1))
    // near 0; the argument is formed as a double-double so that only log1p's rounding remains.
    const detail::dd t = detail::two_prod(ax, ax);
    const detail::dd root = detail::dd_sqrt(detail::dd_add({1.0, 0.0}, t));
    const detail::dd c = detail::dd_div(t, detail::dd_add({1.0, 0.0}, root));
    r = detail::log1p_dd(detail::dd_add({ax, 0.0}, c)).hi;
  }
  return detail::copysign(r, x);
}

constexpr double acosh(double x) noexcept {
  if (detail::is_nan(x)) return x;
  if (x < 1.0) return detail::nan;
  if (x == 1.0) return 0.0;
  if (x == detail::inf) return x;
  if (x > 0x1p28) return detail::log_twice(x);
  if (x > 2.0) return log(2.0 * x - 1.0 / (x + sqrt(x * x - 1.0)));
  // log1p(t + sqrt(2t + t^2)), t = x - 1 (exact), with the argument formed as a double-double.
  const double t = x - 1.0;
  const detail::dd root = detail::dd_sqrt(detail::dd_add({2.0 * t, 0.0}, detail::two_prod(t, t)));
  return detail::log1p_dd(detail::dd_add({t, 0.0}, root)).hi;
}

constexpr double atanh(double x) noexcept {
  if (detail::is_nan(x)) return x;
  const double ax = detail::fabs(x);
  if (ax > 1.0) return detail::nan;
  if (ax == 1.0) return detail::copysign(detail::inf, x);
  if (ax < 0x1p-28) return x;
  // atanh = log1p(2|x| / (1 - |x|)) / 2, with the quotient formed as a double-double: its rounding
  // would otherwise pass straight into the result.
  const detail::dd q = detail::dd_div({2.0 * ax, 0.0}, detail::two_sum(1.0, -ax));
  const double r = 0.5 * detail::log1p_dd(q).hi;
  return detail::copysign(r, x);
}

}  // namespace tapeless::math::cx
