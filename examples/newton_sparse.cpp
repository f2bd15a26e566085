// SPDX-License-Identifier: BSL-1.0
// Newton's method on a problem whose Hessian is tridiagonal: a chain of n points, each joined to the
// next by a spring and pulled by exp(x) - 2x. tl::sparse_hessian finds the Hessian's pattern at compile
// time, colors its columns (3 colors, whatever n) and computes its 3n - 2 entries from one sweep
// carrying 3 directions; each Newton step solves the tridiagonal system by the Thomas algorithm.
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>

namespace tl = tapeless;

constexpr std::size_t n = 6;

// Half the squared stretch of each spring, plus exp(x) - 2x at each point: its minimum is x = ln 2.
constexpr auto energy = [](const auto& x) {
  const auto stretch = tl::slice<1, n - 1>(x) - tl::slice<0, n - 1>(x);
  return 0.5 * tl::sum(tl::square(stretch)) + tl::sum(tl::exp(x) - 2.0 * x);
};

int main() {
  tl::vector<double, n> x{0.0, 0.5, 1.0, 1.5, 2.0, 2.5};
  std::printf("%s", tl::to_string(tl::hessian_pattern(energy, x)).c_str());
  for (int step = 1; step <= 5; ++step) {
    const auto g = tl::grad(energy)(x);
    const auto h = tl::sparse_hessian(energy)(x);  // h(i, j), h.values(): the 3n - 2 entries
    static_assert(decltype(h)::nonzeros() == 3 * n - 2);
    // Solve h d = g, forward elimination then back substitution (h is tridiagonal).
    tl::vector<double, n> diagonal, rhs, d;
    diagonal[0] = h(0, 0);
    rhs[0] = g[0];
    for (std::size_t i = 1; i < n; ++i) {
      const double m = h(i, i - 1) / diagonal[i - 1];
      diagonal[i] = h(i, i) - m * h(i - 1, i);
      rhs[i] = g[i] - m * rhs[i - 1];
    }
    d[n - 1] = rhs[n - 1] / diagonal[n - 1];
    for (std::size_t i = n - 1; i-- > 0;) d[i] = (rhs[i] - h(i, i + 1) * d[i + 1]) / diagonal[i];
    x = x - d;
    std::printf("%s%.3g", step == 1 ? "|gradient| at each Newton step: " : ", ", std::sqrt(tl::sum(tl::square(g))));
  }
  std::printf("; x[0] = %.6f (ln 2)\n", x[0]);
}
