// SPDX-License-Identifier: BSL-1.0
// Must not compile: grad of a function whose result is a matrix; the error names the shape.
// expect: scalar_result<[^>]*3, 1
// expect: f must return a scalar; it returned a matrix
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::vector<double, 3> a{1.0, 2.0, 3.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto g = tl::grad([](const auto& x) { return tl::sum(x * x); })(a);
#else
  auto g = tl::grad([](const auto& x) { return x * x; })(a);
#endif
  return g[0] > 0 ? 0 : 1;
}
