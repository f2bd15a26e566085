// SPDX-License-Identifier: BSL-1.0
// Must not compile: slice<2, 3> of a 4-vector (elements 2 .. 4 of 0 .. 3); the error names the
// operation, the shape and the slice.
// expect: slice_shapes<[^>]*4, 1[^>]*2, 3
// expect: the slice must hold at least one element and lie inside v
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::vector<double, 4> a{1.0, 2.0, 3.0, 4.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto g = tl::grad([](const auto& x) { return tl::sum(tl::slice<1, 3>(x)); })(a);
#else
  auto g = tl::grad([](const auto& x) { return tl::sum(tl::slice<2, 3>(x)); })(a);
#endif
  return g[1] > 0 ? 0 : 1;
}
