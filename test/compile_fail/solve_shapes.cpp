// SPDX-License-Identifier: BSL-1.0
// Must not compile: solve of a 3 x 3 system with a 2-vector right-hand side; the error names the
// operation and both shapes.
// expect: solve_shapes<[^>]*3, 3[^>]*2, 1
// expect: A must be square with as many rows as b
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::matrix<double, 3, 3> a{{2, 0, 0}, {0, 3, 0}, {0, 0, 4}};
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::vector<double, 3> b{1.0, 2.0, 3.0};
#else
  tl::vector<double, 2> b{1.0, 2.0};
#endif
  auto g = tl::grad([&](const auto& x) { return tl::sum(tl::solve(x, b)); })(a);
  return g(0, 0) < 0 ? 0 : 1;
}
