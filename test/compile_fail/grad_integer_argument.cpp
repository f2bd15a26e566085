// SPDX-License-Identifier: BSL-1.0
// Must not compile: an argument that is not a floating-point number.
// expect: every argument must be a floating-point number
#include <tapeless/tapeless.hpp>

#include <tuple>

namespace tl = tapeless;

int main() {
  auto f = [](auto a, auto b) { return a * b; };
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto r = tl::grad(f)(1.0, 2.0);
  (void)r;
#else
  auto r = tl::grad(f)(1, 2);
  (void)r;
#endif
}
