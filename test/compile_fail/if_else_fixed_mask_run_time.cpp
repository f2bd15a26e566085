// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::if_else on a tl::mask, whose shape is fixed, with a branch of run-time extents;
// the comparison of the run-time arrays themselves gives a condition of their extents.
// expect: tl::if_else\(m, a, b\): m is a tl::mask of fixed shape and a or b an array of run-time extents
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const tl::vector<double, tl::dynamic> x{1.0, 2.0, 3.0}, a{2.0, 2.0, 2.0};
  const tl::mask<3, 1> m{true, false, true};
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::grad([&a](const auto& v) { return tl::sum(tl::if_else(v < a, v, a)); })(x);
#else
  tl::grad([&a, &m](const auto& v) { return tl::sum(tl::if_else(m, v, a)); })(x);  // returns nothing on error
#endif
  return 0;
}
