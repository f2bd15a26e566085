// SPDX-License-Identifier: BSL-1.0
// Must not compile: an operation's option misspelled (batchd), which as a member of its own would have
// left SIMD off without a word; in tl::operation_traits it is an unknown field.
// expect: no non-static data member named [^ ]*batchd|field designator [^ ]*batchd[^ ]* does not refer to any field
#include <tapeless/tapeless.hpp>

#include <utility>

namespace tl = tapeless;

struct twice_op {
#ifdef TAPELESS_COMPILE_FAIL_OK
  static constexpr tl::operation_traits traits{.name = "twice", .batched = true};
#else
  static constexpr tl::operation_traits traits{.name = "twice", .batchd = true};
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
