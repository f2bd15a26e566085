// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::concat of a formula over an array of run-time extents, whose value would have to
// be stored; the formula's operand concatenated, and the formula taken of the result, does.
// expect: tl::concat.a, b. of arrays of run-time extents takes arrays
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const tl::vector<double, tl::dynamic> x{1.0, 2.0, 3.0}, y{4.0, 5.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  const auto g = tl::grad([&](const auto& v) { return tl::sum(tl::exp(tl::concat(v, tl::cref(y)))); })(x);
#else
  const auto g = tl::grad([&](const auto& v) { return tl::sum(tl::concat(tl::exp(v), tl::cref(y))); })(x);
#endif
  return g[0] > 0 ? 0 : 1;
}
