// SPDX-License-Identifier: BSL-1.0
// tl::jvp (transforms/jvp.hpp): the value and the derivative along a direction, against the exact
// Jacobian times the direction; constant evaluation; arguments of run-time extents against the gradient. (Against
// jacobian at random points, and the first derivative of every scalar operation: jacobian_test.cpp,
// nested_grad_test.cpp.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <higher_order_check.hpp>

#include <cmath>
#include <cstddef>
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

TEST_CASE("jvp at arguments of run-time extents: the gradient dotted with the direction, in one forward pass") {
  using dynamic_vector = tl::vector<double, tl::dynamic>;
  // A sum over indices, a whole-array reduction and a number argument beside the vector.
  const auto f = [](const auto& x, const auto& a) {
    return a * tl::log_sum_exp(x) +
           tl::sum_over(
               tl::indices(x.size() - 1),
               [](std::size_t i, const auto& x) { return tl::square(x[i + 1] - tl::square(x[i])); }, x);
  };
  for (const std::size_t n : {2u, 3u, 9u, 33u}) {
    CAPTURE(n);
    dynamic_vector x(n), v(n);
    for (std::size_t k = 0; k < n; ++k) {
      x[k] = std::sin(1.3 * static_cast<double>(k) + 0.2);
      v[k] = std::cos(0.7 * static_cast<double>(k));
    }
    const auto [value, derivative] = tl::jvp(f, std::tuple{x, 2.0}, std::tuple{v, 0.5});
    const auto [grad_value, g] = tl::value_and_grad(f)(x, 2.0);
    double along = 0.5 * std::get<1>(g);
    for (std::size_t k = 0; k < n; ++k) along += std::get<0>(g)[k] * v[k];
    CHECK(std::abs(value - grad_value) < 1e-14 * std::abs(grad_value));
    CHECK(std::abs(derivative - along) < 1e-13 * (1.0 + std::abs(along)));
  }
  // A fixed-shape result, of a fixed vector beside the run-time one: J v, element by element.
  const auto two = [](const auto& x, const auto& w) { return w * tl::norm(x) + tl::max_element(x) * tl::square(w); };
  const dynamic_vector x{3.0, -4.0, 1.0}, v{1.0, 2.0, -1.0};
  const tl::vector<double, 2> w{0.5, -1.0}, dw{1.0, 0.0};
  const auto [value, derivative] = tl::jvp(two, std::tuple{x, w}, std::tuple{v, dw});
  static_assert(std::is_same_v<std::remove_const_t<decltype(derivative)>, tl::vector<double, 2>>);
  const double norm = std::sqrt(26.0), norm_along = (3.0 * 1.0 - 4.0 * 2.0 - 1.0) / norm;
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    CHECK(std::abs(value[i] - (w[i] * norm + 3.0 * w[i] * w[i])) < 1e-14);
    // d/dt of w_i |x| + max(x) w_i^2 along (v, dw): max(x) = x_0, whose derivative along v is v_0 = 1.
    const double expected = dw[i] * norm + w[i] * norm_along + 1.0 * w[i] * w[i] + 3.0 * 2.0 * w[i] * dw[i];
    CHECK(std::abs(derivative[i] - expected) < 1e-14);
  }
  // A bounded vector: in a constant expression.
  constexpr auto bounded = [] {
    return tl::jvp([](const auto& x) { return tl::sum(tl::square(x)); },
                   std::tuple{tl::vector<double, tl::bounded<4>>{1.0, 3.0}},
                   std::tuple{tl::vector<double, tl::bounded<4>>{0.5, 1.0}});
  }();
  static_assert(bounded.first == 10.0 && bounded.second == 7.0);
}

TEST_CASE("f's plain data meets x's numbers: + - * / of a matrix of doubles and dual numbers, in every order") {
  // Under jvp, x holds dual numbers and f's captured matrices doubles; J v against the gradient along v.
  const tl::matrix<double, 3, 1> a{{1.0}, {3.0}, {-2.0}};
  const tl::matrix<double, 1, 3> row{{0.5, 2.0, 1.5}};
  const tl::matrix<double, 3, 3> m{{1.0, 2.0, 0.5}, {3.0, -1.0, 0.25}, {0.1, 0.2, 0.3}};
  const auto f = [&](const auto& x) {
    return tl::sum(a * x + x / a - (a - x) + (x + a) * x[0] + x[1] / a - a * x[2] + (a + x[0]) + (x[1] - a) +
                   x[2] * a) +
           tl::dot(a, tl::max(a, x)) + tl::sum(tl::pow(x, a)) + tl::log_sum_exp(a * x);
  };
  const auto fixed_only = [&](const auto& x) {  // operations of whole arrays of fixed shape
    return tl::sum(m * tl::transpose(x) + row * x - m / (x + 4.0)) + tl::sum(tl::solve(tl::diag(x) + m, a));
  };
  const auto check_along = [](const auto& f, const auto& x, const auto& v) {
    const auto [value, derivative] = tl::jvp(f, std::tuple{x}, std::tuple{v});
    const auto [grad_value, g] = tl::value_and_grad(f)(x);
    double along = 0.0;
    for (std::size_t k = 0; k < x.size(); ++k) along += g[k] * v[k];
    CHECK(std::abs(value - grad_value) < 1e-14 * (1.0 + std::abs(grad_value)));
    CHECK(std::abs(derivative - along) < 1e-13 * (1.0 + std::abs(along)));
  };
  const tl::vector<double, 3> fixed_x{0.5, 1.5, 0.7}, fixed_v{1.0, -0.5, 2.0};
  check_along(f, fixed_x, fixed_v);
  check_along(fixed_only, fixed_x, fixed_v);
  // At run-time extents: run-time data beside x of tl::dynamic.
  const tl::vector<double, tl::dynamic> x{0.5, 1.5, 0.7}, v{1.0, -0.5, 2.0};
  check_along(f, x, v);  // fixed data beside run-time x
  const tl::vector<double, tl::dynamic> b{1.0, 3.0, -2.0};
  const auto [value, derivative] =
      tl::jvp([&](const auto& x) { return tl::sum(b * x - x / b + x[0] * b); }, std::tuple{x}, std::tuple{v});
  CHECK(std::abs(value - (0.5 + 4.5 - 1.4 - (0.5 + 0.5 - 0.35) + 0.5 * 2.0)) < 1e-14);
  CHECK(std::abs(derivative - ((1.0 - 1.0) + (3.0 - 1.0 / 3.0) * -0.5 + (-2.0 + 0.5) * 2.0 + 1.0 * 2.0)) < 1e-14);
  // The plain results take the dual numbers' type.
  using dual = tl::dual<double, double>;
  const tl::matrix<dual, 2, 1> d{{dual{1.0, 1.0}}, {dual{2.0, 0.0}}};
  const tl::matrix<double, 2, 1> c{{3.0}, {4.0}};
  static_assert(std::is_same_v<decltype(c * d), tl::matrix<dual, 2, 1>>);
  static_assert(std::is_same_v<decltype(d[0] - c), tl::matrix<dual, 2, 1>>);
  static_assert(std::is_same_v<decltype(tl::matrix<double, tl::dynamic, 1>(c) / d), tl::matrix<dual, 2, 1>>);
  CHECK((c * d)[0].tangent == 3.0);
  CHECK((d[0] - c)[1].value == -3.0);
}
