// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/make.hpp: turning operands into nodes, and building unary and binary nodes from any operands.
// Tests: test/unit/concepts/operation_test.cpp test/unit/ops/arithmetic_test.cpp
#pragma once

#include <tapeless/concepts/operation.hpp>
#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/cut.hpp>
#include <tapeless/expr/inline.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/run_time_elementwise.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/matrix/shape.hpp>
#include <tapeless/operation/elementwise.hpp>
#include <tapeless/simd/batch.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// The number a lane of T holds: T itself, or the element type of a SIMD batch.
template <class T>
struct lane_number {
  using type = T;
};
template <class T>
  requires simd::is_batch<T>
struct lane_number<T> {
  using type = typename T::value_type;
};

/// Whether data of number type U may stand in an expression of number type T by conversion: the
/// forward-mode transforms run f in dual numbers, where its captured double data meets dual values,
/// and a sum over rows runs its term on SIMD batches of rows, where the data its body captures meets
/// batches (every lane the same number).
template <class T, class U>
inline constexpr bool lifts_to = !std::is_same_v<T, U> && std::is_same_v<real_of_t<typename lane_number<T>::type>, U>;

/// A number or matrix of U as one of T.
template <class T, class V>
constexpr auto lifted(const V& v) {
  if constexpr (Matrix<V>) {
    matrix<T, V::rows(), V::cols()> m(uninitialized);
    for (std::size_t i = 0; i < V::size(); ++i) m[i] = T(v[i]);
    return m;
  } else {
    return T(v);
  }
}

/// A node that depends on no argument: data (constant, cref) as a node.
template <class D>
concept ConstantNode = Expression<D> && !std::remove_cvref_t<D>::is_active;

/// Whether data of value type V is lifted to number type T: a number or a fixed matrix of the number
/// type T lifts from. A matrix of run-time extents is not, which would be a copy per node: the operations
/// that take one (ops::line_dot) multiply its numbers as they are.
template <class T, class V>
inline constexpr bool lifted_to = lifts_to<T, scalar_of_t<V>> && !RunTimeMatrix<V>;

/// x in number type T, when it is of the number type T lifts from; else x itself.
template <class T, class X>
constexpr auto as_number(const X& x) {
  if constexpr (lifted_to<T, X>)
    return lifted<T>(x);
  else
    return x;
}

/// An operand as a node: nodes pass through, a var becomes a var_ref, a number a constant of type T,
/// a plain matrix (of fixed or run-time extents) a constant matrix of T.
template <class T, class E>
TAPELESS_BUILD_INLINE constexpr auto as_node(E&& e) {
  using D = std::remove_cvref_t<E>;
  if constexpr (ConstantNode<D> && lifted_to<T, value_type_of_t<D>>)
    return constant<decltype(lifted<T>(e.value()))>(lifted<T>(e.value()));  // data in a dual expression
  else if constexpr (Expression<D>)
    return D(std::forward<E>(e));
  else if constexpr (Variable<D>) {
    static_assert(std::is_lvalue_reference_v<E>,
                  "a tl::var in an expression must be a named variable that outlives the expression, "
                  "not a temporary whose gradient would be destroyed before backward()");
    return e.ref();
  } else if constexpr (Matrix<D> && lifts_to<T, scalar_of_t<D>>)
    return constant<decltype(lifted<T>(e))>(lifted<T>(e));
  else if constexpr (Matrix<D>) {
    static_assert(std::is_same_v<typename D::value_type, T>,
                  "a tl::matrix constant in an expression must hold the number type of the expression");
    return constant<D>(std::forward<E>(e));
  } else if constexpr (RunTimeMatrix<D>) {  // a plain array of run-time extents beside a node: a copy
    static_assert(std::is_same_v<typename D::value_type, T>,
                  "an array of run-time extents in an expression must hold the number type of the expression");
    return constant<D>(std::forward<E>(e));
  } else {
    return constant<T>(static_cast<T>(e));
  }
}

