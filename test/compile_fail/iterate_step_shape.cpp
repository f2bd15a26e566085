// SPDX-License-Identifier: BSL-1.0
// Must not compile: a step that returns a 3-vector for a state of two numbers; the error names
// tl::iterate and both shapes.
// expect: iterate_shapes<[^>]*2, 1[^>]*3, 1
// expect: tl::iterate\(n, init, step, params\.\.\.\): step\(s, k, params\.\.\.\) must return the state's shape
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type|no match for|no viable
#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;

int main() {
  const auto g = tl::grad([](const auto& a) {
    const auto step = [](const auto& s, std::size_t, const auto& p) {
#ifdef TAPELESS_COMPILE_FAIL_OK
      return tl::concat(p * s[1], s[0]);
#else
      return tl::concat(p * s[1], s[0], s[1]);
#endif
    };
    return tl::sum(tl::iterate(10, tl::vector<double, 2>{1.0, 2.0}, step, a));
  })(0.5);
  return g > 0 ? 0 : 1;
}
