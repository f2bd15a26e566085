// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/let.hpp: the node of let(e, body): a shared intermediate evaluated and swept once.
#pragma once

#include <tapeless/expr/expression.hpp>

namespace tapeless {

/// `Bound` is the shared expression; `Body` was built from a bound<Tag> leaf standing for it.
/// The sweep runs Body first, summing the adjoint of every use of the leaf, then Bound once.
template <class Tag, class Bound, class Body>
struct let_node : expression<let_node<Tag, Bound, Body>> {
  using value_type = typename Body::value_type;
  using tag = Tag;
  static constexpr bool is_active = Bound::is_active || Body::is_active;
  Bound bound_expr;
  Body body;
  value_type value_;

  /// Both parts are built in place from what the makers return (make_body receives the bound value):
  /// a let chain holds every earlier link inside the later ones, so a copy here would cost a copy of
  /// the whole chain at every link.
  template <class MakeBound, class MakeBody>
  constexpr let_node(MakeBound&& make_bound, MakeBody&& make_body)
      : bound_expr(make_bound()), body(make_body(bound_expr.value())), value_(body.value()) {}
};

namespace detail {
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
