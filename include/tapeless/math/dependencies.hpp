// SPDX-License-Identifier: BSL-1.0
// tapeless/math/dependencies.hpp: dependencies<N>, the set of arguments a number depends on, as the
// tangent of a dual number: the scalar that finds sparsity patterns.
//
// A sparsity pattern is found by running f (or its reverse sweep) once with dual numbers whose tangent
// is a set of argument elements instead of a number: element j of the argument starts with {j}, and
// every operation that would combine tangents (a sum, a number times a tangent) takes the union of
// their sets. The tangent of a result is then the set of elements its derivative can depend on: a row
// of the Jacobian's pattern, or, through a reverse sweep, of the Hessian's. A number times a set is the
// set whatever the number, so no entry is lost to a value that happens to be zero at the point
// evaluated; and a branch between two numbers (math::select) keeps both sides' sets, so the pattern
// holds at every point, not only the one evaluated.
#pragma once

#include <tapeless/math/dual.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tapeless::detail {

/// A set of indices below N, as bits: what a tangent depends on. Empty when value-initialized
/// (dependencies<N>{}); left unset by default-initialization, as tangents<T, N> is, so that a dual of
/// it is value-initialized whole in a constant expression.
template <std::size_t N>
struct dependencies {
  static constexpr std::size_t word_count = N == 0 ? 1 : (N + 63) / 64;
  // No default member initializer: it would make the default constructor non-trivial (see above).
  std::array<std::uint64_t, word_count> words;  // NOLINT(modernize-use-default-member-init)

  constexpr dependencies() = default;
  /// A number as a tangent (a constant's, a NaN's): it depends on nothing.
  template <class U>
    requires std::is_arithmetic_v<U>
  constexpr explicit dependencies(U) : words{} {}

  /// {j}, the set of argument element j.
  static constexpr dependencies of(std::size_t j) {
    dependencies d{};
    d.words[j / 64] = std::uint64_t{1} << (j % 64);
    return d;
  }

  constexpr void erase(std::size_t j) { words[j / 64] &= ~(std::uint64_t{1} << (j % 64)); }
  [[nodiscard]] constexpr bool contains(std::size_t j) const { return (words[j / 64] >> (j % 64)) & 1U; }
  [[nodiscard]] constexpr bool empty() const {
    for (const auto w : words)
      if (w != 0) return false;
    return true;
  }
  /// Calls f(j) for each j of the set, in increasing order.
  template <class F>
  constexpr void each(F f) const {
    for (std::size_t w = 0; w < word_count; ++w)
      for (std::uint64_t bits = words[w]; bits != 0; bits &= bits - 1)
        f(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
  }
  /// The smallest index not in the set (N where every index below N is).
  [[nodiscard]] constexpr std::size_t first_missing() const {
    for (std::size_t w = 0; w < word_count; ++w)
      if (words[w] != ~std::uint64_t{0}) return w * 64 + static_cast<std::size_t>(std::countr_one(words[w]));
    return word_count * 64;
  }
  [[nodiscard]] constexpr std::size_t count() const {
    std::size_t c = 0;
    for (const auto w : words) c += static_cast<std::size_t>(std::popcount(w));
    return c;
  }

  // Every combination of tangents is the union: a difference too, since a - b depends on both.
  constexpr dependencies& operator+=(const dependencies& o) {
    for (std::size_t i = 0; i < word_count; ++i) words[i] |= o.words[i];
    return *this;
  }
  constexpr dependencies& operator-=(const dependencies& o) { return *this += o; }
  friend constexpr dependencies operator+(dependencies a, const dependencies& b) { return a += b; }
  friend constexpr dependencies operator-(dependencies a, const dependencies& b) { return a += b; }
  friend constexpr dependencies operator-(const dependencies& a) { return a; }
  // A number times a set, or a set over a number: the set (see the file comment).
  template <class T>
  friend constexpr dependencies operator*(const T&, const dependencies& a) {
    return a;
  }
  template <class T>
  friend constexpr dependencies operator*(const dependencies& a, const T&) {
    return a;
  }
  template <class T>
  friend constexpr dependencies operator/(const dependencies& a, const T&) {
    return a;
  }
  friend constexpr bool operator==(const dependencies&, const dependencies&) = default;
};

template <class T>
inline constexpr bool is_dependency_dual = false;
template <class T, std::size_t N>
inline constexpr bool is_dependency_dual<dual<T, dependencies<N>>> = true;

/// The side a branch takes, carrying the sets of both sides: what math::select gives for dual numbers
/// that find a pattern.
template <class T, std::size_t N>
constexpr dual<T, dependencies<N>> both_sides(bool condition, const dual<T, dependencies<N>>& if_true,
                                              const dual<T, dependencies<N>>& if_false) {
  return {condition ? if_true.value : if_false.value, if_true.tangent + if_false.tangent};
}

}  // namespace tapeless::detail
