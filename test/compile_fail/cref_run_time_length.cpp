// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::cref of a std::vector, data of run-time length, which no expression can hold.
// expect: tl::cref\(x\): x is data of run-time length; pass it to tl::rows\(\.\.\.\) and sum over it with tl::sum_over
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

#include <vector>

namespace tl = tapeless;

int main() {
  tl::vector<double, 2> a{1.0, 2.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  const tl::vector<double, 2> w{3.0, 4.0};
#else
  const std::vector<double> w{3.0, 4.0};
#endif
  auto g = tl::grad([&](const auto& x) { return tl::dot(tl::cref(w), x); })(a);
  return g[0] > 0 ? 0 : 1;
}
