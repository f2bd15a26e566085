// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/region.hpp: an elementwise region, as types: its inputs, their slots, its operations,
// and whether it is swept as one loop (sweep/fused.hpp says what a region is).
//
// A walk of the node types below a region's root collects its inputs (the operands that are not
// elementwise) and its scalar operations. From them follow, at compile time, each input's slot (one
// per value: x used five times is one input), whether the loop runs in SIMD batches, and whether the
// tree is a region at all (fused_region).
// Tests: test/unit/sweep/fused/
#pragma once

#ifndef TAPELESS_FUSE
#define TAPELESS_FUSE 1
#endif

#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/children.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/same_value.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/math/dual.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/meta/type_list.hpp>
#include <tapeless/operation/traits.hpp>
#include <tapeless/ops/elementwise.hpp>
#include <tapeless/simd/batch.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// What a walk of the region rooted at N collects, as types: its inputs, left to right (its operands
/// that are not elementwise), and its scalar operations. A class per node type, so that a subtree is
/// walked once whichever region it is part of.
template <class N, bool = is_elementwise_node<N>>
struct region_of {
  using inputs = type_list<N>;
  using operations = type_list<>;
};
template <class Op, class Children>
struct region_below;
template <class Op, class... C>
struct region_below<Op, type_list<C...>> {
  using inputs = join_t<typename region_of<C>::inputs...>;
  using operations = join_t<type_list<Op>, typename region_of<C>::operations...>;
};
template <class N>
struct region_of<N, true> : region_below<scalar_operation_t<N>, children_t<N>> {};

template <class N>
using region_inputs_t = typename region_of<N>::inputs;

template <class N>
inline constexpr std::size_t region_size = region_inputs_t<N>::size;

/// Pointers to the inputs of a region, in a tuple slot each.
template <class Inputs>
struct input_pointers;
template <class... In>
struct input_pointers<type_list<In...>> {
  using type = plain_tuple<const In*...>;
};

/// The number of inputs of the region rooted at N that come before its child J's.
template <class N, std::size_t J>
inline constexpr std::size_t inputs_before = []<std::size_t... I>(std::index_sequence<I...>) {
  return (std::size_t{0} + ... + region_size<child_t<I, N>>);
}
(std::make_index_sequence<J>{});

/// Writes a pointer to each input of the region rooted at n into its slot of p, from slot K on.
template <std::size_t K, class N, class P>
constexpr void point_to_inputs(const N& n, P& p) noexcept {
  if constexpr (!is_elementwise_node<N>) {
    plain_get<K>(p) = &n;
  } else {
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      (point_to_inputs<K + inputs_before<N, J>>(child<J>(n), p), ...);
    }
    (std::make_index_sequence<child_count<N>>{});
  }
}

/// The inputs of the region rooted at n: pointers to its operands that are not elementwise.
template <class N>
constexpr auto region_inputs(const N& n) noexcept {
  typename input_pointers<region_inputs_t<N>>::type p{};
  point_to_inputs<0>(n, p);
  return p;
}

/// The type of a region's input K.
template <std::size_t K, class T>
std::type_identity<T> slot_type(const plain_slot<K, const T*>&);  // declared only: for decltype
template <class N, std::size_t K>
using region_input_t =
    typename decltype(slot_type<K>(std::declval<const typename input_pointers<region_inputs_t<N>>::type&>()))::type;

/// The slot of each input of a list: that of the first input of the same type when its type names
/// one value (expr/same_value.hpp: x, or slice(x) for Rosenbrock's head, used five times is one input,
/// with one value, one adjoint and one sweep), else its own.
template <class Inputs>
struct input_slots;
template <class... In>
struct input_slots<type_list<In...>> {
  template <class X>
  static constexpr std::size_t first_of() {
    std::size_t first = 0;
    bool found = false;
    ((found = found || std::is_same_v<In, X>, first += found ? 0 : 1), ...);
    return first;
  }
  static constexpr std::array<std::size_t, sizeof...(In)> slot = [] {
    std::array<std::size_t, sizeof...(In)> s{};
    std::size_t k = 0;
    ((s[k] = one_value_by_type<In> ? first_of<In>() : k, ++k), ...);
    return s;
  }();
};

