// SPDX-License-Identifier: BSL-1.0
// Must not compile: grad<3> of a function of two arguments.
// expect: an argument index I is not less than the number of arguments
#include <tapeless/tapeless.hpp>

#include <tuple>

namespace tl = tapeless;

int main() {
  auto f = [](auto a, auto b) { return a * b; };
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto r = tl::grad<1>(f)(1.0, 2.0);
  (void)r;
#else
  auto r = tl::grad<3>(f)(1.0, 2.0);
  (void)r;
#endif
}
