// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/region_gathered.hpp: what a region's loop gathers for each input: a matrix of adjoints, a
// sum, or nothing; and when the loop keeps the factors common to every element apart.
//
// A matrix input receives a matrix of its elements' adjoints, written where the store would copy them
// if it can (claim); a number input receives their sum over the elements, or one product where that
// adjoint is the same for every element. Where every input with an adjoint is a number, and the
// region's own adjoint is the same for every element (under sum or mean), the loop sweeps with scaled
// adjoints (sweep/adjoint_parts.hpp).
// Tests: test/unit/sweep/fused/
#pragma once

#include <tapeless/expr/children.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/operation/traits.hpp>
#include <tapeless/simd/batch.hpp>
#include <tapeless/sweep/adjoints.hpp>
#include <tapeless/sweep/region.hpp>
#include <tapeless/sweep/region_evaluated.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// What the region's loop gathers for a matrix input In: a matrix of its adjoints.
template <class In>
struct gathered_matrix_adjoint {
  using V = typename In::value_type;
  static constexpr bool active = true, of_matrix = true, uniform = false;
  static constexpr bool claimable = is_leaf<In> || slices_a_leaf<In>;
  using element = typename V::value_type;
  V sum;
  element* out;  // where the loop writes the adjoints: sum, or the store's own sum (claim)
  bool claimed = false;
  // User-provided, so that the tuple of them is not zeroed first (value-initialization would); and the
  // matrix constructed here, not returned by a constexpr function, which g++ folds into a constant
  // whose uninitialized elements are zeros, filled in.
  // The loop writes all. Elements of dual numbers (a Hessian's tangents) start as zeros, though: g++
  // -Wmaybe-uninitialized cannot follow the loop through their tangents' lanes, and warns in the user's
  // build; zeroing a few of them costs nothing beside the tangents' work.
  constexpr gathered_matrix_adjoint() : sum(uninitialized), out(sum.data()) {
    if constexpr (!std::is_arithmetic_v<element>) sum = V{};
  }

  /// For a matrix leaf (an argument, a let's name) whose first adjoint this is: the loop writes into
  /// the store's sum of its adjoints itself, and the copy from `sum` is spared. For a slice of such a
  /// leaf, into its part of that sum, the rest zeros (the sum a slice's placed adjoint would write).
  template <class Store>
  constexpr void claim(const In& input, Store& store) {
    if constexpr (claimable) {
      const auto& leaf = [&]() -> const auto& {
        if constexpr (is_leaf<In>)
          return input;
        else
          return child<0>(input);  // the leaf a slice reads
      }
      ();
      using L = typename std::remove_cvref_t<decltype(leaf)>::value_type;
      if constexpr (std::is_same_v<decltype(claim_sum(store, leaf)), L*>) {
        if (L* destination = claim_sum(store, leaf)) {
          // A leaf is its own part; a slice writes its part, and the rest of the leaf's sum is zeros.
          constexpr std::size_t start = slice_of_leaf<In>::start, end = start + V::size();
          for (std::size_t i = 0; i < start; ++i) (*destination)[i] = element(0);
          for (std::size_t i = end; i < L::size(); ++i) (*destination)[i] = element(0);
          out = destination->data() + start;
          claimed = true;
        }
      }
    }
  }
  /// Whether the adjoints are in `sum`, for In's own sweep to take.
  [[nodiscard]] constexpr bool to_sweep() const {
    if constexpr (claimable)
      return !claimed;
    else
      return true;
  }
  /// The adjoint a of element i.
  template <class T>
  constexpr void put(std::size_t i, const T& a) {
    out[i] = a;
  }
  template <std::size_t>
  constexpr void finish() {}
};

/// What the region's loop gathers for a number input In: the sum of its adjoints over the elements.
/// Where that adjoint is the same for every element (Uniform: - log(sigma) under a sum, the adjoint -1),
/// the sum is one product, n times it, which also leaves the loop without an addition per batch; that
/// product is exact where the n additions round (each of them may).
template <class In, bool Uniform>
struct gathered_sum {
  using T = typename In::value_type;
  static constexpr bool active = true, of_matrix = false, uniform = Uniform;
  T sum{-0.0};  // the identity of IEEE addition: the compiler may drop the first addition
  template <class Store>
  constexpr void claim(const In&, Store&) {}
  [[nodiscard]] static constexpr bool to_sweep() { return true; }
  /// The adjoint a of an element: any element's, where it is the same for all.
  constexpr void put(std::size_t, const T& a) {
    if constexpr (Uniform)
      sum = a;
    else
      sum += a;
  }
  /// Once the loop over N elements put their adjoints.
  template <std::size_t N>
  constexpr void finish() {
    if constexpr (Uniform) sum *= T(N);
  }
};

/// What the region's loop gathers for an input without adjoint: nothing.
template <class In>
struct not_gathered {
  static constexpr bool active = false, of_matrix = false, uniform = false;
  template <class Store>
  constexpr void claim(const In&, Store&) {}
  template <class T>
  constexpr void put(std::size_t, const T&) {}
  template <std::size_t>
  constexpr void finish() {}
};

