// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/hyperbolic.hpp: sinh, cosh, tanh, asinh, acosh, atanh.
#pragma once

#include <tapeless/expr/inline.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/math/functions.hpp>
#include <tapeless/operation/protocol.hpp>

#include <string_view>
#include <utility>

namespace tapeless {
namespace ops {

struct sinh {
  static constexpr operation_traits traits{.name = "sinh", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::sinh(x);
  }
  template <class T>
  static constexpr T derivative(T x, T) {
    return math::cosh(x);
  }
};

struct cosh {
  static constexpr operation_traits traits{.name = "cosh", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::cosh(x);
  }
  template <class T>
  static constexpr T derivative(T x, T) {
    return math::sinh(x);
  }
};

struct tanh {
  static constexpr operation_traits traits{.name = "tanh", .batched = true, .vjp_reads = reads_value};
  template <class T>
  static constexpr T value(T x) {
    return math::tanh(x);
  }
  template <class T>
  static constexpr T derivative(T, T y) {
    return (T(1) - y) * (T(1) + y);
  }
};

struct asinh {
  static constexpr operation_traits traits{.name = "asinh", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::asinh(x);
  }
  // sqrt(x^2 + 1), or |x| itself from |x| = 2^511, where x^2 + 1 would overflow (and has long rounded
  // to x^2): hypot(x, 1) in what batches have.
  template <class T>
  static constexpr T vjp(T g, T x, T) {
    const T a = math::abs(x);
    return g / math::lazy_select(
                   a < T(0x1p511), [&] { return math::sqrt(x * x + T(1)); }, [&] { return a; });
  }
};

struct acosh {
  static constexpr operation_traits traits{.name = "acosh", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::acosh(x);
  }
  // sqrt(x - 1) * sqrt(x + 1) rather than sqrt(x^2 - 1): exact near 1, no overflow for large x.
  template <class T>
  static constexpr T vjp(T g, T x, T) {
    return g / (math::sqrt(x - T(1)) * math::sqrt(x + T(1)));
  }
};

struct atanh {
  static constexpr operation_traits traits{.name = "atanh", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::atanh(x);
  }
  // Outside [-1, 1] the quotient is finite but the value is NaN: NaN there, as log does.
  template <class T>
  static constexpr T vjp(T g, T x, T) {
    return ::tapeless::detail::inside_domain(x >= T(-1) && x <= T(1), g / ((T(1) - x) * (T(1) + x)));
  }
};

}  // namespace ops

template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto sinh(X&& x) {
  return detail::make_unary(ops::sinh{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto cosh(X&& x) {
  return detail::make_unary(ops::cosh{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto tanh(X&& x) {
  return detail::make_unary(ops::tanh{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto asinh(X&& x) {
  return detail::make_unary(ops::asinh{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto acosh(X&& x) {
  return detail::make_unary(ops::acosh{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto atanh(X&& x) {
  return detail::make_unary(ops::atanh{}, std::forward<X>(x));
}

}  // namespace tapeless
