// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::dot of two differentiated arrays of run-time extents, which one sum over their
// elements does not differentiate; one of them passed as data (tl::cref) does.
// expect: reads two differentiated arrays of run-time extents
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const tl::vector<double, tl::dynamic> x{1.0, 2.0, 3.0}, y{4.0, 5.0, 6.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  const auto g = tl::grad([&](const auto& a) { return tl::dot(a, tl::cref(y)); })(x);
#else
  const auto g = std::get<0>(tl::grad([](const auto& a, const auto& b) { return tl::dot(a, b); })(x, y));
#endif
  return g[0] > 0 ? 0 : 1;
}
