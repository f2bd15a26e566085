// SPDX-License-Identifier: BSL-1.0
// tapeless/math/cx/trigonometric.hpp: constexpr sin, cos, tan, asin, acos, atan and atan2.
#pragma once

#include <tapeless/math/cx/common.hpp>
#include <tapeless/math/cx/power.hpp>

namespace tapeless::math::cx {

namespace detail {

inline constexpr double pi_hi = 3.141592653589793;
inline constexpr double pi_lo = 1.2246467991473532e-16;
inline constexpr double pio4_hi = 0.7853981633974483;
inline constexpr double three_pio4 = 2.356194490192345;

// sin(x + y) on |x + y| <= ~pi/4, y the tail of x: the degree-13 minimax polynomial of fdlibm
// (error < 2^-58), with the first-order correction cos(x)*y ~ (1 - x^2/2)*y for the tail.
constexpr double sin_kernel(double x, double y) noexcept {
  constexpr double s1 = -1.66666666666666324348e-01;
  constexpr double s2 = 8.33333333332248946124e-03;
  constexpr double s3 = -1.98412698298579493134e-04;
  constexpr double s4 = 2.75573137070700676789e-06;
  constexpr double s5 = -2.50507602534068634195e-08;
  constexpr double s6 = 1.58969099521155010221e-10;
  const double z = x * x;
  const double w = z * z;
  const double r = s2 + z * (s3 + z * s4) + z * w * (s5 + z * s6);
  const double v = z * x;
  return x - ((z * (0.5 * y - v * r) - y) - v * s1);
}

// cos(x + y) on |x + y| <= ~pi/4: fdlibm's degree-14 minimax polynomial (error < 2^-58). 1 - x^2/2
// is formed as w plus its exact rounding error, so the leading terms lose nothing.
constexpr double cos_kernel(double x, double y) noexcept {
  constexpr double c1 = 4.16666666666666019037e-02;
  constexpr double c2 = -1.38888888888741095749e-03;
  constexpr double c3 = 2.48015872894767294178e-05;
  constexpr double c4 = -2.75573143513906633035e-07;
  constexpr double c5 = 2.08757232129817482790e-09;
  constexpr double c6 = -1.13596475577881948265e-11;
  const double z = x * x;
  const double zz = z * z;
  const double r = z * (c1 + z * (c2 + z * c3)) + zz * zz * (c4 + z * (c5 + z * c6));
  const double hz = 0.5 * z;
  const double w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + (z * r - x * y));
}

// tan(x + y), or -1/tan(x + y) when odd, on |x + y| <= ~pi/4: fdlibm's odd polynomial of degree 27
// on [0, 0.6744] (error < 2^-59.2). Above 0.6744, tan(pi/4 - d) = (1 - tan d)/(1 + tan d) is used
// with the small d, rearranged so the result is 1 (or -1) plus a small correction.
constexpr double tan_kernel(double x, double y, bool odd) noexcept {
  constexpr double t[13] = {3.33333333333334091986e-01, 1.33333333333201242699e-01, 5.39682539762260521377e-02,
                            2.18694882948595424599e-02, 8.86323982359930005737e-03, 3.59207910759131235356e-03,
                            1.45620945432529025516e-03, 5.88041240820264096874e-04, 2.46463134818469906812e-04,
                            7.81794442939557092300e-05, 7.14072491382608190305e-05, -1.85586374855275456654e-05,
                            2.59073051863633712884e-05};
  constexpr double pio4_lo = 3.06161699786838301793e-17;
  const bool negative = x < 0;
  const bool near_pio4 = fabs(x) >= 0.6743354797363281;
  if (near_pio4) {
    if (negative) {
      x = -x;
      y = -y;
    }
    x = (pio4_hi - x) + (pio4_lo - y);
    y = 0.0;
  }
  const double z = x * x;
  const double w = z * z;
  // x^5 (t1 + t2 z + ...) split into odd and even powers of z.
  const double r_odd = t[1] + w * (t[3] + w * (t[5] + w * (t[7] + w * (t[9] + w * t[11]))));
  const double r_even = z * (t[2] + w * (t[4] + w * (t[6] + w * (t[8] + w * (t[10] + w * t[12])))));
  const double s = z * x;
  const double r = (y + z * (s * (r_odd + r_even) + y)) + t[0] * s;  // tan(x + y) - x
  const double tn = x + r;
  if (near_pio4) {
    const double v = odd ? -1.0 : 1.0;
    const double result = v - 2.0 * (x - (tn * tn / (tn + v) - r));
    return negative ? -result : result;
  }
  if (!odd) return tn;
  // -1/(x + r) without losing the rounding error of x + r: with heads h of tn and q of -1/tn whose
  // product is exact, -1/(x + r) = q + a (1 + q h + q v), where h + v = x + r.
  const double h = high_word(tn);
  const double v = r - (h - x);
  const double a = -1.0 / tn;
  const double q = high_word(a);
  return q + a * ((1.0 + q * h) + q * v);
}

// (asin(x) - x) / x^3 ~ t * P(t) / Q(t), t = x^2, on |x| <= 0.5: fdlibm's rational (error < 2^-58.75).
constexpr double asin_rational(double t) noexcept {
  constexpr double p0 = 1.66666666666666657415e-01;
  constexpr double p1 = -3.25565818622400915405e-01;
  constexpr double p2 = 2.01212532134862925881e-01;
  constexpr double p3 = -4.00555345006794114027e-02;
  constexpr double p4 = 7.91534994289814532176e-04;
  constexpr double p5 = 3.47933107596021167570e-05;
  constexpr double q1 = -2.40339491173441421878e+00;
  constexpr double q2 = 2.02094576023350569471e+00;
  constexpr double q3 = -6.88283971605453293030e-01;
  constexpr double q4 = 7.70381505559019352791e-02;
  const double p = t * (p0 + t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5)))));
  const double q = 1.0 + t * (q1 + t * (q2 + t * (q3 + t * q4)));
  return p / q;
}

