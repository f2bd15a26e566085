// SPDX-License-Identifier: BSL-1.0
// Must not compile: matmul of a 2 x 3 by a 2 x 3 matrix; the error names the operation and both shapes.
// expect: matmul_shapes<[^>]*2, 3[^>]*2, 3
// expect: the columns of A must equal the rows of B
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::matrix<double, 2, 3> a{{1, 2, 3}, {4, 5, 6}};
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::matrix<double, 3, 2> b{{1, 2}, {3, 4}, {5, 6}};
#else
  tl::matrix<double, 2, 3> b{{1, 2, 3}, {4, 5, 6}};
#endif
  auto g = tl::grad([&](const auto& x) { return tl::sum(tl::matmul(x, b)); })(a);
  return g(0, 0) > 0 ? 0 : 1;
}
