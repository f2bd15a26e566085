// SPDX-License-Identifier: BSL-1.0
// Must not compile: a Hessian at an integer argument (2 instead of 2.0).
// expect: tl::hessian.f..args....: every argument must be a floating-point number
// reject: invalid use of void|incomplete type .void|has incomplete type|void value not ignored|cannot initialize a
// variable
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const auto f = [](auto x) { return x * x * x; };
#ifdef TAPELESS_COMPILE_FAIL_OK
  const double h = tl::hessian(f)(2.0);
#else
  const double h = tl::hessian(f)(2);
#endif
  return h > 0 ? 0 : 1;
}
