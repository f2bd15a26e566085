// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/region_evaluated.hpp: what the forward pass keeps of a region whose value nothing reads, and
// how its loop reads its inputs' values.
//
// The region computes nothing forward: its evaluation holds only its inputs' evaluations, each
// computing its value only where the region's sweep reads it, and once per slot. A slice of a leaf
// computes nothing: the loop reads the leaf's elements in place.
// Tests: test/unit/sweep/fused/
#pragma once

#include <tapeless/expr/children.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/ops/elementwise.hpp>
#include <tapeless/ops/shape.hpp>
#include <tapeless/sweep/region.hpp>
#include <tapeless/sweep/region_tree.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// The elements of a matrix M read in place: what the loop reads of a slice of a leaf.
template <class M>
struct elements_in_place {
  const typename M::value_type* first;
};
template <class T, class M>
constexpr const T* simd_operand(const elements_in_place<M>& v) {
  return v.first;
}
template <class T, class M>
constexpr T element_at(const elements_in_place<M>& v, std::size_t i) {
  return T(v.first[i]);
}

/// The value of a region's input as its loop reads it: the input's own, or for a slice of a leaf,
/// the leaf's elements in place.
template <class In, class E>
constexpr decltype(auto) region_value(const In& input, const E& evaluation) {
  if constexpr (slices_a_leaf<In>)
    return elements_in_place<typename In::value_type>{child<0>(input).value().data() + slice_of_leaf<In>::start};
  else
    return value_at(input, evaluation);
}

/// Whether the region's sweep reads the value of input K: else that input's value is not computed.
/// A slice of a leaf computes none: the loop reads the leaf's.
template <class Root, std::size_t K>
inline constexpr bool region_reads =
    !slices_a_leaf<region_input_t<Root, K>> &&
    (!region_input_t<Root, K>::is_active || region_read_mask<Root>[input_slot<region_inputs_t<Root>, K>]);

/// In place of the evaluation of an input that shares the slot of an earlier one: that one's serves.
struct evaluated_elsewhere {
  template <class N, class Shared>
  constexpr explicit evaluated_elsewhere(const N&, Shared&) noexcept {}
};

/// What the forward pass keeps of input K of a region: its evaluation if it owns its slot.
template <class Root, std::size_t K>
using input_evaluation =
    std::conditional_t<input_slot<region_inputs_t<Root>, K> == K,
                       evaluated<region_input_t<Root, K>, region_reads<Root, K>>, evaluated_elsewhere>;

/// A region whose value nothing reads: its inputs' evaluations, and no value of its own.
template <class Root, class Is>
struct region_evaluated;
template <class Root, std::size_t... K>
struct region_evaluated<Root, std::index_sequence<K...>> {
  using inputs = typename input_pointers<region_inputs_t<Root>>::type;
  plain_tuple<input_evaluation<Root, K>...> input_values;

  template <class Shared>
  constexpr region_evaluated(const Root& n, Shared& shared) : region_evaluated(region_inputs(n), shared) {}
  template <class Shared>
  constexpr region_evaluated(const inputs& in, Shared& shared)
      : input_values{{input_evaluation<Root, K>(*plain_get<K>(in), shared)}...} {}
  [[nodiscard]] constexpr const auto& value() const noexcept { return not_computed<typename Root::value_type>; }
};

template <class N>
using region_evaluation = region_evaluated<N, std::make_index_sequence<region_size<N>>>;

template <class Op, class A>
  requires fused_region<unary_node<elementwise_unary<Op>, A>>
struct evaluated<unary_node<elementwise_unary<Op>, A>, false>
    : region_evaluation<unary_node<elementwise_unary<Op>, A>> {
  template <class Shared = const no_shared_work>
  constexpr explicit evaluated(const unary_node<elementwise_unary<Op>, A>& n, Shared& shared = no_sharing)
      : region_evaluation<unary_node<elementwise_unary<Op>, A>>(n, shared) {}
};
template <class Op, class A, class B>
  requires fused_region<binary_node<elementwise_binary<Op>, A, B>>
struct evaluated<binary_node<elementwise_binary<Op>, A, B>, false>
    : region_evaluation<binary_node<elementwise_binary<Op>, A, B>> {
  template <class Shared = const no_shared_work>
  constexpr explicit evaluated(const binary_node<elementwise_binary<Op>, A, B>& n, Shared& shared = no_sharing)
      : region_evaluation<binary_node<elementwise_binary<Op>, A, B>>(n, shared) {}
};

/// Element i of an operand of the loop (a matrix's element, or the number itself), as T.
template <class T, class V>
constexpr T element_at(const V& v, std::size_t i) {
  return T(broadcast_element(v, i));
}

/// Element i of an adjoint, which may be uniform (every element the same: under sum or mean).
template <class T, class G>
constexpr T adjoint_at(const G& g, std::size_t i) {
  if constexpr (is_uniform<G>)
    return T(g.value);
  else
    return T(g[i]);
}

/// Input K's value (a reference into n or v), from the input owning its slot.
template <class Root, std::size_t... K>
constexpr auto region_values(const Root& n, const region_evaluated<Root, std::index_sequence<K...>>& v) {
  const auto in = region_inputs(n);
  using inputs_t = region_inputs_t<Root>;
  return plain_tuple<decltype(region_value(*plain_get<input_slot<inputs_t, K>>(in),
                                           plain_get<input_slot<inputs_t, K>>(v.input_values)))...>{
      {region_value(*plain_get<input_slot<inputs_t, K>>(in), plain_get<input_slot<inputs_t, K>>(v.input_values))}...};
}

}  // namespace tapeless::detail
