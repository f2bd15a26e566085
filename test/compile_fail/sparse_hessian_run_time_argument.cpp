// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::sparse_hessian of an argument of run-time extents, whose pattern would not be
// a constant; the error names the operation and what x must be.
// expect: x must be a floating-point number or a tl::matrix of them with extents fixed at compile time
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::vector<double, 4> x{1.0, 2.0, 3.0, 4.0};
#else
  tl::vector<double, tl::dynamic> x(4);
#endif
  const auto h = tl::sparse_hessian([](const auto& v) { return tl::sum(tl::square(v)); })(x);
  return h.nonzeros() > 0 ? 0 : 1;
}
