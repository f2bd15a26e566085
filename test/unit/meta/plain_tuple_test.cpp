// SPDX-License-Identifier: BSL-1.0
// meta/plain_tuple.hpp: a plain_tuple of trivially copyable types is trivially copyable (std::tuple
// is not), aggregate-initialized, read and written by plain_get, and spread into a call by apply_plain,
// at run time and in constant expressions.
#include <doctest/doctest.h>
#include <tapeless/meta/plain_tuple.hpp>

#include <string>
#include <tuple>
#include <type_traits>

namespace d = tapeless::detail;

TEST_CASE("plain_tuple: trivially copyable where its elements are") {
  static_assert(std::is_trivially_copyable_v<d::plain_tuple<int, double, int>>);
  static_assert(!std::is_trivially_copyable_v<std::tuple<int, double>>);
  static_assert(!std::is_trivially_copyable_v<d::plain_tuple<int, std::string>>);
  static_assert(d::plain_tuple<>::size == 0 && d::plain_tuple<int, double, int>::size == 3);
  static_assert(sizeof(d::plain_tuple<double, double>) == 2 * sizeof(double));
}

TEST_CASE("plain_tuple: plain_get by position, apply_plain in order") {
  d::plain_tuple<int, double, int> t{{1}, {2.5}, {3}};  // two ints: told apart by position
  CHECK(d::plain_get<0>(t) == 1);
  CHECK(d::plain_get<1>(t) == 2.5);
  CHECK(d::plain_get<2>(t) == 3);
  d::plain_get<2>(t) = 7;
  const auto& ct = t;
  CHECK(d::plain_get<2>(ct) == 7);
  static_assert(std::is_same_v<decltype(d::plain_get<1>(ct)), const double&>);
  CHECK(d::apply_plain([](int a, double b, int c) { return a * 100 + b * 10 + c; }, t) == 100 + 25 + 7);
  // apply_plain passes references: the function may write through them.
  d::apply_plain([](int& a, double&, int&) { a = -1; }, t);
  CHECK(d::plain_get<0>(t) == -1);
  constexpr d::plain_tuple<int, int> c{{4}, {5}};
  static_assert(d::apply_plain([](int a, int b) { return a - b; }, c) == -1);
}
