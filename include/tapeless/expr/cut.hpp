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
// A matrix leaf that the subtree reads a few elements of (v[i], row(A, i)) has partials for those
// elements only, listed: a dense partial would cost a pass over the matrix in the cut, and a copy of
// it in every node above. A cut that takes in another cut takes in its list, so a chain of cuts (a
// long fold over v[i]) lists every element read so far, and each cut costs that many.
//
// Not cut: matrix-valued trees (their partials would be Jacobians), and trees holding a tl::var,
// whose gradient is added where the var is, not in a store.
// Tests: test/unit/sweep/cut_test.cpp test/unit/sweep/cut/
#pragma once

#include <tapeless/adjoint/structured.hpp>
#include <tapeless/concepts/scalar.hpp>
#include <tapeless/expr/children.hpp>
#include <tapeless/expr/expression.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/meta/plain_tuple.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <utility>

namespace tapeless {

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
/// `Partials` is the plain_tuple of what it keeps per leaf: d value / d leaf whole (a number, or a
/// matrix), or, for a matrix the subtree reads a few elements of, those elements' partials alone
/// (adjoint/structured.hpp, element_list).
template <class T, class Partials, class... Leaves>
struct cut_node : expression<cut_node<T, Partials, Leaves...>> {
  using value_type = T;
  static constexpr bool is_active = sizeof...(Leaves) > 0;
  T value_;
  std::array<bool, sizeof...(Leaves)> reached;
  Partials partials;

