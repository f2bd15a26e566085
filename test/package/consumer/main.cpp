// SPDX-License-Identifier: BSL-1.0
// The consumer's program: exits 0 when the gradient of the walkthrough is right, and so is that of a sum
// over rows on threads (<tapeless/parallel.hpp>), which links only if the target brings what
// std::execution::par needs.
#include <tapeless/parallel.hpp>

#include <cmath>
#include <cstdio>
#include <execution>
#include <vector>

namespace tl = tapeless;

int main() {
  auto f = [](auto x1, auto x2) { return tl::pow(x1 - x2, 2) + tl::cos(x1 + x2); };
  const auto [g1, g2] = tl::grad(f)(1.0, 2.0);
  std::printf("%.5f %.5f\n", g1, g2);

  // d/da of sum_i (a t_i - y_i)^2 is sum_i 2 t_i (a t_i - y_i): with t_i = i, y_i = 0 and a = 1, twice
  // the sum of the squares of 0..n-1.
  const std::size_t n = 100000;
  std::vector<double> t(n);
  std::vector<double> y(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) t[i] = static_cast<double>(i);
  const double g = tl::grad([&](const auto& a) {
    return tl::sum_over(
        std::execution::par, tl::rows(t, y),
        [](const auto& ti, const auto& yi, const auto& a) { return tl::square(a * ti - yi); }, a);
  })(1.0);
  const double expected = 2.0 * static_cast<double>((n - 1) * n * (2 * n - 1) / 6);
  std::printf("%.17g\n", g);

  return std::abs(g1 + 2.14112) < 1e-5 && std::abs(g2 - 1.85888) < 1e-5 && g == expected ? 0 : 1;
}
