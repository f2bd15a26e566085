// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/backward.hpp: the reverse sweep, one overload per kind of node.
//
// backward_sweep(node, g, store) pushes the adjoint g of `node` to its operands through the node's
// vector-Jacobian product, depth first. Inactive subtrees (no argument, var or let name below them)
// are skipped at compile time, so constants cost nothing. A value used twice sits twice in the tree
// and receives its adjoint twice, which is the fan-out sum; let shares a subtree as a DAG node.
#pragma once

#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/let.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/expr/select.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/ops/rules.hpp>
#include <tapeless/sweep/adjoints.hpp>

namespace tapeless::detail {

template <class T, class G, class Store>
constexpr void backward_sweep(const constant<T>&, const G&, Store&) {}

template <class T, class G, class Store>
constexpr void backward_sweep(const constant_ref<T>&, const G&, Store&) {}

template <std::size_t S, class T, class G, class Store>
constexpr void backward_sweep(const argument<S, T>& leaf, const G& g, Store& store) {
  store.accumulate(leaf, g);
}

template <class Tag, class T, class G, class Store>
constexpr void backward_sweep(const bound<Tag, T>& leaf, const G& g, Store& store) {
  store.accumulate(leaf, g);
}

template <class T, class G, class Store>
constexpr void backward_sweep(const var_ref<T>& leaf, const G& g, Store&) {
  *leaf.grad_ += g;
}

template <class Op, class A, class G, class Store>
constexpr void backward_sweep(const unary_node<Op, A>& n, const G& g, Store& store) {
  if constexpr (A::is_active) backward_sweep(n.arg, unary_vjp(n.op, g, n.arg.value(), n.value()), store);
}

template <class Op, class A, class B, class G, class Store>
constexpr void backward_sweep(const binary_node<Op, A, B>& n, const G& g, Store& store) {
  using T = typename binary_node<Op, A, B>::value_type;
  if constexpr (is_matrix_operation<Op>) {
    if constexpr (A::is_active) backward_sweep(n.lhs, n.op.vjp_lhs(g, n.lhs.value(), n.rhs.value(), n.value()), store);
    if constexpr (B::is_active) backward_sweep(n.rhs, n.op.vjp_rhs(g, n.lhs.value(), n.rhs.value(), n.value()), store);
  } else if constexpr (A::is_active || B::is_active) {
    const auto [ga, gb] = n.op.vjp(T(g), T(n.lhs.value()), T(n.rhs.value()), n.value());
    if constexpr (A::is_active) backward_sweep(n.lhs, ga, store);
    if constexpr (B::is_active) backward_sweep(n.rhs, gb, store);
  }
}

template <class A, class B, class G, class Store>
constexpr void backward_sweep(const select_node<A, B>& n, const G& g, Store& store) {
  if (n.cond) {
    if constexpr (A::is_active) backward_sweep(n.if_true, g, store);
  } else {
    if constexpr (B::is_active) backward_sweep(n.if_false, g, store);
  }
}

// The body first, summing the adjoint of every use of the bound name; then the bound expression once.
template <class Tag, class Bound, class Body, class G, class Store>
constexpr void backward_sweep(const let_node<Tag, Bound, Body>& n, const G& g, Store& store) {
  using T = typename Bound::value_type;
  // The sum starts at -0, the identity of IEEE addition (+0 is not: +0 + -0 is +0), so the
  // compiler may drop the first addition.
  let_scope<Tag, T, Store> scope{filled<T>(-0.0), store};
  if constexpr (Body::is_active) backward_sweep(n.body, g, scope);
  if constexpr (Bound::is_active) backward_sweep(n.bound_expr, scope.adjoint, store);
}

}  // namespace tapeless::detail
