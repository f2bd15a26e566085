// SPDX-License-Identifier: BSL-1.0
// The imperative form: tl::var leaves, an expression built from them, backward() from its root.
#include <tapeless/tapeless.hpp>

#include <cstdio>

namespace tl = tapeless;

int main() {
  tl::var<double> x{3.0}, y{10.0};
  auto z = x * x + x * y;  // x is used twice: its adjoints from both uses add up
  z.backward();
  std::printf("z = %g, dz/dx = %g, dz/dy = %g\n", z.value(), x.grad(), y.grad());

  // Gradients accumulate across backward() calls, as in PyTorch, until zero_grad().
  z.backward();
  std::printf("after a second backward(): dz/dx = %g\n", x.grad());
  x.zero_grad();
  y.zero_grad();
  std::printf("after zero_grad(): dz/dx = %g\n", x.grad());
}
