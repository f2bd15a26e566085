// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::sum_over with std::execution::par where only the umbrella header is included;
// the error names the header that brings the sums over threads.
// expect: tl::sum_over\(policy, rows, body, params\.\.\.\) with an execution policy
// expect: needs #include <tapeless/parallel\.hpp>
// reject: no matching function|invalid use of void|has incomplete type
#include <tapeless/tapeless.hpp>
#ifdef TAPELESS_COMPILE_FAIL_OK
// What <tapeless/parallel.hpp> adds to the umbrella header, named directly: the check reads the umbrella
// from a precompiled header, which g++ cannot include a second time.
#include <tapeless/transforms/sum_over_parallel.hpp>
#endif

#include <execution>
#include <vector>

namespace tl = tapeless;

int main() {
  const std::vector<double> t{0.0, 0.5, 1.0}, y{1.0, 0.5, 0.25};
  const auto f = [&](const auto& a) {
    return tl::sum_over(
        std::execution::par, tl::rows(t, y),
        [](const auto& ti, const auto& yi, const auto& a) { return tl::square(a * ti - yi); }, a);
  };
  const auto g = tl::grad(f)(1.0);
  return g > 0 ? 0 : 1;
}
