// SPDX-License-Identifier: BSL-1.0
// The consumer's program: exits 0 when the gradient of the walkthrough is right.
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstdio>

namespace tl = tapeless;

int main() {
  auto f = [](auto x1, auto x2) { return tl::pow(x1 - x2, 2) + tl::cos(x1 + x2); };
  const auto [g1, g2] = tl::grad(f)(1.0, 2.0);
  std::printf("%.5f %.5f\n", g1, g2);
  return std::abs(g1 + 2.14112) < 1e-5 && std::abs(g2 - 1.85888) < 1e-5 ? 0 : 1;
}