/// The number type of a binary operation: that of its differentiable operands. Data beside a node
/// takes the node's type (2.0 * x stays float for a float x), except dual data, whose tangents count.
template <class E1, class E2>
struct binary_value {
  using node_side = scalar_type_of_t<std::conditional_t<Differentiable<E1>, E1, E2>>;
  using data_side = scalar_type_of_t<std::conditional_t<Differentiable<E1>, E2, E1>>;
  using type = std::conditional_t<Differentiable<E1> && Differentiable<E2>,
                                  std::common_type_t<scalar_type_of_t<E1>, scalar_type_of_t<E2>>,
                                  std::conditional_t<lifts_to<data_side, node_side>, data_side, node_side>>;
};

/// The number type plain numbers compute in: their own if floating-point, else double.
template <class... X>
using plain_value_t = std::conditional_t<Real<std::common_type_t<std::remove_cvref_t<X>...>>,
                                         std::common_type_t<std::remove_cvref_t<X>...>, double>;

/// op(x): a node when x is differentiable, else the plain number op.value(x).
/// Whether an operand is the result of a failed shape check, passed on quietly.
template <class... X>
inline constexpr bool any_shape_error = (ShapeError<X> || ...);

/// The node of op(x...) once its checks have passed, else shape_error: `Kind` says whether the operands
/// are of the kind op takes (the caller's static_assert has said so if not), and the shapes:: check
/// `Fits`, instantiated only then (it is its static_assert that names the shapes), whether their shapes
/// fit. An operand that already is a shape_error passes on without either check.
template <class Fits, bool Kind, class Op, class... X>
TAPELESS_BUILD_INLINE constexpr auto checked_node(Op op, X&&... x) {
  if constexpr (any_shape_error<X...> || !Kind)
    return shape_error{};  // NOLINT(bugprone-branch-clone): not merged with the next, so Fits waits for Kind
  else if constexpr (!Fits::ok)
    return shape_error{};
  else if constexpr (sizeof...(X) == 1)
    return make_unary(std::move(op), std::forward<X>(x)...);
  else
    return make_binary(std::move(op), std::forward<X>(x)...);
}

/// The value type op receives for an operand X: its own for a matrix operation, its elements' for a
/// scalar one, which applies element by element.
template <class Op, class X>
using unary_operand_t = std::conditional_t<is_matrix_operation<Op>, value_type_of_t<X>, scalar_type_of_t<X>>;

/// The value types op receives for operands X and Y: both in the number type of the operation, as
/// numbers for a scalar operation, as they are (data lifted to that type) for a matrix one.
template <class Op, class X, class Y>
struct binary_operands {
  using T = typename binary_value<X, Y>::type;
  using lhs =
      std::conditional_t<is_matrix_operation<Op>, decltype(as_number<T>(std::declval<const value_type_of_t<X>&>())), T>;
  using rhs =
      std::conditional_t<is_matrix_operation<Op>, decltype(as_number<T>(std::declval<const value_type_of_t<Y>&>())), T>;
};

/// Whether no operand is an array of run-time extents; if one is, stopped here with one sentence. The
/// makers of operations over whole matrices ask it before their own checks of the operands' kind.
template <class... X>
constexpr bool fixed_extents_in() {
  constexpr bool ok = !(RunTimeMatrix<value_type_of_t<X>> || ...);
  static_assert(ok,
                "tl: an operation on a whole array of run-time extents (tl::dynamic, tl::bounded) that tapeless "
                "does not differentiate (it does elementwise ones, comparisons, tl::if_else, tl::slice, "
                "tl::transpose, tl::diag, tl::outer, tl::reshape of an array, tl::matmul, tl::concat of vectors, "
                "tl::det, tl::inverse, tl::log_det, tl::solve, tl::cholesky, the reductions and tl::softmax); read its "
                "elements (x[i], A(i, j), tl::row(A, i), "
                "tl::col(A, j)) in a tl::sum_over over tl::indices(x.size()) or tl::pairs(n)");
  return ok;
}

