// SPDX-License-Identifier: BSL-1.0
// tapeless/math/cx/common.hpp: bit helpers, frexp/ldexp, double-double arithmetic, pi/2 reduction.
//
// Constant evaluation rejects some IEEE operations: g++ refuses an overflow to infinity, clang
// any arithmetic that yields a NaN (even from a NaN operand), and both a division by zero. So the
// functions in tapeless::math::cx return their special values (NaN, infinities, zeros) without
// arithmetic, and scale with ldexp below, which never overflows by computation.
// Tests: test/unit/math/cx/
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

namespace tapeless::math::cx::detail {

using u64 = std::uint64_t;

inline constexpr double inf = std::numeric_limits<double>::infinity();
inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();

inline constexpr u64 sign_mask = 0x8000000000000000u;
inline constexpr u64 exponent_mask = 0x7FF0000000000000u;
inline constexpr u64 fraction_mask = 0x000FFFFFFFFFFFFFu;

constexpr u64 bits(double x) noexcept { return std::bit_cast<u64>(x); }
constexpr double from_bits(u64 b) noexcept { return std::bit_cast<double>(b); }

constexpr bool is_nan(double x) noexcept { return x != x; }
constexpr bool is_inf(double x) noexcept { return (bits(x) & ~sign_mask) == exponent_mask; }
constexpr bool is_finite(double x) noexcept { return (bits(x) & exponent_mask) != exponent_mask; }
constexpr bool sign_bit(double x) noexcept { return (bits(x) & sign_mask) != 0; }

// Bit operations rather than arithmetic, so that NaN and -0 are handled in constant evaluation.
constexpr double fabs(double x) noexcept { return from_bits(bits(x) & ~sign_mask); }
constexpr double copysign(double magnitude, double sign) noexcept {
  return from_bits((bits(magnitude) & ~sign_mask) | (bits(sign) & sign_mask));
}

// x with its low 32 bits cleared: a 21-bit "head" whose square is exact.
constexpr double high_word(double x) noexcept { return from_bits(bits(x) & 0xFFFFFFFF00000000u); }

// 2^n exactly, for n in [-1022, 1023].
constexpr double pow2(int n) noexcept { return from_bits(static_cast<u64>(n + 1023) << 52); }

// Nearest integer (ties away from zero); callers bound |x| well inside the int range.
constexpr int round_to_int(double x) noexcept { return static_cast<int>(x < 0 ? x - 0.5 : x + 0.5); }

// x = m * 2^e with m in [0.5, 1), for finite nonzero x (subnormals included); others returned as is, e = 0.
constexpr double frexp(double x, int& e) noexcept {
  e = 0;
  if (x == 0 || !is_finite(x)) return x;
  int adjust = 0;
  if ((bits(x) & exponent_mask) == 0) {  // subnormal: make it normal first (exact)
    x *= 0x1p64;
    adjust = 64;
  }
  const u64 b = bits(x);
  e = static_cast<int>((b >> 52) & 0x7FF) - 1022 - adjust;
  return from_bits((b & ~exponent_mask) | (u64{1022} << 52));
}

// x * 2^n with a single rounding, for any n. Exact unless the result is subnormal; returns a
// signed infinity on overflow instead of computing one (which g++ rejects in constant evaluation).
constexpr double ldexp(double x, int n) noexcept {
  if (x == 0 || !is_finite(x)) return x;
  int e = 0;
  const double m = frexp(x, e);
  const long long t = static_cast<long long>(e) + n;  // result = m * 2^t
  if (t > 1024) return copysign(inf, x);
  if (t >= -1021) return from_bits((bits(m) & ~exponent_mask) | (static_cast<u64>(t + 1022) << 52));
  if (t < -1074) return copysign(0.0, x);  // below half the smallest subnormal
  // Subnormal result: build m * 2^(t+64) exactly, then one multiplication rounds it.
  return from_bits((bits(m) & ~exponent_mask) | (static_cast<u64>(t + 1022 + 64) << 52)) * 0x1p-64;
}

// True for finite integral y.
constexpr bool is_integer(double y) noexcept {
  const double a = fabs(y);
  if (a >= 0x1p52) return is_finite(a);  // no fraction bits left
  return static_cast<double>(static_cast<long long>(a)) == a;
}

// True for finite odd integers (all doubles of magnitude >= 2^53 are even).
constexpr bool is_odd_integer(double y) noexcept {
  const double a = fabs(y);
  if (a >= 0x1p53) return false;
  const auto i = static_cast<long long>(a);
  return static_cast<double>(i) == a && (i & 1) != 0;
}

// ---------------------------------------------------------------------------------------------
// Double-double arithmetic: a value hi + lo carried with about 106 bits. No FMA is assumed (products
// are split with Dekker's method), so this stays exact under constant evaluation on every compiler.

struct dd {
  double hi;
  double lo;
};

// a + b = s.hi + s.lo exactly (Knuth).
constexpr dd two_sum(double a, double b) noexcept {
  const double s = a + b;
  const double bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// As two_sum, for |a| >= |b| or a == 0 (Dekker).
constexpr dd fast_two_sum(double a, double b) noexcept {
  const double s = a + b;
  return {s, b - (s - a)};
}

// a = hi + lo with 26-bit halves; needs |a| < 2^995 or so to avoid overflow.
constexpr dd split(double a) noexcept {
  const double t = 134217729.0 * a;  // 2^27 + 1
  const double hi = t - (t - a);
  return {hi, a - hi};
}

// a * b = p.hi + p.lo exactly (Dekker), barring over/underflow.
constexpr dd two_prod(double a, double b) noexcept {
  const double p = a * b;
  const dd as = split(a);
  const dd bs = split(b);
  return {p, ((as.hi * bs.hi - p) + as.hi * bs.lo + as.lo * bs.hi) + as.lo * bs.lo};
}

constexpr dd dd_add(dd a, dd b) noexcept {
  dd s = two_sum(a.hi, b.hi);
  s.lo += a.lo + b.lo;
  return fast_two_sum(s.hi, s.lo);
}

constexpr dd dd_mul(dd a, dd b) noexcept {
  dd p = two_prod(a.hi, b.hi);
  p.lo += a.hi * b.lo + a.lo * b.hi;
  return fast_two_sum(p.hi, p.lo);
}

// a / b
constexpr dd dd_div(dd a, dd b) noexcept {
  const double q = a.hi / b.hi;
  const dd p = two_prod(q, b.hi);
  const double r = (((a.hi - p.hi) - p.lo) + a.lo) - q * b.lo;  // a - q*b
  return fast_two_sum(q, r / b.hi);
}

// 1 / a
constexpr dd dd_recip(dd a) noexcept {
  const double q = 1.0 / a.hi;
  const dd p = two_prod(q, a.hi);
  const double r = ((1.0 - p.hi) - p.lo) - q * a.lo;  // 1 - q*a
  return fast_two_sum(q, r / a.hi);
}

// ---------------------------------------------------------------------------------------------
// Reduction of trigonometric arguments: x = n * pi/2 + r, |r| <= ~pi/4, r as a double-double.

inline constexpr dd pio2 = {1.5707963267948966, 6.123233995736766e-17};
inline constexpr double inv_pio2 = 0.6366197723675814;

// pi/2 in four pieces, the first three of 33 bits so that n * piece is exact for |n| < 2^20.
inline constexpr double pio2_1 = 1.5707963267341256;      // 0x3FF921FB54400000
inline constexpr double pio2_2 = 6.077100506303966e-11;   // 0x3DD0B4611A600000
inline constexpr double pio2_3 = 2.0222662487111665e-21;  // 0x3BA3198A2E000000
inline constexpr double pio2_3t = 8.4784276603689e-32;    // pi/2 - pio2_1 - pio2_2 - pio2_3

// Cody-Waite is used below this bound (n < 2^20); Payne-Hanek above it.
inline constexpr double medium_reduction_limit = 1.6e6;

// Binary digits of 2/pi, preceded by one zero word so that any window can start before the binary point.
inline constexpr u64 two_over_pi_bits[] = {
    0x0000000000000000, 0xA2F9836E4E441529, 0xFC2757D1F534DDC0, 0xDB6295993C439041, 0xFE5163ABDEBBC561,
    0xB7246E3A424DD2E0, 0x06492EEA09D1921C, 0xFE1DEB1CB129A73E, 0xE88235F52EBB4484, 0xE99C7026B45F7E41,
    0x3991D639835339F4, 0x9C845F8BBDF9283B, 0x1FF897FFDE05980F, 0xEF2F118B5A0A6D1F, 0x6D367ECF27CB09B7,
    0x4F463F669E5FEA2D, 0x7527BAC7EBE5F17B, 0x3D0739F78A5292EA, 0x6BFB5FB11F8D5D08, 0x56033046FC7B6BAB,
    0xF0CFBC209AF4361D, 0xA9E391615EE61B08, 0x6599855F14A06840,
};

struct reduced {
  int n;  // quadrant; only n mod 4 is meaningful
  dd r;   // remainder, |r| <= ~pi/4
};

// Cody-Waite with pi/2 in three exact pieces (about 150 bits in all): every product n * piece is
// exact and the rounding errors of the two subtractions are kept, so that even a remainder that
// cancels almost all of x (x near a multiple of pi/2) keeps full relative precision.
constexpr reduced reduce_pio2_medium(double x) noexcept {
  const int n = round_to_int(x * inv_pio2);
  const double fn = n;
  const double t1 = x - fn * pio2_1;  // exact (Sterbenz)
  const dd t2 = two_sum(t1, -fn * pio2_2);
  const dd t3 = two_sum(t2.hi, -fn * pio2_3);
  const double tail = (t2.lo + t3.lo) - fn * pio2_3t;
  return {n, two_sum(t3.hi, tail)};
}

struct u128 {
  u64 hi;
  u64 lo;
};

// Full 64 x 64 -> 128 bit product from 32-bit halves (no compiler extension needed).
constexpr u128 mul_64x64(u64 a, u64 b) noexcept {
  const u64 a0 = a & 0xFFFFFFFFu, a1 = a >> 32;
  const u64 b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
  const u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const u64 mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
  return {p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), (mid << 32) | (p00 & 0xFFFFFFFFu)};
}

// Payne-Hanek for huge |x|: with x = m * 2^e (m a 53-bit integer), the bits of 2/pi worth 4 or more
// after multiplying by x contribute whole multiples of 2*pi and are skipped, so only a 192-bit window
// of 2/pi starting at bit e-1 is multiplied, in exact integer arithmetic. What is left of 2/pi
// beyond the window is worth < 2^-137, far below the closest approach of a double to a multiple
// of pi/2 (about 2^-61), so the remainder keeps more than double-double accuracy.
constexpr reduced reduce_pio2_large(double x) noexcept {
  const u64 b = bits(x);
  const int e = static_cast<int>((b >> 52) & 0x7FF) - 1075;  // x = m * 2^e, e >= -32 here
  const u64 m = (b & fraction_mask) | (u64{1} << 52);

  // Bit i of 2/pi (i = 1 just after the binary point) is at bit position i + 63 of the table.
  const int pos = e - 1 + 63;
  const int w = pos / 64, sh = pos % 64;
  const auto window = [&](int k) {
    return sh == 0 ? two_over_pi_bits[w + k]
                   : (two_over_pi_bits[w + k] << sh) | (two_over_pi_bits[w + k + 1] >> (64 - sh));
  };
  const u128 q0 = mul_64x64(m, window(0));
  const u128 q1 = mul_64x64(m, window(1));
  const u128 q2 = mul_64x64(m, window(2));

  // x * 2/pi = (m * window) / 2^190 modulo 4; keep the product modulo 2^192 in p2:p1:p0.
  const u64 p0 = q2.lo;
  const u64 p1 = q2.hi + q1.lo;
  const u64 carry = p1 < q2.hi ? 1 : 0;
  const u64 p2 = q1.hi + q0.lo + carry;

  int n = static_cast<int>(p2 >> 62);  // the two integer bits: n mod 4
  // The 190 fraction bits, moved up to a 192-bit fraction f2:f1:f0.
  u64 f2 = (p2 << 2) | (p1 >> 62);
  u64 f1 = (p1 << 2) | (p0 >> 62);
  u64 f0 = p0 << 2;
  const bool negative = (f2 >> 63) != 0;  // fraction >= 1/2: round n up, remainder is fraction - 1
  if (negative) {
    ++n;
    f0 = ~f0 + 1;  // two's complement of the 192-bit fraction: its magnitude 1 - fraction
    f1 = ~f1 + (f0 == 0 ? 1 : 0);
    f2 = ~f2 + (f0 == 0 && f1 == 0 ? 1 : 0);
  }

  // Fraction to double-double: six exact 32-bit chunks, added from the smallest.
  const u64 words[3] = {f2, f1, f0};
  dd frac = {0.0, 0.0};
  for (int i = 5; i >= 0; --i) {
    const u64 chunk = (i % 2 == 0 ? words[i / 2] >> 32 : words[i / 2]) & 0xFFFFFFFFu;
    const dd s = two_sum(frac.hi, static_cast<double>(chunk) * pow2(-32 * (i + 1)));
    frac.hi = s.hi;
    frac.lo += s.lo;
  }
  frac = fast_two_sum(frac.hi, frac.lo);

  dd r = dd_mul(frac, pio2);
  if (negative != sign_bit(x)) r = {-r.hi, -r.lo};
  if (sign_bit(x)) n = -n;
  return {n, r};
}

// x finite.
constexpr reduced reduce_pio2(double x) noexcept {
  const double ax = fabs(x);
  if (ax <= 0.7853981633974483) return {0, {x, 0.0}};
  if (ax < medium_reduction_limit) return reduce_pio2_medium(x);
  return reduce_pio2_large(x);
}

}  // namespace tapeless::math::cx::detail
