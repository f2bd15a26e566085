// SPDX-License-Identifier: BSL-1.0
// tl::vjp (transforms/vjp.hpp): the value and the pullback u -> u^T J, against the exact Jacobian;
// the pullback's result types; constant evaluation; arguments of run-time extents. (Against jacobian at random points:
// jacobian_test.cpp.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <higher_order_check.hpp>

#include <cmath>
#include <cstddef>
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

TEST_CASE("vjp at arguments of run-time extents: a number or a fixed matrix of them, from a copy of the point") {
  using dynamic_vector = tl::vector<double, tl::dynamic>;
  dynamic_vector x{0.5, -2.0, 1.5, 0.25, -1.0};
  const auto f = [](const auto& x, const auto& a) { return a * tl::log_sum_exp(x) + tl::sum(tl::square(x)); };
  const auto [value, pullback] = tl::vjp(f, x, 0.75);
  const auto [grad_value, g] = tl::value_and_grad(f)(x, 0.75);
  CHECK(value == grad_value);
  const auto [ux, ua] = pullback(-2.0);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(ux)>, dynamic_vector>);
  REQUIRE(ux.size() == 5);
  for (std::size_t k = 0; k < 5; ++k) CHECK(ux[k] == -2.0 * std::get<0>(g)[k]);
  CHECK(ua == -2.0 * std::get<1>(g));
  // The pullback differentiates at the point vjp saw, whatever becomes of the caller's vector.
  x[0] = 100.0;
  CHECK(std::get<0>(pullback(-2.0)) == ux);

  // A fixed-shape result of a run-time argument: u^T J is the sum of u_i times the gradient of output i.
  const auto two = [](const auto& v) {
    constexpr tl::vector<double, 2> first{1.0, 0.0}, second{0.0, 1.0};
    return tl::log_sum_exp(v) * first + tl::norm(v) * v[1] * second;
  };
  const dynamic_vector y{0.5, -2.0, 1.5};
  const auto [y_value, y_pullback] = tl::vjp(two, y);
  const tl::vector<double, 2> u{3.0, -0.5};
  const dynamic_vector back = y_pullback(u);
  const dynamic_vector g0 = tl::grad([](const auto& v) { return tl::log_sum_exp(v); })(y);
  const dynamic_vector g1 = tl::grad([](const auto& v) { return tl::norm(v) * v[1]; })(y);
  for (std::size_t k = 0; k < 3; ++k) CHECK(std::abs(back[k] - (u[0] * g0[k] + u[1] * g1[k])) < 1e-14);
  CHECK(y_value[0] == tl::log_sum_exp(y));
  CHECK(y_value[1] == tl::norm(y) * y[1]);

  // A bounded vector: in a constant expression.
  constexpr auto pb = [] {
    return tl::vjp([](const auto& v) { return tl::sum(tl::square(v)); }, tl::vector<double, tl::bounded<4>>{1.0, 3.0})
        .second(0.5);
  }();
  static_assert(pb[0] == 1.0 && pb[1] == 3.0);
}
