// SPDX-License-Identifier: BSL-1.0
// The concepts of concepts/scalar.hpp: which numbers are Real (differentiable arguments) and which are
// Constant (plain numbers beside an expression), whatever their const and reference qualifiers; and
// that a Constant of any such type enters an expression as a number with no derivative.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cstdint>

namespace tl = tapeless;

TEST_CASE("Real: the floating-point types and dual numbers of them") {
  static_assert(tl::Real<float> && tl::Real<double> && tl::Real<long double>);
  static_assert(tl::Real<const double&> && tl::Real<double&&>);
  static_assert(tl::Real<tl::dual<double>> && tl::Real<const tl::dual<float>&>);
  static_assert(tl::Real<tl::dual<tl::dual<double>>>);  // a dual of a dual: third derivatives
  static_assert(!tl::Real<int> && !tl::Real<bool> && !tl::Real<char>);
  static_assert(!tl::Real<tl::matrix<double, 2, 2>> && !tl::Real<double*>);
}

TEST_CASE("Constant: the arithmetic types but bool, and dual numbers") {
  static_assert(tl::Constant<int> && tl::Constant<std::int64_t> && tl::Constant<unsigned char>);
  static_assert(tl::Constant<float> && tl::Constant<const double&> && tl::Constant<tl::dual<double>>);
  static_assert(!tl::Constant<bool> && !tl::Constant<const bool&>);
  static_assert(!tl::Constant<tl::matrix<double, 2, 2>> && !tl::Constant<double*>);
  // Each Constant beside an argument: the value as the plain numbers give it, no derivative of its own.
  const auto [value, slope] = tl::value_and_grad([](auto x) { return 2 * x + std::int64_t{3} - 0.5f * x; })(4.0);
  CHECK(value == 2 * 4.0 + 3 - 0.5 * 4.0);
  CHECK(slope == 1.5);
}
