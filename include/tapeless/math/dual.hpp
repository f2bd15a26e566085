// SPDX-License-Identifier: BSL-1.0
// tapeless/math/dual.hpp: dual<T>, a number with a tangent, the scalar of forward mode.
//
// jvp, jacobian and hessian evaluate a function (or its reverse sweep) once with dual numbers
// instead of plain ones: every operation carries the derivative along a chosen direction beside its
// value, so one evaluation gives J v, and one reverse sweep in duals gives H v (forward over reverse).
// The engine takes a dual wherever it takes a double; a dual of duals is a second derivative.
//
// Comparisons compare values only, so branches (pivoting, the domain tests of the rules, max) take the
// branch the plain computation takes, and the tangent is that branch's derivative.
#pragma once

#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <numbers>
#include <type_traits>

namespace tapeless {

/// N tangents carried at once (a chunk of directions), so that one sweep serves N columns of a
/// Hessian: the arithmetic a tangent needs, lane by lane, in loops the compiler vectorises.
template <class T, std::size_t N>
struct tangents {
  // Like a double, left uninitialized by default-initialization (the library's loops that write every
  // element skip a fill) and zero when value-initialized: tangents<T, N>{}.
  std::array<T, N> lane;

  constexpr tangents() = default;
  constexpr explicit tangents(T v) { lane.fill(v); }

  constexpr tangents& operator+=(const tangents& o) {
    for (std::size_t i = 0; i < N; ++i) lane[i] += o.lane[i];
    return *this;
  }
  constexpr tangents& operator-=(const tangents& o) {
    for (std::size_t i = 0; i < N; ++i) lane[i] -= o.lane[i];
    return *this;
  }
  friend constexpr tangents operator+(tangents a, const tangents& b) { return a += b; }
  friend constexpr tangents operator-(tangents a, const tangents& b) { return a -= b; }
  friend constexpr tangents operator-(tangents a) {
    for (auto& e : a.lane) e = -e;
    return a;
  }
  friend constexpr tangents operator*(const T& s, tangents a) {
    for (auto& e : a.lane) e = s * e;
    return a;
  }
  friend constexpr tangents operator*(tangents a, const T& s) { return s * a; }
  friend constexpr tangents operator/(tangents a, const T& s) {
    for (auto& e : a.lane) e = e / s;
    return a;
  }
  friend constexpr bool operator==(const tangents&, const tangents&) = default;
};

/// value + tangent * epsilon, epsilon^2 = 0. The tangent D is a number of type T (one direction), or
/// tangents<T, N> (N directions at once).
template <class T, class D = T>
struct dual {
  // Left uninitialized by default-initialization, as a double is; dual<T>{} is zero.
  T value;
  D tangent;

  constexpr dual() = default;
  /// A number becomes a dual with tangent 0: constants do not move along any direction.
  template <class U>
    requires(std::is_arithmetic_v<U> || std::is_same_v<U, T>)
  constexpr dual(U v) : value(static_cast<T>(v)), tangent{} {}  // NOLINT: implicit, as a double is
  constexpr dual(T v, D t) : value(v), tangent(t) {}

  constexpr dual& operator+=(const dual& o) {
    value += o.value;
    tangent += o.tangent;
    return *this;
  }
  constexpr dual& operator-=(const dual& o) {
    value -= o.value;
    tangent -= o.tangent;
    return *this;
  }
  constexpr dual& operator*=(const dual& o) { return *this = *this * o; }
  constexpr dual& operator/=(const dual& o) { return *this = *this / o; }

  friend constexpr dual operator+(const dual& a) { return a; }
  friend constexpr dual operator-(const dual& a) { return {-a.value, -a.tangent}; }
  friend constexpr dual operator+(const dual& a, const dual& b) { return {a.value + b.value, a.tangent + b.tangent}; }
  friend constexpr dual operator-(const dual& a, const dual& b) { return {a.value - b.value, a.tangent - b.tangent}; }
  friend constexpr dual operator*(const dual& a, const dual& b) {
    return {a.value * b.value, a.tangent * b.value + a.value * b.tangent};
  }
  friend constexpr dual operator/(const dual& a, const dual& b) {
    const T q = a.value / b.value;
    return {q, (a.tangent - q * b.tangent) / b.value};
  }
  // Comparisons see values only (see the file comment).
  friend constexpr bool operator==(const dual& a, const dual& b) { return a.value == b.value; }
  friend constexpr bool operator<(const dual& a, const dual& b) { return a.value < b.value; }
  friend constexpr bool operator>(const dual& a, const dual& b) { return a.value > b.value; }
  friend constexpr bool operator<=(const dual& a, const dual& b) { return a.value <= b.value; }
  friend constexpr bool operator>=(const dual& a, const dual& b) { return a.value >= b.value; }
};

namespace detail {
template <class T>
inline constexpr bool is_dual = false;
template <class T, class D>
inline constexpr bool is_dual<dual<T, D>> = true;

/// The floating-point type at the bottom of a number type: double for double, dual<dual<double>> ...
template <class T>
struct real_of {
  using type = T;
};
template <class T, class D>
struct real_of<dual<T, D>> : real_of<T> {};
template <class T>
using real_of_t = typename real_of<T>::type;

/// The value of x with every tangent dropped, at any nesting.
template <class T>
constexpr real_of_t<T> primal(const T& x) {
  if constexpr (is_dual<T>)
    return primal(x.value);
  else
    return x;
}

/// The constants of std::numbers the rules use, in any number type T, dual or not
/// (std::numbers' own are defined for floating-point types only).
template <class T>
inline constexpr T ln2_v = T(std::numbers::ln2_v<real_of_t<T>>);
template <class T>
inline constexpr T ln10_v = T(std::numbers::ln10_v<real_of_t<T>>);
template <class T>
inline constexpr T inv_sqrtpi_v = T(std::numbers::inv_sqrtpi_v<real_of_t<T>>);
}  // namespace detail

}  // namespace tapeless

// A dual of float is a dual<float>; a dual beside a plain number computes in the dual's type.
template <class T, class D, class U>
  requires std::is_arithmetic_v<U>
struct std::common_type<tapeless::dual<T, D>, U> {
  using type = tapeless::dual<T, D>;
};
template <class T, class D, class U>
  requires std::is_arithmetic_v<U>
struct std::common_type<U, tapeless::dual<T, D>> {
  using type = tapeless::dual<T, D>;
};

/// The limits of the value; the special values (NaN, infinity) carry a tangent of 0, NaN a NaN one.
template <class T, class D>
struct std::numeric_limits<tapeless::dual<T, D>> : std::numeric_limits<T> {
  using X = tapeless::dual<T, D>;
  static constexpr X min() noexcept { return X(std::numeric_limits<T>::min()); }
  static constexpr X max() noexcept { return X(std::numeric_limits<T>::max()); }
  static constexpr X lowest() noexcept { return X(std::numeric_limits<T>::lowest()); }
  static constexpr X epsilon() noexcept { return X(std::numeric_limits<T>::epsilon()); }
  static constexpr X infinity() noexcept { return X(std::numeric_limits<T>::infinity()); }
  static constexpr X denorm_min() noexcept { return X(std::numeric_limits<T>::denorm_min()); }
  static constexpr X quiet_NaN() noexcept {
    return X(std::numeric_limits<T>::quiet_NaN(), D(std::numeric_limits<T>::quiet_NaN()));
  }
};
