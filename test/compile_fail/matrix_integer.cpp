// SPDX-License-Identifier: BSL-1.0
// Must not compile: a matrix of int; the error names the element type and says what to write.
// expect: matrix<int, 2, 2>
// expect: T must be a floating-point type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::matrix<double, 2, 2> a{{1, 2}, {3, 4}};
#else
  tl::matrix<int, 2, 2> a{{1, 2}, {3, 4}};
#endif
  auto g = tl::grad([](const auto& x) { return tl::sum(tl::matmul(x, x)); })(a);
  return g(0, 0) > 0 ? 0 : 1;
}
