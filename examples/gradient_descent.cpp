// SPDX-License-Identifier: BSL-1.0
// Gradient descent on f(x1, x2) = (x1 - x2)^2 + cos(x1 + x2), printing the loss as it falls.
#include <tapeless/tapeless.hpp>

#include <cstdio>

namespace tl = tapeless;

int main() {
  auto f = [](auto x1, auto x2) { return tl::pow(x1 - x2, 2) + tl::cos(x1 + x2); };
  auto step = tl::value_and_grad(f);
  double x1 = 1.0, x2 = 2.0;
  const double rate = 0.1;
  for (int i = 0; i <= 50; ++i) {
    const auto [loss, g] = step(x1, x2);
    if (i % 10 == 0) std::printf("step %2d: f(%.4f, %.4f) = %.6f\n", i, x1, x2, loss);
    x1 -= rate * std::get<0>(g);
    x2 -= rate * std::get<1>(g);
  }
}
