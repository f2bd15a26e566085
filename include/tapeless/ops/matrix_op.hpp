// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/matrix_op.hpp: detail::matrix_op, the node maker of every matrix operation (products and
// factorisations): it checks that the operands are matrices and that their shapes fit, then makes the node.
// Tests: test/unit/ops/products_test.cpp test/unit/ops/factorisations/
#pragma once

#include <tapeless/expr/make.hpp>
#include <tapeless/matrix/shape.hpp>

#include <utility>

namespace tapeless::detail {
/// Whether every operand is a matrix, or a shape_error passed on; a static_assert says so if not.
template <class... X>
constexpr bool are_matrices() {
  constexpr bool ok = (... && (Matrix<value_type_of_t<X>> || ShapeError<X>));
  static_assert(ok || !fixed_extents_in<X...>(),
                "this operation (matmul, transpose, dot, outer, trace, det, inverse, log_det, solve, cholesky) "
                "takes matrices or matrix expressions, not numbers");
  return ok;
}

/// op of one or two matrix operands whose shapes must satisfy the shapes:: check Fits.
template <template <shape...> class Fits, class Op, class... X>
constexpr auto matrix_op(Op op, X&&... x) {
  constexpr bool kind = are_matrices<X...>() && !any_shape_error<X...>;
  return checked_node<Fits<shape_of<value_type_of_t<X>>...>, kind>(op, std::forward<X>(x)...);
}
}  // namespace tapeless::detail
