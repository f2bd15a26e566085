// SPDX-License-Identifier: BSL-1.0
// Must not compile: a tl::var passed by value to a generic function, whose copy would receive the gradient.
// expect: tl::var cannot be copied or moved
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto f = [](const auto& a, const auto& b) { return a * a + a * b; };
#else
  auto f = [](auto a, auto b) { return a * a + a * b; };
#endif
  tl::var<double> x{3.0}, y{10.0};
  auto z = f(x, y);
  z.backward();
}
