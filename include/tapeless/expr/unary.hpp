// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/unary.hpp: the node of an operation with one operand (exp, sin, unary minus, sum, det ...).
// Tests: test/unit/concepts/operation_test.cpp test/unit/ops/exponential_test.cpp
#pragma once

#include <tapeless/expr/expression.hpp>
#include <tapeless/expr/inline.hpp>
#include <tapeless/operation/protocol.hpp>

#include <type_traits>
#include <utility>

namespace tapeless {

/// `Op` holds the maths (value and derivative, see ops/); the node holds the operand. Its value, a
/// number or a matrix, is whatever Op computes from its operand's value.
template <class Op, class A>
struct unary_node : expression<unary_node<Op, A>> {
  using value_type = std::remove_cvref_t<decltype(detail::op_value(std::declval<const Op&>(),
                                                                   std::declval<const typename A::value_type&>()))>;
  static constexpr bool is_active = A::is_active;
  [[no_unique_address]] Op op;
  A arg;
  TAPELESS_BUILD_INLINE constexpr unary_node(Op o, A a) : op(std::move(o)), arg(std::move(a)) {}
  /// The operand built in place from what make_arg returns: no copy of it.
  template <class MakeArg>
  TAPELESS_BUILD_INLINE constexpr unary_node(Op o, detail::built_by, MakeArg&& make_arg)
      : op(std::move(o)), arg(make_arg()) {}

  /// Computed on demand, from the operand's value; a sweep computes it once (expr/evaluated.hpp).
  [[nodiscard]] constexpr value_type value() const { return detail::op_value(op, arg.value()); }
};

}  // namespace tapeless
