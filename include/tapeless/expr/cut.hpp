// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/cut.hpp: where a deep expression is cut, and the node that stands for the part cut.
//
// Every node's type names the whole tree below it, so a sum of 1000 terms written left to right is a
// type 500 levels deep, and every walk of it (evaluated, backward_sweep) instantiates once per level:
// the compilers' time grows faster than the number of operations, and past 900 levels (g++) or
// 1024 (clang++) they stop. So when an operation would make a number-valued tree deeper than
// cut_depth, make_unary and make_binary cut it there instead: the subtree is evaluated and swept at
// once, with seed 1, and replaced by a cut_node holding its value and its partial derivatives with
// respect to the leaves it reads (the arguments of grad and let names; sweep/cut.hpp). In the sweep
// that follows, a cut_node is a leaf that sends g times each partial on to its leaf. Types stay at
// most cut_depth + 1 levels deep, and a long chain repeats the same few types.
//
// Not cut: matrix-valued trees (their partials would be Jacobians), and trees holding a tl::var,
// whose gradient is added where the var is, not in a store.
#pragma once

#include <tapeless/concepts/scalar.hpp>
#include <tapeless/expr/expression.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/meta/plain_tuple.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>

namespace tapeless {

template <class Op, class A>
struct unary_node;
template <class Op, class A, class B>
struct binary_node;
template <class A, class B>
struct select_node;
template <class Tag, class Bound, class Body>
struct let_node;

/// A number-valued subtree computed ahead of the sweep: its value, and for each leaf L it reads,
/// d value / d L (a number, or a matrix for a matrix argument), with whether the sweep of the subtree
/// reached L at all (not from the branch of an if_else not taken: then nothing is sent to it).
///
/// What it holds is what keeps long expressions cheap to compile (bench/compile_time.py measures it):
/// - No copy of the leaves: each is an argument slot or a let name, which its type says
///   (detail::leaf_stand_in). Copies, made here and again in every node above, would never be read,
///   and clang cannot drop them: its MemCpyOpt pass then spends most of the compile time on them.
/// - A plain_tuple, not a std::tuple (never trivially copyable): g++ moves a node holding a std::tuple
///   by an out-of-line call, which takes each node's address, and its points-to analysis then grows
///   with the square of the function.
template <class T, class... Leaves>
struct cut_node : expression<cut_node<T, Leaves...>> {
  using value_type = T;
  static constexpr bool is_active = sizeof...(Leaves) > 0;
  T value_;
  std::array<bool, sizeof...(Leaves)> reached;
  detail::plain_tuple<typename Leaves::value_type...> partials;

