// SPDX-License-Identifier: BSL-1.0
// The protocol of node kinds (expr/children.hpp): what each kind states of its children, and the walks
// derived from it, on real trees. A kind of node declared here, beside the library's, is walked by
// every general walk with no other code: what a new kind gains by declaring its children.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cstddef>
#include <type_traits>

namespace tl = tapeless;
namespace d = tl::detail;

namespace {
using X = tl::argument<0, double>;
using Y = tl::argument<1, double>;
using V = tl::vector<double, 8>;
using M = tl::matrix<double, 4, 4>;
using A = tl::argument<0, V>;
using S = tl::argument<0, M>;

template <class... T>
using list = d::type_list<T...>;

/// A node of a kind the library does not have: the larger of two operands, as a number.
template <class L, class R>
struct larger_node : tl::expression<larger_node<L, R>> {
  using value_type = double;
  static constexpr bool is_active = L::is_active || R::is_active;
  L first;
  R second;
  constexpr larger_node(L l, R r) : first(l), second(r) {}
  [[nodiscard]] constexpr double value() const {
    return first.value() > second.value() ? first.value() : second.value();
  }
};
}  // namespace

// The one statement the kind makes.
template <class L, class R>
struct tl::detail::node_traits<larger_node<L, R>> : tl::detail::node_traits_defaults {
  using children = tl::detail::children<&larger_node<L, R>::first, &larger_node<L, R>::second>;
};

TEST_CASE("each kind states its children") {
  const X x(1.0);
  const Y y(2.0);
  using E = decltype(tl::exp(x));
  using P = decltype(x * y);
  using Sel = decltype(tl::if_else(true, x, y));
  static_assert(std::is_same_v<d::children_t<X>, list<>>);
  static_assert(std::is_same_v<d::children_t<tl::constant<double>>, list<>>);
  static_assert(std::is_same_v<d::children_t<E>, list<X>>);
  static_assert(std::is_same_v<d::children_t<P>, list<X, Y>>);
  static_assert(std::is_same_v<d::children_t<Sel>, list<X, Y>>);
  static_assert(d::is_leaf<X> && !d::is_leaf<E> && !d::is_leaf<double>);
  static_assert(d::is_operation_node<E> && d::is_operation_node<P> && !d::is_operation_node<Sel>);
  static_assert(d::known_node_kind<P> && !d::known_node_kind<double>);

  const P p = x * y;
  CHECK(&d::child<0>(p) == &p.lhs);
  CHECK(&d::child<1>(p) == &p.rhs);
}

TEST_CASE("a let's children are its bound expression and its body, and it binds its name") {
  auto f = [](const auto& x, const auto& y) { return tl::let(x * y, [&](const auto& t) { return t + x; }); };
  using L = decltype(f(X(1.0), Y(2.0)));
  using Tag = typename L::tag;
  static_assert(std::is_same_v<d::child_t<0, L>, decltype(X(1.0) * Y(2.0))>);
  static_assert(std::is_same_v<d::child_t<1, L>, decltype(tl::bound<Tag, double>(0.0) + X(1.0))>);
  static_assert(std::is_same_v<d::binds_t<L>, Tag>);
  static_assert(d::contains_let<Tag, L> && d::contains_let<Tag, decltype(2.0 * std::declval<L>())>);
  static_assert(!d::contains_let<Tag, X>);
  // The let's name is read inside it: not a free leaf of the let.
  static_assert(std::is_same_v<d::free_leaves<L>::type, d::leaf_list<X, Y>>);
  static_assert(d::depth_of<L> == 2);
}

TEST_CASE("the general walks, on real trees") {
  const X x(1.0);
  const Y y(2.0);
  using T = decltype(tl::sin(x * y) + tl::exp(x));
  static_assert(d::depth_of<X> == 0);
  static_assert(d::depth_of<T> == 3);
  static_assert(std::is_same_v<d::free_leaves<T>::type, d::leaf_list<X, Y>>);
  static_assert(std::is_same_v<d::free_leaves<decltype(x + 1.0)>::type, d::leaf_list<X>>);
  static_assert(d::one_value_by_type<T> && !d::one_value_by_type<decltype(x + 1.0)>);

  using Element = decltype(A(V{})[2] * x);  // reads one element of A
  static_assert(d::elements_read<A, Element>::value == 1);
  static_assert(d::elements_read<A, decltype(tl::sum(A(V{})))>::value == d::reads_whole);
  static_assert(d::elements_read<A, T>::value == 0);

  static_assert(d::data_bytes_of<decltype(x * 2.0)>() == 0);
  static_assert(d::data_bytes_of<decltype(tl::sum(A(V{}) * tl::constant<V>(V{})))>() == sizeof(V) + alignof(V) - 1);

  static_assert(d::lu_uses<S, decltype(tl::det(S(M{})) + tl::sum(tl::inverse(S(M{}))))> == 2);
  static_assert(d::lu_uses<S, decltype(tl::sum(S(M{})))> == 0);
}

TEST_CASE("a cut is a leaf that stands for the leaves of its subtree") {
  using C = tl::cut_node<double, d::plain_tuple<double, double>, X, Y>;
  static_assert(d::is_leaf<C> && d::depth_of<C> == 0);
  static_assert(std::is_same_v<d::free_leaves<C>::type, d::leaf_list<X, Y>>);
  static_assert(d::stands_for_leaf<C, X> && !d::stands_for_leaf<C, A>);
}

TEST_CASE("a kind declared beside the library's is walked by every general walk") {
  using N = larger_node<X, decltype(tl::exp(Y(1.0)))>;
  static_assert(d::known_node_kind<N>);
  static_assert(d::depth_of<N> == 2);
  static_assert(std::is_same_v<d::free_leaves<N>::type, d::leaf_list<X, Y>>);
  static_assert(d::elements_read<X, N>::value == d::reads_whole);
  static_assert(d::data_bytes_of<N>() == 0);
  static_assert(!d::one_value_by_type<N>);  // no operation: data of its own, as if_else's condition
  static_assert(d::depth_of<decltype(tl::exp(N(X(1.0), tl::exp(Y(1.0)))))> == 3);
  const N n(X(3.0), tl::exp(Y(0.0)));
  CHECK(&d::child<0>(n) == &n.first);
  CHECK(n.value() == 3.0);
}
