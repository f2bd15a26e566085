// SPDX-License-Identifier: BSL-1.0
// tapeless/math/functions.hpp: elementary functions usable both at run time and in constant expressions.
//
// At run time each function calls the standard library (same results, same speed as std::).
// In a constant expression it calls tapeless::math::cx, the library's own constexpr
// implementations, because clang does not evaluate std::sin and friends at compile time.
#pragma once

#include <tapeless/math/constexpr_math.hpp>

#include <cmath>
#include <concepts>
#include <type_traits>

namespace tapeless::math {

#define TAPELESS_MATH_DISPATCH_1(name)                                          \
  template <std::floating_point T>                                              \
  constexpr T name(T x) noexcept {                                              \
    if (std::is_constant_evaluated()) return static_cast<T>(cx::name(static_cast<double>(x))); \
    return std::name(x);                                                        \
  }
#define TAPELESS_MATH_DISPATCH_2(name)                                          \
  template <std::floating_point T>                                              \
  constexpr T name(T x, T y) noexcept {                                         \
    if (std::is_constant_evaluated())                                           \
      return static_cast<T>(cx::name(static_cast<double>(x), static_cast<double>(y))); \
    return std::name(x, y);                                                     \
  }

TAPELESS_MATH_DISPATCH_1(exp)
TAPELESS_MATH_DISPATCH_1(exp2)
TAPELESS_MATH_DISPATCH_1(expm1)
TAPELESS_MATH_DISPATCH_1(log)
TAPELESS_MATH_DISPATCH_1(log2)
TAPELESS_MATH_DISPATCH_1(log10)
TAPELESS_MATH_DISPATCH_1(log1p)
TAPELESS_MATH_DISPATCH_1(sqrt)
TAPELESS_MATH_DISPATCH_1(cbrt)
TAPELESS_MATH_DISPATCH_1(sin)
TAPELESS_MATH_DISPATCH_1(cos)
TAPELESS_MATH_DISPATCH_1(tan)
TAPELESS_MATH_DISPATCH_1(asin)
TAPELESS_MATH_DISPATCH_1(acos)
TAPELESS_MATH_DISPATCH_1(atan)
TAPELESS_MATH_DISPATCH_1(sinh)
TAPELESS_MATH_DISPATCH_1(cosh)
TAPELESS_MATH_DISPATCH_1(tanh)
TAPELESS_MATH_DISPATCH_1(asinh)
TAPELESS_MATH_DISPATCH_1(acosh)
TAPELESS_MATH_DISPATCH_1(atanh)
TAPELESS_MATH_DISPATCH_1(erf)
TAPELESS_MATH_DISPATCH_1(erfc)
TAPELESS_MATH_DISPATCH_2(pow)
TAPELESS_MATH_DISPATCH_2(atan2)
TAPELESS_MATH_DISPATCH_2(hypot)

#undef TAPELESS_MATH_DISPATCH_1
#undef TAPELESS_MATH_DISPATCH_2

/// |x|, constexpr on every compiler (std::abs is constexpr only from C++23).
template <std::floating_point T>
constexpr T abs(T x) noexcept {
  return x < T(0) ? -x : (x == T(0) ? T(0) : x);  // abs(-0.0) is +0.0; NaN passes through
}

/// True for NaN, constexpr on every compiler.
template <std::floating_point T>
constexpr bool isnan(T x) noexcept {
  return x != x;
}

}  // namespace tapeless::math
