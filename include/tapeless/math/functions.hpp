// SPDX-License-Identifier: BSL-1.0
// tapeless/math/functions.hpp: elementary functions usable both at run time and in constant expressions.
//
// At run time each function calls the standard library (same results, same speed as std::).
// In a constant expression it calls tapeless::math::cx, the library's own constexpr
// implementations, because clang does not evaluate std::sin and friends at compile time.
#pragma once

#include <tapeless/math/batch_functions.hpp>  // the same functions of SIMD batches, declared first for the ops
#include <tapeless/math/constexpr_math.hpp>
#include <tapeless/math/dual.hpp>

#include <cmath>
#include <concepts>
#include <limits>
#include <numbers>
#include <type_traits>
#include <utility>

namespace tapeless::math {

#define TAPELESS_MATH_DISPATCH_1(name)                                                         \
  template <std::floating_point T>                                                             \
  constexpr T name(T x) noexcept {                                                             \
    if (std::is_constant_evaluated()) return static_cast<T>(cx::name(static_cast<double>(x))); \
    return std::name(x);                                                                       \
  }
#define TAPELESS_MATH_DISPATCH_2(name)                                                                                 \
  template <std::floating_point T>                                                                                     \
  constexpr T name(T x, T y) noexcept {                                                                                \
    if (std::is_constant_evaluated()) return static_cast<T>(cx::name(static_cast<double>(x), static_cast<double>(y))); \
    return std::name(x, y);                                                                                            \
  }

TAPELESS_MATH_DISPATCH_1(exp)
TAPELESS_MATH_DISPATCH_1(exp2)
TAPELESS_MATH_DISPATCH_1(expm1)
TAPELESS_MATH_DISPATCH_1(log)
TAPELESS_MATH_DISPATCH_1(log2)
TAPELESS_MATH_DISPATCH_1(log10)
TAPELESS_MATH_DISPATCH_1(log1p)
TAPELESS_MATH_DISPATCH_1(sqrt)
TAPELESS_MATH_DISPATCH_1(cbrt)
TAPELESS_MATH_DISPATCH_1(sin)
TAPELESS_MATH_DISPATCH_1(cos)
TAPELESS_MATH_DISPATCH_1(tan)
TAPELESS_MATH_DISPATCH_1(asin)
TAPELESS_MATH_DISPATCH_1(acos)
TAPELESS_MATH_DISPATCH_1(atan)
TAPELESS_MATH_DISPATCH_1(sinh)
TAPELESS_MATH_DISPATCH_1(cosh)
TAPELESS_MATH_DISPATCH_1(tanh)
TAPELESS_MATH_DISPATCH_1(asinh)
TAPELESS_MATH_DISPATCH_1(acosh)
TAPELESS_MATH_DISPATCH_1(atanh)
TAPELESS_MATH_DISPATCH_1(erf)
TAPELESS_MATH_DISPATCH_1(erfc)
TAPELESS_MATH_DISPATCH_2(pow)
TAPELESS_MATH_DISPATCH_2(atan2)
TAPELESS_MATH_DISPATCH_2(hypot)

#undef TAPELESS_MATH_DISPATCH_1
#undef TAPELESS_MATH_DISPATCH_2

/// |x|, constexpr on every compiler (std::abs is constexpr only from C++23). At run time std::fabs,
/// one instruction that clears the sign bit; the comparisons take 8, in loops as hot as LU's pivot search.
template <std::floating_point T>
constexpr T abs(T x) noexcept {
  if (!std::is_constant_evaluated()) return std::fabs(x);
  return x < T(0) ? -x : (x == T(0) ? T(0) : x);  // abs(-0.0) is +0.0; NaN passes through
}

/// True for NaN, constexpr on every compiler.
template <std::floating_point T>
constexpr bool isnan(T x) noexcept {
  return x != x;
}

/// True for +infinity and -infinity, constexpr on every compiler.
template <std::floating_point T>
constexpr bool isinf(T x) noexcept {
  return x == std::numeric_limits<T>::infinity() || x == -std::numeric_limits<T>::infinity();
}

}  // namespace tapeless::math

