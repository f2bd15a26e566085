// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::into with fewer targets than arguments differentiated.
// expect: tl::into\(g...\): give one target per argument differentiated
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  auto f = [](const auto& x, const auto& c) { return c * tl::sum(tl::square(x)); };
  const tl::vector<double, 3> x{1.0, 2.0, 3.0};
  tl::vector<double, 3> g;
#ifdef TAPELESS_COMPILE_FAIL_OK
  double gc = 0;
  tl::grad(f, tl::into(g, gc))(x, 2.0);
#else
  tl::grad(f, tl::into(g))(x, 2.0);
#endif
  return g[0] > 0 ? 0 : 1;
}
