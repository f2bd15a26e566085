// SPDX-License-Identifier: BSL-1.0
// Must not compile: a differentiated sum whose parameters are an argument of run-time extents and a
// number, which cannot be stacked in one vector of fixed shape.
// expect: tl::sum_over.rows, body, params....: a parameter of run-time extents must be the only
// reject: error:.*error:|errors generated|no match for|no viable|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  const tl::vector<double, 3> x{1.0, 2.0, 3.0};
#else
  const tl::vector<double, tl::dynamic> x{1.0, 2.0, 3.0};
#endif
  tl::grad([](const auto& x, const auto& s) {
    return tl::sum_over(
        tl::indices(x.size()), [](std::size_t i, const auto& x, const auto& s) { return s * x[i]; }, x, s);
  })(x, 2.0);
  return 0;
}
