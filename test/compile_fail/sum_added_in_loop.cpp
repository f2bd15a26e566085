// SPDX-License-Identifier: BSL-1.0
// Must not compile: a sum over data of run-time length accumulated with += on an expression, whose type
// is the whole computation and cannot grow with the loop.
// expect: tl: an expression cannot.*nor be added to with \+=.*use tl::sum_over\(tl::rows
// expect: to sum terms over data or indices of run-time length use tl::sum_over\(tl::rows\(\.\.\.\) or tl::indices\(n\)
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

#include <vector>

namespace tl = tapeless;

int main() {
  const std::vector<double> t{1.0, 2.0, 3.0};
  const double da = tl::grad([&](const auto& a) {
#ifdef TAPELESS_COMPILE_FAIL_OK
    double total = 0.0;  // a sum of plain data is a number
    for (const double ti : t) total += ti;
    return total * a;
#else
    auto s = 0.0 * a;
    for (const double ti : t) s += ti * a;
    return s;
#endif
  })(1.5);
  return da > 0 ? 0 : 1;
}
