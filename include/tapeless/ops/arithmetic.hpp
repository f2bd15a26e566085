// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/arithmetic.hpp: unary minus and + - * /, between nodes, vars and plain numbers.
#pragma once

#include <tapeless/expr/inline.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/expr/same_value.hpp>
#include <tapeless/ops/power.hpp>  // ops::square, for x * x
#include <tapeless/simd/batch.hpp>

#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tapeless {
namespace ops {

struct negate {
  static constexpr operation_traits traits{.name = "neg",
                                           .batched = true,
                                           .plain_arithmetic = true,
                                           .vjp_reads = reads_nothing,
                                           .partials = partials_form::negation};
  template <class T>
  static constexpr T value(T x) {
    return -x;
  }
  template <class T>
  static constexpr T vjp(T g, T, T) {
    return -g;
  }
};

struct add {
  static constexpr operation_traits traits{.name = "+",
                                           .batched = true,
                                           .plain_arithmetic = true,
                                           .vjp_reads = reads_nothing,
                                           .partials = partials_form::sum};
  template <class T>
  static constexpr T value(T x, T y) {
    return x + y;
  }
  template <class T>
  static constexpr std::pair<T, T> vjp(T g, T, T, T) {
    return {g, g};
  }
};

struct subtract {
  static constexpr operation_traits traits{.name = "-",
                                           .batched = true,
                                           .plain_arithmetic = true,
                                           .vjp_reads = reads_nothing,
                                           .partials = partials_form::difference};
  template <class T>
  static constexpr T value(T x, T y) {
    return x - y;
  }
  template <class T>
  static constexpr std::pair<T, T> vjp(T g, T, T, T) {
    return {g, -g};
  }
};

struct multiply {
  static constexpr operation_traits traits{.name = "*",
                                           .batched = true,
                                           .plain_arithmetic = true,
                                           .lhs_vjp_reads = reads{.lhs = false, .rhs = true, .value = false},  // g y
                                           .rhs_vjp_reads = reads{.lhs = true, .rhs = false, .value = false},  // g x
                                           .partials = partials_form::product};
  template <class T>
  static constexpr T value(T x, T y) {
    return x * y;
  }
  template <class T>
  static constexpr std::pair<T, T> vjp(T g, T x, T y, T) {
    return {g * y, g * x};
  }
};

struct divide_by_uniform;

struct divide {
  static constexpr operation_traits traits{
      .name = "/",
      .batched = true,
      .plain_arithmetic = true,
      .lhs_vjp_reads = reads{.lhs = false, .rhs = true, .value = false},  // g / y
      .rhs_vjp_reads = reads{.lhs = false, .rhs = true, .value = true},   // -g z / y
      .partials = partials_form::quotient};
  /// In a loop whose every element has the same y: x times 1 / y (sweep/region_tree.hpp).
  using uniform_rhs_form = divide_by_uniform;
  template <class T>
  static constexpr T value(T x, T y) {
    return x / y;
  }
  // z = x / y: dz/dx = 1 / y, dz/dy = -z / y; one division serves both.
  template <class T>
  static constexpr std::pair<T, T> vjp(T g, T, T y, T z) {
    const T gx = g / y;
    return {gx, -gx * z};
  }
};

/// x / y as x * (1 / y) where 1 / y is a normal number, else x / y itself: y zero, subnormal, above
/// 2^1022, infinite or NaN, so that IEEE's special values and the overflows are those of x / y. Within
/// 1 ulp of x / y (two roundings instead of one).
template <class T>
constexpr T times_reciprocal(const T& x, const T& y) {
  const T r = T(1) / y;
  return math::lazy_select(
      math::reciprocal_is_normal(r), [&] { return x * r; }, [&] { return x / y; });
}

/// x / y in a loop whose every element has the same y: the number divisor of a fused region that runs
/// in SIMD batches (sweep/fused.hpp). 1 / y is the same for every element, so the compiler computes it
/// once, before the loop, and the value and the rule multiply: a division per batch would bound the
/// loop ((x - mu) / sigma in normal_logpdf takes two). The rounding differs
/// from x / y's by at most 1 ulp, like the other reorderings of a fused loop.
///
/// For a batch, every lane of y is the same number: the test is made on that number, a bool that g++
/// moves out of the loop (it splits the loop in two), where the test of a mask stays in it, a
/// branch per batch.
template <class T>
constexpr T times_uniform_reciprocal(const T& x, const T& y) {
  if constexpr (::tapeless::detail::simd::is_batch<T>) {
    const typename T::value_type r = typename T::value_type(1) / y.get(0);
    if (math::reciprocal_is_normal(r)) return x * T(r);
    return x / y;
  } else {
    return times_reciprocal(x, y);
  }
}
struct divide_by_uniform : divide {
  template <class T>
  static constexpr T value(T x, T y) {
    return times_uniform_reciprocal(x, y);
  }
  template <class T>
  static constexpr std::pair<T, T> vjp(T g, T, T y, T z) {
    const T gx = times_uniform_reciprocal(g, y);
    return {gx, -gx * z};
  }
};

}  // namespace ops

template <Differentiable X>
TAPELESS_BUILD_INLINE constexpr auto operator-(X&& x) {
  return detail::make_unary(ops::negate{}, std::forward<X>(x));
}
template <Differentiable X>
TAPELESS_BUILD_INLINE constexpr auto operator+(X&& x) {
  return detail::as_node<value_type_of_t<X>>(std::forward<X>(x));
}

template <class X, class Y>
TAPELESS_BUILD_INLINE constexpr auto operator+(X&& x, Y&& y) requires BinaryOperands<X, Y> {
  return detail::make_binary(ops::add{}, std::forward<X>(x), std::forward<Y>(y));
}
template <class X, class Y>
TAPELESS_BUILD_INLINE constexpr auto operator-(X&& x, Y&& y) requires BinaryOperands<X, Y> {
  return detail::make_binary(ops::subtract{}, std::forward<X>(x), std::forward<Y>(y));
}
template <class X, class Y>
TAPELESS_BUILD_INLINE constexpr auto operator*(X&& x, Y&& y) requires BinaryOperands<X, Y> {
  // t * t of one value (an argument, a let name, or an operation on them alone: expr/same_value.hpp) is
  // square(t): t is computed once, and its sweep does 2 t g once instead of t g twice.
  if constexpr (std::is_same_v<std::remove_cvref_t<X>, std::remove_cvref_t<Y>> &&
                detail::one_value_by_type<std::remove_cvref_t<X>>)
    return detail::make_unary(ops::square{}, std::forward<X>(x));
  else
    return detail::make_binary(ops::multiply{}, std::forward<X>(x), std::forward<Y>(y));
}
template <class X, class Y>
TAPELESS_BUILD_INLINE constexpr auto operator/(X&& x, Y&& y) requires BinaryOperands<X, Y> {
  return detail::make_binary(ops::divide{}, std::forward<X>(x), std::forward<Y>(y));
}

}  // namespace tapeless
