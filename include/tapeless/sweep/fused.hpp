// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/fused.hpp: elementwise regions swept as one loop over the elements.
//
// exp(A) * B + c, (y - mu) / sigma: a tree of elementwise nodes (ops/elementwise.hpp) computes each
// element of its result from the same element of its operands, through the scalar operations only.
// Swept node by node, each node writes a matrix of values in the forward pass and a matrix of adjoints
// in the reverse one, and the next node reads it back: a round trip through memory per node, where a
// hand-written adjoint runs one loop that keeps everything in registers.
//
// Here the largest such tree whose value nothing reads (under sum or mean, a loss, a let's body: the
// reverse sweep needs only its adjoint) is a region. Its operands that are not elementwise (leaves,
// matmul, a number) are its inputs, evaluated once in the forward pass as usual; the region itself
// computes nothing forward. Its reverse sweep is one loop: for each element, the region's scalar tree
// (the same operations on scalar leaves: argument K for input K, whose adjoint the sweep gathers in
// slot K, or a constant for an input without adjoint) is evaluated and swept by the scalar
// engine, whose adjoints land in one slot per input; a matrix input receives a matrix of them, a
// number their sum. Then each input's own subtree is swept with its adjoint. At run time, for double,
// when every operation of the region is written for SIMD batches (simd/batch.hpp) and batches pay
// (region_in_batches), the element is a batch of elements: the same scalar tree, on xsimd::batch.
// Small regions of plain arithmetic stay node by node (fused_region), but where they read shifted
// slices of one leaf: those run in batches that add the slices' adjoints in a window (region_in_window).
//
// Where every input with an adjoint is a number and the loop's adjoint is the same for every element
// (under sum or mean: normal_logpdf's mu and sigma), the loop keeps the factors common to every element
// apart and multiplies each number's sum by them once, after it (sweep/adjoint_parts.hpp).
//
// A region's value computed only to be read (value_and_grad's root, a matmul operand) stays node by
// node: a fused loop would compute its elements twice, forward and again in the reverse sweep.
//
// On by default; TAPELESS_FUSE=0 (CMake option TAPELESS_FUSE=OFF), the same in every translation unit
// of a program, sweeps every region node by node: a region costs compile time (fuse_max_operations).
//
// The parts, each in its header: the region as types, its inputs and their slots (sweep/region.hpp);
// the scalar tree of one element and its sweep (sweep/region_tree.hpp); what the forward pass keeps
// (sweep/region_evaluated.hpp); what the loop gathers per input (sweep/region_gathered.hpp); the loops
// in SIMD batches (sweep/region_batches.hpp); and here the sweep of a region, which runs one of them or
// the loop one element at a time.
#pragma once

#include <tapeless/expr/children.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/simd/batch.hpp>
#include <tapeless/sweep/adjoints.hpp>
#include <tapeless/sweep/region.hpp>
#include <tapeless/sweep/region_batches.hpp>
#include <tapeless/sweep/region_evaluated.hpp>
#include <tapeless/sweep/region_gathered.hpp>
#include <tapeless/sweep/region_tree.hpp>

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// The reverse sweep of a region, its loop over the elements, then the sweep of each input with the
/// adjoint the loop gathered for it.
template <class Root, class G, class Store, std::size_t... K>
constexpr void sweep_region(const Root& n, const region_evaluated<Root, std::index_sequence<K...>>& v, const G& g,
                            Store& store) {
  using M = typename Root::value_type;
  using T = typename M::value_type;
  constexpr std::size_t inputs = sizeof...(K);
  const auto in = region_inputs(n);
  using inputs_t = region_inputs_t<Root>;
  const auto values = region_values(n, v);
#if TAPELESS_SIMD
  // Slices of one leaf gathered in a window, where the store lets the loop write the leaf's adjoints
  // (not under tl::trace, whose store records each input's adjoint: there the loop below).
  if constexpr (region_in_window<Root, T>) {
    if (!std::is_constant_evaluated()) {
      const auto& leaf = child<0>(*plain_get<shifted_slices<inputs_t>::first_active>(in));
      using L = typename std::remove_cvref_t<decltype(leaf)>::value_type;
      if constexpr (std::is_same_v<decltype(claim_sum(store, leaf)), L*>) {
        if (L* destination = claim_sum(store, leaf)) {
          sweep_region_window<M::size(), T, Root>(element_sweep_of<inputs>(n), g, values, destination->data(),
                                                  L::size(), std::index_sequence<K...>{});
          return;
        }
      }
    }
  }
#endif
  // An adjoint gathered per input that owns its slot (the first use of x, not the others).
  plain_tuple<
      gathered_adjoint<region_input_t<Root, K>, region_input_t<Root, K>::is_active && input_slot<inputs_t, K> == K,
                       is_uniform<G> && uniform_slot_adjoints<Root>[K]>...>
      gathered;
  (plain_get<K>(gathered).claim(*plain_get<K>(in), store), ...);

  const auto element_sweep = element_sweep_of<inputs>(n);

#if TAPELESS_SIMD
  if constexpr (region_in_batches<Root, T>) {
    if (!std::is_constant_evaluated()) {
      if constexpr (scales_apart<Root, G>)
        sweep_region_scaled<M::size(), T>(n, v, element_sweep, g, values, gathered, std::index_sequence<K...>{});
      else
        sweep_region_batches<M::size(), T>(element_sweep, g, values, gathered, std::index_sequence<K...>{});
      (sweep_input(*plain_get<K>(in), plain_get<K>(v.input_values), plain_get<K>(gathered), store), ...);
      return;
    }
  }
#endif
  for (std::size_t i = 0; i < M::size(); ++i) {
    const auto a = element_sweep(std::array<T, inputs>{element_at<T>(plain_get<K>(values), i)...}, adjoint_at<T>(g, i));
    (plain_get<K>(gathered).put(i, a[K]), ...);
  }
  (plain_get<K>(gathered).template finish<M::size()>(), ...);
  (sweep_input(*plain_get<K>(in), plain_get<K>(v.input_values), plain_get<K>(gathered), store), ...);
}

}  // namespace tapeless::detail
