// SPDX-License-Identifier: BSL-1.0
// Must not compile: differentiating a grad(f) that returns two gradients (a tuple, not a scalar).
// expect: inside a function being differentiated gives one gradient
// reject: invalid use of void|incomplete type .void|has incomplete type|no match for
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const auto g = [](auto a, auto b) { return a * a * b; };
#ifdef TAPELESS_COMPILE_FAIL_OK
  const double d = tl::grad(tl::grad<0>(g))(1.0, 2.0) == std::tuple{4.0, 2.0} ? 1.0 : 0.0;
#else
  const double d = tl::grad(tl::grad(g))(1.0, 2.0) == std::tuple{4.0, 2.0} ? 1.0 : 0.0;
#endif
  return d > 0 ? 0 : 1;
}
