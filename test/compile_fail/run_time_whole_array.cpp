// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::reshape of a formula over an argument of run-time extents, whose elements are
// not stored where reshape reads a whole array; reshaping the argument itself compiles.
// expect: tl: an operation on a whole array of run-time extents
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::matrix<double, tl::dynamic, tl::dynamic> x(2, 2);
  x(0, 0) = x(1, 1) = 1.0;
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::grad([](const auto& v) { return tl::sum(2.0 * tl::reshape<2, 2>(v)); })(x);
#else
  tl::grad([](const auto& v) { return tl::sum(tl::reshape<2, 2>(2.0 * v)); })(x);  // on error, returns nothing
#endif
  return 0;
}
