// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::outer of a row of run-time length, which is no column vector by its type.
// expect: tl::outer\(a, b\): a and b must be column vectors by their types
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const tl::matrix<double, 1, tl::dynamic> r{{1.0, 2.0, 3.0}};
  const tl::vector<double, tl::dynamic> v{1.0, 2.0, 3.0};
  const tl::vector<double, 2> u{1.0, 2.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::grad([&u](const auto& x) { return tl::sum(tl::outer(x, u)); })(v);
  (void)r;
#else
  tl::grad([&u](const auto& x) { return tl::sum(tl::outer(x, u)); })(r);  // returns nothing on error
  (void)v;
#endif
  return 0;
}
