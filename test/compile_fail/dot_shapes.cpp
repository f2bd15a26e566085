// SPDX-License-Identifier: BSL-1.0
// Must not compile: dot of a 3-vector and a 4-vector; the error names the operation and both shapes.
// expect: dot_shapes<[^>]*3, 1[^>]*4, 1
// expect: a and b must be vectors of one length
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::vector<double, 3> a{1.0, 2.0, 3.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::vector<double, 3> b{1.0, 2.0, 3.0};
#else
  tl::vector<double, 4> b{1.0, 2.0, 3.0, 4.0};
#endif
  auto g = tl::grad([&](const auto& x) { return tl::dot(x, b); })(a);
  return g[0] > 0 ? 0 : 1;
}
