// SPDX-License-Identifier: BSL-1.0
// Must not compile: init of run-time extents given as a formula over arrays, which is no node; the
// error says to apply the formula in step.
// expect: tl::iterate\(n, init, step, params\.\.\.\): init of run-time extents must be an array or an argument, not a
// formula reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type|no match for|no viable
#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;

int main() {
  const auto step = [](const auto& s, std::size_t, const auto& p) { return s + 0.1 * p * s; };
  const auto g = tl::grad([&](const auto& x, const auto& a) {
#ifdef TAPELESS_COMPILE_FAIL_OK
    return tl::sum(tl::iterate(10, x, step, a));
#else
    return tl::sum(tl::iterate(10, 2.0 * x, step, a));
#endif
  })(tl::vector<double, tl::dynamic>(3), 0.5);
  return std::get<1>(g) > 0 ? 0 : 1;
}
