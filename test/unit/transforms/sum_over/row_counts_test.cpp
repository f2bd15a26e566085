// SPDX-License-Identifier: BSL-1.0
// tl::sum_over and tl::mean_over at every row count where a batch or a block begins or ends (0, 1,
// lanes ± 1, block ± 1, many blocks), for each kind of body: S10's decay least squares (three numbers,
// over columns of std::vector, std::span and run-time tl::vector), a logistic regression over rows of
// 8 numbers (a vector parameter), a matrix parameter over rows of
// 2 x 3 matrices, a term of the parameters only, and float data in a function of doubles. Each value
// and gradient against the sum written by hand (test/support/row_sum_check.hpp), and against finite
// differences with tl::check_gradient (up to a few blocks under the sanitizers); outside grad, on plain numbers, each
// returns a plain number.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <row_sum_check.hpp>
#include <sanitizers.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

namespace tl = tapeless;
using namespace row_sums;

namespace {

/// The sum and the mean of the same body over the same rows, at the parameters p: the values, on plain
/// numbers and through value_and_grad, and the gradients against the sum by hand, and against finite
/// differences. Over no rows the sum is 0 with gradient 0 and the mean is NaN.
template <class Sum, class Mean, std::size_t K, class... P>
void check_sum_and_mean(const Sum& sum, const Mean& mean, const expected<K>& e, const P&... p) {
  const std::size_t n = e.rows;
  static_assert(std::is_same_v<decltype(sum(p...)), double>, "on plain numbers, a plain number");
  static_assert(std::is_same_v<decltype(mean(p...)), double>, "on plain numbers, a plain number");

  const auto [value, gradient] = tl::value_and_grad(sum)(p...);
  INFO("the sum");
  check_close(e, flatten(value, gradient));
  check_close(e, flatten(sum(p...), gradient));
  if (finite_differences_at(n)) CHECK(tl::check_gradient(sum, p...));
  if (n == 0) {
    CHECK(value == 0.0);
    for (const double g : flatten(value, gradient)) CHECK(g == 0.0);
  }

  INFO("the mean");
  if (n == 0) {
    CHECK(std::isnan(mean(p...)));
    CHECK(std::isnan(tl::value_and_grad(mean)(p...).first));
    return;
  }
  const auto [mean_value, mean_gradient] = tl::value_and_grad(mean)(p...);
  check_close(e, flatten(mean_value, mean_gradient), static_cast<long double>(n));
  check_close(e, flatten(mean(p...), mean_gradient), static_cast<long double>(n));
  if (finite_differences_at(n)) CHECK(tl::check_gradient(mean, p...));
}

/// S10's sum and mean over the columns t and y against the sums by hand e.
template <class T, class Y>
void check_decay(const T& t, const Y& y, const expected<4>& e) {
  check_sum_and_mean(decay_sum(t, y), decay_mean(t, y), e, decay_a, decay_b, decay_c);
}

}  // namespace

TEST_CASE("the row counts cover both sides of a batch and of a block") {
  const auto n = row_counts();
  CHECK(n.front() == 0);
  CHECK(n.back() == (test_support::address_sanitizer ? 2 * block + lanes + 1 : many_blocks));
  CHECK(many_blocks > 8 * block);
  CHECK(block > lanes);
  for (const std::size_t k : {std::size_t{1}, lanes - 1, lanes + 1, block - 1, block, block + 1})
    CHECK(std::count(n.begin(), n.end(), k) == 1);
}

TEST_CASE("S10's exponential decay least squares: three number parameters") {
  for (const std::size_t n : row_counts()) {
    CAPTURE(n);
    const auto d = decay_data(n);
    check_decay(d.t, d.y, decay_expected(d, decay_a, decay_b, decay_c));
  }
}

TEST_CASE("the same over spans of the columns") {
  for (const std::size_t n : row_counts()) {
    CAPTURE(n);
    const auto d = decay_data(n);
    const std::span<const double> t{d.t}, y{d.y};
    check_decay(t, y, decay_expected(d, decay_a, decay_b, decay_c));
  }
}

TEST_CASE("the same over columns of tl::vector<double, tl::dynamic>, and of tl::bounded extents") {
  for (const std::size_t n : row_counts()) {
    CAPTURE(n);
    const auto d = decay_data(n);
    tl::vector<double, tl::dynamic> t(n), y(n);
    std::copy(d.t.begin(), d.t.end(), t.begin());
    std::copy(d.y.begin(), d.y.end(), y.begin());
    check_decay(t, y, decay_expected(d, decay_a, decay_b, decay_c));
    constexpr std::size_t bound = 64;  // inline storage: the counts up to it
    if (n <= bound) {
      tl::vector<double, tl::bounded<bound>> tb(n), yb(n);
      std::copy(d.t.begin(), d.t.end(), tb.begin());
      std::copy(d.y.begin(), d.y.end(), yb.begin());
      check_decay(tb, yb, decay_expected(d, decay_a, decay_b, decay_c));
    }
  }
}

TEST_CASE("float data in a function of doubles") {
  for (const std::size_t n : row_counts()) {
    CAPTURE(n);
    const auto d = decay_data<float>(n);
    check_decay(d.t, d.y, decay_expected(d, decay_a, decay_b, decay_c));
  }
}

TEST_CASE("a float column beside a double column") {
  for (const std::size_t n : row_counts()) {
    CAPTURE(n);
    const auto single = decay_data<float>(n);
    const auto d = decay_data(n);
    // The rows by hand: t as the float column holds it, exactly widened, and y in double.
    const decay_columns<double> widened{std::vector<double>(single.t.begin(), single.t.end()), d.y};
    check_decay(single.t, d.y, decay_expected(widened, decay_a, decay_b, decay_c));
  }
}

TEST_CASE("logistic regression over rows of tl::vector<double, 8>: a vector parameter") {
  for (const std::size_t n : row_counts()) {
    CAPTURE(n);
    const auto d = logistic_data(n);
    const auto sum = [&](const auto& beta) { return tl::sum_over(tl::rows(d.x, d.y), logistic_term, beta); };
    const auto mean = [&](const auto& beta) { return tl::mean_over(tl::rows(d.x, d.y), logistic_term, beta); };
    static_assert(std::is_same_v<decltype(tl::grad(sum)(logistic_beta)), row8>);
    check_sum_and_mean(sum, mean, logistic_expected(d, logistic_beta), logistic_beta);
  }
}

TEST_CASE("rows of 2 x 3 matrices and a matrix parameter") {
  for (const std::size_t n : row_counts()) {
    CAPTURE(n);
    const auto d = matrix_data(n);
    const std::span<const m23> A{d.A};
    const auto sum = [&](const auto& M) { return tl::sum_over(tl::rows(A, d.y), matrix_term, M); };
    const auto mean = [&](const auto& M) { return tl::mean_over(tl::rows(A, d.y), matrix_term, M); };
    static_assert(std::is_same_v<decltype(tl::grad(sum)(matrix_M)), m23>);
    check_sum_and_mean(sum, mean, matrix_expected(d, matrix_M), matrix_M);
  }
}

TEST_CASE("a term of the parameters only, the same on every row") {
  for (const std::size_t n : row_counts()) {
    CAPTURE(n);
    const auto d = decay_data(n);
    const auto sum = [&](const auto& a, const auto& b) { return tl::sum_over(tl::rows(d.t), parameters_term, a, b); };
    const auto mean = [&](const auto& a, const auto& b) { return tl::mean_over(tl::rows(d.t), parameters_term, a, b); };
    check_sum_and_mean(sum, mean, parameters_expected(n, 0.75, -1.25), 0.75, -1.25);
  }
}