  [[nodiscard]] constexpr const T& value() const noexcept { return value_; }
};

namespace detail {

template <class T, class... Leaves>
inline constexpr bool is_leaf<cut_node<T, Leaves...>> = true;

/// A leaf of type Leaf where only its type is read: what a cut sends its partials to. Every leaf of a
/// cut is an argument slot or a let's name (the leaf lists of free_leaves below), whose type says which
/// within the scope of the let (the trace tells apart two lets of one tag: inspect/recorder.hpp). A number
/// leaf holds 0, a matrix leaf points nowhere.
template <class Leaf>
inline constexpr Leaf leaf_stand_in = [] {
  if constexpr (Matrix<typename Leaf::value_type>)
    return Leaf(stand_in_t{});
  else
    return Leaf(typename Leaf::value_type{});
}();

/// Deeper than this, a number-valued tree is cut. Deep enough that the functions of the benchmark suite
/// are not cut, shallow enough that long sums compile faster than with a deeper cut: the copies of
/// deep subtrees into their parents cost the optimiser more than the cuts cost.
inline constexpr std::size_t cut_depth = 16;

/// Levels of operations above the leaves. Each node's is computed once, when its type is made.
template <class N>
inline constexpr std::size_t depth_of = 0;  // leaves, cut nodes
template <class Op, class A>
inline constexpr std::size_t depth_of<unary_node<Op, A>> = 1 + depth_of<A>;
template <class Op, class A, class B>
inline constexpr std::size_t depth_of<binary_node<Op, A, B>> = 1 + std::max(depth_of<A>, depth_of<B>);
template <class A, class B>
inline constexpr std::size_t depth_of<select_node<A, B>> = 1 + std::max(depth_of<A>, depth_of<B>);
template <class Tag, class Bound, class Body>
inline constexpr std::size_t depth_of<let_node<Tag, Bound, Body>> = 1 + std::max(depth_of<Bound>, depth_of<Body>);

template <class... Leaves>
struct leaf_list {};

/// The list with L added, unless it is there already.
template <class List, class L>
struct with_leaf;
template <class... Ls, class L>
struct with_leaf<leaf_list<Ls...>, L> {
  using type = std::conditional_t<(std::is_same_v<Ls, L> || ...), leaf_list<Ls...>, leaf_list<Ls..., L>>;
};

template <class List, class More>
struct joined {
  using type = List;
};
template <class List, class L, class... More>
struct joined<List, leaf_list<L, More...>> : joined<typename with_leaf<List, L>::type, leaf_list<More...>> {};

template <class... Lists>
struct concatenated {
  using type = leaf_list<>;
};
template <class... A>
struct concatenated<leaf_list<A...>> {
  using type = leaf_list<A...>;
};
template <class... A, class... B, class... Rest>
struct concatenated<leaf_list<A...>, leaf_list<B...>, Rest...> : concatenated<leaf_list<A..., B...>, Rest...> {};

/// The list without the names bound to Tag (a let's body reads its own name; the let supplies it).
template <class List, class Tag>
struct without_name;
template <class... Ls, class Tag>
struct without_name<leaf_list<Ls...>, Tag>
    : concatenated<std::conditional_t<is_bound_to<Ls, Tag>, leaf_list<>, leaf_list<Ls>>...> {};

/// The active leaves a tree reads and does not bind itself, each type once.
template <class N>
struct free_leaves {
  static_assert(!N::is_active, "tapeless: free_leaves has no rule for this kind of node");  // a new kind
  using type = leaf_list<>;                                                                 // constants
};
template <std::size_t S, class T>
struct free_leaves<argument<S, T>> {
  using type = leaf_list<argument<S, T>>;
};
template <class Tag, class T>
struct free_leaves<bound<Tag, T>> {
  using type = leaf_list<bound<Tag, T>>;
};
template <class T>
struct free_leaves<var_ref<T>> {
  using type = leaf_list<var_ref<T>>;
};
template <class T, class... Leaves>
struct free_leaves<cut_node<T, Leaves...>> {
  using type = leaf_list<Leaves...>;
};
template <class Op, class A>
struct free_leaves<unary_node<Op, A>> : free_leaves<A> {};
template <class Op, class A, class B>
struct free_leaves<binary_node<Op, A, B>> : joined<typename free_leaves<A>::type, typename free_leaves<B>::type> {};
template <class A, class B>
struct free_leaves<select_node<A, B>> : joined<typename free_leaves<A>::type, typename free_leaves<B>::type> {};
template <class Tag, class Bound, class Body>
struct free_leaves<let_node<Tag, Bound, Body>>
    : joined<typename free_leaves<Bound>::type, typename without_name<typename free_leaves<Body>::type, Tag>::type> {};

template <class List>
inline constexpr bool reads_a_var = false;
template <class... Ls>
inline constexpr bool reads_a_var<leaf_list<Ls...>> = (is_var_ref<Ls> || ...);

/// Whether make_unary and make_binary cut the node N they made. The leaves of a tree are listed only
/// when it is deep.
template <class N, bool Deep = (depth_of<N> > cut_depth)>
inline constexpr bool to_be_cut = false;
template <class N>
inline constexpr bool to_be_cut<N, true> =
    !Matrix<typename N::value_type> && N::is_active && !reads_a_var<typename free_leaves<N>::type>;

/// The cut itself is in sweep/cut.hpp: it runs the sweep, which depends on every node type.
template <class N>
constexpr auto cut(const N& n);

}  // namespace detail

}  // namespace tapeless
