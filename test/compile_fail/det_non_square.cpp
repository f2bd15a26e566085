// SPDX-License-Identifier: BSL-1.0
// Must not compile: det of a 2 x 3 matrix; the error names the operation and the shape.
// expect: square_shape<[^>]*2, 3
// expect: needs a square matrix
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::matrix<double, 3, 3> a{{1, 2, 3}, {4, 5, 6}, {7, 8, 10}};
#else
  tl::matrix<double, 2, 3> a{{1, 2, 3}, {4, 5, 6}};
#endif
  auto g = tl::grad([](const auto& x) { return tl::det(x); })(a);
  return g(0, 0) > 0 ? 0 : 1;
}
