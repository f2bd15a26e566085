// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/children.hpp: the one protocol of node kinds: what each kind of node is made of, stated
// once, from which every walk over a tree of nodes derives its steps.
//
// A kind of node states here, in a specialisation of node_traits, the members that hold its children
// (the nodes it was built from), and where it has them: the operation it applies, the tag of the name
// it binds, the leaves it stands for, and how many of its children it evaluates when it is built. The
// walks (depth_of, free_leaves, elements_read, contains_let, point_names, data_bytes_of,
// one_value_by_type, lu_uses, the walks of a fused region) read only that; the walks whose steps
// differ by kind (evaluated<>, backward_sweep, the trace's forward) have one rule per kind. A kind
// not stated here stops each walk that meets it at a static_assert naming the walk (doc/design.md,
// "Node kinds and the walks over them").
#pragma once

#include <tapeless/meta/type_list.hpp>

#include <cstddef>
#include <type_traits>

namespace tapeless {

template <std::size_t Slot, class T>
struct argument;
template <class T>
struct constant;
template <class T>
struct constant_ref;
template <class Tag, class T>
struct bound;
template <class T>
struct var_ref;
template <class Op, class A>
struct unary_node;
template <class Op, class A, class B>
struct binary_node;
template <class A, class B>
struct select_node;
template <class Tag, class Bound, class Body>
struct let_node;
template <class T, class Partials, class... Leaves>
struct cut_node;

namespace detail {

template <class Pointer>
struct member_type;
template <class M, class C>
struct member_type<M C::*> {
  using type = M;
};

/// The member K of a list of members.
template <std::size_t K, auto... Member>
struct nth_member_of;
template <auto First, auto... Rest>
struct nth_member_of<0, First, Rest...> {
  static constexpr auto value = First;
};
template <std::size_t K, auto First, auto... Rest>
struct nth_member_of<K, First, Rest...> : nth_member_of<K - 1, Rest...> {};
template <std::size_t K, auto... Member>
inline constexpr auto nth_member = nth_member_of<K, Member...>::value;

/// The members of a node that hold its children, in order: children<&N::lhs, &N::rhs>.
template <auto... Member>
struct children {
  using types = type_list<typename member_type<decltype(Member)>::type...>;
  static constexpr std::size_t size = sizeof...(Member);
  template <std::size_t K>
  using type_at = typename member_type<std::remove_cv_t<decltype(nth_member<K, Member...>)>>::type;
  /// Child K of node n (a reference, const as n is).
  template <std::size_t K, class N>
  static constexpr auto& get(N& n) noexcept {
    return n.*nth_member<K, Member...>;
  }
};

/// A node kind without an operation (leaves, if_else, let), without a name it binds (all but let).
struct no_operation {};
struct binds_no_name {};

/// What a kind states besides its children, where it has none of it. A kind derives from this and
/// states what it has.
struct node_traits_defaults {
  static constexpr bool known = true;
  using operation = no_operation;  // the operation it applies to its children's values
  using binds = binds_no_name;     // the tag of the name its body reads (let)
  using stands_for = type_list<>;  // the active leaves it stands for: itself (a leaf), or a cut's
  static constexpr std::size_t evaluated_when_built = 0;  // its first children it evaluates when built
};

/// The protocol: a kind not stated here is not known, and every walk that meets it stops there.
template <class N>
struct node_traits {
  static constexpr bool known = false;
};

// ---- the kinds: leaves (expr/leaf.hpp), which have no children

template <std::size_t Slot, class T>
struct node_traits<argument<Slot, T>> : node_traits_defaults {
  using children = detail::children<>;
  using stands_for = type_list<argument<Slot, T>>;
};
template <class T>
struct node_traits<constant<T>> : node_traits_defaults {
  using children = detail::children<>;
};
template <class T>
struct node_traits<constant_ref<T>> : node_traits_defaults {
  using children = detail::children<>;
};
template <class Tag, class T>
struct node_traits<bound<Tag, T>> : node_traits_defaults {
  using children = detail::children<>;
  using stands_for = type_list<bound<Tag, T>>;
};
template <class T>
struct node_traits<var_ref<T>> : node_traits_defaults {
  using children = detail::children<>;
  using stands_for = type_list<var_ref<T>>;
};
/// A cut (expr/cut.hpp) is a leaf that stands for the leaves of the subtree it replaced.
template <class T, class Partials, class... Leaves>
struct node_traits<cut_node<T, Partials, Leaves...>> : node_traits_defaults {
  using children = detail::children<>;
  using stands_for = type_list<Leaves...>;
};

// ---- the kinds with children

template <class Op, class A>
struct node_traits<unary_node<Op, A>> : node_traits_defaults {
  using children = detail::children<&unary_node<Op, A>::arg>;
  using operation = Op;
};
template <class Op, class A, class B>
struct node_traits<binary_node<Op, A, B>> : node_traits_defaults {
  using children = detail::children<&binary_node<Op, A, B>::lhs, &binary_node<Op, A, B>::rhs>;
  using operation = Op;
};
template <class A, class B>
struct node_traits<select_node<A, B>> : node_traits_defaults {
  using children = detail::children<&select_node<A, B>::if_true, &select_node<A, B>::if_false>;
};
/// The bound expression, evaluated when the let is built, and the body.
template <class Tag, class Bound, class Body>
struct node_traits<let_node<Tag, Bound, Body>> : node_traits_defaults {
  using children = detail::children<&let_node<Tag, Bound, Body>::bound_expr, &let_node<Tag, Bound, Body>::body>;
  using binds = Tag;
  static constexpr std::size_t evaluated_when_built = 1;
};

// ---- what the walks read

/// Whether N is a node kind stated above. Each walk asserts it where it meets a node.
template <class N>
concept known_node_kind = node_traits<N>::known;

/// The types of N's children, as a type_list.
template <class N>
using children_t = typename node_traits<N>::children::types;

/// The number of N's children.
template <class N>
inline constexpr std::size_t child_count = node_traits<N>::children::size;

/// The type of child K of N.
template <std::size_t K, class N>
using child_t = typename node_traits<N>::children::template type_at<K>;

/// Child K of the node n.
template <std::size_t K, class N>
constexpr auto& child(N& n) noexcept {
  return node_traits<std::remove_const_t<N>>::children::template get<K>(n);
}

/// Leaves: nodes without children, which hold their value (or a pointer to it) themselves.
template <class N>
inline constexpr bool is_leaf = false;
template <known_node_kind N>
inline constexpr bool is_leaf<N> = node_traits<N>::children::size == 0;

/// The operation the node N applies, or no_operation (also for what is not a node).
template <class N>
using operation_of_t = typename std::conditional_t<known_node_kind<N>, node_traits<N>, node_traits_defaults>::operation;

/// Whether the node N applies an operation to its children's values (unary_node, binary_node).
template <class N>
inline constexpr bool is_operation_node = !std::is_same_v<operation_of_t<N>, no_operation>;

/// The tag of the name the node N binds (let_node), or binds_no_name.
template <class N>
using binds_t = typename std::conditional_t<known_node_kind<N>, node_traits<N>, node_traits_defaults>::binds;

/// Whether the type list List holds T.
template <class List, class T>
inline constexpr bool list_holds = false;
template <class... S, class T>
inline constexpr bool list_holds<type_list<S...>, T> = (std::is_same_v<S, T> || ...);

/// Whether the node N stands for the leaf L: L itself, or a leaf of the subtree a cut replaced.
template <class N, class L>
inline constexpr bool stands_for_leaf = list_holds<typename node_traits<N>::stands_for, L>;

/// Whether the node N binds a name its body reads (let_node).
template <class N>
inline constexpr bool binds_a_name = !std::is_same_v<binds_t<N>, binds_no_name>;

}  // namespace detail
}  // namespace tapeless
