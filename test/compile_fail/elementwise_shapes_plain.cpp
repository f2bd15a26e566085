// SPDX-License-Identifier: BSL-1.0
// Must not compile: a 3 x 4 matrix times a 1 x 3 row, plain values, which broadcast as expressions do
// when they fit; the error names the operation and both shapes.
// expect: elementwise_shapes<[^>]*3, 4[^>]*1, 3
// expect: needs two matrices of one shape, or a 1 x C row or an R x 1 column beside an R x C matrix
// reject: invalid use of void|incomplete type .void|has incomplete type|no match for
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::matrix<double, 3, 4> a{};
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::matrix<double, 1, 4> b{{1.0, 2.0, 3.0, 4.0}};
#else
  tl::matrix<double, 1, 3> b{{1.0, 2.0, 3.0}};
#endif
  const auto c = a * b;
  return c(0, 0) > 0 ? 0 : 1;
}
