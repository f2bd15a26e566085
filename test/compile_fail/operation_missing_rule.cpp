// SPDX-License-Identifier: BSL-1.0
// Must not compile: an operation with a value and no rule, differentiated; the error names the
// operation and the member to declare.
// expect: operation_check<[^>]*twice_op
// expect: the operation has no rule for this operand: declare `derivative\(x, y\)`
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

struct twice_op {
  template <class T>
  static constexpr T value(T x) {
    return T(2) * x;
  }
#ifdef TAPELESS_COMPILE_FAIL_OK
  template <class T>
  static constexpr T derivative(T, T) {
    return T(2);
  }
#endif
};

int main() {
  static_assert(tl::make_unary(twice_op{}, 1.5) == 3.0);  // a value alone serves plain numbers
  auto g = tl::grad([](const auto& x) { return tl::make_unary(twice_op{}, x); })(1.0);
  return g == 2.0 ? 0 : 1;
}