/// What the region's loop gathers for input In: its adjoints if it has any (Active), a matrix of them
/// for a matrix, their sum for a number.
template <class In, bool Active, bool Uniform>
using gathered_adjoint = std::conditional_t<
    !Active, not_gathered<In>,
    std::conditional_t<Matrix<typename In::value_type>, gathered_matrix_adjoint<In>, gathered_sum<In, Uniform>>>;

/// Whether operation Op sends its operand Side an adjoint the same for every element when its own is:
/// x + y, x - y and -x do; x * y and x / y to x where y is a number (NumberB); x * y to y where x is.
/// (Every other operation's adjoint reads a matrix operand: a node of the region has one.)
template <class Op, std::size_t Side, bool NumberA, bool NumberB>
constexpr bool passes_uniform_adjoint() {
  constexpr partials_form form = partials_of<Op>;
  if constexpr (form == partials_form::sum || form == partials_form::difference || form == partials_form::negation)
    return true;
  else if constexpr (Side == 0 && (form == partials_form::product || form == partials_form::quotient))
    return NumberB;
  else if constexpr (Side == 1 && form == partials_form::product)
    return NumberA;
  else
    return false;
}

/// Marks, from `uniform` on, whether the adjoint that reaches each input of the region rooted at N is the
/// same for every element, when N's own adjoint is (`same`).
template <class N>
constexpr void mark_uniform_adjoints(bool same, bool* uniform) {
  if constexpr (!is_elementwise_node<N>) {
    *uniform = same;
  } else {
    using Op = scalar_operation_t<N>;
    constexpr bool binary = child_count<N> == 2;
    constexpr bool number_a = binary && !Matrix<typename child_t<0, N>::value_type>;
    constexpr bool number_b = binary && !Matrix<typename child_t<child_count<N> - 1, N>::value_type>;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      (mark_uniform_adjoints<child_t<K, N>>(same && passes_uniform_adjoint<Op, K, number_a, number_b>(),
                                            uniform + inputs_before<N, K>),
       ...);
    }
    (std::make_index_sequence<child_count<N>>{});
  }
}

/// Per slot of the region's inputs, whether its adjoint is the same for every element under an adjoint
/// of the root that is (under sum or mean): every input sharing the slot receives one that is.
template <class Root>
inline constexpr auto uniform_slot_adjoints = [] {
  constexpr std::size_t n = region_size<Root>;
  std::array<bool, n> per_input{}, per_slot{};
  mark_uniform_adjoints<Root>(true, per_input.data());
  per_slot.fill(true);
  constexpr auto slot = input_slots<region_inputs_t<Root>>::slot;
  for (std::size_t k = 0; k < n; ++k) per_slot[slot[k]] = per_slot[slot[k]] && per_input[k];
  return per_slot;
}();

/// Whether input K of the region rooted at Root receives an adjoint that its loop sums over the
/// elements: a number whose adjoint is not the same for every element.
template <class Root, std::size_t K>
inline constexpr bool sums_over_elements =
    region_input_t<Root, K>::is_active && !Matrix<typename region_input_t<Root, K>::value_type> &&
    !uniform_slot_adjoints<Root>[input_slot<region_inputs_t<Root>, K>];

/// Whether the region's loop under adjoint G sweeps with scaled adjoints (sweep/adjoint_parts.hpp): under sum
/// or mean, when every input with an adjoint is a number, and the loop sums some of their adjoints.
/// (A matrix's adjoints would each be multiplied by the scale: nothing saved.)
template <class Root, class G, class Is = std::make_index_sequence<region_size<Root>>>
inline constexpr bool scales_apart = false;
template <class Root, class G, std::size_t... K>
  requires(is_uniform<G> && sizeof...(K) <= 64)
inline constexpr bool scales_apart<Root, G, std::index_sequence<K...>> =
    ((!region_input_t<Root, K>::is_active || !Matrix<typename region_input_t<Root, K>::value_type>)&&...) &&
    (sums_over_elements<Root, K> || ...);

/// Whether the region rooted at Root, under adjoint G (as sweep_region takes it), runs its loop with
/// scaled adjoints (sweep_region_scaled): in SIMD batches, where scales_apart.
template <class Root, class G>
inline constexpr bool sweeps_scaled =
    TAPELESS_SIMD&& region_in_batches<Root, typename Root::value_type::value_type>&& scales_apart<Root, G>;

/// Whether N is a region whose loop runs with scaled adjoints under sum or mean: for the sweep of the
/// node above it, which clang is made to inline too.
template <class N>
inline constexpr bool scaled_under_sum = false;
template <class N>
  requires fused_region<N>
inline constexpr bool scaled_under_sum<N> = sweeps_scaled<N, uniform<typename N::value_type>>;

/// An input's own sweep, with the adjoint the region's loop gathered for it.
template <class In, class E, class Gathered, class Store>
constexpr void sweep_input(const In& input, const E& values, const Gathered& gathered, Store& store) {
  if constexpr (Gathered::active)
    if (gathered.to_sweep()) backward_sweep(input, values, gathered.sum, store);
}

}  // namespace tapeless::detail
