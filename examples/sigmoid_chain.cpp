// SPDX-License-Identifier: BSL-1.0
// sigmoid written out as a chain of elementary operations, against tl::sigmoid.
#include <tapeless/tapeless.hpp>

#include <cstdio>

namespace tl = tapeless;

int main() {
  auto chain = [](auto x) { return 1.0 / (1.0 + tl::exp(-x)); };
  auto builtin = [](auto x) { return tl::sigmoid(x); };
  for (double x : {-4.0, -1.0, 0.0, 1.0, 4.0}) {
    const auto [v1, d1] = tl::value_and_grad(chain)(x);
    const auto [v2, d2] = tl::value_and_grad(builtin)(x);
    std::printf("x = %+.1f: chain %.6f (d %.6f), tl::sigmoid %.6f (d %.6f)\n", x, v1, d1, v2, d2);
  }
}
