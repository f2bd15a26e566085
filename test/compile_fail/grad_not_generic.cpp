// SPDX-License-Identifier: BSL-1.0
// Must not compile: a function that cannot take differentiable arguments.
// expect: write f as a generic lambda
#include <tapeless/tapeless.hpp>

#include <tuple>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto r = tl::grad([](auto x) { return x * x; })(1.0);
  (void)r;
#else
  auto r = tl::grad([](double x) { return x * x; })(1.0);
  (void)r;
#endif
}
