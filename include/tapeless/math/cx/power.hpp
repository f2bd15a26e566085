// SPDX-License-Identifier: BSL-1.0
// tapeless/math/cx/power.hpp: constexpr sqrt, cbrt, hypot and pow.
#pragma once

#include <tapeless/math/cx/common.hpp>
#include <tapeless/math/cx/exponential.hpp>

namespace tapeless::math::cx {

namespace detail {

// sqrt(m) for m in [0.5, 2): Newton from a linear guess (6% off, so four steps reach double precision,
// the fifth is margin), then one step on the exactly computed residual m - y^2, which rounds almost
// always correctly.
constexpr double sqrt_reduced(double m) noexcept {
  double y = 0.5 * (1.0 + m);
  for (int i = 0; i < 5; ++i) y = 0.5 * (y + m / y);
  const dd yy = two_prod(y, y);
  const double residual = (m - yy.hi) - yy.lo;  // m - yy.hi is exact (Sterbenz)
  return y + residual / (2.0 * y);
}

// x^n for a positive finite x and 0 < n <= 2^30, by squaring in double-double: about 2^-99 relative,
// so results that are representable come out exact. Callers keep x^n within about e^(+-650).
constexpr dd ipow_dd(double x, long long n) noexcept {
  dd result = {1.0, 0.0};
  dd square = {x, 0.0};
  for (int i = 0; i < 31 && n != 0; ++i) {
    if ((n & 1) != 0) result = dd_mul(result, square);
    n >>= 1;
    if (n != 0) square = dd_mul(square, square);
  }
  return result;
}

// x^y for finite x > 0, x != 1, and finite y != 0.
constexpr double pow_positive(double x, double y) noexcept {
  // |log x| >= 2^-53 for x != 1, so |y| > 2^64 over/underflows.
  if (fabs(y) > 0x1p64) return (x > 1.0) == (y > 0.0) ? inf : 0.0;
  // y * log(x) as a double-double: log(x) is good to about 2^-67, so the exponent keeps an absolute
  // error far below 2^-53 even when |y log x| is near 700.
  const dd l = log_dd(x);
  dd t = two_prod(y, l.hi);
  t.lo += y * l.lo;
  t = fast_two_sum(t.hi, t.lo);
  if (t.hi > 710.0) return inf;
  if (t.hi < -746.0) return 0.0;
  if (is_integer(y) && fabs(y) <= 0x1p30 && fabs(t.hi) < 650.0) {
    // Integral powers by squaring: correctly rounded unless within 2^-99 of a rounding boundary,
    // so pow(10, 2) == 100 and pow(x, 2) == x*x.
    const dd p = ipow_dd(x, static_cast<long long>(fabs(y)));
    return y > 0 ? p.hi : dd_recip(p).hi;
  }
  return exp_dd(t.hi, t.lo);
}

}  // namespace detail

constexpr double sqrt(double x) noexcept {
  if (detail::is_nan(x)) return x;
  if (x == 0) return x;  // keeps -0
  if (x < 0) return detail::nan;
  if (x == detail::inf) return x;
  int e = 0;
  double m = detail::frexp(x, e);
  if ((e & 1) != 0) {  // make the exponent even so it can be halved exactly
    m *= 2.0;
    --e;
  }
  return detail::ldexp(detail::sqrt_reduced(m), e / 2);
}

namespace detail {

// sqrt(a) for a double-double a > 0 (not near the ends of the double range): one Newton step on
// the correctly rounded sqrt of a.hi.
constexpr dd dd_sqrt(dd a) noexcept {
  const double s = sqrt(a.hi);
  const dd ss = two_prod(s, s);
  return fast_two_sum(s, (((a.hi - ss.hi) - ss.lo) + a.lo) / (2.0 * s));
}

}  // namespace detail

constexpr double cbrt(double x) noexcept {
  if (detail::is_nan(x) || x == 0 || detail::is_inf(x)) return x;
  int e = 0;
  double m = detail::frexp(detail::fabs(x), e);
  int r = e % 3;  // x = m 2^r 2^(3q), m 2^r in [0.5, 4)
  if (r < 0) r += 3;
  m *= static_cast<double>(1 << r);
  const int q = (e - r) / 3;
  // Newton from a linear guess (within 15%), six steps to double precision, then one step on the
  // residual m - y^3 computed in double-double.
  double y = 0.65 + 0.25 * m;
  for (int i = 0; i < 6; ++i) y = (2.0 * y + m / (y * y)) / 3.0;
  const detail::dd y2 = detail::two_prod(y, y);
  detail::dd y3 = detail::two_prod(y2.hi, y);
  y3.lo += y2.lo * y;
  const double residual = (m - y3.hi) - y3.lo;
  y += residual / (3.0 * y * y);
  return detail::copysign(detail::ldexp(y, q), x);
}

constexpr double hypot(double x, double y) noexcept {
  if (detail::is_inf(x) || detail::is_inf(y)) return detail::inf;  // even if the other is NaN
  if (detail::is_nan(x)) return x;
  if (detail::is_nan(y)) return y;
  double a = detail::fabs(x);
  double b = detail::fabs(y);
  if (a < b) {
    const double t = a;
    a = b;
    b = t;
  }
  if (b == 0) return a;
  int ea = 0, eb = 0;
  detail::frexp(a, ea);
  detail::frexp(b, eb);
  if (ea - eb > 60) return a + b;  // b^2 is far below half an ulp of a^2
  // Scale so a is in [0.5, 1) (exact; b stays normal), sum the squares in double-double.
  a = detail::ldexp(a, -ea);
  b = detail::ldexp(b, -ea);
  const detail::dd a2 = detail::two_prod(a, a);
  const detail::dd b2 = detail::two_prod(b, b);
  detail::dd s = detail::two_sum(a2.hi, b2.hi);
  s.lo += a2.lo + b2.lo;
  s = detail::fast_two_sum(s.hi, s.lo);  // in [0.25, 2)
  return detail::ldexp(detail::dd_sqrt(s).hi, ea);
}

// Special cases follow C (Annex F.10.4.4).
constexpr double pow(double x, double y) noexcept {
  if (y == 0) return 1.0;    // even for a NaN x
  if (x == 1.0) return 1.0;  // even for a NaN y
  if (detail::is_nan(x)) return x;
  if (detail::is_nan(y)) return y;
  const double ax = detail::fabs(x);
  if (detail::is_inf(y)) {
    if (ax == 1.0) return 1.0;  // x == -1
    return (ax > 1.0) == (y > 0) ? detail::inf : 0.0;
  }
  const bool y_odd = detail::is_odd_integer(y);
  if (x == 0) {
    if (y < 0) return y_odd ? detail::copysign(detail::inf, x) : detail::inf;
    return y_odd ? x : 0.0;
  }
  if (detail::is_inf(x)) {
    const double magnitude = y < 0 ? 0.0 : detail::inf;
    return x < 0 && y_odd ? -magnitude : magnitude;
  }
  if (x < 0 && !detail::is_integer(y)) return detail::nan;
  if (ax == 1.0) return y_odd ? -1.0 : 1.0;  // x == -1, any integral y (however large)
  const double r = detail::pow_positive(ax, y);
  return x < 0 && y_odd ? -r : r;
}

}  // namespace tapeless::math::cx
