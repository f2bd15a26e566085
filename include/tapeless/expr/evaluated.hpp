// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/evaluated.hpp: the values of a tree of nodes, computed once for a sweep.
//
// Nodes are recipes and hold no values of their operations (expr/expression.hpp). evaluated<Node> is
// the tree of those values, shaped like the node tree: built in one forward pass, each value computed
// once, straight into its place (no copies), and read by the reverse sweep. Leaves keep their own
// values, so their evaluation is empty; an operation that keeps a cache for its backward pass
// (ops/rules.hpp) has it kept here beside its value.
#pragma once

#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/select.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/ops/rules.hpp>

#include <type_traits>
#include <utility>

namespace tapeless::detail {

template <class Node>
struct evaluated;

/// A leaf's value is its own: nothing to compute or keep.
template <class Node>
  requires is_leaf<Node>
struct evaluated<Node> {
  constexpr explicit evaluated(const Node&) noexcept {}
};

/// The value of node n, whose evaluation is e.
template <class Node>
constexpr decltype(auto) value_at(const Node& n, const evaluated<Node>& e) noexcept {
  if constexpr (is_leaf<Node>)
    return n.value();
  else
    return e.value();
}

template <class Op, class A>
struct evaluated<unary_node<Op, A>> {
  [[no_unique_address]] evaluated<A> arg;
  decltype(op_forward(std::declval<const Op&>(), std::declval<const typename A::value_type&>())) out;

  constexpr explicit evaluated(const unary_node<Op, A>& n) : arg(n.arg), out(op_forward(n.op, value_at(n.arg, arg))) {}
  [[nodiscard]] constexpr const auto& value() const noexcept { return value_part(out); }
};

template <class Op, class A, class B>
struct evaluated<binary_node<Op, A, B>> {
  [[no_unique_address]] evaluated<A> lhs;
  [[no_unique_address]] evaluated<B> rhs;
  decltype(binary_forward_at(std::declval<const Op&>(), std::declval<const typename A::value_type&>(),
                             std::declval<const typename B::value_type&>())) out;

  constexpr explicit evaluated(const binary_node<Op, A, B>& n)
      : lhs(n.lhs), rhs(n.rhs), out(binary_forward_at(n.op, value_at(n.lhs, lhs), value_at(n.rhs, rhs))) {}
  [[nodiscard]] constexpr const auto& value() const noexcept { return value_part(out); }
};

/// Both branches are evaluated (their types are fixed); the value is the taken one's.
template <class A, class B>
struct evaluated<select_node<A, B>> {
  using value_type = typename select_node<A, B>::value_type;
  [[no_unique_address]] evaluated<A> if_true;
  [[no_unique_address]] evaluated<B> if_false;
  value_type value_;

  constexpr explicit evaluated(const select_node<A, B>& n)
      : if_true(n.if_true), if_false(n.if_false),
        value_(n.cond ? value_type(value_at(n.if_true, if_true)) : value_type(value_at(n.if_false, if_false))) {}
  [[nodiscard]] constexpr const value_type& value() const noexcept { return value_; }
};

}  // namespace tapeless::detail
