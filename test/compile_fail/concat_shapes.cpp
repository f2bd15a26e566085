// SPDX-License-Identifier: BSL-1.0
// Must not compile: concat of a 2 x 3 and a 1 x 2 matrix (3 columns and 2); the error names the
// operation and both shapes.
// expect: concat_shapes<[^>]*2, 3[^>]*1, 2
// expect: a and b must have one number of columns
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::matrix<double, 2, 3> a{{1, 2, 3}, {4, 5, 6}};
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::matrix<double, 1, 3> b{{7, 8, 9}};
#else
  tl::matrix<double, 1, 2> b{{7, 8}};
#endif
  auto g = tl::grad([&](const auto& x) { return tl::sum(tl::concat(x, b)); })(a);
  return g(0, 0) > 0 ? 0 : 1;
}
