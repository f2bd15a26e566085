// SPDX-License-Identifier: BSL-1.0
// Must not compile: a body of tl::sum_over that returns a matrix; the error names the call and the fix.
// expect: tl::sum_over\(rows, body, params\.\.\.\): body must return a number
// reject: invalid use of void|has incomplete type|no match for .operator
#include <tapeless/tapeless.hpp>

#include <vector>

namespace tl = tapeless;

int main() {
  const std::vector<double> t{0.0, 0.5, 1.0}, y{1.0, 0.5, 0.25};
  const auto f = [&](const auto& w) {
#ifdef TAPELESS_COMPILE_FAIL_OK
    return tl::sum_over(
        tl::rows(t, y), [](const auto& ti, const auto& yi, const auto& v) { return tl::sum(v * ti - yi); }, w);
#else
    return tl::sum_over(
        tl::rows(t, y), [](const auto& ti, const auto& yi, const auto& v) { return v * ti - yi; }, w);
#endif
  };
  const auto g = tl::grad(f)(tl::vector<double, 2>{1.0, 2.0});
  return g[0] > 0 ? 0 : 1;
}
