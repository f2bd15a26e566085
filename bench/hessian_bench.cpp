// SPDX-License-Identifier: BSL-1.0
// bench/hessian_bench.cpp: Hessians, the suite's second derivatives: Rosenbrock (S3) and log-sum-exp
// (S4) with n = 16, on the inputs of S3 and S4, hand-written and with tl::hessian side by side.
//
// The hand-written Hessians are the closed forms, written as dense n x n matrices as tl::hessian
// returns them: Rosenbrock's is tridiagonal, log-sum-exp's is diag(p) - p p^T with p the softmax.
// tl::hessian runs one reverse sweep in dual numbers per input (forward over reverse, n sweeps).
#include "harness.hpp"
#include "suite.hpp"

#include <tapeless/tapeless.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace tl = tapeless;

namespace {

constexpr std::size_t n = 16;
using vec = tl::vector<double, n>;
using mat = tl::matrix<double, n, n>;

struct h_in {
  vec x;
};

/// The inputs of S3 (x = 2u - 1) or S4 (x = 4u - 2): a fresh stream per case, as the suite says.
template <int Half>
h_in inputs() {
  tapeless_bench::input_stream u;
  h_in in;
  for (auto& v : in.x) v = u.uniform(-double(Half), double(Half));
  return in;
}

TAPELESS_BENCH_KERNEL mat rosenbrock_handwritten(const h_in& in) {
  const auto& x = in.x;
  // f = sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2: each term touches (i, i), (i, i+1), (i+1, i+1).
  mat h;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    h(i, i) += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
    h(i, i + 1) = h(i + 1, i) = -400.0 * x[i];
    h(i + 1, i + 1) += 200.0;
  }
  return h;
}

TAPELESS_BENCH_KERNEL mat rosenbrock_tapeless(const h_in& in) {
  return tl::hessian([](const auto& x) {
    auto head = tl::slice<0, n - 1>(x);
    auto tail = tl::slice<1, n - 1>(x);
    return tl::sum(100.0 * tl::square(tail - tl::square(head)) + tl::square(1.0 - head));
  })(in.x);
}

TAPELESS_BENCH_KERNEL mat log_sum_exp_handwritten(const h_in& in) {
  const auto& x = in.x;
  const double m = *std::max_element(x.begin(), x.end());
  vec p;
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += p[i] = std::exp(x[i] - m);
  for (auto& e : p) e /= s;
  mat h(tl::detail::uninitialized);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) h(i, j) = (i == j ? p[i] : 0.0) - p[i] * p[j];
  return h;
}

TAPELESS_BENCH_KERNEL mat log_sum_exp_tapeless(const h_in& in) {
  return tl::hessian([](const auto& x) { return tl::log_sum_exp(x); })(in.x);
}

}  // namespace

int main(int argc, char** argv) {
  using tapeless_bench::entry;
  // Each tapeless Hessian is checked against the hand-written one before timing (harness.hpp).
  return tapeless_bench::main(argc, argv, nullptr,
                              {
                                  entry<rosenbrock_handwritten, inputs<1>>("H1_rosenbrock_hessian_16/handwritten"),
                                  entry<rosenbrock_tapeless, inputs<1>>("H1_rosenbrock_hessian_16/tapeless"),
                                  entry<log_sum_exp_handwritten, inputs<2>>("H2_log_sum_exp_hessian_16/handwritten"),
                                  entry<log_sum_exp_tapeless, inputs<2>>("H2_log_sum_exp_hessian_16/tapeless"),
                              });
}
