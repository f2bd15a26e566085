// SPDX-License-Identifier: BSL-1.0
// Must not compile: grad<0, 0>, an argument selected twice.
// expect: an argument index is named twice
#include <tapeless/tapeless.hpp>

#include <tuple>

namespace tl = tapeless;

int main() {
  auto f = [](auto a, auto b) { return a * b; };
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto r = tl::grad<0, 1>(f)(1.0, 2.0);
  (void)r;
#else
  auto r = tl::grad<0, 0>(f)(1.0, 2.0);
  (void)r;
#endif
}
