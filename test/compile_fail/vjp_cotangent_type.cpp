// SPDX-License-Identifier: BSL-1.0
// Must not compile: a pullback called with a cotangent of another shape than f's result.
// expect: the cotangent passed to the pullback must have the type of f's result
// reject: invalid use of void|incomplete type .void|has incomplete type|void value not ignored|cannot initialize a
// variable
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const auto f = [](const auto& x) { return tl::exp(x); };
  const tl::vector<double, 3> x{1.0, 2.0, 3.0};
  const auto [y, pullback] = tl::vjp(f, x);
#ifdef TAPELESS_COMPILE_FAIL_OK
  const tl::vector<double, 3> w = pullback(tl::vector<double, 3>{1.0, 0.0, 0.0});
#else
  const tl::vector<double, 3> w = pullback(tl::vector<double, 2>{1.0, 0.0});
#endif
  return w[0] > y[0] ? 0 : 1;
}
