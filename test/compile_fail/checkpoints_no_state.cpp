// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::iterate with tl::checkpoints<0>, a reverse sweep that keeps no state to advance
// the loop in; the sentence is the only error.
// expect: tl::checkpoints<S> needs S >= 1
// reject: error:.*error:|errors generated
#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;

#ifdef TAPELESS_COMPILE_FAIL_OK
constexpr std::size_t states = 1;
#else
constexpr std::size_t states = 0;
#endif

int main() {
  const auto f = [](const auto& a) {
    return tl::iterate(
        tl::checkpoints<states>{}, 10, 1.5, [](const auto& s, std::size_t, const auto& p) { return p * s; }, a);
  };
  return tl::grad(f)(0.5) > 0 ? 0 : 1;
}
