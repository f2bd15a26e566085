// SPDX-License-Identifier: BSL-1.0
// tl::jvp (transforms/jvp.hpp): the value and the derivative along a direction, against the exact
// Jacobian times the direction; constant evaluation. (Against jacobian at random points, and the first
// derivative of every scalar operation: jacobian_test.cpp, nested_grad_test.cpp.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <higher_order_check.hpp>

#include <cmath>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

TEST_CASE("the contract: jvp of M v + sin(v0) is its value and J v") {
  const auto& x = ho::contract_x;
  const tl::vector<double, 4> v{0.5, -1.0, 2.0, 0.25};
  const auto [y, ydot] = tl::jvp(ho::contract_f, std::tuple{x}, std::tuple{v});
  static_assert(std::is_same_v<std::remove_const_t<decltype(y)>, tl::vector<double, 3>>);
  CHECK(ho::max_rel_error(y, tl::matmul(ho::contract_m, x) + std::sin(x[0])) < ho::exact_tol);
  CHECK(ho::max_rel_error(ydot, tl::matmul(ho::contract_jacobian(x), v)) < ho::exact_tol);
}

TEST_CASE("jvp in a constant expression") {
  constexpr auto F = [](const auto& x) { return x * x; };
  constexpr tl::vector<double, 2> x{1.0, 3.0};
  constexpr auto jv = tl::jvp(F, std::tuple{x}, std::tuple{tl::vector<double, 2>{1.0, 1.0}});
  static_assert(jv.first[1] == 9.0 && jv.second[0] == 2.0 && jv.second[1] == 6.0);
}
