// SPDX-License-Identifier: BSL-1.0
// tapeless/math/cx/special.hpp: constexpr erf and erfc.
//
// The rational approximations are fdlibm's (Sun Microsystems, 1993), each with an error below
// 2^-57 on its interval. erfc keeps its relative accuracy in the tail because it is formed as
// e^(-x^2) * (a slowly varying factor) / x, never as 1 - erf(x), until it underflows near x = 27.3.
#pragma once

#include <tapeless/math/cx/common.hpp>
#include <tapeless/math/cx/exponential.hpp>

namespace tapeless::math::cx {

namespace detail {

// (erf(x) - x) / x ~ P(z) / Q(z), z = x^2, on |x| < 0.84375.
constexpr double erf_small_ratio(double x) noexcept {
  constexpr double pp0 = 1.28379167095512558561e-01;
  constexpr double pp1 = -3.25042107247001499370e-01;
  constexpr double pp2 = -2.84817495755985104766e-02;
  constexpr double pp3 = -5.77027029648944159157e-03;
  constexpr double pp4 = -2.37630166566501626084e-05;
  constexpr double qq1 = 3.97917223959155352819e-01;
  constexpr double qq2 = 6.50222499887672944485e-02;
  constexpr double qq3 = 5.08130628187576562776e-03;
  constexpr double qq4 = 1.32494738004321644526e-04;
  constexpr double qq5 = -3.96022827877536812320e-06;
  const double z = x * x;
  const double p = pp0 + z * (pp1 + z * (pp2 + z * (pp3 + z * pp4)));
  const double q = 1.0 + z * (qq1 + z * (qq2 + z * (qq3 + z * (qq4 + z * qq5))));
  return p / q;
}

// erf(1 + s) - erx ~ P(s) / Q(s) on 0.84375 <= |x| < 1.25, s = |x| - 1; erx = erf(1) to 24 bits.
inline constexpr double erx = 8.45062911510467529297e-01;
constexpr double erf_near_one(double s) noexcept {
  constexpr double pa0 = -2.36211856075265944077e-03;
  constexpr double pa1 = 4.14856118683748331666e-01;
  constexpr double pa2 = -3.72207876035701323847e-01;
  constexpr double pa3 = 3.18346619901161753674e-01;
  constexpr double pa4 = -1.10894694282396677476e-01;
  constexpr double pa5 = 3.54783043256182359371e-02;
  constexpr double pa6 = -2.16637559486879084300e-03;
  constexpr double qa1 = 1.06420880400844228286e-01;
  constexpr double qa2 = 5.40397917702171048937e-01;
  constexpr double qa3 = 7.18286544141962662868e-02;
  constexpr double qa4 = 1.26171219808761642112e-01;
  constexpr double qa5 = 1.36370839120290507362e-02;
  constexpr double qa6 = 1.19844998467991074170e-02;
  const double p = pa0 + s * (pa1 + s * (pa2 + s * (pa3 + s * (pa4 + s * (pa5 + s * pa6)))));
  const double q = 1.0 + s * (qa1 + s * (qa2 + s * (qa3 + s * (qa4 + s * (qa5 + s * qa6)))));
  return p / q;
}

// erfc(x) for 1.25 <= x < 28: (1/x) e^(-x^2 - 0.5625 + R(z)/S(z)), z = 1/x^2, with R/S approximating
// log(x erfc(x)) + x^2 + 0.5625. The exponent is passed to exp as the double-double
// (-h^2 - 0.5625) + ((h - x)(h + x) + R/S), h the 21-bit head of x: h^2 is exact, whereas a rounded
// x^2 (absolute error up to 2^-47 near x = 27) would cost that much relative accuracy.
constexpr double erfc_tail(double x) noexcept {
  const double z = 1.0 / (x * x);
  double r = 0;
  double s = 0;
  if (x < 2.857142857142857) {  // 1/0.35
    constexpr double ra0 = -9.86494403484714822705e-03;
    constexpr double ra1 = -6.93858572707181764372e-01;
    constexpr double ra2 = -1.05586262253232909814e+01;
    constexpr double ra3 = -6.23753324503260060396e+01;
    constexpr double ra4 = -1.62396669462573470355e+02;
    constexpr double ra5 = -1.84605092906711035994e+02;
    constexpr double ra6 = -8.12874355063065934246e+01;
    constexpr double ra7 = -9.81432934416914548592e+00;
    constexpr double sa1 = 1.96512716674392571292e+01;
    constexpr double sa2 = 1.37657754143519042600e+02;
    constexpr double sa3 = 4.34565877475229228821e+02;
    constexpr double sa4 = 6.45387271733267880336e+02;
    constexpr double sa5 = 4.29008140027567833386e+02;
    constexpr double sa6 = 1.08635005541779435134e+02;
    constexpr double sa7 = 6.57024977031928170135e+00;
    constexpr double sa8 = -6.04244152148580987438e-02;
    r = ra0 + z * (ra1 + z * (ra2 + z * (ra3 + z * (ra4 + z * (ra5 + z * (ra6 + z * ra7))))));
    s = 1.0 + z * (sa1 + z * (sa2 + z * (sa3 + z * (sa4 + z * (sa5 + z * (sa6 + z * (sa7 + z * sa8)))))));
  } else {
    constexpr double rb0 = -9.86494292470009928597e-03;
    constexpr double rb1 = -7.99283237680523006574e-01;
    constexpr double rb2 = -1.77579549177547519889e+01;
    constexpr double rb3 = -1.60636384855821916062e+02;
    constexpr double rb4 = -6.37566443368389627722e+02;
    constexpr double rb5 = -1.02509513161107724954e+03;
    constexpr double rb6 = -4.83519191608651397019e+02;
    constexpr double sb1 = 3.03380607434824582924e+01;
    constexpr double sb2 = 3.25792512996573918826e+02;
    constexpr double sb3 = 1.53672958608443695994e+03;
    constexpr double sb4 = 3.19985821950859553908e+03;
    constexpr double sb5 = 2.55305040643316442583e+03;
    constexpr double sb6 = 4.74528541206955367215e+02;
    constexpr double sb7 = -2.24409524465858183362e+01;
    r = rb0 + z * (rb1 + z * (rb2 + z * (rb3 + z * (rb4 + z * (rb5 + z * rb6)))));
    s = 1.0 + z * (sb1 + z * (sb2 + z * (sb3 + z * (sb4 + z * (sb5 + z * (sb6 + z * sb7))))));
  }
  const double h = high_word(x);
  return exp_dd(-h * h - 0.5625, (h - x) * (h + x) + r / s) / x;  // -h^2 - 0.5625 is exact
}

}  // namespace detail

constexpr double erf(double x) noexcept {
  if (detail::is_nan(x)) return x;
  const double ax = detail::fabs(x);
  if (ax < 0.84375) {
    if (ax < 0x1p-28) {
      // erf x = (2/sqrt(pi)) x; scaled by 8 when x is tiny so the product does not lose bits to underflow.
      constexpr double efx = 1.28379167095512586316e-01;   // 2/sqrt(pi) - 1
      constexpr double efx8 = 1.02703333676410069053e+00;  // 8 * efx
      return ax < 0x1p-1000 ? 0.125 * (8.0 * x + efx8 * x) : x + efx * x;
    }
    return x + x * detail::erf_small_ratio(x);
  }
  double r = 0;
  if (ax < 1.25) {
    r = detail::erx + detail::erf_near_one(ax - 1.0);
  } else if (ax < 6.0) {
    r = 1.0 - detail::erfc_tail(ax);
  } else {
    r = 1.0;  // 1 - erf(6) < 2^-56; includes +-inf
  }
  return detail::copysign(r, x);
}

constexpr double erfc(double x) noexcept {
  if (detail::is_nan(x)) return x;
  const double ax = detail::fabs(x);
  if (ax < 0.84375) {
    if (ax < 0x1p-56) return 1.0 - x;
    const double y = x * detail::erf_small_ratio(x);
    if (x < 0.25) return 1.0 - (x + y);
    return 0.5 - (y + (x - 0.5));  // x - 0.5 is exact here: keeps the small result accurate
  }
  if (ax < 1.25) {
    const double p = detail::erf_near_one(ax - 1.0);
    return x > 0 ? (1.0 - detail::erx) - p : 1.0 + (detail::erx + p);
  }
  if (x > 0) return x < 28.0 ? detail::erfc_tail(x) : 0.0;  // erfc(28) ~ 1e-342 underflows
  return ax < 6.0 ? 2.0 - detail::erfc_tail(ax) : 2.0;
}

}  // namespace tapeless::math::cx
