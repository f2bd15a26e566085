// SPDX-License-Identifier: BSL-1.0
// Must not compile: two nested lets that the compiler spells alike (one lambda reached recursively,
// over the same bound-expression type) cannot be told apart, and the inner body uses the outer name.
// let refuses rather than mix their adjoints.
// expect: a let inside this body has the same body lambda and bound-expression type
#include <tapeless/tapeless.hpp>

#include <tuple>
#include <type_traits>

namespace tl = tapeless;

int main() {
  auto recurse = [](auto self, auto x, auto p, auto depth) {
    if constexpr (decltype(depth)::value == 0) {
      return p;
    } else {
      using next = std::integral_constant<int, decltype(depth)::value - 1>;
#ifdef TAPELESS_COMPILE_FAIL_OK
      return tl::let(x * p, [&](auto t) { return self(self, x, t, next{}) * p; });  // bound types differ
#else
      return tl::let(x, [&](auto t) { return self(self, x, t, next{}) * p; });
#endif
    }
  };
  auto f = [&](auto x, auto y) { return recurse(recurse, x, y, std::integral_constant<int, 2>{}); };
  return std::get<0>(tl::grad(f)(1.0, 2.0)) > 0.0;
}
