// SPDX-License-Identifier: BSL-1.0
// Must not compile: inverse of a 3 x 2 matrix; the error names the operation and the shape.
// expect: square_shape<[^>]*3, 2
// expect: needs a square matrix
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::matrix<double, 2, 2> a{{2, 1}, {1, 3}};
#else
  tl::matrix<double, 3, 2> a{{2, 1}, {1, 3}, {0, 1}};
#endif
  auto g = tl::grad([](const auto& x) { return tl::sum(tl::inverse(x)); })(a);
  return g(0, 0) < 0 ? 0 : 1;
}
