// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/rules.hpp: how the sweep asks an operation for its vector-Jacobian product.
//
// A unary operation states either `derivative(x, y)` (dy/dx, given its operand x and its own value y)
// or, where dividing beats multiplying by a reciprocal, `vjp(g, x, y)` (g * dy/dx) directly.
// A binary operation states `vjp(g, x, y, z)`, returning the pair (g * dz/dx, g * dz/dy).
// A matrix operation (detail::matrix_operation) states `vjp(g, x, y)` if unary, and if binary
// `vjp_lhs(g, x, y, z)` and `vjp_rhs(g, x, y, z)` apart, so that a constant side costs nothing.
// Each of these is the one place its rule is written; the other forms are derived here.
#pragma once

#include <utility>

namespace tapeless::detail {

template <class Op, class G, class X, class Y>
constexpr auto unary_vjp(const Op& op, const G& g, const X& x, const Y& y) {
  if constexpr (requires { op.vjp(g, x, y); })
    return op.vjp(g, x, y);
  else
    return g * op.derivative(x, y);
}

/// dy/dx of a unary operation at (x, y): the local derivative the trace prints on an edge.
template <class Op, class T>
constexpr T unary_derivative(const Op& op, const T& x, const T& y) {
  if constexpr (requires { op.derivative(x, y); })
    return op.derivative(x, y);
  else
    return op.vjp(T(1), x, y);
}

/// (dz/dx, dz/dy) of a binary operation at (x, y, z).
template <class Op, class T>
constexpr std::pair<T, T> binary_partials(const Op& op, const T& x, const T& y, const T& z) {
  return op.vjp(T(1), x, y, z);
}

}  // namespace tapeless::detail
