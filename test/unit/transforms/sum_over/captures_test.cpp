// SPDX-License-Identifier: BSL-1.0
// A body of tl::sum_over that captures plain data: a number, a vector and a matrix, by value and by
// reference, used with the row's values and with the parameters, at row counts on both sides of a
// batch and of a block; each against the sum by hand (test/support/row_sum_check.hpp) and finite
// differences (under the sanitizers at the counts row_sums::finite_differences_at names). (A body
// that captures f's own expressions does not compile: compile_fail/sum_over_captured_expression.cpp.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <row_sum_check.hpp>

#include <cmath>
#include <cstddef>
#include <vector>

namespace tl = tapeless;
using namespace row_sums;

TEST_CASE("a body that captures plain data, by value and by reference") {
  for (const std::size_t n : some_row_counts()) {
    CAPTURE(n);
    SUBCASE("a number by value") {
      const auto d = decay_data(n);
      const double weight = 0.375;
      const auto f = [&](const auto& a, const auto& b, const auto& c) {
        return tl::sum_over(
            tl::rows(d.t, d.y),
            [weight](const auto& t, const auto& y, const auto& p, const auto& q, const auto& r) {
              return weight * decay_term(t, y, p, q, r);
            },
            a, b, c);
      };
      auto by_hand = decay_expected(d, decay_a, decay_b, decay_c);
      for (auto& s : by_hand.sum) s *= 0.375L;
      for (auto& s : by_hand.magnitude) s *= 0.375L;
      const auto [value, gradient] = tl::value_and_grad(f)(decay_a, decay_b, decay_c);
      check_close(by_hand, flatten(value, gradient));
      if (finite_differences_at(n)) CHECK(tl::check_gradient(f, decay_a, decay_b, decay_c));
    }
    SUBCASE("a vector by value, scaled by the row's number") {
      const auto d = decay_data(n);
      const tl::vector<double, 2> scales{0.5, 2.0};  // sum(t * scales) = 2.5 t
      const auto f = [&](const auto& a) {
        return tl::sum_over(
            tl::rows(d.t, d.y),
            [scales](const auto& t, const auto& y, const auto& p) { return tl::square(p * tl::sum(t * scales) - y); },
            a);
      };
      expected<2> by_hand;
      by_hand.rows = n;
      for (std::size_t i = 0; i < n; ++i) {
        const long double r = decay_a * 2.5L * d.t[i] - d.y[i];
        by_hand.add(0, r * r);
        by_hand.add(1, 2 * r * 2.5L * d.t[i]);
      }
      const auto [value, gradient] = tl::value_and_grad(f)(decay_a);
      check_close(by_hand, flatten(value, gradient));
      if (finite_differences_at(n)) CHECK(tl::check_gradient(f, decay_a));
    }
    SUBCASE("a vector and a matrix by reference") {
      const auto l = logistic_data(n);
      const row8 mask{1.0, 0.5, 2.0, -1.0, 0.25, 1.0, 1.5, -0.5};
      const auto f = [&](const auto& beta) {
        return tl::sum_over(
            tl::rows(l.x, l.y),
            [&mask](const auto& x, const auto& y, const auto& w) { return logistic_term(x, y, w * mask); }, beta);
      };
      // The gradient in beta is mask times the gradient in beta * mask.
      const row8 masked = logistic_beta * mask;
      auto by_hand = logistic_expected(l, masked);
      for (std::size_t k = 0; k < 8; ++k) {
        by_hand.sum[1 + k] *= mask[k];
        by_hand.magnitude[1 + k] *= std::abs(mask[k]);
      }
      check_close(by_hand, value_and_gradient(f, logistic_beta));
      if (finite_differences_at(n)) CHECK(tl::check_gradient(f, logistic_beta));

      const auto m = matrix_data(n);
      const m23 offset{{0.1, 0.2, 0.3}, {-0.3, -0.2, -0.1}};
      const auto g = [&](const auto& M) {
        return tl::sum_over(
            tl::rows(m.A, m.y),
            [&offset](const auto& A, const auto& y, const auto& P) { return matrix_term(A, y, P + offset); }, M);
      };
      const auto matrix_by_hand = matrix_expected(m, matrix_M + offset);
      check_close(matrix_by_hand, value_and_gradient(g, matrix_M));
      if (finite_differences_at(n)) CHECK(tl::check_gradient(g, matrix_M));
    }
  }
}
