// SPDX-License-Identifier: BSL-1.0
// Must not compile: a sum over data of run-time length accumulated by assignment in a loop, where s + term
// is an expression of another type than s (its type is the whole computation).
// expect: cannot be assigned, or converted to, an expression of another type.*use tl::sum_over\(tl::rows
// expect: to sum terms over data or indices of run-time length use tl::sum_over\(tl::rows\(\.\.\.\) or tl::indices\(n\)
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

#include <vector>

namespace tl = tapeless;

int main() {
  const std::vector<double> t{1.0, 2.0, 3.0};
  const double da = tl::grad([&](const auto& a) {
    auto s = 0.0 * a;
    for (const double ti : t) {
#ifdef TAPELESS_COMPILE_FAIL_OK
      s = ti * a;  // an expression of s's own type may be assigned
#else
      s = s + ti * a;
#endif
    }
    return s;
  })(1.5);
  return da > 0 ? 0 : 1;
}
