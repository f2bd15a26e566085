// SPDX-License-Identifier: BSL-1.0
// A sum over rows reads its columns inside their n rows and no further, whatever n is against the SIMD
// width and the block: each column is a heap buffer of exactly n elements (no spare capacity), so in the
// sanitizer build (test/run.sh's clang++ part) AddressSanitizer reports a batch's tail that reads past
// the last row. Every n from 1 to four batches, then around each block boundary; columns of double, of
// float, of tl::vector rows and of tl::matrix rows; sequential and over threads. Each sum is checked
// against the sum by hand, so that reading less than n rows fails too.
#include <doctest/doctest.h>
#include <tapeless/parallel.hpp>

#include <row_sum_check.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <execution>
#include <memory>
#include <span>
#include <vector>

namespace tl = tapeless;
using namespace row_sums;

namespace {

/// A column of exactly n elements on the heap, copied from `from`, with nothing after it.
template <class T>
struct exact_column {
  std::unique_ptr<T[]> data;
  std::span<const T> span;
  explicit exact_column(const std::vector<T>& from)
      : data(std::make_unique_for_overwrite<T[]>(from.size())), span(data.get(), from.size()) {
    std::copy(from.begin(), from.end(), data.get());
  }
};

std::vector<std::size_t> counts() {
  std::vector<std::size_t> n;
  for (std::size_t k = 1; k <= 4 * float_lanes + 1; ++k) n.push_back(k);
  for (const std::size_t k : {block - 1, block, block + 1, 2 * block + lanes - 1, 2 * block + float_lanes + 1})
    n.push_back(k);
  return n;
}

}  // namespace

TEST_CASE("columns of double and of float, exactly n rows long") {
  for (const std::size_t n : counts()) {
    CAPTURE(n);
    const auto d = decay_data(n);
    const auto single = decay_data<float>(n);
    const exact_column<double> t{d.t}, y{d.y};
    const exact_column<float> tf{single.t}, yf{single.y};
    const auto sum = decay_sum(t.span, y.span);
    const auto sum_float = decay_sum(tf.span, yf.span);
    const auto mean_par = decay_mean(std::execution::par, t.span, y.span);
    const auto e = decay_expected(d, decay_a, decay_b, decay_c);
    const auto [value, gradient] = tl::value_and_grad(sum)(decay_a, decay_b, decay_c);
    check_close(e, flatten(value, gradient));
    check_close(e, flatten(sum(decay_a, decay_b, decay_c), gradient));
    check_close(decay_expected(single, decay_a, decay_b, decay_c),
                value_and_gradient(sum_float, decay_a, decay_b, decay_c));
    check_close(e, value_and_gradient(mean_par, decay_a, decay_b, decay_c), static_cast<long double>(n));
    // Second order runs the loop in dual numbers: its batches too.
    const auto of_a = [&](const auto& a) { return tl::sum_over(tl::rows(tf.span, y.span), decay_term, a, 0.5, 0.1); };
    CHECK(std::isfinite(tl::grad(tl::grad(of_a))(1.5)));
  }
}

TEST_CASE("columns of tl::vector and tl::matrix rows, exactly n rows long") {
  for (const std::size_t n : counts()) {
    CAPTURE(n);
    const auto l = logistic_data(n);
    const auto m = matrix_data(n);
    const exact_column<row8> x{l.x};
    const exact_column<double> y{l.y}, ym{m.y};
    const exact_column<m23> A{m.A};
    const auto logistic = [&](const auto& beta) { return tl::sum_over(tl::rows(x.span, y.span), logistic_term, beta); };
    const auto matrix = [&](const auto& M) { return tl::sum_over(tl::rows(A.span, ym.span), matrix_term, M); };
    const auto matrix_par = [&](const auto& M) {
      return tl::sum_over(std::execution::par, tl::rows(A.span, ym.span), matrix_term, M);
    };
    check_close(logistic_expected(l, logistic_beta), value_and_gradient(logistic, logistic_beta));
    const auto em = matrix_expected(m, matrix_M);
    check_close(em, value_and_gradient(matrix, matrix_M));
    check_close(em, value_and_gradient(matrix_par, matrix_M));
  }
}
