// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/binary.hpp: the node of an operation with two operands (+ - * /, pow, atan2, min ...).
#pragma once

#include <tapeless/expr/expression.hpp>

#include <type_traits>
#include <utility>

namespace tapeless {

template <class Op, class A, class B>
struct binary_node : expression<binary_node<Op, A, B>> {
  using value_type = std::common_type_t<typename A::value_type, typename B::value_type>;
  static constexpr bool is_active = A::is_active || B::is_active;
  [[no_unique_address]] Op op;
  A lhs;
  B rhs;
  value_type value_;
  constexpr binary_node(Op o, A a, B b)
      : op(o), lhs(std::move(a)), rhs(std::move(b)), value_(op.value(value_type(lhs.value()), value_type(rhs.value()))) {}
};

}  // namespace tapeless
