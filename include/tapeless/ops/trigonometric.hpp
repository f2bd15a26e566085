// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/trigonometric.hpp: sin, cos, tan, asin, acos, atan, atan2.
#pragma once

#include <tapeless/expr/inline.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/math/functions.hpp>

#include <string_view>
#include <utility>

namespace tapeless {
namespace ops {

struct sin {
  static constexpr operation_traits traits{.name = "sin", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::sin(x);
  }
  template <class T>
  static constexpr T derivative(T x, T) {
    return math::cos(x);
  }
};

struct cos {
  static constexpr operation_traits traits{.name = "cos", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::cos(x);
  }
  template <class T>
  static constexpr T derivative(T x, T) {
    return -math::sin(x);
  }
};

struct tan {
  static constexpr operation_traits traits{.name = "tan", .vjp_reads = reads_value};
  template <class T>
  static constexpr T value(T x) {
    return math::tan(x);
  }
  template <class T>
  static constexpr T derivative(T, T y) {
    return T(1) + y * y;
  }
};

struct asin {
  static constexpr operation_traits traits{.name = "asin", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::asin(x);
  }
  template <class T>
  static constexpr T vjp(T g, T x, T) {
    return g / math::sqrt((T(1) - x) * (T(1) + x));
  }
};

struct acos {
  static constexpr operation_traits traits{.name = "acos", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::acos(x);
  }
  template <class T>
  static constexpr T vjp(T g, T x, T) {
    return -g / math::sqrt((T(1) - x) * (T(1) + x));
  }
};

struct atan {
  static constexpr operation_traits traits{.name = "atan", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::atan(x);
  }
  template <class T>
  static constexpr T vjp(T g, T x, T) {
    return g / (T(1) + x * x);
  }
};

/// z = atan2(y, x), the angle of the point (x, y): dz/dy = x / r^2, dz/dx = -y / r^2, scaled by
/// max(|x|, |y|) against overflow; (0, 0) at the origin and where a coordinate is infinite
/// (math::detail::atan2_partials, which the dual-number atan2 shares).
struct atan2 {
  static constexpr operation_traits traits{.name = "atan2", .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T y, T x) {
    return math::atan2(y, x);
  }
  template <class T>
  static constexpr std::pair<T, T> vjp(T g, T y, T x, T) {
    return math::detail::atan2_partials(g, y, x);
  }
};

}  // namespace ops

template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto sin(X&& x) {
  return detail::make_unary(ops::sin{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto cos(X&& x) {
  return detail::make_unary(ops::cos{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto tan(X&& x) {
  return detail::make_unary(ops::tan{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto asin(X&& x) {
  return detail::make_unary(ops::asin{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto acos(X&& x) {
  return detail::make_unary(ops::acos{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto atan(X&& x) {
  return detail::make_unary(ops::atan{}, std::forward<X>(x));
}
template <Operand Y, Operand X>
TAPELESS_BUILD_INLINE constexpr auto atan2(Y&& y, X&& x) {
  return detail::make_binary(ops::atan2{}, std::forward<Y>(y), std::forward<X>(x));
}

}  // namespace tapeless