template <class Inputs, std::size_t K>
inline constexpr std::size_t input_slot = input_slots<Inputs>::slot[K];

/// What the region's operations are: how many, whether all run on SIMD batches of T, whether all are
/// plain arithmetic (simd::plain_arithmetic).
template <class Operations>
struct region_operations_of;
template <class... Op>
struct region_operations_of<type_list<Op...>> {
  static constexpr std::size_t count = sizeof...(Op);
  template <class T>
  static constexpr bool vectorised = (simd::vectorised<Op, T> && ...);
  static constexpr bool plain = (simd::plain_arithmetic<Op> && ...);
};
template <class N>
using region_operations_t = region_operations_of<typename region_of<N>::operations>;

/// The number of elementwise operations in the region rooted at N.
template <class N>
inline constexpr std::size_t region_operations = region_operations_t<N>::count;

/// Whether every operation of the region runs on SIMD batches of T.
template <class N, class T>
inline constexpr bool region_vectorised = region_operations_t<N>::template vectorised<T>;

/// Whether every operation of the region is plain arithmetic (simd::plain_arithmetic).
template <class N>
inline constexpr bool region_plain = region_operations_t<N>::plain;

/// Whether a number among the region's inputs receives an adjoint: the sum over the elements.
template <class Inputs>
inline constexpr bool sums_a_number = false;
template <class... In>
inline constexpr bool sums_a_number<type_list<In...>> = ((In::is_active && !Matrix<typename In::value_type>) || ...);

/// Whether the region's loop runs in SIMD batches of T: when all its operations have batch forms, and
/// some are more than plain arithmetic or it sums an adjoint. A loop of plain arithmetic into matrices
/// is left scalar, for the compiler to vectorise and unroll itself (as the maps of ops/elementwise.hpp
/// are); a sum it would not reorder into lanes.
template <class Root, class T>
inline constexpr bool region_in_batches = region_vectorised<Root, T> &&
                                          (!region_plain<Root> || sums_a_number<region_inputs_t<Root>>);

/// Whether an input is a slice of a leaf (an argument, a let's name, a constant): the loop reads its
/// elements in place, from the leaf's value, where the slice's evaluation would copy them (Rosenbrock's
/// head and tail: two copies of nearly all of x).
template <class N>
struct slice_of_leaf : std::false_type {
  static constexpr std::size_t start = 0;  // a leaf itself is its own part
};
template <class N>
  requires(elements_from<operation_of_t<N>>.has_value() && is_leaf<child_t<0, N>>)
struct slice_of_leaf<N> : std::true_type {
  static constexpr std::size_t start = *elements_from<operation_of_t<N>>;
};
template <class N>
inline constexpr bool slices_a_leaf = slice_of_leaf<N>::value;

/// The leaf a slice of a leaf reads; any other input is its own.
template <class In>
struct sliced_leaf {
  using type = In;
};
template <class In>
  requires slices_a_leaf<In>
struct sliced_leaf<In> {
  using type = std::remove_cvref_t<child_t<0, In>>;
};

/// Whether every input with an adjoint is a slice of one and the same leaf, of at least two starts:
/// Rosenbrock's head and tail, x[0 .. n - 1) and x[1 .. n). `least` and `greatest` are their starts'.
template <class Inputs>
struct shifted_slices {
  static constexpr bool value = false;
  static constexpr std::size_t least = 0, greatest = 0;
};
template <class... In>
struct shifted_slices<type_list<In...>> {
  template <class A, class... B>
  static constexpr bool leaf_of_all =
      ((!B::is_active || std::is_same_v<typename sliced_leaf<A>::type, typename sliced_leaf<B>::type>)&&...);
  static constexpr std::size_t none = ~std::size_t{0};
  static constexpr std::size_t least = std::min({(In::is_active ? slice_of_leaf<In>::start : none)...});
  static constexpr std::size_t greatest = std::max({(In::is_active ? slice_of_leaf<In>::start : 0)...});
  static constexpr bool value =
      ((!In::is_active || (slices_a_leaf<In> && leaf_of_all<In, In...>)) && ...) && least != none && least != greatest;
  /// The first input with an adjoint: one of the slices, of the leaf they read.
  static constexpr std::size_t first_active = [] {
    constexpr std::array<bool, sizeof...(In)> active{In::is_active...};
    std::size_t k = 0;
    while (k < active.size() && !active[k]) ++k;
    return k;
  }();
};

