// SPDX-License-Identifier: BSL-1.0
// detail::dependencies (math/dependencies.hpp): the set arithmetic of a pattern's tangents, in a
// constant expression; dual numbers of them through the functions and math::select.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;

namespace {
template <std::size_t N>
using set = tl::detail::dependencies<N>;
using pattern_dual = tl::dual<double, set<130>>;
}  // namespace

TEST_CASE("a set of dependencies: union for every combination, numbers change nothing") {
  constexpr auto a = set<130>::of(0) + set<130>::of(64) + set<130>::of(129);
  static_assert(a.count() == 3 && a.contains(0) && a.contains(64) && a.contains(129) && !a.contains(1));
  static_assert(set<130>{}.empty() && set<130>(2.5).empty() && !a.empty());
  static_assert(a - set<130>::of(64) == a);  // a difference depends on both sides
  static_assert(-a == a && 3.0 * a == a && a * 0.0 == a && a / 2.0 == a);
  static_assert([] {
    auto s = set<130>::of(5) + set<130>::of(70);
    s.erase(5);
    return s == set<130>::of(70) && s.first_missing() == 0;
  }());
  static_assert([] {
    set<130> s{};
    for (std::size_t j = 0; j < 67; ++j) s += set<130>::of(j);
    std::size_t visited = 0, last = 0;
    s.each([&](std::size_t j) {
      ++visited;
      last = j;
    });
    return s.first_missing() == 67 && visited == 67 && last == 66;
  }());
}

TEST_CASE("dual numbers of sets: each function keeps its argument's set, a branch keeps both") {
  const pattern_dual x{0.5, set<130>::of(3)}, y{2.0, set<130>::of(100)};
  CHECK(tl::math::exp(x).tangent == x.tangent);
  CHECK(tl::math::atan2(x, y).tangent == x.tangent + y.tangent);
  CHECK((x * y).tangent == x.tangent + y.tangent);
  CHECK((x / y).tangent == x.tangent + y.tangent);
  CHECK((x + 1.0).tangent == x.tangent);
  // Both sides' sets whichever side the value takes; the value is the side taken.
  const auto chosen = tl::math::select(x > y, x, y);
  CHECK(chosen.value == 2.0);
  CHECK(chosen.tangent == x.tangent + y.tangent);
  const auto lazy = tl::math::lazy_select(
      true, [&] { return x; }, [&] { return y; });
  CHECK(lazy.value == 0.5);
  CHECK(lazy.tangent == x.tangent + y.tangent);
}
