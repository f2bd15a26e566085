// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/let.hpp: the node of let(e, body): a shared intermediate evaluated and swept once.
#pragma once

#include <tapeless/expr/expression.hpp>

#include <utility>

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
  constexpr let_node(Bound e, Body b) : bound_expr(std::move(e)), body(std::move(b)), value_(body.value()) {}
};

}  // namespace tapeless
