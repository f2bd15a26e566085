// SPDX-License-Identifier: BSL-1.0
// The sweep has no virtual dispatch and no type erasure: every node of a graph is a plain,
// trivially copyable, non-polymorphic value whose type names its whole structure.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <type_traits>

namespace tl = tapeless;

namespace {

template <class E>
constexpr bool plain_node = !std::is_polymorphic_v<E> && std::is_trivially_copyable_v<E> &&
                            std::is_trivially_destructible_v<E>;

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

}  // namespace

TEST_CASE("a graph is a plain value whose layout holds only numbers") {
  const graph g = f(leaf(1.0), tl::argument<1, double>(2.0));
  // Copies of the graph are bitwise copies: nothing behind a pointer, no vtable.
  graph copy = g;
  CHECK(copy.value() == g.value());
  CHECK(sizeof(graph) % sizeof(double) == 0);
}