// atan(x) for 0 <= x < 2^66 (and tiny negative x): reduce to |t| <= 7/16 around the breakpoints
// atan(1/2), atan(1), atan(3/2), atan(inf), then fdlibm's odd polynomial of degree 23.
constexpr double atan_nonnegative(double x) noexcept {
  constexpr double atan_hi[4] = {4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01,
                                 1.57079632679489655800e+00};
  constexpr double atan_lo[4] = {2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17,
                                 6.12323399573676603587e-17};
  constexpr double a[11] = {3.33333333333329318027e-01,  -1.99999999998764832476e-01, 1.42857142725034663711e-01,
                            -1.11111104054623557880e-01, 9.09088713343650656196e-02,  -7.69187620504482999495e-02,
                            6.66107313738753120669e-02,  -5.83357013379057348645e-02, 4.97687799461593236017e-02,
                            -3.65315727442169155270e-02, 1.62858201153657823623e-02};
  int id = -1;
  if (x >= 0.4375) {
    if (x < 0.6875) {
      id = 0;
      x = (2.0 * x - 1.0) / (2.0 + x);
    } else if (x < 1.1875) {
      id = 1;
      x = (x - 1.0) / (x + 1.0);
    } else if (x < 2.4375) {
      id = 2;
      x = (x - 1.5) / (1.0 + 1.5 * x);
    } else {
      id = 3;
      x = -1.0 / x;
    }
  }
  const double z = x * x;
  const double w = z * z;
  // Odd and even halves evaluated separately (shorter dependency chains, same rounding behaviour as fdlibm).
  const double s1 = z * (a[0] + w * (a[2] + w * (a[4] + w * (a[6] + w * (a[8] + w * a[10])))));
  const double s2 = w * (a[1] + w * (a[3] + w * (a[5] + w * (a[7] + w * a[9]))));
  if (id < 0) return x - x * (s1 + s2);
  return atan_hi[id] - ((x * (s1 + s2) - atan_lo[id]) - x);
}

}  // namespace detail

constexpr double sin(double x) noexcept {
  if (detail::is_nan(x)) return x;
  if (detail::is_inf(x)) return detail::nan;
  if (detail::fabs(x) < 0x1p-26) return x;  // sin x = x - x^3/6 rounds to x; keeps -0
  const detail::reduced red = detail::reduce_pio2(x);
  switch (red.n & 3) {
    case 0: return detail::sin_kernel(red.r.hi, red.r.lo);
    case 1: return detail::cos_kernel(red.r.hi, red.r.lo);
    case 2: return -detail::sin_kernel(red.r.hi, red.r.lo);
    default: return -detail::cos_kernel(red.r.hi, red.r.lo);
  }
}

constexpr double cos(double x) noexcept {
  if (detail::is_nan(x)) return x;
  if (detail::is_inf(x)) return detail::nan;
  if (detail::fabs(x) < 0x1p-27) return 1.0;
  const detail::reduced red = detail::reduce_pio2(x);
  switch (red.n & 3) {
    case 0: return detail::cos_kernel(red.r.hi, red.r.lo);
    case 1: return -detail::sin_kernel(red.r.hi, red.r.lo);
    case 2: return -detail::cos_kernel(red.r.hi, red.r.lo);
    default: return detail::sin_kernel(red.r.hi, red.r.lo);
  }
}