/// Regions smaller than this that are plain arithmetic into matrices stay node by node: the compiler
/// unrolls such small loops completely and fuses them across nodes itself, faster than one loop of
/// the region's scalar tree. Above it, one loop is faster than the compiler's fusion.
inline constexpr std::size_t fuse_min_elements = 32;

/// Regions of more operations than this stay node by node. A region's type walks and its scalar tree
/// are instantiated per region, and their compile cost grows with its size, while the run-time gain of
/// one loop over many operations is no larger than over a few: the loss functions fused in practice
/// are a handful of operations. The limit bounds the compile cost of regions far larger than those.
inline constexpr std::size_t fuse_max_operations = 16;

/// Whether the region's loop runs in SIMD batches of T that gather its adjoints in a window of the
/// leaf's elements (sweep_region_window): a region smaller than fuse_min_elements whose inputs with an
/// adjoint are slices of one leaf, their starts at most a batch apart and their elements one run.
/// Node by node, g++ computes such a shifted slice's adjoint a second time, one element at a time, and
/// assembles its batches lane by lane (S3, n = 16: 58 of its 131 instructions per gradient scalar, 14
/// moving lanes); the window rotates each batch into place in registers instead.
template <class Root, class T>
constexpr bool gathers_in_window() {
#if TAPELESS_SIMD
  using S = shifted_slices<region_inputs_t<Root>>;
  if constexpr (region_vectorised<Root, T> && S::value)
    return Root::value_type::size() < fuse_min_elements && S::greatest - S::least <= simd::width<T> &&
           S::greatest - S::least <= Root::value_type::size();
#endif
  return false;
}
template <class Root, class T>
inline constexpr bool region_in_window = gathers_in_window<Root, T>();

inline constexpr bool fusion_enabled = TAPELESS_FUSE != 0;
template <class N>
inline constexpr bool region_within_limit = region_operations<N> <= fuse_max_operations;

/// Whether T is a dual number carrying several directions in lanes (tangents<T, L>: hessian's chunks,
/// the sparse transforms' colors). Node by node, each node's loop runs a lane operation per element
/// that the compiler vectorises; one loop of the region's scalar tree moves whole duals through it:
/// Rosenbrock's Hessian at n = 64 took 20% more instructions fused, while a dual of one tangent (a
/// Hessian-vector product) takes a third fewer.
template <class T>
inline constexpr bool lane_dual = false;
template <class T, std::size_t L>
inline constexpr bool lane_dual<dual<T, tangents<T, L>>> = true;

/// The elementwise trees that are swept as a region when nothing reads their value.
template <class N>
concept fused_region =
    fusion_enabled && is_elementwise_node<N> && region_within_limit<N> &&
    !lane_dual<typename N::value_type::value_type> &&
    (!region_plain<N> || sums_a_number<region_inputs_t<N>> || N::value_type::size() >= fuse_min_elements ||
     region_in_window<N, typename N::value_type::value_type>);

/// Which inputs of the region rooted at Root are the same for every element: its numbers, bit K for
/// input K (the uniform leaves of sweep/adjoint_parts.hpp).
template <class Root, std::size_t... K>
constexpr std::uint64_t uniform_inputs_of(std::index_sequence<K...>) {
  return ((Matrix<typename region_input_t<Root, K>::value_type> ? std::uint64_t{0} : std::uint64_t{1} << K) | ... |
          std::uint64_t{0});
}
template <class Root>
inline constexpr std::uint64_t uniform_inputs = uniform_inputs_of<Root>(std::make_index_sequence<region_size<Root>>{});

}  // namespace tapeless::detail
