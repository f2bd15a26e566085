// SPDX-License-Identifier: BSL-1.0
// Must not compile: a tl::matrix of run-time extents as an argument of tl::grad, which the transforms do
// not differentiate; it is data, read as a tl::rows column.
// expect: tl::grad\(f\)\(args\.\.\.\): the transforms differentiate arguments of fixed shape
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  const tl::vector<double, 3> x{1.0, 2.0, 3.0};
#else
  const tl::vector<double, tl::dynamic> x{1.0, 2.0, 3.0};
#endif
  tl::grad([](const auto& v) { return tl::sum(v); })(x);  // on error, returns nothing, so nothing is read
  return 0;
}
