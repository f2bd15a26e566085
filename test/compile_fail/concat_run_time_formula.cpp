// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::concat of a formula over a matrix of run-time extents, which it takes only as
// column vectors, as it takes arrays; the formula over a vector of the matrix's elements does.
// expect: tl::concat.a, b. of arrays of run-time extents: a and b must be column vectors
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  const tl::vector<double, tl::dynamic> a{1.0, 2.0, 3.0, 4.0};
#else
  const tl::matrix<double, tl::dynamic, tl::dynamic> a(2, 2);
#endif
  const tl::vector<double, tl::dynamic> b{5.0, 6.0};
  const auto g = tl::grad([&](const auto& v) { return tl::sum(tl::concat(tl::exp(tl::cref(a)) * v[0], v)); })(b);
  return g[0] > 0 ? 0 : 1;
}
