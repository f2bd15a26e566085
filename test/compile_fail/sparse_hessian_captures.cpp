// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::sparse_hessian of a lambda that captures, whose pattern cannot be found at
// compile time from its type; the error says so and how to read data instead.
// expect: f must be a lambda without captures
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

#ifdef TAPELESS_COMPILE_FAIL_OK
constexpr double weight = 3.0;
#endif

int main() {
  tl::vector<double, 4> x{1.0, 2.0, 3.0, 4.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  const auto f = [](const auto& v) { return weight * tl::sum(tl::square(v)); };
#else
  double weight = 3.0;
  const auto f = [weight](const auto& v) { return weight * tl::sum(tl::square(v)); };
#endif
  const auto h = tl::sparse_hessian(f)(x);
  return h(0, 0) > 0 ? 0 : 1;
}
