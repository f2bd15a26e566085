// SPDX-License-Identifier: BSL-1.0
// The operation 2x, for the tests of what an operation must state: its value and its rule, which a
// test's struct derives to add (or leave out) the member under test, and its gradient at 1.
// Included after <tapeless/tapeless.hpp>, not by itself: g++ reads the compile-fail tests' first
// include from a precompiled header, and a second #include of it would find no header beside the
// precompiled one.
#pragma once

struct twice_value {
  template <class T>
  static constexpr T value(T x) {
    return T(2) * x;
  }
};

struct twice_rule : twice_value {
  template <class T>
  static constexpr T derivative(T, T) {
    return T(2);
  }
};

/// 0 if the gradient of Op at 1 is 2.
template <class Op>
int check_twice() {
  const auto g = tapeless::grad([](const auto& x) { return tapeless::make_unary(Op{}, x); })(1.0);
  return g == 2.0 ? 0 : 1;
}
