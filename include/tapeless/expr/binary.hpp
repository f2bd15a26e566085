// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/binary.hpp: the node of an operation with two operands (+ - * /, pow, atan2, matmul ...).
// Tests: test/unit/ops/arithmetic_test.cpp test/unit/concepts/operation_test.cpp
#pragma once

#include <tapeless/expr/expression.hpp>
#include <tapeless/expr/inline.hpp>
#include <tapeless/operation/protocol.hpp>

#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {
/// What op's forward pass gives at (a, b): its value, or with_cache{value, cache} (see operation/protocol.hpp).
/// Two numbers are first brought to their common type (a float beside a double computes in double);
/// matrix operations take their operands as they are.
template <class Op, class A, class B>
constexpr auto binary_forward_at(const Op& op, const A& a, const B& b) {
  if constexpr (Real<A> && Real<B>) {
    using T = std::common_type_t<A, B>;
    return op_forward(op, T(a), T(b));
  } else {
    return op_forward(op, a, b);
  }
}
}  // namespace detail

template <class Op, class A, class B>
struct binary_node : expression<binary_node<Op, A, B>> {
  using value_type = std::remove_cvref_t<decltype(detail::value_part(
      detail::binary_forward_at(std::declval<const Op&>(), std::declval<const typename A::value_type&>(),
                                std::declval<const typename B::value_type&>())))>;
  static constexpr bool is_active = A::is_active || B::is_active;
  [[no_unique_address]] Op op;
  A lhs;
  B rhs;
  TAPELESS_BUILD_INLINE constexpr binary_node(Op o, A a, B b)
      : op(std::move(o)), lhs(std::move(a)), rhs(std::move(b)) {}
  /// The operands built in place from what the makers return: no copy of them.
  template <class MakeA, class MakeB>
  TAPELESS_BUILD_INLINE constexpr binary_node(Op o, detail::built_by, MakeA&& make_a, MakeB&& make_b)
      : op(std::move(o)), lhs(make_a()), rhs(make_b()) {}

  /// Computed on demand, from the operands' values; a sweep computes it once (expr/evaluated.hpp).
  [[nodiscard]] constexpr value_type value() const {
    return detail::value_part(detail::binary_forward_at(op, lhs.value(), rhs.value()));
  }
};

}  // namespace tapeless
