// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/select.hpp: the node of if_else: both branches are built, only the taken one is swept.
// Tests: test/unit/ops/piecewise_test.cpp
#pragma once

#include <tapeless/expr/expression.hpp>
#include <tapeless/expr/inline.hpp>

#include <type_traits>
#include <utility>

namespace tapeless {

template <class A, class B>
struct select_node : expression<select_node<A, B>> {
  using value_type = std::common_type_t<typename A::value_type, typename B::value_type>;
  static constexpr bool is_active = A::is_active || B::is_active;
  bool cond;
  A if_true;
  B if_false;
  TAPELESS_BUILD_INLINE constexpr select_node(bool c, A a, B b)
      : cond(c), if_true(std::move(a)), if_false(std::move(b)) {}

  /// The taken branch's value, computed on demand.
  [[nodiscard]] constexpr value_type value() const {
    return cond ? value_type(if_true.value()) : value_type(if_false.value());
  }
};

}  // namespace tapeless
