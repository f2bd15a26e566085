// SPDX-License-Identifier: BSL-1.0
// The result of tl::sum_over and tl::mean_over is a scalar expression like any other: added to a
// regulariser, divided by a number, named by tl::let, two of them in one function; over no rows it is
// 0 with gradient 0 (the mean NaN) for every kind of parameter; outside grad it is a plain number, so
// tl::check_gradient works on the whole function (under the sanitizers at the counts
// row_sums::finite_differences_at names). Each against the sums by hand
// (test/support/row_sum_check.hpp). A body's captures: captures_test.cpp.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <row_sum_check.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <vector>

namespace tl = tapeless;
using namespace row_sums;

namespace {

/// The decay sum's gradient by hand as three doubles, and its value.
struct decay_by_hand {
  double value, da, db, dc;
  explicit decay_by_hand(const expected<4>& e)
      : value(double(e.sum[0])), da(double(e.sum[1])), db(double(e.sum[2])), dc(double(e.sum[3])) {}
};

/// A rounding bound for quantities derived from a sum of n rows: relative to the sum of magnitudes.
double allowed(const expected<4>& e, std::size_t k, double factor = 1) {
  return 4 * sum_tolerance * double(e.magnitude[k]) * factor;
}

}  // namespace

TEST_CASE("over no rows: the sum is 0 with gradient 0 for numbers, vectors and matrices; the mean NaN") {
  const std::vector<double> t, y;
  const std::vector<row8> x;
  const std::vector<m23> A;
  const auto decay_total = decay_sum(t, y);
  CHECK(decay_total(decay_a, decay_b, decay_c) == 0.0);
  CHECK(tl::grad(decay_total)(decay_a, decay_b, decay_c) == std::tuple{0.0, 0.0, 0.0});
  CHECK(tl::value_and_grad(decay_total)(decay_a, decay_b, decay_c).first == 0.0);
  const auto logistic_sum = [&](const auto& beta) { return tl::sum_over(tl::rows(x, y), logistic_term, beta); };
  CHECK(logistic_sum(logistic_beta) == 0.0);
  CHECK(tl::grad(logistic_sum)(logistic_beta) == row8{});
  const auto matrix_sum = [&](const auto& M) { return tl::sum_over(tl::rows(A, y), matrix_term, M); };
  CHECK(matrix_sum(matrix_M) == 0.0);
  CHECK(tl::grad(matrix_sum)(matrix_M) == m23{});
  // An empty sum beside other terms adds nothing to them.
  const auto with_regulariser = [&](const auto& beta) { return logistic_sum(beta) + tl::squared_norm(beta); };
  CHECK(tl::grad(with_regulariser)(logistic_beta) == 2.0 * logistic_beta);

  CHECK(std::isnan(tl::mean_over(tl::rows(t, y), decay_term, decay_a, decay_b, decay_c)));
  CHECK(std::isnan(tl::mean_over(tl::rows(x, y), logistic_term, logistic_beta)));
  CHECK(std::isnan(tl::mean_over(tl::rows(A, y), matrix_term, matrix_M)));
  const auto decay_average = decay_mean(t, y);
  CHECK(std::isnan(tl::value_and_grad(decay_average)(decay_a, decay_b, decay_c).first));
}

TEST_CASE("outside grad, on plain numbers and matrices, sum_over and mean_over return plain values") {
  const auto d = decay_data(lanes + 1);
  const auto l = logistic_data(lanes + 1);
  const auto m = matrix_data(lanes + 1);
  static_assert(
      std::is_same_v<decltype(tl::sum_over(tl::rows(d.t, d.y), decay_term, decay_a, decay_b, decay_c)), double>);
  static_assert(
      std::is_same_v<decltype(tl::mean_over(tl::rows(d.t, d.y), decay_term, decay_a, decay_b, decay_c)), double>);
  static_assert(std::is_same_v<decltype(tl::sum_over(tl::rows(l.x, l.y), logistic_term, logistic_beta)), double>);
  static_assert(std::is_same_v<decltype(tl::mean_over(tl::rows(m.A, m.y), matrix_term, matrix_M)), double>);
  const auto e = decay_expected(d, decay_a, decay_b, decay_c);
  CHECK(std::abs(tl::sum_over(tl::rows(d.t, d.y), decay_term, decay_a, decay_b, decay_c) - double(e.sum[0])) <=
        allowed(e, 0));
  const auto el = logistic_expected(l, logistic_beta);
  CHECK(std::abs(tl::sum_over(tl::rows(l.x, l.y), logistic_term, logistic_beta) - double(el.sum[0])) <=
        sum_tolerance * double(el.magnitude[0]));
  const auto em = matrix_expected(m, matrix_M);
  CHECK(std::abs(tl::mean_over(tl::rows(m.A, m.y), matrix_term, matrix_M) - double(em.sum[0]) / double(lanes + 1)) <=
        sum_tolerance * double(em.magnitude[0]));
}

