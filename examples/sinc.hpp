// SPDX-License-Identifier: BSL-1.0
// sinc(x) = sin(x) / x as an operation of one's own: the struct with its value, its rule and its
// options, and the function that makes nodes of it. doc/extending.md walks through it;
// examples/custom_op.cpp uses it.
#pragma once

#include <tapeless/tapeless.hpp>

#include <cstddef>
#include <utility>

namespace example {

namespace tl = tapeless;

struct sinc_op {
  // The name the inspectors print; the value and the rule are written for SIMD batches too (every
  // branch a tl::math::lazy_select, every function one of tl::math's); the rule reads the operand only, so
  // that grad need not keep the value.
  static constexpr tl::operation_traits traits{.name = "sinc", .batched = true, .vjp_reads = tl::reads_operands};

  // Below |x| = 1/2, series: sin(x) / x is 0 / 0 at x = 0, and the derivative's closed form
  // (x cos x - sin x) / x^2 cancels, keeping about 10 digits at x = 1e-3. The series are in x itself,
  // not a constant, so that dual numbers (tl::hessian) differentiate them once more. The terms run to
  // x^14, past which none changes a double below 1/2. In a batch, lazy_select computes both sides where the
  // lanes differ: the closed form's 0 / 0 at x = 0 is computed there, and dropped.
  template <class T>
  static constexpr T value(T x) {
    const T x2 = x * x;
    return tl::math::lazy_select(
        x2 < T(0.25), [&] { return horner(x2, value_terms); }, [&] { return tl::math::sin(x) / x; });
  }
  template <class T>
  static constexpr T derivative(T x, T /*value*/) {
    const T x2 = x * x;
    return tl::math::lazy_select(
        x2 < T(0.25), [&] { return x * horner(x2, derivative_terms); },
        [&] { return (x * tl::math::cos(x) - tl::math::sin(x)) / x2; });
  }

 private:
  // sin(x) / x = sum (-1)^k x^2k / (2k + 1)!, and its derivative over x = sum (-1)^k 2k x^(2k - 2) / (2k + 1)!.
  static constexpr double value_terms[] = {1.0,          -1.0 / 6,        1.0 / 120,          -1.0 / 5040,
                                           1.0 / 362880, -1.0 / 39916800, 1.0 / 6227020800.0, -1.0 / 1307674368000.0};
  static constexpr double derivative_terms[] = {-1.0 / 3,       1.0 / 30,          -1.0 / 840,          1.0 / 45360,
                                                -1.0 / 3991680, 1.0 / 518918400.0, -1.0 / 93405312000.0};

  // c[0] + c[1] t + c[2] t^2 + ...
  template <class T, std::size_t N>
  static constexpr T horner(T t, const double (&c)[N]) {
    T s(c[N - 1]);
    for (std::size_t i = N - 1; i-- > 0;) s = s * t + T(c[i]);
    return s;
  }
};

/// sin(x) / x of a number, a var, an expression or (element by element) a matrix.
template <tl::Operand X>
constexpr auto sinc(X&& x) {
  return tl::make_unary(sinc_op{}, std::forward<X>(x));
}

}  // namespace example
