// SPDX-License-Identifier: BSL-1.0
// tapeless/math/batch_exp.hpp: tapeless's own exp of a batch of doubles, for the arguments whose exp is
// a normal number below 2^1023 sqrt(2) (x in [-708.39, 709.43]).
//
// Why not xsimd's: with AVX2, xsimd's exp takes about 40 instructions a batch, a division among them,
// and converts doubles to 64-bit integers one lane at a time (AVX2 has no vector instruction for it),
// which is undefined in C++ for NaN and huge arguments. This one takes 21 and no division, reads 2^k
// off the bits of a double instead of converting, and is defined for every argument (its callers still
// clamp or guard it, for the value); within 1 ulp of std::exp over [-708.39, 709.43] (43 million seeded
// points, with and without FMA; test/unit/math/batch_functions_test.cpp sweeps it). A fused loop of
// exps (log-sum-exp's gradient) spends most of its instructions in it (doc/design.md).
// Tests: test/unit/math/batch_functions_test.cpp
#pragma once

#include <tapeless/detail/inline.hpp>
#include <tapeless/simd/batch.hpp>

#include <cstdint>

#if TAPELESS_SIMD
namespace tapeless::math::detail {

/// e^x = 2^k e^r, k = x / ln 2 rounded to an integer and r = x - k ln 2 in [-ln 2 / 2, ln 2 / 2].
/// Within 1 ulp of std::exp for x in [-708.39, 709.43], where e^x is a normal number below
/// 2^1023 sqrt(2). Elsewhere the value is wrong but never undefined: for x in [-750, 750] (|k| <= 1082,
/// whose exponent bits wrap only onto 0, negative numbers and infinities) it is correct, below the
/// smallest normal number (zero or negative included) or +-inf, which exp_unguarded's callers test for;
/// beyond, anything (x = 2131 wraps to about 2^-1022), hence their clamp or guard.
/// Not for -ffast-math or -fassociative-math builds, which may fold (x log2(e) + shifter) - shifter
/// into x log2(e): nor are xsimd's functions (doc/guide.md, "SIMD loops").
template <class A>
TAPELESS_SWEEP_INLINE inline xsimd::batch<double, A> exp_normal(const xsimd::batch<double, A>& x) {
  using B = xsimd::batch<double, A>;
  using I = xsimd::batch<std::int64_t, A>;
  // k rounded by adding 1.5 2^52, whose ulp is 1: t - shifter is k, and t's low bits hold k itself.
  const B shifter(0x1.8p52);
  const B t = xsimd::fma(x, B(0x1.71547652b82fep0), shifter);  // x log2(e) + shifter
  const B k = t - shifter;
  // ln 2 in two parts (fdlibm's): ln2_hi has 32 significant bits, so k ln2_hi is exact for |k| < 2^21
  // and x - k ln2_hi too (Sterbenz), with or without FMA; ln2_lo carries the rest.
  B r = xsimd::fnma(k, B(0x1.62e42feep-1), x);
  r = xsimd::fnma(k, B(0x1.a39ef35793c76p-33), r);
  // e^r = 1 + r + r^2 (c2 + c3 r + ... + c13 r^11), c_i = 1 / i! stored at c[i - 2]: the remainder is
  // below 2^-57 of e^r (a 27th of an ulp at worst). Even and odd coefficients in two chains of u = r^2,
  // half the latency of one.
  constexpr double c[] = {1.0 / 2,     1.0 / 6,      1.0 / 24,      1.0 / 120,      1.0 / 720,       1.0 / 5040,
                          1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800};
  const B u = r * r;
  B even(c[10]), odd(c[11]);
  for (int i = 8; i >= 0; i -= 2) {
    even = xsimd::fma(even, u, B(c[i]));
    odd = xsimd::fma(odd, u, B(c[i + 1]));
  }
  const B e_r = xsimd::fma(u, xsimd::fma(r, odd, even), r) + B(1.0);
  // 2^k: k + 1023 shifted into the exponent field (the bits above it fall off the top).
  const I two_to_k = (xsimd::bitwise_cast<I>(t) + I(1023)) << 52;
  return e_r * xsimd::bitwise_cast<B>(two_to_k);
}

}  // namespace tapeless::math::detail
#endif
