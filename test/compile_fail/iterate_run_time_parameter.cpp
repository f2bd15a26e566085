// SPDX-License-Identifier: BSL-1.0
// Must not compile: a parameter of run-time extents beside a state of run-time extents; the error says
// what params may be and what to do with such data.
// expect: tl::iterate\(n, init, step, params\.\.\.\) with a state of run-time extents: each of params must be a number
// or of fixed shape reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type|no match
// for|no viable
#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;

int main() {
  const tl::vector<double, tl::dynamic> forcing(3);
  const auto step = [](const auto& s, std::size_t, const auto& p) { return s + 0.1 * p; };
  const auto g = tl::grad([&](const auto& x, const auto& a) {
#ifdef TAPELESS_COMPILE_FAIL_OK
    return tl::sum(tl::iterate(10, x, step, a));
#else
    return tl::sum(tl::iterate(10, x, step, a * tl::cref(forcing)));
#endif
  })(tl::vector<double, tl::dynamic>(3), 0.5);
  return std::get<1>(g) > 0 ? 0 : 1;
}
