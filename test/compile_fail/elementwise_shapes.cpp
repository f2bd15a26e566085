// SPDX-License-Identifier: BSL-1.0
// Must not compile: adding a 2 x 1 to a 3 x 1 matrix, whose rows neither match nor broadcast (a 1 x 3
// row would broadcast); the error names the operation and both shapes, and says what broadcasts.
// expect: elementwise_shapes<[^>]*3, 1[^>]*2, 1
// expect: needs two matrices of one shape, or a 1 x C row or an R x 1 column beside an R x C matrix
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::vector<double, 3> a{1.0, 2.0, 3.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::matrix<double, 1, 3> b{{1.0, 2.0, 3.0}};
#else
  tl::matrix<double, 2, 1> b{{1.0}, {2.0}};
#endif
  auto g = tl::grad([&](const auto& x) { return tl::sum(x + b); })(a);
  return g[0] > 0 ? 0 : 1;
}
