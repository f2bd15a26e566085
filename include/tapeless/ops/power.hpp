// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/power.hpp: pow (by an integer, a number, an expression, and of a number), sqrt, cbrt, square, hypot.
#pragma once

#include <tapeless/expr/inline.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/math/functions.hpp>

#include <concepts>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tapeless {
namespace ops {

namespace detail {
/// x^n by repeated squaring: exact for small n, and what pow(x, 2) should cost (one multiplication).
template <class T>
constexpr T ipow(T x, long long n) {
  if (n < 0) return T(1) / ipow(x, -n);
  T result(1);
  for (; n > 0; n >>= 1, x = x * x)
    if (n & 1) result = result * x;
  return result;
}
}  // namespace detail

/// x^n for an integer n known when the node is built: d/dx = n x^(n-1).
struct pow_int {
  static constexpr operation_traits traits{.name = "pow", .vjp_reads = reads_operands};
  long long n;
  template <class T>
  constexpr T value(T x) const {
    return detail::ipow(x, n);
  }
  template <class T>
  constexpr T derivative(T x, T) const {
    return n == 0 ? T(0) : T(n) * detail::ipow(x, n - 1);
  }
};

/// x^p for a number p: d/dx = p x^(p-1), taken as p y / x where x is finite and not 0 to save a second
/// pow. At x = 0 and x = ±inf (where y / x is 0 / 0 or inf / inf) it is p x^(p-1), the limit, except for
/// p = 0: x^0 = 1 for every x, so its derivative is 0 there too (p 0^(p-1) would be 0 * infinity = NaN).
/// A p that is an integer of magnitude at most max_repeated_squaring, such as the -3.0 of
/// pow(r2, -3.0), takes pow_int's repeated squaring instead of a call to std::pow, which costs ten times
/// the few multiplications (within ulps of std::pow; NaN and infinities propagate as through pow). The
/// test is one comparison that a constant p folds away.
template <class P>
struct pow_real {
  static constexpr operation_traits traits{.name = "pow"};
  /// The largest |p| computed by repeated squaring: at most 12 multiplications and one division.
  static constexpr long long max_repeated_squaring = 64;
  P p;
  /// Whether p is such an integer. Asked only of a floating-point p: a p of dual numbers (a constant
  /// of a Hessian's tangents) always calls pow.
  [[nodiscard]] constexpr bool small_integer() const requires std::floating_point<P> {
    return p >= P(-max_repeated_squaring) && p <= P(max_repeated_squaring) && p == P(static_cast<long long>(p));
  }
  template <class T>
  constexpr T value(T x) const {
    if constexpr (std::floating_point<P>)
      if (small_integer()) return detail::ipow(x, static_cast<long long>(p));
    return math::pow(x, T(p));
  }
  template <class T>
  constexpr T derivative(T x, T y) const {
    if (x != T(0) && !math::isinf(x)) return T(p) * y / x;
    if (T(p) == T(0)) return T(0);
    if constexpr (std::floating_point<P>)
      if (small_integer()) return T(p) * detail::ipow(x, static_cast<long long>(p) - 1);
    return T(p) * math::pow(x, T(p) - T(1));
  }
};

/// c^y for a number c: d/dy = c^y ln c, taken as 0 where c^y is 0 (c = 0), where ln c would give NaN.
template <class C>
struct pow_base {
  static constexpr operation_traits traits{.name = "pow", .vjp_reads = reads_value};
  C c;
  template <class T>
  constexpr T value(T y) const {
    return math::pow(T(c), y);
  }
  template <class T>
  constexpr T derivative(T, T z) const {
    return z == T(0) ? T(0) : z * math::log(T(c));
  }
};

/// x^y for two expressions; the same rules as pow_real and pow_base side by side.
/// At x = 0 and x = ±inf: dz/dx = y x^(y-1), and 0 for y = 0 (x^0 is 1 everywhere, so 0 rather than
/// 0 * infinity).
/// dz/dy = z ln x is taken as 0 where z = 0: 0^y for y > 0 is 0 for all y near it, where z ln x
/// would be 0 * -infinity = NaN. For y <= 0 it stays z ln 0, infinite (-infinity at 0^0 = 1, the
/// limit from x > 0). A negative base gives a NaN dz/dy (log of a negative number) and, with an
/// integral y, the ordinary dz/dx.
struct pow {
  static constexpr operation_traits traits{.name = "pow"};
  template <class T>
  static constexpr T value(T x, T y) {
    return math::pow(x, y);
  }
  template <class T>
  static constexpr std::pair<T, T> vjp(T g, T x, T y, T z) {
    const T dx = x != T(0) && !math::isinf(x) ? y * z / x : y == T(0) ? T(0) : y * math::pow(x, y - T(1));
    const T dy = z == T(0) ? T(0) : z * math::log(x);
    return {g * dx, g * dy};
  }
};

struct sqrt {
  static constexpr operation_traits traits{.name = "sqrt", .batched = true, .vjp_reads = reads_value};
  template <class T>
  static constexpr T value(T x) {
    return math::sqrt(x);
  }
  template <class T>
  static constexpr T vjp(T g, T, T y) {
    return g / (T(2) * y);
  }
};

struct cbrt {
  static constexpr operation_traits traits{.name = "cbrt", .vjp_reads = reads_value};
  template <class T>
  static constexpr T value(T x) {
    return math::cbrt(x);
  }
  template <class T>
  static constexpr T vjp(T g, T, T y) {
    return g / (T(3) * y * y);
  }
};

/// y = x^2: g dy/dx = 2 (g x), not g (2 x). x * x of a grad argument or let name becomes square(x),
/// while x * x of two vars stays a product, whose rule adds g x twice: 2 (g x) equals g x + g x bit for
/// bit (doubling is exact), so both give one gradient, also where 2 x would overflow and g is 0 (0, not
/// 0 * inf = NaN). In forward mode value(x) = x * x of a dual carries its own product-rule tangent.
struct square {
  static constexpr operation_traits traits{.name = "square",
                                           .batched = true,
                                           .plain_arithmetic = true,
                                           .vjp_reads = reads_operands,
                                           .partials = partials_form::square};
  template <class T>
  static constexpr T value(T x) {
    return x * x;
  }
  template <class T>
  static constexpr T vjp(T g, T x, T) {
    return T(2) * (g * x);
  }
};

/// z = hypot(x, y) = sqrt(x^2 + y^2): dz/dx = x / z, dz/dy = y / z; 0 at the kink x = y = 0. Where z is
/// infinite, the limits: the sign of x for an infinite x, 0 for a finite one, ±1/√2 each where both are
/// infinite (math::detail::hypot_partials, which the dual-number hypot shares).
struct hypot {
  static constexpr operation_traits traits{.name = "hypot"};
  template <class T>
  static constexpr T value(T x, T y) {
    return math::hypot(x, y);
  }
  template <class T>
  static constexpr std::pair<T, T> vjp(T g, T x, T y, T z) {
    return math::detail::hypot_partials(g, x, y, z);
  }
};

}  // namespace ops

