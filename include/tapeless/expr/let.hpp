// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/let.hpp: the node of let(e, body): a shared intermediate evaluated and swept once.
// Tests: test/unit/transforms/let_test.cpp
#pragma once

#include <tapeless/expr/children.hpp>
#include <tapeless/expr/cut.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/expression.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless {

template <class Tag, class Bound, class Body>
struct let_node;

namespace detail {
/// A let's value is its body's (declared here, so that the let's own constructor finds it too).
template <class Tag, class Bound, class Body, bool Need>
constexpr decltype(auto) value_at(const let_node<Tag, Bound, Body>& n,
                                  const evaluated<let_node<Tag, Bound, Body>, Need>& e) noexcept;

/// Points every name of the let tagged Tag inside n at value: what a copied let does to its body,
/// whose matrix names point into the let (expr/leaf.hpp). A kind of node not stated in
/// expr/children.hpp stops here instead of keeping names that point into a let that is gone.
template <class Tag, class M, class N>
constexpr void point_names(N& n, const M* value) noexcept;

/// The parts of a let: the bound expression, its values, and the body. A let over a number copies as
/// a plain value; a let over a matrix, whose names point at the value kept here (expr/leaf.hpp),
/// points its names at its own copy when copied or moved, and cannot be assigned.
template <class Tag, class Bound, class Body, bool NamesPoint = Matrix<typename Bound::value_type>>
struct let_parts {
  Bound bound_expr;
  [[no_unique_address]] evaluated<Bound> bound_values;
  Body body;

  /// Both parts are built in place from what the makers return (make_body receives the bound value).
  template <class MakeBound, class MakeBody>
  constexpr let_parts(MakeBound&& make_bound, MakeBody&& make_body)
      : bound_expr(make_bound()), bound_values(bound_expr), body(make_body(value_at(bound_expr, bound_values))) {}

  constexpr void point_own_names() noexcept {}
};

template <class Tag, class Bound, class Body>
struct let_parts<Tag, Bound, Body, true> : let_parts<Tag, Bound, Body, false> {
  using plain = let_parts<Tag, Bound, Body, false>;
  using plain::plain;
  constexpr let_parts(const let_parts& other) : plain(other) { point_own_names(); }
  constexpr let_parts(let_parts&& other) noexcept : plain(std::move(other)) { point_own_names(); }
  let_parts& operator=(const let_parts&) = delete;  // would leave the names pointing at the other let
  let_parts& operator=(let_parts&&) = delete;
  ~let_parts() = default;

  constexpr void point_own_names() noexcept {
    point_names<Tag>(this->body, &value_at(this->bound_expr, this->bound_values));
  }
};
}  // namespace detail

/// `Bound` is the shared expression; `Body` was built from a bound<Tag> leaf standing for it.
/// The sweep runs Body first, summing the adjoint of every use of the leaf, then Bound once.
///
/// The bound expression is evaluated once, when the let is built: its name in the body is a leaf that
/// holds the value, or for a matrix points to it (so the body can compare it, branch on it), and its
/// other values wait here for the sweep. This is the one node that keeps values; a copy of it copies
/// them.
template <class Tag, class Bound, class Body>
struct let_node : expression<let_node<Tag, Bound, Body>>, detail::let_parts<Tag, Bound, Body> {
  using value_type = typename Body::value_type;
  using tag = Tag;
  static constexpr bool is_active = Bound::is_active || Body::is_active;
  using detail::let_parts<Tag, Bound, Body>::let_parts;

  [[nodiscard]] constexpr value_type value() const { return this->body.value(); }

  /// A node of another type assigned to a let: the sentence of expression<>. Reached through that
  /// base's conversion, the assignment of a let over a matrix, which is deleted (see let_parts), would
  /// stop at "deleted" instead.
  template <Expression Other>
    requires(!std::is_same_v<Other, let_node>)
  constexpr let_node& operator=(const Other& /*other*/) {
    this->template refuse_new_value<Other>();
    return *this;
  }
};

namespace detail {
/// The body's values; the bound expression's were kept by the let when it was built.
template <class Tag, class Bound, class Body, bool Need>
struct evaluated<let_node<Tag, Bound, Body>, Need> {
  [[no_unique_address]] evaluated<Body, Need> body;
  template <class Shared = const no_shared_work>
  constexpr explicit evaluated(const let_node<Tag, Bound, Body>& n, Shared& shared = no_sharing)
      : body(n.body, shared) {}
};

template <class Tag, class Bound, class Body, bool Need>
constexpr decltype(auto) value_at(const let_node<Tag, Bound, Body>& n,
                                  const evaluated<let_node<Tag, Bound, Body>, Need>& e) noexcept {
  return value_at(n.body, e.body);
}

/// The children first; then a let inside, whose bound expression or body may use the name, points its
/// own names at its value, which may be the name's (tl::let(p, ...) in the body of p's let).
template <class Tag, class M, class N>
constexpr void point_names(N& n, const M* value) noexcept {
  static_assert(known_node_kind<N>,
                "tl: node kind N is not known to the walk point_names: declare its children in "
                "expr/children.hpp");
  if constexpr (known_node_kind<N>) {
    if constexpr (std::is_same_v<N, bound<Tag, M>>) n.ref_ = value;
    [&]<std::size_t... K>(std::index_sequence<K...>) { (point_names<Tag>(child<K>(n), value), ...); }
    (std::make_index_sequence<child_count<N>>{});
    if constexpr (binds_a_name<N>) n.point_own_names();
  }
}

/// Whether the node type N holds, anywhere inside, a let tagged Tag.
template <class Tag, class N>
struct let_search {
  static_assert(known_node_kind<N>,
                "tl: node kind N is not known to the walk contains_let: declare its children in "
                "expr/children.hpp");
  static constexpr bool value = false;
};
template <class Tag, class N>
inline constexpr bool contains_let = let_search<Tag, N>::value;
template <class Tag, known_node_kind N>
struct let_search<Tag, N> {
  static constexpr bool value = std::is_same_v<binds_t<N>, Tag> || []<class... C>(type_list<C...>) {
    return (contains_let<Tag, C> || ...);
  }(children_t<N>{});
};
}  // namespace detail

}  // namespace tapeless
