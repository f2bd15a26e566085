// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/concepts.hpp: what a node of the expression graph is, and what may stand beside one.
// Tests: test/static/contract_static.cpp
#pragma once

#include <tapeless/concepts/scalar.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/run_time_matrix.hpp>

#include <cstddef>
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
/// Its elements, rows and columns, read by the code around the failed operation, are itself.
struct shape_error {
  constexpr shape_error operator[](std::size_t) const noexcept { return {}; }
  constexpr shape_error operator()(std::size_t, std::size_t) const noexcept { return {}; }
  [[nodiscard]] static constexpr std::size_t rows() noexcept { return 0; }
  [[nodiscard]] static constexpr std::size_t cols() noexcept { return 0; }
  [[nodiscard]] static constexpr std::size_t size() noexcept { return 0; }
};

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

namespace detail {
/// A failed check's result in arithmetic with plain values or another such result, where no node is
/// built: the result again, so that the enclosing expression adds no message of its own.
template <class X, class Y>
concept failed_arithmetic = (ShapeError<X> || ShapeError<Y>)&&!Differentiable<X> && !Differentiable<Y>;
template <class X, class Y>
  requires failed_arithmetic<X, Y>
constexpr shape_error operator+(const X&, const Y&) noexcept { return {}; }
template <class X, class Y>
  requires failed_arithmetic<X, Y>
constexpr shape_error operator-(const X&, const Y&) noexcept { return {}; }
template <class X, class Y>
  requires failed_arithmetic<X, Y>
constexpr shape_error operator*(const X&, const Y&) noexcept { return {}; }
template <class X, class Y>
  requires failed_arithmetic<X, Y>
constexpr shape_error operator/(const X&, const Y&) noexcept { return {}; }
constexpr shape_error operator-(shape_error) noexcept { return {}; }
// And where a failed comparison stands for a mask (ops/mask.hpp): ~m, m & n, m | n, m ^ n.
constexpr shape_error operator~(shape_error) noexcept { return {}; }
template <class X, class Y>
  requires failed_arithmetic<X, Y>
constexpr shape_error operator&(const X&, const Y&) noexcept { return {}; }
template <class X, class Y>
  requires failed_arithmetic<X, Y>
constexpr shape_error operator|(const X&, const Y&) noexcept { return {}; }
template <class X, class Y>
  requires failed_arithmetic<X, Y>
constexpr shape_error operator^(const X&, const Y&) noexcept { return {}; }
}  // namespace detail

/// Anything an operation accepts: a node, a var, a plain number or a plain matrix, of fixed or run-time
/// extents (or the result of a failed shape check, passed on quietly).
template <class E>
concept Operand = Differentiable<E> || Data<E> || RunTimeMatrix<E> || ShapeError<E>;

// clang-format 14 would write `&&(` in this concept.
// clang-format off
/// Two operands of an operator tapeless overloads: at least one builds a node.
template <class X, class Y>
concept BinaryOperands = Operand<X> && Operand<Y> && (Differentiable<X> || Differentiable<Y>);
// clang-format on

}  // namespace tapeless
