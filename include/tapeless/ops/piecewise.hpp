// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/piecewise.hpp: abs, relu, min, max and if_else, with their conventions at the kinks.
//
// At a kink the derivative is a convention, stated here and in the user guide (doc/guide.md):
// abs'(0) = 0 and relu'(0) = 0; at a tie min and max give the whole adjoint to their first argument.
// NaN propagates: a NaN operand gives a NaN value and receives the adjoint, so NaN reaches the gradient.
#pragma once

#include <tapeless/expr/inline.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/expr/select.hpp>
#include <tapeless/math/functions.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/ops/mask.hpp>

#include <string_view>
#include <type_traits>
#include <utility>

namespace tapeless {
namespace ops {

// Written with math::select (a ?: for a number, a blend for a SIMD batch), so that one source serves
// both: every side is a constant or a value at hand.
struct abs {
  static constexpr operation_traits traits{.name = "abs", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::abs(x);
  }
  template <class T>
  static constexpr T derivative(T x, T) {
    return math::select(x > T(0), T(1), math::select(x < T(0), T(-1), math::select(x == T(0), T(0), x)));
  }
};

struct relu {
  static constexpr operation_traits traits{.name = "relu", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return math::select(x > T(0) || math::isnan(x), x, T(0));
  }
  template <class T>
  static constexpr T derivative(T x, T) {
    return math::select(x > T(0), T(1), math::select(math::isnan(x), x, T(0)));
  }
};

/// Which operand min and max pass on: the first at a tie, and a NaN operand always (a bool for
/// numbers, a mask for batches).
template <class T, class C>
constexpr auto first_wins(T x, T y, C first_preferred) {
  return math::isnan(x) || (y == y && (x == y || first_preferred));
}

/// The adjoint min and max pass to the chosen operand c: g, or NaN (c itself) when c is NaN, so that a
/// NaN value comes with a NaN derivative, as for abs and relu. The other operand receives 0.
template <class C, class T>
constexpr std::pair<T, T> to_chosen(const C& first, T g, T x, T y) {
  return {math::select(first, math::select(math::isnan(x), x, g), T(0)),
          math::select(first, T(0), math::select(math::isnan(y), y, g))};
}

struct min {
  static constexpr operation_traits traits{.name = "min", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x, T y) {
    return math::select(first_wins(x, y, x < y), x, y);
  }
  template <class T>
  static constexpr std::pair<T, T> vjp(T g, T x, T y, T) {
    return to_chosen(first_wins(x, y, x < y), g, x, y);
  }
};

struct max {
  static constexpr operation_traits traits{.name = "max", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x, T y) {
    return math::select(first_wins(x, y, x > y), x, y);
  }
  template <class T>
  static constexpr std::pair<T, T> vjp(T g, T x, T y, T) {
    return to_chosen(first_wins(x, y, x > y), g, x, y);
  }
};

}  // namespace ops

template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto abs(X&& x) {
  return detail::make_unary(ops::abs{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto relu(X&& x) {
  return detail::make_unary(ops::relu{}, std::forward<X>(x));
}
template <Operand X, Operand Y>
TAPELESS_BUILD_INLINE constexpr auto min(X&& x, Y&& y) {
  return detail::make_binary(ops::min{}, std::forward<X>(x), std::forward<Y>(y));
}
template <Operand X, Operand Y>
TAPELESS_BUILD_INLINE constexpr auto max(X&& x, Y&& y) {
  return detail::make_binary(ops::max{}, std::forward<X>(x), std::forward<Y>(y));
}

namespace detail {
/// Whether if_else(bool, a, b) is the elementwise one: a matrix beside a number, or a plain matrix
/// beside a plain value (a select_node needs an expression on one side, and one value type).
template <class A, class B>
inline constexpr bool any_matrix = Matrix<value_type_of_t<A>> || Matrix<value_type_of_t<B>>;
template <class A, class B>
inline constexpr bool elementwise_if_else = Matrix<value_type_of_t<A>> != Matrix<value_type_of_t<B>> ||
                                            (any_matrix<A, B> && !Differentiable<A> && !Differentiable<B>);
}  // namespace detail

/// cond ? a : b, differentiably: both branches are built (their types are fixed at compile time),
/// only the taken one receives adjoint. `cond` is a plain bool, typically a comparison like x > 0.0.
/// Branches that are both numbers or both matrices of one shape give a node (or, both plain, a plain
/// value) of their common type. Where a matrix meets a number, or both are plain and one is a matrix,
/// it is the elementwise if_else of ops/mask.hpp with every element of the mask equal to cond: the
/// number is used for every element, the shapes are checked the same way, and the result is a plain
/// matrix when both branches are plain.
template <Operand A, Operand B>
TAPELESS_BUILD_INLINE constexpr auto if_else(bool cond, A&& a, B&& b) {
  if constexpr (detail::RunTimeArray<A> || detail::RunTimeArray<B>) {
    // The formula of the choice, every element taking the same branch (transforms/run_time_reduction.hpp).
    return run_time_if_else(cond, std::forward<A>(a), std::forward<B>(b), detail::layer_above{});
  } else if constexpr (detail::any_shape_error<A, B> || !detail::fixed_extents_selected<A, B>()) {
    return detail::shape_error{};
  } else if constexpr (detail::elementwise_if_else<A, B>) {
    using M = std::conditional_t<Matrix<value_type_of_t<A>>, value_type_of_t<A>, value_type_of_t<B>>;
    return if_else(mask<M::rows(), M::cols()>::filled(cond), std::forward<A>(a), std::forward<B>(b));
  } else if constexpr (Differentiable<A> || Differentiable<B>) {
    using T = typename detail::binary_value<A, B>::type;
    using NA = decltype(detail::as_node<T>(std::forward<A>(a)));
    using NB = decltype(detail::as_node<T>(std::forward<B>(b)));
    return select_node<NA, NB>(cond, detail::as_node<T>(std::forward<A>(a)), detail::as_node<T>(std::forward<B>(b)));
  } else {
    using T = detail::plain_value_t<A, B>;
    return cond ? static_cast<T>(a) : static_cast<T>(b);
  }
}

}  // namespace tapeless
