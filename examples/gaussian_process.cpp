// SPDX-License-Identifier: BSL-1.0
// A Gaussian process's kernel fitted to points whose count is known at run time: gradient descent on
// the negative log marginal likelihood, whose kernel matrix K is n x n. The LU and Cholesky factors
// and K itself take their room from a tl::workspace, so from the second step on a gradient allocates
// nothing but its result.
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <vector>

namespace tl = tapeless;

int main() {
  // n noisy samples of sin(t), as a file would hold them.
  const std::size_t n = 40;
  std::vector<double> t(n);
  tl::vector<double, tl::dynamic> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    t[i] = 0.25 * static_cast<double>(i);
    y[i] = std::sin(t[i]) + 0.1 * std::cos(7.3 * static_cast<double>(i));
  }
  // Half the squared distances between the points, and the identity: data of n x n.
  tl::matrix<double, tl::dynamic, tl::dynamic> half_d2(n, n), identity(n, n);
  for (std::size_t i = 0; i < n; ++i) {
    identity(i, i) = 1.0;
    for (std::size_t j = 0; j < n; ++j) half_d2(i, j) = 0.5 * (t[i] - t[j]) * (t[i] - t[j]);
  }
  // The kernel of log length scale a, log signal variance b and log noise c:
  // K = e^b exp(-d^2 / (2 e^(2a))) + e^c I, and the negative log likelihood of y under it.
  auto nll = [&](const auto& a, const auto& b, const auto& c) {
    const auto K = tl::exp(b - tl::cref(half_d2) * tl::exp(-2.0 * a)) + tl::exp(c) * tl::cref(identity);
    return 0.5 * tl::dot(tl::cref(y), tl::solve(K, tl::cref(y))) + 0.5 * tl::log_det(K);
  };
  tl::workspace ws;
  auto gradient = tl::value_and_grad(nll, ws);  // K, its factors and adjoints live in ws
  double a = 0.0, b = 0.0, c = -2.0, value = 0.0;
  for (int step = 0; step < 300; ++step) {
    const auto [v, g] = gradient(a, b, c);
    const auto [ga, gb, gc] = g;
    value = v;
    a -= 0.01 * ga;
    b -= 0.01 * gb;
    c -= 0.01 * gc;
  }
  std::printf("length scale %.2f, signal sd %.2f, noise sd %.2f: -log likelihood %.2f over %zu points\n", std::exp(a),
              std::exp(0.5 * b), std::exp(0.5 * c), value, n);
  return value < 20.0 ? 0 : 1;
}
