// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/unary.hpp: the node of an operation with one operand (exp, sin, unary minus, sum, det ...).
#pragma once

#include <tapeless/expr/expression.hpp>

#include <type_traits>
#include <utility>

namespace tapeless {

/// `Op` holds the maths (value and derivative, see ops/); the node holds the operand and the value,
/// a number or a matrix, whatever Op computes from its operand's value.
template <class Op, class A>
struct unary_node : expression<unary_node<Op, A>> {
  using value_type = std::remove_cvref_t<decltype(std::declval<const Op&>().value(std::declval<const typename A::value_type&>()))>;
  static constexpr bool is_active = A::is_active;
  [[no_unique_address]] Op op;
  A arg;
  value_type value_;
  constexpr unary_node(Op o, A a) : op(std::move(o)), arg(std::move(a)), value_(op.value(arg.value())) {}
  /// The operand built in place from what make_arg returns: one copy of it fewer than passing it in.
  template <class MakeArg>
  constexpr unary_node(Op o, detail::built_by, MakeArg&& make_arg)
      : op(std::move(o)), arg(make_arg()), value_(op.value(arg.value())) {}
};

}  // namespace tapeless
