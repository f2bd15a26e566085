// SPDX-License-Identifier: BSL-1.0
// The comparisons of ops/compare.hpp: of nodes, numbers and vars, they compare values and give plain
// bools, with no derivative. (Which operands they take, at compile time: test/static/compare_static.cpp;
// matrices' elementwise comparisons: mask_test.cpp.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <initializer_list>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

TEST_CASE("comparisons compare values and give plain bools") {
  const auto check = [](auto x, auto y) {
    static_assert(std::is_same_v<decltype(x < y), bool>);
    static_assert(std::is_same_v<decltype(x == y), bool>);
    CHECK((x < y) == (x.value() < y.value()));
    CHECK((x > y) == (x.value() > y.value()));
    CHECK((x <= y) == (x.value() <= y.value()));
    CHECK((x >= y) == (x.value() >= y.value()));
    CHECK((x == y) == (x.value() == y.value()));
    CHECK((x != y) == (x.value() != y.value()));
    CHECK((x < 1.0) == (x.value() < 1.0));
    CHECK((1.0 < x) == (1.0 < x.value()));
    CHECK((x > 1) == (x.value() > 1));
    CHECK((x * y > 2.0) == (x.value() * y.value() > 2.0));
    return 0.0;
  };
  for (const double a : {-1.0, 1.0, 2.0})
    for (const double b : {-1.0, 1.0, 2.0}) {
      CAPTURE(a);
      CAPTURE(b);
      // the comparisons happen inside f, on the argument leaves; f returns a constant
      CHECK(tl::grad([&](auto x, auto y) { return check(x * 1.0, y * 1.0); })(a, b) == std::tuple{0.0, 0.0});
    }
  tl::var<double> v{3.0};
  CHECK(v > 2.0);
  CHECK(v == 3.0);
  CHECK(!(v < 3.0));
}
