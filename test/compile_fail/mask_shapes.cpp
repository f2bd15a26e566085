// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::if_else between a 3 x 4 matrix and a 1 x 4 row, which arithmetic would
// broadcast but a mask does not; the error names the shapes and the fix.
// expect: mask_shapes<[^>]*3, 4[^>]*1, 4
// expect: tl::if_else takes matrices of one shape, which it does not broadcast
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::matrix<double, 3, 4> a{};
  tl::matrix<double, 1, 4> b{{1.0, 2.0, 3.0, 4.0}};
  auto g = tl::grad([&](const auto& x) {
#ifdef TAPELESS_COMPILE_FAIL_OK
    return tl::sum(tl::if_else(x > 0.0, x, b + tl::zeros_like(x)));
#else
    return tl::sum(tl::if_else(x > 0.0, x, b));
#endif
  })(a);
  return g[0] > 0 ? 0 : 1;
}
