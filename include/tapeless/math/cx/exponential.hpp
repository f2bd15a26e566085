// SPDX-License-Identifier: BSL-1.0
// tapeless/math/cx/exponential.hpp: constexpr exp, exp2, expm1, log, log2, log10 and log1p.
#pragma once

#include <tapeless/math/cx/common.hpp>

namespace tapeless::math::cx {

namespace detail {

// ln 2 with a 42-bit head, so k * ln2_hi is exact for |k| < 2^11 (every exponent of a double).
inline constexpr double ln2_hi = 0.6931471805598903;
inline constexpr double ln2_lo = 5.497923018708371e-14;
inline constexpr dd ln2 = {0.6931471805599453, 2.3190468138462996e-17};
inline constexpr double inv_ln2 = 1.4426950408889634;
inline constexpr dd log2_e = {1.4426950408889634, 2.0355273740931033e-17};
inline constexpr dd log10_e = {0.4342944819032518, 1.098319650216765e-17};
inline constexpr dd log10_2 = {0.3010299956639812, -2.8037281277851704e-18};

// exp(x) overflows above this and is below half the smallest subnormal under the other.
inline constexpr double exp_overflow = 709.782712893383973096;
inline constexpr double exp_underflow = -745.13321910194110842;

// e^r = 1 + r + r*c/(2 - c), where c = r - z*P(z), z = r^2, and 2 + z*P(z) is the minimax
// approximation of r*(e^r + 1)/(e^r - 1) on |r| <= ln2/2 (coefficients of fdlibm's exp, error < 2^-59).
// r is passed as hi + lo; returns q with e^r = 1 + hi + (lo + q).
constexpr double exp_reduced_tail(double hi, double lo) noexcept {
  constexpr double p1 = 1.66666666666666019037e-01;
  constexpr double p2 = -2.77777777770155933842e-03;
  constexpr double p3 = 6.61375632143793436117e-05;
  constexpr double p4 = -1.65339022054652515390e-06;
  constexpr double p5 = 4.13813679705723846039e-08;
  const double r = hi + lo;
  const double z = r * r;
  const double c = r - z * (p1 + z * (p2 + z * (p3 + z * (p4 + z * p5))));
  return (r * c) / (2.0 - c);
}

// e^(hi + lo) for |hi + lo| <= ~0.35.
constexpr double exp_reduced(double hi, double lo) noexcept {
  const double q = exp_reduced_tail(hi, lo);
  const dd one_plus = two_sum(1.0, hi);  // keep 1 + hi exact so only the final addition rounds
  return one_plus.hi + (one_plus.lo + (lo + q));
}

// 2^scale * e^(hi + lo), for hi + lo in about [-790, 711] and |lo| <= 0.05. The scale lets callers
// ask for e^x / 2 and the like without an intermediate overflow.
constexpr double exp_dd(double hi, double lo, int scale = 0) noexcept {
  const int k = round_to_int((hi + lo) * inv_ln2);
  const double fk = k;
  const double r_hi = hi - fk * ln2_hi;  // exact: fk * ln2_hi is exact and within 0.4 of hi
  const double r_lo = lo - fk * ln2_lo;
  return ldexp(exp_reduced(r_hi, r_lo), k + scale);
}

// e^x - 1 as a double-double, for x in about [-40, 709.78] and not tiny. e^x - 1 = 2^k (1 + e) - 1
// with e = e^r - 1 = hi + tail; 2^k hi is exact, so adding it to 2^k - 1 (exact for |k| <= 53) with
// two_sum leaves only the small tail to round: the cancellation near x = +-ln2/2 costs nothing.
constexpr dd expm1_dd(double x) noexcept {
  const int k = round_to_int(x * inv_ln2);
  const double fk = k;
  const double hi = x - fk * ln2_hi;  // exact
  const double lo = -fk * ln2_lo;
  const double tail = lo + exp_reduced_tail(hi, lo);
  if (k == 0) return fast_two_sum(hi, tail);
  if (k <= 53 && k >= -53) {
    const dd s = two_sum(ldexp(1.0, k) - 1.0, ldexp(hi, k));
    return fast_two_sum(s.hi, s.lo + ldexp(tail, k));
  }
  dd y = two_sum(1.0, hi);              // e^r = 1 + hi + tail, normalized before scaling so that 2^k y.hi
  y = fast_two_sum(y.hi, y.lo + tail);  // overflows only if e^x itself rounds to infinity
  if (k < 0) return {-1.0, ldexp(y.hi, k)};
  return {ldexp(y.hi, k), ldexp(y.lo, k) - 1.0};
}

// log(1 + j/32) for j = 0..31, as double-doubles.
inline constexpr dd log_table[32] = {
    {0.0, 0.0},
    {0.030771658666753687, 1.0431732029005968e-18},
    {0.06062462181643484, 2.6424025938726934e-18},
    {0.08961215868968714, -5.4268129336647135e-18},
    {0.11778303565638346, -1.1971685747593677e-18},
    {0.1451820098444979, 8.242418783022475e-18},
    {0.17185025692665923, -6.0224538210113705e-18},
    {0.19782574332991987, 1.2821194372980142e-17},
    {0.22314355131420976, -9.091270597324799e-18},
    {0.24783616390458127, -1.2432209578702523e-17},
    {0.27193371548364176, 7.83319637697442e-19},
    {0.2954642128938359, -2.16461086040599e-17},
    {0.3184537311185346, 2.7114779367326236e-17},
    {0.3409265869705932, 1.7467136443544747e-17},
    {0.3629054936893685, -2.1492361455310972e-17},
    {0.38441169891033206, -1.612149700764673e-17},
    {0.4054651081081644, -2.8811380259626426e-18},
    {0.4260843953109001, -2.499176776547466e-17},
    {0.44628710262841953, -1.8182541194649598e-17},
    {0.46608972992459924, -1.4116523239904406e-17},
    {0.4855078157817008, -1.6618350693852048e-17},
    {0.5045560107523953, -2.4888518873597905e-17},
    {0.5232481437645479, -3.1833882216350925e-17},
    {0.5415972824327444, -3.748764246125639e-17},
    {0.5596157879354227, 2.685492580212308e-17},
    {0.5773153650348236, -8.903591846974013e-18},
    {0.5947071077466928, 1.3751689964323675e-17},
    {0.6118015411059929, -3.7397759448726e-17},
    {0.6286086594223741, 4.3538742607970387e-17},
    {0.6451379613735847, 9.346960920120906e-19},
    {0.661398482245365, -7.603333785634003e-18},
    {0.6773988235918061, -2.0978183882652005e-18},
};

struct log_parts {
  int k;  // log(x) = k * ln2 + f
  dd f;
};

// For finite x > 0. Writes x = 2^k * m, m near c = 1 + j/32, and log(m) = log(c) + 2 atanh(s) with
// s = (m - c)/(m + c), |s| <= 1/128. s is formed as a double-double, the series tail only in double:
// f comes out with a relative error of about 2^-67, enough for log to round correctly almost always
// and for pow to keep y*log(x) accurate to far below one ulp.
constexpr log_parts log_reduce(double x) noexcept {
  int e = 0;
  double m = frexp(x, e) * 2.0;  // [1, 2)
  int k = e - 1;
  // (m - 1) * 32 + 0.5 is exact and positive: the cast rounds to the nearest j, half up.
  int j = static_cast<int>((m - 1.0) * 32.0 + 0.5);  // NOLINT(bugprone-incorrect-roundings)
  if (j == 32) {  // m just below 2: use m/2 near 1 instead, so x near 1 always gets k = 0
    m *= 0.5;
    ++k;
    j = 0;
  }
  const double c = 1.0 + j / 32.0;
  const double a = m - c;  // exact
  const dd b = two_sum(m, c);
  const double s = a / b.hi;
  const dd sb = two_prod(s, b.hi);
  const double s_lo = (((a - sb.hi) - sb.lo) - s * b.lo) / b.hi;  // s + s_lo = a / (m + c)
  const double z = s * s;
  // 2 atanh(s) - 2s = s^3 (2/3 + 2/5 z + 2/7 z^2 + ...); truncation beyond z^4 is below 2^-84 relative.
  const double tail = s * z * (2.0 / 3.0 + z * (2.0 / 5.0 + z * (2.0 / 7.0 + z * (2.0 / 9.0 + z * (2.0 / 11.0)))));
  dd f = two_sum(log_table[j].hi, 2.0 * s);
  f.lo += log_table[j].lo + (2.0 * s_lo + tail);
  return {k, fast_two_sum(f.hi, f.lo)};
}

// log(x) as a double-double, for finite x > 0.
constexpr dd log_dd(double x) noexcept {
  const log_parts p = log_reduce(x);
  const double fk = p.k;
  dd r = two_sum(fk * ln2_hi, p.f.hi);  // fk * ln2_hi is exact
  r.lo += p.f.lo + fk * ln2_lo;
  return fast_two_sum(r.hi, r.lo);
}

// log(1 + a) for a double-double a > -1: log(u + v) = log(u) + v/u + O((v/u)^2) with 1 + a = u + v,
// |v/u| <= 2^-52.
constexpr dd log1p_dd(dd a) noexcept {
  dd u = two_sum(1.0, a.hi);
  u = fast_two_sum(u.hi, u.lo + a.lo);
  dd l = log_dd(u.hi);
  l.lo += u.lo / u.hi;
  return fast_two_sum(l.hi, l.lo);
}

}  // namespace detail

constexpr double exp(double x) noexcept {
  if (detail::is_nan(x)) return x;
  if (x > detail::exp_overflow) return detail::inf;
  if (x < detail::exp_underflow) return 0.0;
  return detail::exp_dd(x, 0.0);
}

constexpr double exp2(double x) noexcept {
  if (detail::is_nan(x)) return x;
  if (x >= 1024.0) return detail::inf;
  if (x <= -1075.0) return 0.0;
  // 2^x = 2^k * e^(f ln2) with f = x - k exact and f*ln2 formed as a double-double, so integral x is exact.
  const int k = detail::round_to_int(x);
  const double f = x - k;
  detail::dd r = detail::two_prod(f, detail::ln2.hi);
  r.lo += f * detail::ln2.lo;
  return detail::ldexp(detail::exp_reduced(r.hi, r.lo), k);
}

constexpr double expm1(double x) noexcept {
  if (detail::is_nan(x)) return x;
  if (x > detail::exp_overflow) return detail::inf;
  if (x < -40.0) return -1.0;               // e^x < 2^-57: -1 + e^x rounds to -1
  if (detail::fabs(x) < 0x1p-54) return x;  // also keeps the sign of zero
  const detail::dd r = detail::expm1_dd(x);
  return r.hi + r.lo;
}

constexpr double log(double x) noexcept {
  if (detail::is_nan(x)) return x;
  if (x == 0) return -detail::inf;
  if (x < 0) return detail::nan;
  if (x == detail::inf) return x;
  return detail::log_dd(x).hi;
}

constexpr double log2(double x) noexcept {
  if (detail::is_nan(x)) return x;
  if (x == 0) return -detail::inf;
  if (x < 0) return detail::nan;
  if (x == detail::inf) return x;
  const detail::log_parts p = detail::log_reduce(x);
  const detail::dd g = detail::dd_mul(p.f, detail::log2_e);
  detail::dd r = detail::two_sum(static_cast<double>(p.k), g.hi);
  return r.hi + (r.lo + g.lo);
}

constexpr double log10(double x) noexcept {
  if (detail::is_nan(x)) return x;
  if (x == 0) return -detail::inf;
  if (x < 0) return detail::nan;
  if (x == detail::inf) return x;
  const detail::log_parts p = detail::log_reduce(x);
  const double fk = p.k;
  detail::dd a = detail::two_prod(fk, detail::log10_2.hi);
  a.lo += fk * detail::log10_2.lo;
  const detail::dd r = detail::dd_add(a, detail::dd_mul(p.f, detail::log10_e));
  return r.hi;
}

constexpr double log1p(double x) noexcept {
  if (detail::is_nan(x)) return x;
  if (x == -1.0) return -detail::inf;
  if (x < -1.0) return detail::nan;
  if (x == detail::inf) return x;
  if (detail::fabs(x) < 0x1p-54) return x;  // log1p(x) = x - x^2/2 rounds to x; keeps -0
  return detail::log1p_dd({x, 0.0}).hi;
}

}  // namespace tapeless::math::cx
