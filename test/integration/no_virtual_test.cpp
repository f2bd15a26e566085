// SPDX-License-Identifier: BSL-1.0
// The sweep has no virtual dispatch and no type erasure: every node of a graph is a plain,
// trivially copyable, non-polymorphic value whose type names its whole structure. (A let over a
// matrix is not trivially copyable: its copy points its names at its own value, expr/let.hpp.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <type_traits>

namespace tl = tapeless;

namespace {

template <class E>
constexpr bool plain_node =
    !std::is_polymorphic_v<E> && std::is_trivially_copyable_v<E> && std::is_trivially_destructible_v<E>;

constexpr auto f = [](auto x, auto y) {
  auto t = tl::let(x - y, [](auto d) { return d * d + tl::sin(d); });
  return tl::if_else(x > 0.0, t * tl::exp(y), tl::pow(x, 3)) + tl::min(x, 2.0 * y);
};
using leaf = tl::argument<0, double>;
using graph = decltype(f(leaf(1.0), tl::argument<1, double>(2.0)));

// The graph's type spells out its operations: the sweep is resolved at compile time.
static_assert(plain_node<graph>);
static_assert(plain_node<leaf> && plain_node<tl::constant<double>> && plain_node<tl::var_ref<double>>);
static_assert(plain_node<tl::unary_node<tl::ops::exp, leaf>>);
static_assert(plain_node<tl::binary_node<tl::ops::multiply, leaf, leaf>>);
static_assert(!std::is_polymorphic_v<tl::var<double>>);

using matrix_leaf = tl::argument<0, tl::matrix<double, 2, 2>>;
using matrix_let = decltype(tl::let(matrix_leaf(tl::matrix<double, 2, 2>{}), [](auto p) { return tl::sum(p * p); }));
static_assert(!std::is_polymorphic_v<matrix_let> && std::is_trivially_destructible_v<matrix_let>);
static_assert(!std::is_trivially_copyable_v<matrix_let> && !std::is_copy_assignable_v<matrix_let>);

}  // namespace

TEST_CASE("a graph is a plain value whose layout holds only numbers") {
  const graph g = f(leaf(1.0), tl::argument<1, double>(2.0));
  // Copies of the graph are bitwise copies: nothing behind a pointer, no vtable.
  graph copy = g;
  CHECK(copy.value() == g.value());
  CHECK(sizeof(graph) % sizeof(double) == 0);
}

TEST_CASE("grad of grad: the gradient node and dual numbers are plain values too") {
  const auto inner = [](auto x) { return x * tl::sin(x); };
  using gradient_node = decltype(tl::grad(inner)(leaf(1.0)));
  static_assert(plain_node<gradient_node>);
  static_assert(plain_node<tl::dual<double>> && plain_node<tl::dual<tl::dual<double>>>);
  static_assert(plain_node<tl::matrix<tl::dual<double>, 2, 2>>);
  CHECK(tl::grad(tl::grad(inner))(1.0) == doctest::Approx(2 * std::cos(1.0) - std::sin(1.0)).epsilon(1e-15));
}
