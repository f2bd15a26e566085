// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/run_time_factorisations.hpp: tl::det, tl::inverse, tl::log_det, tl::solve and
// tl::cholesky of square matrices of run-time extents: an argument, data (tl::cref, an Eigen matrix) or
// a node, or a formula over them, whose value a node holds first (stored_formula), as a product's
// operand. The shapes are checked where the operation is written, before anything is evaluated: a
// matrix that is not square, and a right-hand side of other rows than A's, throw
// std::invalid_argument naming the operation and the shapes. Of plain values, the plain result.
// Tests: test/unit/ops/factorisations/run_time_test.cpp
#pragma once

#include <tapeless/expr/make.hpp>
#include <tapeless/expr/run_time_elementwise.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/ops/run_time_factorisations.hpp>
#include <tapeless/transforms/run_time_reduction.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

/// Throws std::invalid_argument where a, the operand of `name`, is not square.
constexpr void check_square(const char* name, element_extents a) {
  if (a.rows != a.cols)
    throw std::invalid_argument(std::string(name) + "(A): A is " + shape_text(a.rows, a.cols) + ", not square");
}

/// The value of op at plain operands, or the node of op over them where any is differentiable.
template <class Op, class... X>
constexpr auto factorised(const Op& op, X&&... x) {
  if constexpr ((Differentiable<X> || ...)) {
    if constexpr (sizeof...(X) == 1)
      return make_unary(op, std::forward<X>(x)...);
    else
      return make_binary(op, std::forward<X>(x)...);
  } else {
    return op_value(op, x...);
  }
}

/// Op of the square matrix a of run-time extents, whose value is an n x n matrix where `matrix_valued`
/// (the inverse, the Cholesky factor), else a number.
template <class Op, class A>
constexpr auto run_time_factorisation(const char* name, A&& a, bool matrix_valued) {
  const element_extents e = extents_of(a);
  check_square(name, e);
  const ops::run_time_factorised<Op> op{{}, matrix_valued ? element_extents{e.rows, e.rows, false} : element_extents{}};
  return factorised(op, whole_array_operand(std::forward<A>(a)));
}

}  // namespace detail

/// det A of a square matrix of run-time extents, by LU with partial pivoting at every n; its gradient,
/// the cofactor matrix, computed without division (ops::det).
template <Operand A>
  requires detail::RunTimeArray<A>
constexpr auto det(A&& a) { return detail::run_time_factorisation<ops::det>("tl::det", std::forward<A>(a), false); }

/// A^-1 of a square matrix of run-time extents (LU with partial pivoting; all NaN at a zero pivot).
template <Operand A>
  requires detail::RunTimeArray<A>
constexpr auto inverse(A&& a) {
  return detail::run_time_factorisation<ops::inverse>("tl::inverse", std::forward<A>(a), true);
}

/// log det A of a symmetric positive-definite matrix of run-time extents, through its Cholesky factor
/// (ops::log_det: A read as (A + A^T) / 2; NaN where it is not positive definite).
template <Operand A>
  requires detail::RunTimeArray<A>
constexpr auto log_det(A&& a) {
  return detail::run_time_factorisation<ops::log_det>("tl::log_det", std::forward<A>(a), false);
}

/// The lower-triangular L with A = L L^T of a symmetric positive-definite A of run-time extents, of
/// which only the lower triangle is read (ops::cholesky).
template <Operand A>
  requires detail::RunTimeArray<A>
constexpr auto cholesky(A&& a) {
  return detail::run_time_factorisation<ops::cholesky>("tl::cholesky", std::forward<A>(a), true);
}

/// x = A^-1 b where A or b has run-time extents: A square, b a vector or matrix of A's rows (LU with
/// partial pivoting; all NaN if A is singular). Both may be differentiated.
template <Operand A, Operand B>
  requires(detail::RunTimeArray<A> || detail::RunTimeArray<B>)
constexpr auto solve(A&& a, B&& b) {
  const detail::element_extents ea = detail::extents_of(a), eb = detail::extents_of(b);
  detail::check_square("tl::solve", ea);
  if (eb.rows != ea.rows)
    throw std::invalid_argument("tl::solve(A, b): A is " + detail::shape_text(ea.rows, ea.cols) + " and b " +
                                detail::shape_text(eb.rows, eb.cols) + "; b must have A's rows");
  const ops::run_time_factorised<ops::solve> op{{}, {ea.rows, eb.cols, false}};
  return detail::factorised(op, detail::whole_array_operand(std::forward<A>(a)),
                            detail::whole_array_operand(std::forward<B>(b)));
}

}  // namespace tapeless