  [[nodiscard]] constexpr const T& value() const noexcept { return value_; }
};

namespace detail {

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

/// Levels of operations above the leaves: 0 for a leaf (a cut is one), else 1 + its deepest child's.
/// Each node's is computed once, when its type is made.
template <class N>
inline constexpr std::size_t depth_of = [] {
  static_assert(known_node_kind<N>,
                "tl: node kind N is not known to the walk depth_of: declare its children in expr/children.hpp");
  return std::size_t{0};
}();
template <class Children>
inline constexpr std::size_t depth_below = 0;  // a leaf
template <class... C>
inline constexpr std::size_t depth_below<type_list<C...>> = 1 + std::max({depth_of<C>...});
template <>
inline constexpr std::size_t depth_below<type_list<>> = 0;
template <known_node_kind N>
inline constexpr std::size_t depth_of<N> = depth_below<children_t<N>>;

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

/// The active leaves a tree reads and does not bind itself, each type once: those each node stands for
/// (a leaf itself, a cut its leaves), then its children's, without the name the node binds.
template <class N>
struct free_leaves {
  static_assert(known_node_kind<N>,
                "tl: node kind N is not known to the walk free_leaves: declare its children in "
                "expr/children.hpp");
  using type = leaf_list<>;
};
template <class List, class... More>
struct all_joined {
  using type = List;
};
template <class List, class Next, class... More>
struct all_joined<List, Next, More...> : all_joined<typename joined<List, Next>::type, More...> {};
template <class StandsFor, class Children>
struct free_leaves_below;
template <class... S>
struct free_leaves_below<type_list<S...>, type_list<>> {  // a leaf
  using type = leaf_list<S...>;
};
template <class A>
struct free_leaves_below<type_list<>, type_list<A>> : free_leaves<A> {};
template <class A, class B>
struct free_leaves_below<type_list<>, type_list<A, B>>
    : joined<typename free_leaves<A>::type, typename free_leaves<B>::type> {};
template <class... S, class... C>
struct free_leaves_below<type_list<S...>, type_list<C...>>
    : all_joined<leaf_list<S...>, typename free_leaves<C>::type...> {};
/// The list without the name bound to Binds, where the node binds one.
template <class List, class Binds>
struct without_bound : without_name<List, Binds> {};
template <class List>
struct without_bound<List, binds_no_name> {
  using type = List;
};
template <known_node_kind N>
struct free_leaves<N>
    : without_bound<typename free_leaves_below<typename node_traits<N>::stands_for, children_t<N>>::type, binds_t<N>> {
};

/// How many elements of the matrix leaf L the adjoints sent to it in the sweep of N can be nonzero at,
/// over all the ways N reads L: an operation that reads a part of L (its adjoint_part_size: an
/// element, a row, a column, a slice) that many, and a cut the length of its list for L; anything
/// that reads L whole, all of L (reads_whole).
inline constexpr std::size_t reads_whole = static_cast<std::size_t>(-1);

constexpr std::size_t add_reads(std::size_t a, std::size_t b) {
  return a == reads_whole || b == reads_whole ? reads_whole : a + b;
}

template <class L, class N>
struct elements_read {
  static_assert(known_node_kind<N>,
                "tl: node kind N is not known to the walk elements_read: declare its children in "
                "expr/children.hpp");
  static constexpr std::size_t value = 0;
};
/// The sum of what each way reads (add_reads of them all).
constexpr std::size_t all_reads(std::initializer_list<std::size_t> reads) {
  std::size_t total = 0;
  for (std::size_t r : reads) total = add_reads(total, r);
  return total;
}
/// How many elements of L the node N reads through its child C: all that C reads, and where C is L, a
/// part of it if N's operation reads a part (its adjoint_part_size), else all of it.
template <class L, class Op, class C>
inline constexpr std::size_t elements_read_through = elements_read<L, C>::value;
template <class L, class Op>
inline constexpr std::size_t elements_read_through<L, Op, L> = [] {
  if constexpr (requires { Op::template adjoint_part_size<typename L::value_type>; })
    return Op::template adjoint_part_size<typename L::value_type>;
  else
    return reads_whole;
}();
template <class L, class N, class Children = children_t<N>>
struct elements_read_below;
template <class L, class N, class... C>
struct elements_read_below<L, N, type_list<C...>> {
  static constexpr std::size_t value = all_reads({std::size_t{0}, elements_read_through<L, operation_of_t<N>, C>...});
};
template <class L, class N>
struct elements_read_by_cut;
template <class L, known_node_kind N>
struct elements_read<L, N> : std::conditional_t<stands_for_leaf<N, L> && !std::is_same_v<L, N>,
                                                elements_read_by_cut<L, N>, elements_read_below<L, N>> {};
template <class L>
  requires known_node_kind<L>
struct elements_read<L, L> {
  static constexpr std::size_t value = reads_whole;
};

/// The position of L among Ls, or sizeof...(Ls) if it is not there.
template <class L, class... Ls>
constexpr std::size_t position_in() {
  constexpr bool same[] = {std::is_same_v<L, Ls>..., true};
  std::size_t k = 0;
  while (!same[k]) ++k;
  return k;
}

template <class Partial>
inline constexpr std::size_t elements_kept = reads_whole;
template <class M, std::size_t K>
inline constexpr std::size_t elements_kept<element_list<M, K>> = K;

/// A cut reads of its leaf L the elements of its list for L (a matrix whole where it keeps no list).
template <class L, class N>
struct elements_read_by_cut {
  static constexpr std::size_t value = [] {
    using P = std::remove_cvref_t<decltype(std::declval<const N&>().partials)>;
    return []<class... Leaves>(type_list<Leaves...>) {
      return elements_kept<
          std::remove_cvref_t<decltype(plain_get<position_in<L, Leaves...>()>(std::declval<const P&>()))>>;
    }(typename node_traits<N>::stands_for{});
  }();
};

/// The room a cut's list keeps for k elements: the power of two at or above k, so that a chain of cuts,
/// each reading more elements than the one before, repeats a few list types (and the code made for
/// them) instead of making one per cut.
constexpr std::size_t list_room(std::size_t k) {
  std::size_t room = 1;
  while (room < k) room *= 2;
  return room;
}

/// What a cut of N keeps for its leaf L: the elements it reads, where their list's room is at most a
/// quarter of L (a list entry is two words, and each list type is code of its own to compile), else
/// d value / d L whole.
template <class N, class L, class V = typename L::value_type>
struct partial_kept {
  using type = V;
};
template <class N, class L, Matrix M>
  requires(elements_read<L, N>::value <= M::size() / 4 && list_room(elements_read<L, N>::value) <= M::size() / 4)
struct partial_kept<N, L, M> {
  using type = element_list<M, list_room(elements_read<L, N>::value)>;
};

template <class List>
inline constexpr bool reads_a_var = false;
template <class... Ls>
inline constexpr bool reads_a_var<leaf_list<Ls...>> = (is_var_ref<Ls> || ...);

/// Whether a leaf of the list has run-time extents: an argument of them, or the parameter of a sum over
/// indices that its term reads by element. A cut keeps a partial of each leaf's type, which such a leaf
/// has no fixed room for; a tree that reads one stays whole, however deep (a formula over arrays of
/// run-time extents at element k, with many operations).
template <class List>
inline constexpr bool reads_run_time_leaf = false;
template <class... Ls>
inline constexpr bool reads_run_time_leaf<leaf_list<Ls...>> = (RunTimeMatrix<typename Ls::value_type> || ...);

/// Whether make_unary and make_binary cut the node N they made. The leaves of a tree are listed only
/// when it is deep.
template <class N, bool Deep = (depth_of<N> > cut_depth)>
inline constexpr bool to_be_cut = false;
template <class N>
inline constexpr bool to_be_cut<N, true> =
    !Matrix<typename N::value_type> && N::is_active && !reads_a_var<typename free_leaves<N>::type> &&
    !reads_run_time_leaf<typename free_leaves<N>::type>;

}  // namespace detail

}  // namespace tapeless
