// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::cref of a temporary, which would be gone before the sweep reads it.
// expect: tl::cref\(x\): x must be a named object
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::vector<double, 2> a{1.0, 2.0};
  const tl::vector<double, 2> w{3.0, 4.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto g = tl::grad([&](const auto& x) { return tl::dot(tl::cref(w), x); })(a);
#else
  auto g = tl::grad([&](const auto& x) { return tl::dot(tl::cref(w + w), x); })(a);
#endif
  return g[0] > 0 ? 0 : 1;
}
