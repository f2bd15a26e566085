// SPDX-License-Identifier: BSL-1.0
// Must not compile: adding a 3 x 1 to a 1 x 3 matrix; the error names the operation and both shapes.
// expect: elementwise_shapes<[^>]*3, 1[^>]*1, 3
// expect: needs two matrices of one shape
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::vector<double, 3> a{1.0, 2.0, 3.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::matrix<double, 3, 1> b{{1.0}, {2.0}, {3.0}};
#else
  tl::matrix<double, 1, 3> b{{1.0, 2.0, 3.0}};
#endif
  auto g = tl::grad([&](const auto& x) { return tl::sum(x + b); })(a);
  return g[0] > 0 ? 0 : 1;
}
