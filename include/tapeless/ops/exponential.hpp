// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/exponential.hpp: exp, exp2, expm1, log, log2, log10, log1p.
#pragma once

#include <tapeless/expr/inline.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/math/functions.hpp>
#include <tapeless/operation/protocol.hpp>

#include <numbers>
#include <string_view>
#include <utility>

namespace tapeless {
namespace ops {

struct exp {
  static constexpr operation_traits traits{.name = "exp", .batched = true, .vjp_reads = reads_value};
  template <class T>
  static constexpr T value(T x) {
    return math::exp(x);
  }
  template <class T>
  static constexpr T derivative(T, T y) {
    return y;
  }
};

struct exp2 {
  static constexpr operation_traits traits{.name = "exp2", .batched = true, .vjp_reads = reads_value};
  template <class T>
  static constexpr T value(T x) {
    return math::exp2(x);
  }
  template <class T>
  static constexpr T derivative(T, T y) {
    return y * ::tapeless::detail::ln2<T>();
  }
};

/// y = e^x - 1, accurate near 0; dy/dx = e^x. Above x = -1, e^x = y + 1 to within an ulp or two, at no
/// exp. Below, y + 1 cancels (y rounds to -1 from x = -37 on, where e^x is still a normal number down
/// to x = -708): e^x is computed there. The rule reads x and y.
struct expm1 {
  static constexpr operation_traits traits{
      .name = "expm1", .batched = true, .vjp_reads = reads{.lhs = true, .rhs = false, .value = true}};
  template <class T>
  static constexpr T value(T x) {
    return math::expm1(x);
  }
  template <class T>
  static constexpr T derivative(T x, T y) {
    return math::lazy_select(
        x < T(-1), [&] { return math::exp(x); }, [&] { return y + T(1); });
  }
};

// The logarithms' rules divide by x (or 1 + x). Outside the domain (x < 0, x < -1 for log1p) that
// quotient is finite although the value y is NaN: the rules give NaN there instead, so that a NaN value
// always comes with a NaN gradient. The test is on the operand, not the value, so a gradient that does
// not need the value (grad drops it) lets the compiler drop the logarithm; the boundary (x = 0,
// y = -infinity) keeps its infinite slope.
struct log {
  static constexpr operation_traits traits{.name = "log", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::log(x);
  }
  template <class T>
  static constexpr T vjp(T g, T x, T) {
    return ::tapeless::detail::inside_domain(x >= T(0), g / x);
  }
};

struct log2 {
  static constexpr operation_traits traits{.name = "log2", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::log2(x);
  }
  template <class T>
  static constexpr T vjp(T g, T x, T) {
    return ::tapeless::detail::inside_domain(x >= T(0), g / (x * ::tapeless::detail::ln2<T>()));
  }
};

struct log10 {
  static constexpr operation_traits traits{.name = "log10", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::log10(x);
  }
  template <class T>
  static constexpr T vjp(T g, T x, T) {
    return ::tapeless::detail::inside_domain(x >= T(0), g / (x * ::tapeless::detail::ln10<T>()));
  }
};

struct log1p {
  static constexpr operation_traits traits{.name = "log1p", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::log1p(x);
  }
  template <class T>
  static constexpr T vjp(T g, T x, T) {
    return ::tapeless::detail::inside_domain(x >= T(-1), g / (T(1) + x));
  }
};

}  // namespace ops

template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto exp(X&& x) {
  return detail::make_unary(ops::exp{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto exp2(X&& x) {
  return detail::make_unary(ops::exp2{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto expm1(X&& x) {
  return detail::make_unary(ops::expm1{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto log(X&& x) {
  return detail::make_unary(ops::log{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto log2(X&& x) {
  return detail::make_unary(ops::log2{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto log10(X&& x) {
  return detail::make_unary(ops::log10{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto log1p(X&& x) {
  return detail::make_unary(ops::log1p{}, std::forward<X>(x));
}

}  // namespace tapeless
