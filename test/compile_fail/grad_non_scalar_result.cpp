// SPDX-License-Identifier: BSL-1.0
// Must not compile: grad of a function whose result is not a scalar.
// expect: f must return a scalar
#include <tapeless/tapeless.hpp>

#include <tuple>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto r = tl::grad([](auto x) { return x * x; })(1.0);
  (void)r;
#else
  auto r = tl::grad([](auto x) { return std::tuple{x, x}; })(1.0);
  (void)r;
#endif
}
