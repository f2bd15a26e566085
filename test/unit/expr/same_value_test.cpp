// SPDX-License-Identifier: BSL-1.0
// Node types that say by themselves that their nodes have one value (expr/same_value.hpp): arguments,
// let names, and operations without data of their own on them. Such a value used twice in one product
// is computed once (e * e is square(e)), with the gradient of the product as written; anything carrying
// run-time data (an index, a constant, a cut) is not taken for one value.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include "finite_difference.hpp"

#include <cmath>
#include <type_traits>

namespace tl = tapeless;
namespace d = tl::detail;

namespace {
using X = tl::argument<0, double>;
using Y = tl::argument<1, double>;
using V = tl::vector<double, 4>;
using A = tl::argument<0, V>;
template <class E>
constexpr bool is_square = false;
template <class Op, class Arg>
constexpr bool is_square<tl::unary_node<Op, Arg>> = std::is_same_v<Op, tl::ops::square>;
}  // namespace

TEST_CASE("which types name one value") {
  const X x(1.0);
  const Y y(2.0);
  static_assert(d::one_value_by_type<X>);
  static_assert(d::one_value_by_type<decltype(tl::exp(x - y) * tl::sin(x * y))>);
  static_assert(d::one_value_by_type<decltype(tl::slice<0, 2>(A(V{})))>);
  static_assert(!d::one_value_by_type<decltype(x - 1.0)>);        // a constant is data
  static_assert(!d::one_value_by_type<decltype(A(V{})[1])>);      // an index is data
  static_assert(!d::one_value_by_type<decltype(tl::pow(x, 3))>);  // so is an exponent
}

TEST_CASE("a value of one type used twice in a product is computed once, with the same gradient") {
  const auto twice = [](const auto& x, const auto& y) {
    const auto e = tl::exp(x - y) * tl::sin(x * y);
    return e * e;
  };
  const auto once = [](const auto& x, const auto& y) {
    return tl::let(tl::exp(x - y) * tl::sin(x * y), [](const auto& e) { return e * e; });
  };
  static_assert(is_square<decltype(twice(X(1.0), Y(2.0)))>);
  fd::rng rng{20261127};
  for (int k = 0; k < 20; ++k) {
    const double x = rng.uniform(-2.0, 2.0), y = rng.uniform(-2.0, 2.0);
    const auto [gx, gy] = tl::grad(twice)(x, y);
    const auto [lx, ly] = tl::grad(once)(x, y);
    CHECK(fd::rel_error(gx, lx) < 1e-15);
    CHECK(fd::rel_error(gy, ly) < 1e-15);
    const double e = std::exp(x - y) * std::sin(x * y);
    const double ex = e + std::exp(x - y) * std::cos(x * y) * y;   // de/dx
    const double ey = -e + std::exp(x - y) * std::cos(x * y) * x;  // de/dy
    CHECK(fd::rel_error(gx, 2 * e * ex) < 1e-13);
    CHECK(fd::rel_error(gy, 2 * e * ey) < 1e-13);
    const auto numeric = fd::gradient([&](double a, double b) { return twice(a, b); }, x, y);
    CHECK(fd::rel_error(gx, numeric[0]) < 1e-8);
    CHECK(fd::rel_error(gy, numeric[1]) < 1e-8);
  }
  // Two element accesses of one index are two nodes (the index is run-time data): a product, not a square.
  const auto elements = [](const auto& v) { return v[1] * v[1]; };
  static_assert(!is_square<decltype(elements(A(V{})))>);
  const V v{{0.5}, {-1.5}, {2.0}, {3.0}};
  CHECK(tl::grad(elements)(v)[1] == -3.0);
}
