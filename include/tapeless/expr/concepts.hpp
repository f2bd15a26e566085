// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/concepts.hpp: what a node of the expression graph is, and what may stand beside one.
// Tests: test/static/contract_static.cpp
#pragma once

#include <tapeless/concepts/scalar.hpp>
#include <tapeless/matrix/matrix.hpp>

#include <type_traits>

namespace tapeless {

namespace detail {
// Every node type derives from expression<Derived>; this is how the concept recognises them.
struct expression_tag {};
// tl::var derives from this, so it can stand in an expression although it is not a node.
struct variable_tag {};
}  // namespace detail

/// A node of a statically typed expression graph: a recipe that holds its operands by value (a leaf
/// holds its value, or a pointer to it). It holds no value of its operation: value() computes it on
/// demand, and a sweep computes each once into evaluated<Node>, a tree of values shaped like the node
/// tree (expr/evaluated.hpp), which the reverse sweep reads.
template <class E>
concept Expression = std::is_base_of_v<detail::expression_tag, std::remove_cvref_t<E>>;

/// A tl::var: an imperative leaf that receives its gradient through backward().
template <class E>
concept Variable = std::is_base_of_v<detail::variable_tag, std::remove_cvref_t<E>>;

/// Anything that builds a node when it meets an operation: a node or a var.
template <class E>
concept Differentiable = Expression<E> || Variable<E>;

/// Plain data that becomes a constant of an expression: a number, or a tl::matrix of numbers.
template <class E>
concept Data = Constant<E> || Matrix<E>;

namespace detail {
/// What an operation returns when its operands' shapes do not fit, after the static_assert that names
/// the operation and the shapes: every operation passes it on, and grad returns zeros for it, without
/// a message of their own, so that the compiler prints that one sentence and no cascade after it.
struct shape_error {};

/// What a transform returns after its own static_assert has said why the call cannot be made: it
/// converts to whatever the caller's code expects, so that no second message follows the first.
struct failed_call {
  template <class T>
  constexpr operator T() const {  // NOLINT: implicit, to stand in for any result
    return T{};
  }
};
}  // namespace detail

/// The result of an operation whose shape check failed (see detail::shape_error).
template <class E>
concept ShapeError = std::is_same_v<std::remove_cvref_t<E>, detail::shape_error>;

/// Anything an operation accepts: a node, a var, a plain number or a plain matrix (or the result of a
/// failed shape check, passed on quietly).
template <class E>
concept Operand = Differentiable<E> || Data<E> || ShapeError<E>;

// clang-format 14 would write `&&(` in this concept.
// clang-format off
/// Two operands of an operator tapeless overloads: at least one builds a node.
template <class X, class Y>
concept BinaryOperands = Operand<X> && Operand<Y> && (Differentiable<X> || Differentiable<Y>);
// clang-format on

}  // namespace tapeless