/// Whether op takes the operands X...: any of fixed shape; one of run-time extents only if op says so
/// (operation_traits::takes_run_time_extents).
template <class Op, class... X>
constexpr bool takes_extents_of() {
  if constexpr (traits_of<Op>().takes_run_time_extents)
    return true;
  else
    return fixed_extents_in<X...>();
}

/// Whether op(x...) is a scalar operation on an array of run-time extents: a formula then, element by
/// element, where a node (or a formula) is among its operands, else its plain value
/// (expr/run_time_elementwise.hpp).
template <class Op, class... X>
inline constexpr bool elementwise_at_run_time =
    !is_matrix_operation<Op> && !any_shape_error<X...> && (RunTimeArray<X> || ...);

template <class Op, class... X>
TAPELESS_BUILD_INLINE constexpr auto run_time_elementwise_of(Op op, X&&... x) {
  if constexpr ((Differentiable<X> || ...))
    return make_run_time_elementwise(std::move(op), std::forward<X>(x)...);
  else
    return plain_run_time_elementwise(op, x...);
}

template <class Op, class X>
TAPELESS_BUILD_INLINE constexpr auto make_unary(Op op, X&& x) {
  if constexpr (elementwise_at_run_time<Op, X>) {
    return run_time_elementwise_of(std::move(op), std::forward<X>(x));
    // NOLINTNEXTLINE(bugprone-branch-clone): apart from the next branch, so that op is checked after the shapes
  } else if constexpr (ShapeError<X> || !takes_extents_of<Op, X>()) {
    return shape_error{};
  } else if constexpr (!operation_check<Op, Differentiable<X>, unary_operand_t<Op, X>>::ok) {
    return shape_error{};  // the check's static_assert has said what op lacks
  } else if constexpr (!is_matrix_operation<Op> && Matrix<value_type_of_t<X>>) {
    return make_unary(elementwise_unary<Op>{op}, std::forward<X>(x));
  } else if constexpr (Differentiable<X>) {
    using T = value_type_of_t<X>;
    using A = decltype(as_node<T>(std::forward<X>(x)));
    auto make = [&]() TAPELESS_BUILD_INLINE {
      return unary_node<Op, A>(std::move(op), built_by{},
                               [&]() TAPELESS_BUILD_INLINE { return as_node<T>(std::forward<X>(x)); });
    };
    if constexpr (to_be_cut<unary_node<Op, A>>)
      return cut(make(), layer_above{});  // sweep/cut.hpp
    else
      return make();
  } else if constexpr (Matrix<X> || RunTimeMatrix<X>) {  // an operation that takes run-time extents too
    return op_value(op, x);
  } else {
    return op_value(op, static_cast<plain_value_t<X>>(x));
  }
}

