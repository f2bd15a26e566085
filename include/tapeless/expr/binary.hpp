// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/binary.hpp: the node of an operation with two operands (+ - * /, pow, atan2, matmul ...).
#pragma once

#include <tapeless/expr/expression.hpp>

#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {
/// op's value at (a, b). Two numbers are first brought to their common type (a float beside a double
/// computes in double); matrix operations take their operands as they are.
template <class Op, class A, class B>
constexpr auto binary_value_at(const Op& op, const A& a, const B& b) {
  if constexpr (Real<A> && Real<B>) {
    using T = std::common_type_t<A, B>;
    return op.value(T(a), T(b));
  } else {
    return op.value(a, b);
  }
}
}  // namespace detail

template <class Op, class A, class B>
struct binary_node : expression<binary_node<Op, A, B>> {
  using value_type = std::remove_cvref_t<decltype(detail::binary_value_at(
      std::declval<const Op&>(), std::declval<const typename A::value_type&>(), std::declval<const typename B::value_type&>()))>;
  static constexpr bool is_active = A::is_active || B::is_active;
  [[no_unique_address]] Op op;
  A lhs;
  B rhs;
  value_type value_;
  constexpr binary_node(Op o, A a, B b)
      : op(std::move(o)), lhs(std::move(a)), rhs(std::move(b)), value_(detail::binary_value_at(op, lhs.value(), rhs.value())) {}
  /// The operands built in place from what the makers return: one copy of each fewer than passing them in.
  template <class MakeA, class MakeB>
  constexpr binary_node(Op o, detail::built_by, MakeA&& make_a, MakeB&& make_b)
      : op(std::move(o)), lhs(make_a()), rhs(make_b()), value_(detail::binary_value_at(op, lhs.value(), rhs.value())) {}
};

}  // namespace tapeless
