// SPDX-License-Identifier: BSL-1.0
// meta/type_list.hpp: a list's size, and join_t keeping every type in order, repeats and empty lists
// included.
#include <doctest/doctest.h>
#include <tapeless/meta/type_list.hpp>

#include <type_traits>

namespace d = tapeless::detail;

TEST_CASE("type_list: size, and join_t in order") {
  static_assert(d::type_list<>::size == 0);
  static_assert(d::type_list<int, double, int>::size == 3);
  static_assert(std::is_same_v<d::join_t<d::type_list<>>, d::type_list<>>);
  static_assert(std::is_same_v<d::join_t<d::type_list<int, char>>, d::type_list<int, char>>);
  static_assert(std::is_same_v<d::join_t<d::type_list<int, char>, d::type_list<>, d::type_list<double>>,
                               d::type_list<int, char, double>>);
  // A type in two lists stays twice: a join collects, it does not deduplicate.
  using joined = d::join_t<d::type_list<int>, d::type_list<float, int>, d::type_list<int>>;
  static_assert(std::is_same_v<joined, d::type_list<int, float, int, int>>);
  CHECK(joined::size == 4);
}