/// pow(base, exponent), each an expression, a var or a number. An integer exponent is kept exact
/// (pow(x, 2) costs one multiplication); a number on either side is not differentiated.
template <Operand X, Operand Y>
TAPELESS_BUILD_INLINE constexpr auto pow(X&& x, Y&& y) {
  using XD = std::remove_cvref_t<X>;
  using YD = std::remove_cvref_t<Y>;
  if constexpr (std::integral<YD>) {
    if constexpr (Differentiable<X> || Matrix<XD> || RunTimeMatrix<XD>)
      return detail::make_unary(ops::pow_int{static_cast<long long>(y)}, std::forward<X>(x));
    else
      return ops::detail::ipow(static_cast<detail::plain_value_t<XD>>(x), static_cast<long long>(y));
  } else if constexpr ((Differentiable<X> && Differentiable<Y>) || Matrix<XD> || Matrix<YD> || RunTimeMatrix<XD> ||
                       RunTimeMatrix<YD>) {
    // A plain matrix on either side is a constant of an elementwise pow (a number beside it is used
    // for every element); the constant side costs nothing in the sweep.
    return detail::make_binary(ops::pow{}, std::forward<X>(x), std::forward<Y>(y));
  } else if constexpr (Differentiable<X>) {
    return detail::make_unary(ops::pow_real<scalar_type_of_t<X>>{static_cast<scalar_type_of_t<X>>(y)},
                              std::forward<X>(x));
  } else if constexpr (Differentiable<Y>) {
    return detail::make_unary(ops::pow_base<scalar_type_of_t<Y>>{static_cast<scalar_type_of_t<Y>>(x)},
                              std::forward<Y>(y));
  } else {
    return ops::pow::value(static_cast<detail::plain_value_t<XD, YD>>(x),
                           static_cast<detail::plain_value_t<XD, YD>>(y));
  }
}

template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto sqrt(X&& x) {
  return detail::make_unary(ops::sqrt{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto cbrt(X&& x) {
  return detail::make_unary(ops::cbrt{}, std::forward<X>(x));
}
template <Operand X>
TAPELESS_BUILD_INLINE constexpr auto square(X&& x) {
  return detail::make_unary(ops::square{}, std::forward<X>(x));
}
template <Operand X, Operand Y>
TAPELESS_BUILD_INLINE constexpr auto hypot(X&& x, Y&& y) {
  return detail::make_binary(ops::hypot{}, std::forward<X>(x), std::forward<Y>(y));
}

}  // namespace tapeless