/// op(x, y): a node when either is differentiable, else the plain number op.value(x, y).
/// A plain number beside a node takes the node's number type (`2 * x` stays double for a double x).
template <class Op, class X, class Y>
TAPELESS_BUILD_INLINE constexpr auto make_binary(Op op, X&& x, Y&& y) {
  using operands = binary_operands<Op, X, Y>;
  constexpr bool differentiable = Differentiable<X> || Differentiable<Y>;
  if constexpr (elementwise_at_run_time<Op, X, Y>) {
    return run_time_elementwise_of(std::move(op), std::forward<X>(x), std::forward<Y>(y));
    // NOLINTNEXTLINE(bugprone-branch-clone): apart from the next branch, so that op is checked after the shapes
  } else if constexpr (any_shape_error<X, Y> || !takes_extents_of<Op, X, Y>()) {
    return shape_error{};
  } else if constexpr (!operation_check<Op, differentiable, typename operands::lhs, typename operands::rhs>::ok) {
    return shape_error{};  // the check's static_assert has said what op lacks
  } else if constexpr (!is_matrix_operation<Op> && (Matrix<value_type_of_t<X>> || Matrix<value_type_of_t<Y>>)) {
    // A number beside a matrix is used for every element; two matrices must have one shape, or shapes
    // that broadcast: the one with a 1 where the other has more is replicated to the result's shape by
    // a broadcast node (operation/elementwise.hpp), whose rule sums the adjoint over the axis.
    constexpr shape a = shape_of<value_type_of_t<X>>, b = shape_of<value_type_of_t<Y>>;
    constexpr shape a_used = Matrix<value_type_of_t<X>> ? a : b, b_used = Matrix<value_type_of_t<Y>> ? b : a;
    using fits = shapes::elementwise_shapes<a_used, b_used>;
    using to_result = broadcast_to<fits::result.rows, fits::result.cols>;
    if constexpr (!fits::ok)
      return shape_error{};  // the check's static_assert has named the shapes
    else if constexpr (a_used == b_used)
      return make_binary(elementwise_binary<Op>{op}, std::forward<X>(x), std::forward<Y>(y));
    else if constexpr (a_used == fits::result)
      return make_binary(op, std::forward<X>(x), make_unary(to_result{}, std::forward<Y>(y)));
    else if constexpr (b_used == fits::result)
      return make_binary(op, make_unary(to_result{}, std::forward<X>(x)), std::forward<Y>(y));
    else
      return make_binary(op, make_unary(to_result{}, std::forward<X>(x)), make_unary(to_result{}, std::forward<Y>(y)));
  } else if constexpr (Differentiable<X> || Differentiable<Y>) {
    using T = typename binary_value<X, Y>::type;
    using A = decltype(as_node<T>(std::forward<X>(x)));
    using B = decltype(as_node<T>(std::forward<Y>(y)));
    auto make = [&]() TAPELESS_BUILD_INLINE {
      return binary_node<Op, A, B>(
          std::move(op), built_by{}, [&]() TAPELESS_BUILD_INLINE { return as_node<T>(std::forward<X>(x)); },
          [&]() TAPELESS_BUILD_INLINE { return as_node<T>(std::forward<Y>(y)); });
    };
    if constexpr (to_be_cut<binary_node<Op, A, B>>)
      return cut(make(), layer_above{});  // sweep/cut.hpp
    else
      return make();
  } else if constexpr (Matrix<X> || Matrix<Y> || RunTimeMatrix<X> || RunTimeMatrix<Y>) {
    using T = std::common_type_t<scalar_type_of_t<X>, scalar_type_of_t<Y>>;
    if constexpr (lifts_to<T, scalar_type_of_t<X>> || lifts_to<T, scalar_type_of_t<Y>>)
      return op_value(op, as_number<T>(x), as_number<T>(y));  // double data beside dual values
    else
      return op_value(op, x, y);
  } else {
    using T = plain_value_t<X, Y>;
    return op_value(op, static_cast<T>(x), static_cast<T>(y));
  }
}

/// The function objects behind tl::make_unary and tl::make_binary: objects, so that no call in the
/// library, where an operand's namespace is tapeless, finds them by argument-dependent lookup.
struct make_unary_function {
  template <class Op, Operand X>
  TAPELESS_BUILD_INLINE constexpr auto operator()(Op op, X&& x) const {
    return make_unary(std::move(op), std::forward<X>(x));
  }
};
struct make_binary_function {
  template <class Op, Operand X, Operand Y>
  TAPELESS_BUILD_INLINE constexpr auto operator()(Op op, X&& x, Y&& y) const {
    return make_binary(std::move(op), std::forward<X>(x), std::forward<Y>(y));
  }
};

}  // namespace tapeless::detail

namespace tapeless {

/// op(x) for an operation op of one's own (what it must have: concepts/operation.hpp; how to write one:
/// doc/extending.md): a node when x is differentiable (an expression or a var), else the plain value.
/// A scalar operation applies element by element to a matrix x. Wrap it as the library's own are:
///
///   template <tl::Operand X>
///   constexpr auto sinc(X&& x) { return tl::make_unary(sinc_op{}, std::forward<X>(x)); }
inline constexpr detail::make_unary_function make_unary{};

/// op(x, y) for a binary operation op of one's own, as make_unary: a node when x or y is
/// differentiable, else the plain value. A scalar operation applies element by element to matrices,
/// and a number beside a matrix is used for every element.
inline constexpr detail::make_binary_function make_binary{};

}  // namespace tapeless
