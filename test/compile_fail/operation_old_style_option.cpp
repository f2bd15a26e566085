// SPDX-License-Identifier: BSL-1.0
// Must not compile: an operation stating an option as a member of its own, which the engine does not
// read; the error says where options go.
// expect: declare `static constexpr tl::operation_traits traits{...}`
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

struct twice_op {
#ifdef TAPELESS_COMPILE_FAIL_OK
  static constexpr tl::operation_traits traits{.batched = true};
#else
  static constexpr bool batched = true;
#endif
  template <class T>
  static constexpr T value(T x) {
    return T(2) * x;
  }
  template <class T>
  static constexpr T derivative(T, T) {
    return T(2);
  }
};

int main() {
  auto g = tl::grad([](const auto& x) { return tl::make_unary(twice_op{}, x); })(1.0);
  return g == 2.0 ? 0 : 1;
}
