// SPDX-License-Identifier: BSL-1.0
// Must not compile: a 2 x 2 block at row 2 of a 3 x 3 matrix, past its last row; the error names the
// operation and the shapes.
// expect: block_shapes<[^>]*3, 3[^>]*2, 0, 2, 2
// expect: the block must hold at least one element and lie inside A
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::matrix<double, 3, 3> a{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto g = tl::grad([](const auto& x) { return tl::sum(tl::block<1, 0, 2, 2>(x)); })(a);
#else
  auto g = tl::grad([](const auto& x) { return tl::sum(tl::block<2, 0, 2, 2>(x)); })(a);
#endif
  return g(0, 0) > 0 ? 0 : 1;
}
