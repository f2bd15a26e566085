// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/elementwise.hpp: the nodes of a scalar operation applied element by element to matrices.
//
// The operations themselves, elementwise_unary and elementwise_binary, are in operation/elementwise.hpp;
// make_unary and make_binary (expr/make.hpp) wrap a scalar operation in them when an operand is a matrix.
#pragma once

#include <tapeless/expr/children.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/operation/elementwise.hpp>

namespace tapeless::detail {

/// Elementwise operations: a scalar operation applied to every element of a matrix operand.
template <class Op>
inline constexpr bool is_elementwise_operation = false;
template <class Op>
inline constexpr bool is_elementwise_operation<elementwise_unary<Op>> = true;
template <class Op>
inline constexpr bool is_elementwise_operation<elementwise_binary<Op>> = true;

/// Elementwise nodes: the nodes of an elementwise operation (expr/children.hpp, the operation a node applies).
template <class N>
inline constexpr bool is_elementwise_node = is_elementwise_operation<operation_of_t<N>>;

/// The scalar operation the elementwise node N applies to each element.
template <class N>
using scalar_operation_t = decltype(operation_of_t<N>::op);

}  // namespace tapeless::detail
