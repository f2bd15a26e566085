// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/special.hpp: erf, erfc, and the two functions of machine learning, sigmoid and softplus.
#pragma once

#include <tapeless/expr/inline.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/math/functions.hpp>

#include <numbers>
#include <string_view>
#include <utility>

namespace tapeless {
namespace ops {

struct erf {
  static constexpr operation_traits traits{.name = "erf", .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::erf(x);
  }
  template <class T>
  static constexpr T derivative(T x, T) {
    return T(2) * ::tapeless::detail::inv_sqrtpi_v<T> * math::exp(-x * x);
  }
};

struct erfc {
  static constexpr operation_traits traits{.name = "erfc", .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::erfc(x);
  }
  template <class T>
  static constexpr T derivative(T x, T) {
    return T(-2) * ::tapeless::detail::inv_sqrtpi_v<T> * math::exp(-x * x);
  }
};

/// 1 / (1 + e^-x), computed from e^-|x| so that neither side overflows; dy/dx = y (1 - y).
/// For x < 0, y (1 - y) is accurate (y = e/(1 + e) is, and 1 - y >= 1/2 does not cancel). For x >= 0,
/// 1 - y = e^-x / (1 + e^-x) cancels and loses all its digits as y rounds to 1 (x > 37); it is e^-x y
/// there, so dy/dx = e^-x y^2, accurate to a few ulps for every x (and exactly 1/4 at 0).
struct sigmoid {
  static constexpr operation_traits traits{.name = "sigmoid", .batched = true};
  template <class T>
  static constexpr T value(T x) {
    const T e = math::exp(-math::abs(x));  // e^-x above 0, e^x below: never overflows
    // The sides differ in the numerator only: selecting it, not the quotient, keeps one division and
    // no branch for a batch whose lanes have both signs.
    return math::select(x >= T(0), T(1), e) / (T(1) + e);
  }
  // y (1 - y) below x = 1: there y <= 0.73, and for y >= 1/2 the subtraction 1 - y is exact (Sterbenz),
  // so the product is within a few ulp, at no exp. Above, 1 - y cancels: e^-x y^2, accurate in the tail.
  template <class T>
  static constexpr T derivative(T x, T y) {
    return math::lazy_select(
        x < T(1), [&] { return y * (T(1) - y); }, [&] { return math::exp(-x) * y * y; });
  }
};

/// log(1 + e^x) as max(x, 0) + log1p(e^-|x|): exact for large |x| where the naive form overflows
/// or rounds to 0. dy/dx = sigmoid(x), computed by sigmoid::value from e^-|x|: accurate to the last
/// digits on both sides, however small (sigmoid(-700) ~ 1e-304) or close to 1.
struct softplus {
  static constexpr operation_traits traits{.name = "softplus", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    const T m = math::lazy_select(
        x > T(0), [&] { return x; }, [] { return T(0); });
    return m + math::log1p(math::exp(-math::abs(x)));
  }
  template <class T>
  static constexpr T derivative(T x, T) {
    return sigmoid::value(x);
  }
};

}  // namespace ops

template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto erf(X&& x) {
  return detail::make_unary(ops::erf{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto erfc(X&& x) {
  return detail::make_unary(ops::erfc{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto sigmoid(X&& x) {
  return detail::make_unary(ops::sigmoid{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto softplus(X&& x) {
  return detail::make_unary(ops::softplus{}, std::forward<X>(x));
}

}  // namespace tapeless
