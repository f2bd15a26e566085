// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/select.hpp: the node of if_else: both branches are built, only the taken one is swept,
// but for dual numbers that find a sparsity pattern (math/dependencies.hpp), whose pattern must hold
// whichever branch another point takes: they carry and sweep both.
// Tests: test/unit/ops/piecewise_test.cpp
#pragma once

#include <tapeless/expr/expression.hpp>
#include <tapeless/expr/inline.hpp>
#include <tapeless/math/dependencies.hpp>
#include <tapeless/matrix/matrix.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {
/// Whether values of type V are dual numbers that find a pattern, or matrices of them.
template <class V>
inline constexpr bool finds_pattern = is_dependency_dual<scalar_of_t<V>>;

/// The value of the branch taken, with the sets of both branches where V finds a pattern.
template <class V>
constexpr V branch_value(bool cond, const V& if_true, const V& if_false) {
  if constexpr (!finds_pattern<V>) {
    return cond ? if_true : if_false;
  } else if constexpr (Matrix<V>) {
    V z(uninitialized);
    for (std::size_t i = 0; i < V::size(); ++i) z[i] = both_sides(cond, if_true[i], if_false[i]);
    return z;
  } else {
    return both_sides(cond, if_true, if_false);
  }
}
}  // namespace detail

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
    if constexpr (detail::finds_pattern<value_type>)
      return detail::branch_value(cond, value_type(if_true.value()), value_type(if_false.value()));
    else
      return cond ? value_type(if_true.value()) : value_type(if_false.value());
  }
};

}  // namespace tapeless
