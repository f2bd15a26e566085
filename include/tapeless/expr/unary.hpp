// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/unary.hpp: the node of an operation with one operand (exp, sin, unary minus, pow by a number ...).
#pragma once

#include <tapeless/expr/expression.hpp>

#include <utility>

namespace tapeless {

/// `Op` holds the maths (value and derivative, see ops/); the node holds the operand and the value.
template <class Op, class A>
struct unary_node : expression<unary_node<Op, A>> {
  using value_type = typename A::value_type;
  static constexpr bool is_active = A::is_active;
  [[no_unique_address]] Op op;
  A arg;
  value_type value_;
  constexpr unary_node(Op o, A a) : op(o), arg(std::move(a)), value_(op.value(arg.value())) {}
};

}  // namespace tapeless
