// SPDX-License-Identifier: BSL-1.0
// Must not compile: backward() on an expression of tl::grad arguments.
// expect: call backward\(\) only on expressions built from tl::var
#include <tapeless/tapeless.hpp>

#include <tuple>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto r = tl::grad([](auto x) {
    auto y = x * x;
    return y;
  })(1.0);
  (void)r;
#else
  auto r = tl::grad([](auto x) {
    auto y = x * x;
    y.backward();
    return y;
  })(1.0);
  (void)r;
#endif
}
