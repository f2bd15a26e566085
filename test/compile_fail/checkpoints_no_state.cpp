// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::checkpoints<0>, a reverse sweep that keeps no state to advance the loop in.
// expect: tl::checkpoints<S> needs S >= 1
// reject: error: .*error:
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  constexpr tl::checkpoints<1> policy{};
#else
  constexpr tl::checkpoints<0> policy{};
#endif
  static_assert(policy.states <= 1);
}
