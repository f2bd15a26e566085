// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/region_tree.hpp: the scalar tree of one element of a region, and its sweep.
//
// For each element (or batch of elements) the region's loop builds the same operations on scalar
// leaves: argument K for an input K that has an adjoint, whose adjoint the sweep gathers in slot K, or
// a constant. The scalar engine evaluates and sweeps that tree, and its adjoints land in one slot per
// input. Which inputs' values that sweep reads is known from the tree's type (region_read_mask): the
// forward pass computes no other.
// Tests: test/unit/sweep/fused/
#pragma once

#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/children.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/ops/arithmetic.hpp>
#include <tapeless/simd/batch.hpp>
#include <tapeless/sweep/adjoint_parts.hpp>
#include <tapeless/sweep/region.hpp>

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// The operation of a binary node of the region's scalar tree for elements of type T, whose rhs is Rhs:
/// its own, but in a loop over SIMD batches where the rhs is a number (the same for every element: the
/// loop broadcasts it), the form the operation states for that (`uniform_rhs_form`: a division
/// multiplies by the reciprocal, computed once).
template <class Op, class Rhs, class T>
struct element_operation_of {
  using type = Op;
};
template <class Op, class Rhs, class T>
  requires(requires { typename Op::uniform_rhs_form; } && simd::is_batch<T> && !is_elementwise_node<Rhs> &&
           !Matrix<typename Rhs::value_type>)
struct element_operation_of<Op, Rhs, T> {
  using type = typename Op::uniform_rhs_form;
};
template <class Op, class Rhs, class T>
using element_operation = typename element_operation_of<Op, Rhs, T>::type;

/// The region's scalar tree for one element of number (or batch) type T: its operations, on
/// leaves holding in[K], in[K + 1], ...: argument<slot of K> (its adjoint is that slot's), or a
/// constant. ByPosition (for scaled adjoints, sweep/adjoint_parts.hpp): argument<K> for each input K, one
/// slot each, and for a number input as well as an active one, so that its value is known to be the
/// same for every element (its adjoint, if it has none, is never read).
template <class Inputs, std::size_t K, bool ByPosition = false, class T, class N, std::size_t I>
constexpr auto element_tree(const N& n, const std::array<T, I>& in) {
  if constexpr (!is_elementwise_node<N> && ByPosition && (N::is_active || !Matrix<typename N::value_type>)) {
    return argument<K, T>(in[K]);
  } else if constexpr (!is_elementwise_node<N> && N::is_active && !ByPosition) {
    return argument<input_slot<Inputs, K>, T>(in[K]);
  } else if constexpr (!is_elementwise_node<N>) {
    return constant<T>(in[K]);
  } else if constexpr (child_count<N> == 1) {
    using A = decltype(element_tree<Inputs, K, ByPosition>(child<0>(n), in));
    return unary_node<scalar_operation_t<N>, A>(n.op.op, built_by{},
                                                [&] { return element_tree<Inputs, K, ByPosition>(child<0>(n), in); });
  } else {
    static_assert(child_count<N> == 2, "an elementwise operation has one operand or two");
    constexpr std::size_t KB = K + inputs_before<N, 1>;
    using A = decltype(element_tree<Inputs, K, ByPosition>(child<0>(n), in));
    using B = decltype(element_tree<Inputs, KB, ByPosition>(child<1>(n), in));
    using Own = scalar_operation_t<N>;
    using Op = element_operation<Own, child_t<1, N>, T>;
    const Op op = [&] {
      if constexpr (std::is_same_v<Op, Own>)
        return n.op.op;  // with its state, if it has any
      else
        return Op{};
    }();
    return binary_node<Op, A, B>(
        op, built_by{}, [&] { return element_tree<Inputs, K, ByPosition>(child<0>(n), in); },
        [&] { return element_tree<Inputs, KB, ByPosition>(child<1>(n), in); });
  }
}

template <class T, class N>
using element_tree_t = decltype(element_tree<region_inputs_t<N>, 0>(
    std::declval<const N&>(), std::declval<const std::array<T, region_size<N>>&>()));

/// Marks in `reads` the inputs whose value the reverse sweep of a scalar tree, evaluated as E, reads:
/// its argument leaves K computed (Need true). One walk of the tree's evaluation for all inputs, through
/// the evaluations of each node's children (expr/evaluated.hpp); a leaf's evaluation has none.
template <class E, std::size_t I>
constexpr void mark_reads(std::type_identity<E>, std::array<bool, I>& reads) {
  if constexpr (requires { typename E::children; })
    [&]<class... C>(type_list<C...>) {
      (mark_reads(std::type_identity<C>{}, reads), ...);
    }(typename E::children::types{});
}
template <std::size_t K, class T, std::size_t I>
constexpr void mark_reads(std::type_identity<evaluated<argument<K, T>, true>>, std::array<bool, I>& reads) {
  reads[K] = true;
}

/// Which inputs' values the region's sweep reads; an input without adjoint (a constant leaf in the
/// scalar tree) is taken as read.
template <class Root>
inline constexpr auto region_read_mask = [] {
  using tree = evaluated<element_tree_t<typename Root::value_type::value_type, Root>, false>;
  std::array<bool, region_size<Root>> reads{};
  mark_reads(std::type_identity<tree>{}, reads);
  return reads;
}();

/// The adjoints a scalar tree's sweep gives its inputs, one slot each, starting at -0 (the identity of
/// IEEE addition: the compiler may drop the first addition).
template <class T, std::size_t I>
struct element_adjoints {
  std::array<T, I> slot;
  constexpr element_adjoints() { slot.fill(T(-0.0)); }
  template <class Leaf, class G>
  constexpr void accumulate(const Leaf&, const G& g) {
    slot[Leaf::slot] += g;
  }
};

/// One element (or one batch of elements) of the region n, a function of the Inputs inputs' values x:
/// the scalar tree at x, swept with adjoint gi. With a tag lines_part or scale_part, that part of
/// scaled adjoints (sweep/adjoint_parts.hpp), each input its own leaf.
template <std::size_t Inputs, class Root>
constexpr auto element_sweep_of(const Root& n) {
  return [&n](const auto& x, const auto& gi, auto... part) {
    using E = std::remove_cvref_t<decltype(gi)>;
    const auto tree = element_tree<region_inputs_t<Root>, 0, sizeof...(part) != 0>(n, x);
    const evaluated<std::remove_cvref_t<decltype(tree)>, false> tree_values(tree);
    std::conditional_t<sizeof...(part) != 0, adjoint_parts<E, Inputs>, element_adjoints<E, Inputs>> adjoints;
    if constexpr (sizeof...(part) != 0) {
      constexpr bool scale = (std::is_same_v<decltype(part), scale_part> || ...);
      backward_sweep(tree, tree_values, adjoint_part<E, uniform_inputs<Root>, scale>{gi}, adjoints);
    } else {
      backward_sweep(tree, tree_values, gi, adjoints);
    }
    return adjoints.slot;
  };
}

}  // namespace tapeless::detail
