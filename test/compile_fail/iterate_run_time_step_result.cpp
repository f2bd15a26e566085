// SPDX-License-Identifier: BSL-1.0
// Must not compile: a step that returns a number for a state of run-time extents; the error names
// tl::iterate and what step must return.
// expect: tl::iterate\(n, init, step, params\.\.\.\): for a state of run-time extents, step must return an array of the
// state's extents reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type|no match for|no
// viable
#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;

int main() {
  const auto step = [](const auto& s, std::size_t, const auto& p) {
#ifdef TAPELESS_COMPILE_FAIL_OK
    return p * s;
#else
    return p * tl::sum(s);
#endif
  };
  const auto g = tl::grad([&](const auto& x, const auto& a) { return tl::sum(tl::iterate(10, x, step, a)); })(
      tl::vector<double, tl::dynamic>(3), 0.5);
  return std::get<1>(g) > 0 ? 0 : 1;
}