namespace tapeless::detail {
/// ln 2 and ln 10 in T, a number, a dual number or a SIMD batch: a batch is no literal type, so it has
/// no constexpr variable ln2_v; it takes its element's, broadcast.
template <class T>
constexpr T ln2() {
  return T(ln2_v<typename math::number_of<T>::type>);
}
template <class T>
constexpr T ln10() {
  return T(ln10_v<typename math::number_of<T>::type>);
}
}  // namespace tapeless::detail

namespace tapeless::math {

// --- The same functions of dual numbers: each value with its derivative, for forward mode. ---------
// Declared first, so that each may use the others at any nesting (a dual of duals).
#define TAPELESS_DUAL_DECLARE_1(name) \
  template <class T, class D>         \
  constexpr dual<T, D> name(const dual<T, D>& x)
#define TAPELESS_DUAL_DECLARE_2(name) \
  template <class T, class D>         \
  constexpr dual<T, D> name(const dual<T, D>& x, const dual<T, D>& y)
TAPELESS_DUAL_DECLARE_1(exp);
TAPELESS_DUAL_DECLARE_1(exp2);
TAPELESS_DUAL_DECLARE_1(expm1);
TAPELESS_DUAL_DECLARE_1(log);
TAPELESS_DUAL_DECLARE_1(log2);
TAPELESS_DUAL_DECLARE_1(log10);
TAPELESS_DUAL_DECLARE_1(log1p);
TAPELESS_DUAL_DECLARE_1(sqrt);
TAPELESS_DUAL_DECLARE_1(cbrt);
TAPELESS_DUAL_DECLARE_1(sin);
TAPELESS_DUAL_DECLARE_1(cos);
TAPELESS_DUAL_DECLARE_1(tan);
TAPELESS_DUAL_DECLARE_1(asin);
TAPELESS_DUAL_DECLARE_1(acos);
TAPELESS_DUAL_DECLARE_1(atan);
TAPELESS_DUAL_DECLARE_1(sinh);
TAPELESS_DUAL_DECLARE_1(cosh);
TAPELESS_DUAL_DECLARE_1(tanh);
TAPELESS_DUAL_DECLARE_1(asinh);
TAPELESS_DUAL_DECLARE_1(acosh);
TAPELESS_DUAL_DECLARE_1(atanh);
TAPELESS_DUAL_DECLARE_1(erf);
TAPELESS_DUAL_DECLARE_1(erfc);
TAPELESS_DUAL_DECLARE_1(abs);
TAPELESS_DUAL_DECLARE_2(pow);
TAPELESS_DUAL_DECLARE_2(atan2);
TAPELESS_DUAL_DECLARE_2(hypot);
#undef TAPELESS_DUAL_DECLARE_1
#undef TAPELESS_DUAL_DECLARE_2

/// Whether x * r, for r = 1 / y, may stand for x / y: r is a normal number (lane by lane for a batch),
/// so that the product is within 1 ulp of the quotient and overflows where it does. LAPACK's getf2
/// scales by a reciprocal pivot on the same condition.
template <class T>
constexpr auto reciprocal_is_normal(const T& r) {
  using limits = std::numeric_limits<typename number_of<T>::type>;
  const T m = math::abs(r);
  return m >= T(limits::min()) && m <= T(limits::max());
}

template <class T, class D>
constexpr bool isnan(const dual<T, D>& x) noexcept {
  return isnan(x.value);
}
template <class T, class D>
constexpr bool isinf(const dual<T, D>& x) noexcept {
  return isinf(x.value);
}

namespace detail {
/// A coordinate of a point with an infinite coordinate, scaled by that infinity: ±1 for an infinite x,
/// 0 for a finite one (the limit of x / m as m grows), NaN for NaN.
template <class T>
constexpr T scaled_by_infinity(T x) {
  if (isinf(x)) return x > T(0) ? T(1) : T(-1);
  return x * T(0);
}

/// (g dz/dy, g dz/dx) of z = atan2(y, x): g (x, -y) / (x^2 + y^2). x^2 + y^2 would overflow or underflow
/// for huge or tiny points (|x| ~ 1e160, 1e-170) whose partials are representable, so x and y are first
/// scaled by m = max(|x|, |y|): x / r^2 = (x / m) / (m ((x / m)^2 + (y / m)^2)), with the sum in [1, 2];
/// the error of 1 / m cancels to first order. At the origin, where atan2 is not differentiable, the
/// partials are taken as (0, 0), the convention of hypot. Where a coordinate is infinite (m = inf) both
/// partials are 0, their limit (x / r^2 ~ 1 / x, y / r^2 ~ y / x^2), also where both are infinite; the
/// scaled coordinates, inf / inf, would give NaN. A NaN coordinate gives NaN.
template <class T>
constexpr std::pair<T, T> atan2_partials(T g, T y, T x) {
  const T ax = math::abs(x), ay = math::abs(y);
  const T m = ax < ay ? ay : ax;  // a NaN in x or y reaches xs or ys, and so the result
  if (m == T(0)) return {T(0), T(0)};
  const bool infinite = isinf(m);
  const T inv_m = infinite ? T(0) : T(1) / m;
  const T xs = infinite ? scaled_by_infinity(x) : x * inv_m, ys = infinite ? scaled_by_infinity(y) : y * inv_m;
  const T s = g * inv_m / (xs * xs + ys * ys);
  return {s * xs, -s * ys};
}

/// (g dz/dx, g dz/dy) of z = hypot(x, y): g (x, y) / z; 0 at the kink x = y = 0. Where z is infinite, x / z
/// would be inf / inf (an infinite coordinate) or 0 (x^2 + y^2 overflows, |x| and |y| finite): the
/// partials are then those of the direction, (xs, ys) / hypot(xs, ys) for the point scaled by
/// max(|x|, |y|). With one infinite coordinate that is the sign of x for the infinite one and 0 for the
/// finite one; with both infinite, ±1/√2 each (the diagonal, as atan2(inf, inf) = π/4 takes it).
/// A NaN coordinate gives NaN (hypot(inf, NaN) is inf, but the partials are NaN).
template <class T>
constexpr std::pair<T, T> hypot_partials(T g, T x, T y, T z) {
  if (z == T(0)) return {T(0), T(0)};
  if (!isinf(z)) {
    const T s = g / z;
    return {s * x, s * y};
  }
  const T ax = math::abs(x), ay = math::abs(y);
  const T m = ax < ay ? ay : ax;
  const bool infinite = isinf(m);
  const T xs = infinite ? scaled_by_infinity(x) : x / m, ys = infinite ? scaled_by_infinity(y) : y / m;
  const T s = g / math::hypot(xs, ys);
  return {s * xs, s * ys};
}
}  // namespace detail

namespace detail {
/// True when every component of x, at every nesting and in every lane, is zero.
template <class T>
constexpr bool is_zero(const T& x) {
  if constexpr (::tapeless::detail::is_dual<T>) {
    return is_zero(x.value) && is_zero(x.tangent);
  } else if constexpr (requires { x.words; }) {
    return x.empty();  // a set of dependencies (math/dependencies.hpp)
  } else if constexpr (requires { x.lane; }) {
    for (const auto& e : x.lane)
      if (!is_zero(e)) return false;
    return true;
  } else {
    return x == T(0);
  }
}

/// f(x) with tangent f'(x) x': `slope` is called only for a tangent that is not zero, so that a
/// constant (tangent 0) never picks up 0 * inf = NaN at a point where f' is infinite (sqrt at 0).
template <class T, class D, class Slope>
constexpr dual<T, D> chain(T value, const dual<T, D>& x, Slope slope) {
  if (is_zero(x.tangent)) return {value, D{}};
  return {value, slope() * x.tangent};
}

/// f(x, y) with tangent f_x x' + f_y y', each term only for a tangent that is not zero.
template <class T, class D, class SlopeX, class SlopeY>
constexpr dual<T, D> chain(T value, const dual<T, D>& x, SlopeX slope_x, const dual<T, D>& y, SlopeY slope_y) {
  D t{};
  if (!is_zero(x.tangent)) t += slope_x() * x.tangent;
  if (!is_zero(y.tangent)) t += slope_y() * y.tangent;
  return {value, t};
}
}  // namespace detail

template <class T, class D>
constexpr dual<T, D> exp(const dual<T, D>& x) {
  const T e = math::exp(x.value);
  return detail::chain(e, x, [&] { return e; });
}
template <class T, class D>
constexpr dual<T, D> exp2(const dual<T, D>& x) {
  const T e = math::exp2(x.value);
  return detail::chain(e, x, [&] { return e * ::tapeless::detail::ln2_v<T>; });
}
/// The slope e^x as ops::expm1's rule takes it: y + 1 above x = -1, where it is accurate and free,
/// e^x below, where y + 1 cancels.
template <class T, class D>
constexpr dual<T, D> expm1(const dual<T, D>& x) {
  const T y = math::expm1(x.value);
  return detail::chain(y, x, [&] { return x.value < T(-1) ? math::exp(x.value) : y + T(1); });
}
template <class T, class D>
constexpr dual<T, D> log(const dual<T, D>& x) {
  return detail::chain(math::log(x.value), x, [&] { return T(1) / x.value; });
}
template <class T, class D>
constexpr dual<T, D> log2(const dual<T, D>& x) {
  return detail::chain(math::log2(x.value), x, [&] { return T(1) / (x.value * ::tapeless::detail::ln2_v<T>); });
}
template <class T, class D>
constexpr dual<T, D> log10(const dual<T, D>& x) {
  return detail::chain(math::log10(x.value), x, [&] { return T(1) / (x.value * ::tapeless::detail::ln10_v<T>); });
}
template <class T, class D>
constexpr dual<T, D> log1p(const dual<T, D>& x) {
  return detail::chain(math::log1p(x.value), x, [&] { return T(1) / (T(1) + x.value); });
}
template <class T, class D>
constexpr dual<T, D> sqrt(const dual<T, D>& x) {
  const T s = math::sqrt(x.value);
  return detail::chain(s, x, [&] { return T(0.5) / s; });
}
template <class T, class D>
constexpr dual<T, D> cbrt(const dual<T, D>& x) {
  const T c = math::cbrt(x.value);
  return detail::chain(c, x, [&] { return T(1) / (T(3) * c * c); });
}
template <class T, class D>
constexpr dual<T, D> sin(const dual<T, D>& x) {
  return detail::chain(math::sin(x.value), x, [&] { return math::cos(x.value); });
}
template <class T, class D>
constexpr dual<T, D> cos(const dual<T, D>& x) {
  return detail::chain(math::cos(x.value), x, [&] { return -math::sin(x.value); });
}
template <class T, class D>
constexpr dual<T, D> tan(const dual<T, D>& x) {
  const T t = math::tan(x.value);
  return detail::chain(t, x, [&] { return T(1) + t * t; });
}
template <class T, class D>
constexpr dual<T, D> asin(const dual<T, D>& x) {
  return detail::chain(math::asin(x.value), x, [&] { return T(1) / math::sqrt(T(1) - x.value * x.value); });
}
template <class T, class D>
constexpr dual<T, D> acos(const dual<T, D>& x) {
  return detail::chain(math::acos(x.value), x, [&] { return T(-1) / math::sqrt(T(1) - x.value * x.value); });
}
template <class T, class D>
constexpr dual<T, D> atan(const dual<T, D>& x) {
  return detail::chain(math::atan(x.value), x, [&] { return T(1) / (T(1) + x.value * x.value); });
}
template <class T, class D>
constexpr dual<T, D> sinh(const dual<T, D>& x) {
  return detail::chain(math::sinh(x.value), x, [&] { return math::cosh(x.value); });
}
template <class T, class D>
constexpr dual<T, D> cosh(const dual<T, D>& x) {
  return detail::chain(math::cosh(x.value), x, [&] { return math::sinh(x.value); });
}
template <class T, class D>
constexpr dual<T, D> tanh(const dual<T, D>& x) {
  const T t = math::tanh(x.value);
  return detail::chain(t, x, [&] { return T(1) - t * t; });
}
template <class T, class D>
constexpr dual<T, D> asinh(const dual<T, D>& x) {
  return detail::chain(math::asinh(x.value), x, [&] { return T(1) / math::sqrt(x.value * x.value + T(1)); });
}
template <class T, class D>
constexpr dual<T, D> acosh(const dual<T, D>& x) {
  return detail::chain(math::acosh(x.value), x,
                       [&] { return T(1) / (math::sqrt(x.value - T(1)) * math::sqrt(x.value + T(1))); });
}
template <class T, class D>
constexpr dual<T, D> atanh(const dual<T, D>& x) {
  return detail::chain(math::atanh(x.value), x, [&] { return T(1) / (T(1) - x.value * x.value); });
}
template <class T, class D>
constexpr dual<T, D> erf(const dual<T, D>& x) {
  return detail::chain(math::erf(x.value), x,
                       [&] { return T(2) * ::tapeless::detail::inv_sqrtpi_v<T> * math::exp(-x.value * x.value); });
}
template <class T, class D>
constexpr dual<T, D> erfc(const dual<T, D>& x) {
  return detail::chain(math::erfc(x.value), x,
                       [&] { return T(-2) * ::tapeless::detail::inv_sqrtpi_v<T> * math::exp(-x.value * x.value); });
}
/// |x| with the slope of the library's abs: sign(x), and 0 at 0.
template <class T, class D>
constexpr dual<T, D> abs(const dual<T, D>& x) {
  return detail::chain(math::abs(x.value), x, [&] { return x.value > T(0) ? T(1) : x.value < T(0) ? T(-1) : T(0); });
}
/// x^y: the y-term only where y moves, so that a constant exponent needs no log of a negative x.
template <class T, class D>
constexpr dual<T, D> pow(const dual<T, D>& x, const dual<T, D>& y) {
  const T z = math::pow(x.value, y.value);
  return detail::chain(
      z, x, [&] { return y.value == T(0) ? T(0) : y.value * math::pow(x.value, y.value - T(1)); }, y,
      [&] { return z * math::log(x.value); });
}
/// The slopes of ops::atan2's rule: scaled against overflow, 0 at an infinite coordinate.
template <class T, class D>
constexpr dual<T, D> atan2(const dual<T, D>& y, const dual<T, D>& x) {
  const std::pair<T, T> p = detail::atan2_partials(T(1), y.value, x.value);
  return detail::chain(
      math::atan2(y.value, x.value), y, [&] { return p.first; }, x, [&] { return p.second; });
}
/// The slopes of ops::hypot's rule: x / z and y / z, their limits where z is infinite.
template <class T, class D>
constexpr dual<T, D> hypot(const dual<T, D>& x, const dual<T, D>& y) {
  const T h = math::hypot(x.value, y.value);
  const std::pair<T, T> p = detail::hypot_partials(T(1), x.value, y.value, h);
  return detail::chain(
      h, x, [&] { return p.first; }, y, [&] { return p.second; });
}

}  // namespace tapeless::math
