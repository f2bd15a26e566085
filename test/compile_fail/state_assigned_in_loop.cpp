// SPDX-License-Identifier: BSL-1.0
// Must not compile: a state carried through a loop of run-time length by assignment, s = step(s), where
// the step's result is an expression of another type than s (its type is the whole computation). The
// sentence names tl::iterate, which the valid twin calls.
// expect: cannot be assigned, or converted to, an expression of another type
// expect: to carry a state through n steps \(for \(\.\.\.\) s = step\(s\);\) use tl::iterate\(n, init, step
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;

int main() {
  const std::size_t n = 100;
  const double dt = 0.01;
  const auto [dkk, dc] = tl::grad([&](const auto& kk, const auto& c) {
    auto s = tl::concat(1.0 + 0.0 * kk, 0.0 * c);  // the state (x, v)
#ifdef TAPELESS_COMPILE_FAIL_OK
    const auto euler = [dt](const auto& x, std::size_t, const auto& k, const auto& d) {
      return tl::concat(x[0] + dt * x[1], x[1] + dt * (-k * x[0] - d * x[1]));
    };
    return tl::let(tl::iterate(n, s, euler, kk, c),
                   [](const auto& last) { return tl::square(last[0] - 0.25) + last[1]; });
#else
    for (std::size_t k = 0; k < n; ++k) s = tl::concat(s[0] + dt * s[1], s[1] + dt * (-kk * s[0] - c * s[1]));
    return tl::square(s[0] - 0.25) + s[1];
#endif
  })(2.0, 0.5);
  return dkk < dc ? 0 : 1;
}
