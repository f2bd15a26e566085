// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/let.hpp: the node of let(e, body): a shared intermediate evaluated and swept once.
#pragma once

#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/expression.hpp>

#include <type_traits>

namespace tapeless {

template <class Tag, class Bound, class Body>
struct let_node;

namespace detail {
/// A let's value is its body's (declared here, so that the let's own constructor finds it too).
template <class Tag, class Bound, class Body, bool Need>
constexpr decltype(auto) value_at(const let_node<Tag, Bound, Body>& n,
                                  const evaluated<let_node<Tag, Bound, Body>, Need>& e) noexcept;
}  // namespace detail

/// `Bound` is the shared expression; `Body` was built from a bound<Tag> leaf standing for it.
/// The sweep runs Body first, summing the adjoint of every use of the leaf, then Bound once.
///
/// The bound expression is evaluated once, when the let is built: its name in the body is a leaf that
/// holds the value (so the body can compare it, branch on it), and its other values wait here for the
/// sweep. This is the one node that keeps values; a copy of it copies them.
template <class Tag, class Bound, class Body>
struct let_node : expression<let_node<Tag, Bound, Body>> {
  using value_type = typename Body::value_type;
  using tag = Tag;
  static constexpr bool is_active = Bound::is_active || Body::is_active;
  Bound bound_expr;
  [[no_unique_address]] detail::evaluated<Bound> bound_values;
  Body body;

  /// Both parts are built in place from what the makers return (make_body receives the bound value).
  template <class MakeBound, class MakeBody>
  constexpr let_node(MakeBound&& make_bound, MakeBody&& make_body)
      : bound_expr(make_bound()),
        bound_values(bound_expr),
        body(make_body(detail::value_at(bound_expr, bound_values))) {}

  [[nodiscard]] constexpr value_type value() const { return body.value(); }
};

namespace detail {
/// The body's values; the bound expression's were kept by the let when it was built.
template <class Tag, class Bound, class Body, bool Need>
struct evaluated<let_node<Tag, Bound, Body>, Need> {
  [[no_unique_address]] evaluated<Body, Need> body;
  constexpr explicit evaluated(const let_node<Tag, Bound, Body>& n) : body(n.body) {}
};

template <class Tag, class Bound, class Body, bool Need>
constexpr decltype(auto) value_at(const let_node<Tag, Bound, Body>& n,
                                  const evaluated<let_node<Tag, Bound, Body>, Need>& e) noexcept {
  return value_at(n.body, e.body);
}

/// Whether the node type N holds, anywhere inside, a let tagged Tag.
template <class Tag, class N>
inline constexpr bool contains_let = false;
template <class Tag, template <class...> class Node, class... Children>
inline constexpr bool contains_let<Tag, Node<Children...>> = (contains_let<Tag, Children> || ...);
template <class Tag, class Other, class Bound, class Body>
inline constexpr bool contains_let<Tag, let_node<Other, Bound, Body>> =
    std::is_same_v<Tag, Other> || contains_let<Tag, Bound> || contains_let<Tag, Body>;
}  // namespace detail

}  // namespace tapeless