constexpr double tan(double x) noexcept {
  if (detail::is_nan(x)) return x;
  if (detail::is_inf(x)) return detail::nan;
  if (detail::fabs(x) < 0x1p-27) return x;  // tan x = x + x^3/3 rounds to x; keeps -0
  const detail::reduced red = detail::reduce_pio2(x);
  return detail::tan_kernel(red.r.hi, red.r.lo, (red.n & 1) != 0);
}

constexpr double asin(double x) noexcept {
  if (detail::is_nan(x)) return x;
  const double ax = detail::fabs(x);
  if (ax > 1.0) return detail::nan;
  if (ax == 1.0) return detail::copysign(detail::pio2.hi, x);
  if (ax < 0x1p-26) return x;
  if (ax < 0.5) return x + x * detail::asin_rational(x * x);
  // asin(x) = pi/2 - 2 asin(s), s = sqrt((1 - |x|)/2) <= 1/2.
  const double t = (1.0 - ax) * 0.5;  // exact
  const double s = sqrt(t);
  const double r = detail::asin_rational(t);
  double result = 0;
  if (ax >= 0.975) {
    result = detail::pio2.hi - (2.0 * (s + s * r) - detail::pio2.lo);
  } else {
    // 2s is no longer small next to pi/2: split s = f + c with f^2 exact and evaluate
    // pi/4 + (pi/4 - 2f) - (2 s R - (pio2_lo + 2c)) so the large terms cancel exactly.
    const double f = detail::high_word(s);
    const double c = (t - f * f) / (s + f);
    const double p = 2.0 * s * r - (detail::pio2.lo - 2.0 * c);
    const double q = detail::pio4_hi - 2.0 * f;
    result = detail::pio4_hi - (p - q);
  }
  return detail::copysign(result, x);
}

constexpr double acos(double x) noexcept {
  if (detail::is_nan(x)) return x;
  const double ax = detail::fabs(x);
  if (ax > 1.0) return detail::nan;
  if (x == 1.0) return 0.0;
  if (x == -1.0) return detail::pi_hi;
  if (ax < 0x1p-57) return detail::pio2.hi;
  if (ax < 0.5) {
    // acos(x) = pi/2 - asin(x)
    const double r = detail::asin_rational(x * x);
    return detail::pio2.hi - (x - (detail::pio2.lo - x * r));
  }
  if (x < 0) {
    // acos(x) = pi - 2 asin(s), s = sqrt((1 + x)/2)
    const double z = (1.0 + x) * 0.5;
    const double s = sqrt(z);
    const double w = detail::asin_rational(z) * s - detail::pio2.lo;
    return detail::pi_hi - 2.0 * (s + w);
  }
  // acos(x) = 2 asin(s), s = sqrt((1 - x)/2) = f + c with f^2 exact
  const double z = (1.0 - x) * 0.5;
  const double s = sqrt(z);
  const double f = detail::high_word(s);
  const double c = (z - f * f) / (s + f);
  const double w = detail::asin_rational(z) * s + c;
  return 2.0 * (f + w);
}

constexpr double atan(double x) noexcept {
  if (detail::is_nan(x)) return x;
  const double ax = detail::fabs(x);
  if (ax >= 0x1p66) return detail::copysign(detail::pio2.hi, x);  // includes +-inf
  if (ax < 0x1p-27) return x;
  return detail::copysign(detail::atan_nonnegative(ax), x);
}

// Quadrants and signed zeros as in C (Annex F.10.1.4).
constexpr double atan2(double y, double x) noexcept {
  using detail::copysign;
  if (detail::is_nan(x)) return x;
  if (detail::is_nan(y)) return y;
  if (y == 0) {
    // +-0 for x > 0 or x = +0; +-pi for x < 0 or x = -0
    return detail::sign_bit(x) ? copysign(detail::pi_hi, y) : y;
  }
  if (x == 0) return copysign(detail::pio2.hi, y);
  if (detail::is_inf(x)) {
    if (detail::is_inf(y)) return copysign(x > 0 ? detail::pio4_hi : detail::three_pio4, y);
    return x > 0 ? copysign(0.0, y) : copysign(detail::pi_hi, y);
  }
  if (detail::is_inf(y)) return copysign(detail::pio2.hi, y);

  // atan(|y/x|), with the quotient only formed when it cannot overflow.
  int ex = 0, ey = 0;
  detail::frexp(x, ex);
  detail::frexp(y, ey);
  double z = 0;
  if (ey - ex > 60) {
    z = detail::pio2.hi + 0.5 * detail::pi_lo;  // |y/x| > 2^59
  } else if (x < 0 && ey - ex < -60) {
    z = 0.0;  // only pi matters below
  } else {
    z = atan(detail::fabs(y / x));
  }
  if (x > 0) return copysign(z, y);
  const double r = detail::pi_hi - (z - detail::pi_lo);  // pi - z, keeping pi's low part
  return copysign(r, y);
}

}  // namespace tapeless::math::cx
