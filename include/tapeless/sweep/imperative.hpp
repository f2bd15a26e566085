// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/imperative.hpp: expression.backward(), the reverse sweep into tl::var leaves.
// Tests: test/unit/var_test.cpp
#pragma once

#include <tapeless/expr/expression.hpp>
#include <tapeless/sweep/adjoints.hpp>
#include <tapeless/sweep/backward.hpp>

namespace tapeless::detail {

/// expression<>::backward(), reached from expr/expression.hpp through its tag layer_above.
template <class E>
constexpr void backward_from_root(const E& root, layer_above) {
  static_assert(E::is_active, "backward(): this expression depends on no tl::var, so it has no gradient to compute");
  var_adjoints store;
  const evaluated<E, false> values(root);  // only what the sweep reads
  backward_sweep(root, values, typename E::value_type(1), store);
}

}  // namespace tapeless::detail