TEST_CASE("the sum plus a regulariser, divided by a number, named by let, and two sums in one function") {
  for (const std::size_t n : some_row_counts()) {
    CAPTURE(n);
    const auto d = decay_data(n);
    const auto e = decay_expected(d, decay_a, decay_b, decay_c);
    const decay_by_hand s{e};
    const auto S = decay_sum(d.t, d.y);

    SUBCASE("plus a regulariser") {
      const auto f = [&](const auto& a, const auto& b, const auto& c) {
        return S(a, b, c) + 0.5 * (a * a + b * b + c * c);
      };
      const auto [ga, gb, gc] = tl::grad(f)(decay_a, decay_b, decay_c);
      CHECK(std::abs(ga - (s.da + decay_a)) <= allowed(e, 1));
      CHECK(std::abs(gb - (s.db + decay_b)) <= allowed(e, 2));
      CHECK(std::abs(gc - (s.dc + decay_c)) <= allowed(e, 3));
      CHECK(std::abs(f(decay_a, decay_b, decay_c) -
                     (s.value + 0.5 * (decay_a * decay_a + decay_b * decay_b + decay_c * decay_c))) <= allowed(e, 0));
      if (finite_differences_at(n)) CHECK(tl::check_gradient(f, decay_a, decay_b, decay_c));
    }
    SUBCASE("divided by a number") {
      const double scale = 2.0 * double(n);
      const auto f = [&](const auto& a, const auto& b, const auto& c) { return S(a, b, c) / scale; };
      const auto [ga, gb, gc] = tl::grad(f)(decay_a, decay_b, decay_c);
      CHECK(std::abs(ga - s.da / scale) <= allowed(e, 1) / scale);
      CHECK(std::abs(gb - s.db / scale) <= allowed(e, 2) / scale);
      CHECK(std::abs(gc - s.dc / scale) <= allowed(e, 3) / scale);
      if (finite_differences_at(n)) CHECK(tl::check_gradient(f, decay_a, decay_b, decay_c));
    }
    SUBCASE("named by tl::let and used twice") {
      const auto f = [&](const auto& a, const auto& b, const auto& c) {
        return tl::let(S(a, b, c), [](const auto& sum) { return sum * sum + tl::log(sum); });
      };
      // d(s^2 + log s) = (2 s + 1 / s) ds
      const double outer = 2 * s.value + 1 / s.value;
      const auto [ga, gb, gc] = tl::grad(f)(decay_a, decay_b, decay_c);
      CHECK(std::abs(ga - outer * s.da) <= allowed(e, 1, outer) + allowed(e, 0, 2 * std::abs(s.da)));
      CHECK(std::abs(gb - outer * s.db) <= allowed(e, 2, outer) + allowed(e, 0, 2 * std::abs(s.db)));
      CHECK(std::abs(gc - outer * s.dc) <= allowed(e, 3, outer) + allowed(e, 0, 2 * std::abs(s.dc)));
      if (finite_differences_at(n)) CHECK(tl::check_gradient(f, decay_a, decay_b, decay_c));
    }
    SUBCASE("two sums in one function: a product of the same sum, and a sum over other rows") {
      const auto other = logistic_data(n + 3);
      const auto f = [&](const auto& a, const auto& b, const auto& c) {
        return S(a, b, c) * S(a, b, c) + tl::sum_over(tl::rows(d.t), parameters_term, a, c);
      };
      const auto p = parameters_expected(n, decay_a, decay_c);
      const auto [ga, gb, gc] = tl::grad(f)(decay_a, decay_b, decay_c);
      const double bound = 2 * allowed(e, 0, 2 * std::abs(s.da) + 2 * std::abs(s.db) + 2 * std::abs(s.dc));
      CHECK(std::abs(ga - (2 * s.value * s.da + double(p.sum[1]))) <= allowed(e, 1, 2 * s.value) + bound);
      CHECK(std::abs(gb - 2 * s.value * s.db) <= allowed(e, 2, 2 * s.value) + bound);
      CHECK(std::abs(gc - (2 * s.value * s.dc + double(p.sum[2]))) <= allowed(e, 3, 2 * s.value) + bound);
      if (finite_differences_at(n)) CHECK(tl::check_gradient(f, decay_a, decay_b, decay_c));
      // And a mean over rows of vectors beside a regulariser, as a mini-batch loss is written.
      const auto loss = [&](const auto& beta) {
        return tl::mean_over(tl::rows(other.x, other.y), logistic_term, beta) + 0.01 * tl::squared_norm(beta);
      };
      const auto l = logistic_expected(other, logistic_beta);
      auto by_hand = l;
      for (std::size_t k = 0; k < 8; ++k) by_hand.sum[1 + k] += 0.02 * logistic_beta[k] * double(n + 3);
      by_hand.sum[0] += 0.01 * double(tl::squared_norm(logistic_beta)) * double(n + 3);
      check_close(by_hand, value_and_gradient(loss, logistic_beta), static_cast<long double>(n + 3));
      if (finite_differences_at(n)) CHECK(tl::check_gradient(loss, logistic_beta));
    }
  }
}

TEST_CASE("a view named outside the function, and the rows of one view used by two sums") {
  const auto d = decay_data(block + lanes + 1);
  const auto r = tl::rows(d.t, d.y);
  CHECK(r.size() == d.t.size());
  const auto f = [&](const auto& a, const auto& b, const auto& c) {
    return tl::sum_over(r, decay_term, a, b, c) - tl::mean_over(r, decay_term, a, b, c);
  };
  const auto e = decay_expected(d, decay_a, decay_b, decay_c);
  auto by_hand = e;
  const long double keep = 1 - 1.0L / static_cast<long double>(d.t.size());
  for (auto& s : by_hand.sum) s *= keep;
  check_close(by_hand, value_and_gradient(f, decay_a, decay_b, decay_c));
  CHECK(tl::check_gradient(f, decay_a, decay_b, decay_c));
}
