// SPDX-License-Identifier: BSL-1.0
// Must not compile: reshape of a 2 x 3 matrix (6 elements) to 4 x 2 (8); the error names the
// operation and both shapes.
// expect: reshape_shapes<[^>]*2, 3[^>]*4, 2
// expect: R x C must hold as many elements as A
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::matrix<double, 2, 3> a{{1, 2, 3}, {4, 5, 6}};
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto g = tl::grad([](const auto& x) { return tl::sum(tl::reshape<3, 2>(x)); })(a);
#else
  auto g = tl::grad([](const auto& x) { return tl::sum(tl::reshape<4, 2>(x)); })(a);
#endif
  return g(0, 0) > 0 ? 0 : 1;
}
