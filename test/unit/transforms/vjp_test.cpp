// SPDX-License-Identifier: BSL-1.0
// tl::vjp (transforms/vjp.hpp): the value and the pullback u -> u^T J, against the exact Jacobian;
// the pullback's result types; constant evaluation. (Against jacobian at random points:
// jacobian_test.cpp.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <higher_order_check.hpp>

#include <cmath>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

TEST_CASE("the contract: vjp of M v + sin(v0) is its value and u -> J^T u") {
  const auto& x = ho::contract_x;
  const auto [y, pullback] = tl::vjp(ho::contract_f, x);
  CHECK(ho::max_rel_error(y, tl::matmul(ho::contract_m, x) + std::sin(x[0])) < ho::exact_tol);
  const tl::vector<double, 3> u{1.0, -2.0, 0.5};
  const tl::vector<double, 4> w = pullback(u);
  CHECK(ho::max_rel_error(w, tl::matmul(tl::transpose(ho::contract_jacobian(x)), u)) < ho::exact_tol);
}

TEST_CASE("vjp: the pullback returns the arguments' types") {
  using M23 = tl::matrix<double, 2, 3>;
  const auto vec = [](const auto& x) { return tl::exp(x) * 2.0; };
  const auto mixed = [](const auto& A, auto b, const auto& c) { return tl::sum(A) * b * tl::sum(c); };
  static_assert(std::is_same_v<decltype(tl::vjp(vec, tl::vector<double, 3>{}).second(tl::vector<double, 3>{})),
                               tl::vector<double, 3>>);
  static_assert(std::is_same_v<decltype(tl::vjp(mixed, M23{}, 1.0, tl::vector<double, 2>{}).second(1.0)),
                               std::tuple<M23, double, tl::vector<double, 2>>>);
}

TEST_CASE("vjp in a constant expression") {
  constexpr auto F = [](const auto& x) { return x * x; };
  constexpr tl::vector<double, 2> x{1.0, 3.0};
  constexpr auto pb = tl::vjp(F, x).second(tl::vector<double, 2>{1.0, 0.0});
  static_assert(pb[0] == 2.0 && pb[1] == 0.0);
}
