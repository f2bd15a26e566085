// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/region_batches.hpp: a region's loop in SIMD batches of elements: with plain adjoints, and with
// scaled ones (sweep/adjoint_parts.hpp).
//
// Each batch of elements is one evaluation and sweep of the region's scalar tree on xsimd batches
// (sweep/region_tree.hpp); the last, partial batch is padded and only its real lanes kept. Under sum or
// mean, with number inputs only, the loop sums each input's lines per batch and multiplies each sum by
// its scale once, after the loop; where a sum or a scale is not comfortably normal, it runs again with
// plain adjoints. Where the inputs with an adjoint are slices of one leaf at most a batch apart, in a
// small region, the loop adds them into a window of the leaf's elements (simd/window.hpp).
// Tests: test/unit/sweep/fused/ test/unit/sweep/region_batches_test.cpp
#pragma once

#include <tapeless/detail/inline.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/simd/batch.hpp>
#include <tapeless/simd/window.hpp>
#include <tapeless/sweep/adjoint_parts.hpp>
#include <tapeless/sweep/region.hpp>
#include <tapeless/sweep/region_evaluated.hpp>
#include <tapeless/sweep/region_gathered.hpp>
#include <tapeless/sweep/region_tree.hpp>

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

#if TAPELESS_SIMD
/// The region's adjoint as an operand of its loop: one number where it is the same for every element,
/// else a pointer to its elements.
template <class T, class G>
constexpr auto adjoint_operand(const G& g) {
  if constexpr (is_uniform<G>)
    return static_cast<T>(g.value);
  else
    return g.data();
}

/// The inputs' values as operands of the region's loop, each a pointer or a number (simd_operand).
template <class T, class Values, std::size_t... K>
constexpr auto input_operands(const Values& values, std::index_sequence<K...>) {
  return plain_tuple<decltype(simd_operand<T>(plain_get<K>(values)))...>{{simd_operand<T>(plain_get<K>(values))}...};
}

/// The region's loop a batch of elements at a time: element_sweep(x, g) takes the batches of the
/// inputs and of the adjoint, and returns a batch of adjoints per input. The last, partial batch is
/// padded with its first element (as in simd/batch.hpp), and only its real lanes are kept.
template <std::size_t N, class T, class Sweep, class G, class Values, class Gathered, std::size_t... K>
void sweep_region_batches(const Sweep& element_sweep, const G& g, const Values& values, Gathered& gathered,
                          std::index_sequence<K...>) {
  using B = simd::batch<T>;
  constexpr std::size_t w = simd::width<T>, inputs = sizeof...(K);
  const auto adjoint = adjoint_operand<T>(g);
  const auto operands = input_operands<T>(values, std::index_sequence<K...>{});
  // An adjoint the same for every element (Out::uniform), from the first batch only: the loop leaves it.
  if constexpr ((std::remove_cvref_t<decltype(plain_get<K>(gathered))>::uniform || ...)) {
    const auto a = element_sweep(std::array<B, inputs>{simd::load_partial<T>(plain_get<K>(operands), 0, N)...},
                                 simd::load_partial<T>(adjoint, 0, N));
    (
        [&]<class Out>(Out& out) {
          if constexpr (Out::uniform) out.put(0, a[K].get(0));
        }(plain_get<K>(gathered)),
        ...);
  }
  std::array<B, inputs> sums;  // per lane, the adjoints of the numbers among the inputs
  sums.fill(B(T(-0.0)));
  std::size_t i = 0;
  for (; i + w <= N; i += w) {
    const auto a =
        element_sweep(std::array<B, inputs>{simd::load<T>(plain_get<K>(operands), i)...}, simd::load<T>(adjoint, i));
    (
        [&]<class Out>(Out& out) {
          if constexpr (Out::of_matrix)
            a[K].store_unaligned(out.out + i);
          else if constexpr (Out::active && !Out::uniform)
            sums[K] += a[K];
        }(plain_get<K>(gathered)),
        ...);
  }
  if constexpr (N % w != 0) {
    const auto a = element_sweep(std::array<B, inputs>{simd::load_partial<T>(plain_get<K>(operands), i, N - i)...},
                                 simd::load_partial<T>(adjoint, i, N - i));
    alignas(B::arch_type::alignment()) std::array<T, w> lanes;
    (
        [&] {
          a[K].store_aligned(lanes.data());
          if constexpr (!std::remove_cvref_t<decltype(plain_get<K>(gathered))>::uniform)
            for (std::size_t k = 0; i + k < N; ++k) plain_get<K>(gathered).put(i + k, lanes[k]);
        }(),
        ...);
  }
  (
      [&]<class Out>(Out& out) {
        if constexpr (Out::active && !Out::of_matrix && !Out::uniform) out.sum += xsimd::hadd(sums[K]);
        out.template finish<N>();
      }(plain_get<K>(gathered)),
      ...);
}

/// Whether input K of the region rooted at Root adds to its window: a slice with an adjoint that owns
/// its slot; and at which offset from the window's base.
template <class Root, std::size_t K>
inline constexpr bool window_slice = region_input_t<Root, K>::is_active&& input_slot<region_inputs_t<Root>, K> == K;
template <class Root, std::size_t K>
inline constexpr std::size_t window_offset =
    slice_of_leaf<region_input_t<Root, K>>::start - shifted_slices<region_inputs_t<Root>>::least;

/// The region's loop in batches where its inputs with an adjoint are slices of one leaf (region_in_window):
/// each batch's adjoints go into a window of the leaf's elements from the least start, at each slice's
/// distance from it, and each element's sum is added once to `out`, the leaf's adjoints. `out` starts
/// as the loop that claims the leaf's sum for its first slice leaves it (sweep/region_gathered.hpp):
/// that slice's adjoints where it reaches, here -0, the identity of addition, and +0 elsewhere, to which
/// the other slices' adjoints add. Added batch by batch at each slice's offset instead, a batch would
/// load what the last one's store half wrote, which no store forwards to.
template <std::size_t N, class T, class Root, class Sweep, class G, class Values, std::size_t... K>
void sweep_region_window(const Sweep& element_sweep, const G& g, const Values& values, T* out, std::size_t size,
                         std::index_sequence<K...>) {
  using B = simd::batch<T>;
  using S = shifted_slices<region_inputs_t<Root>>;
  constexpr std::size_t w = simd::width<T>, inputs = sizeof...(K);
  constexpr std::size_t first = slice_of_leaf<region_input_t<Root, S::first_active>>::start;
  for (std::size_t e = 0; e < size; ++e) out[e] = e >= first && e < first + N ? T(-0.0) : T(0);
  const auto adjoint = adjoint_operand<T>(g);
  const auto operands = input_operands<T>(values, std::index_sequence<K...>{});
  simd::window<B> window;
  // Input J's adjoints of a batch into the window: of its real lanes only, where `real` is a mask of them.
  const auto add_input = [&]<std::size_t J>(std::integral_constant<std::size_t, J>, const B& a, const auto& real) {
    if constexpr (window_slice<Root, J>) {
      if constexpr (std::is_null_pointer_v<std::remove_cvref_t<decltype(real)>>)
        window.add(a, window_offset<Root, J>);
      else
        window.add(xsimd::select(real, a, B(T(-0.0))), window_offset<Root, J>);
    }
  };
  const auto add = [&](const auto& a, const auto& real) {
    (add_input(std::integral_constant<std::size_t, K>{}, a[K], real), ...);
  };
  std::size_t i = 0;
  for (; i + w <= N; i += w) {
    add(element_sweep(std::array<B, inputs>{simd::load<T>(plain_get<K>(operands), i)...}, simd::load<T>(adjoint, i)),
        nullptr);
    window.advance(out, S::least + i, size);
  }
  if constexpr (N % w != 0) {
    add(element_sweep(std::array<B, inputs>{simd::load_partial<T>(plain_get<K>(operands), i, N - i)...},
                      simd::load_partial<T>(adjoint, i, N - i)),
        simd::lanes_below<T>(N - i));
    window.advance(out, S::least + i, size);
    i += w;
  }
  window.advance(out, S::least + i, size);
}

/// What sweep_region_batches gathers for inputs that are all numbers (sweep_region_scaled's): their
/// sums, per input. Rare (where sweep_region_scaled declined), so out of line; and all by value, the
/// region's node and its inputs' evaluations too, the inputs' values taken again from those copies:
/// nothing of the caller's is passed by address. (Were the node passed by address, and the values as
/// references into it, clang would store the node and a tuple of pointers for this call on every
/// gradient, whether the call is made or not.)
template <std::size_t N, class T, class Gathered, class Root, class Evaluated, class G, std::size_t... K>
[[gnu::noinline, gnu::cold]] std::array<T, sizeof...(K)> number_adjoints_in_batches(Root n, Evaluated v, G g,
                                                                                    std::index_sequence<K...> inputs) {
  Gathered gathered;
  sweep_region_batches<N, T>(element_sweep_of<sizeof...(K)>(n), g, region_values(n, v), gathered, inputs);
  std::array<T, sizeof...(K)> sums{};
  (
      [&]<class Out>(const Out& out) {
        if constexpr (Out::active) sums[K] = out.sum;
      }(plain_get<K>(gathered)),
      ...);
  return sums;
}

/// The region's loop with scaled adjoints (sweep/adjoint_parts.hpp): the scales once, from the scalar tree of
/// the first element; per batch the lines, summed per input; each sum times its scale. Where a sum or a
/// scale is not comfortably normal, the loop of plain adjoints instead (sweep_region_batches).
/// Declared inline: g++ then inlines it where the gradient is taken, as it does the plain loop (this
/// one's size is over its limit for functions not so declared); clang is made to.
template <std::size_t N, class T, class Root, class Evaluated, class Sweep, class G, class Values, class Gathered,
          std::size_t... K>
TAPELESS_SWEEP_INLINE inline void sweep_region_scaled(const Root& n, const Evaluated& v, const Sweep& element_sweep,
                                                      const G& g, const Values& values, Gathered& gathered,
                                                      std::index_sequence<K...> inputs) {
  using B = simd::batch<T>;
  constexpr std::size_t w = simd::width<T>, count = sizeof...(K);
  const auto scale = element_sweep(std::array<T, count>{element_at<T>(plain_get<K>(values), 0)...},
                                   static_cast<T>(g.value), scale_part{});
  const plain_tuple<decltype(simd_operand<T>(plain_get<K>(values)))...> operands{
      {simd_operand<T>(plain_get<K>(values))}...};
  // Two sums per input, the batches taken in turn: with one, the loop would be a chain of additions,
  // each waiting for the one before.
  std::array<B, count> sums, other_sums;
  sums.fill(B(T(-0.0)));
  other_sums.fill(B(T(-0.0)));
  std::array<T, count> same{};  // the lines of an adjoint the same for every element
  const auto lanes_of = [](const B& lines, const auto&... real) {
    if constexpr (sizeof...(real) == 0)
      return lines;
    else
      return xsimd::select(real..., lines, B(T(0)));
  };
  // Takes a batch's lines into `to`; in the last, partial batch only its real lanes (the padding ones'
  // selected away, not multiplied by 0, which is NaN for an infinity).
  const auto take = [&](std::array<B, count>& to, const auto& a, const auto&... real) {
    (
        [&] {
          if constexpr (sums_over_elements<Root, K>)
            to[K] += lanes_of(a[K], real...);
          else if constexpr (region_input_t<Root, K>::is_active)
            same[K] = a[K].get(0);
        }(),
        ...);
  };
  // The lines of the n elements from i (a whole batch unless n says fewer, padded as load_partial pads).
  const auto lines_at = [&](std::size_t i, std::size_t n = simd::width<T>) {
    return element_sweep(std::array<B, count>{simd::load_partial<T>(plain_get<K>(operands), i, n)...}, B(T(1)),
                         lines_part{});
  };
  std::size_t i = 0;
  for (; i + 2 * w <= N; i += 2 * w) {
    take(sums, lines_at(i));
    take(other_sums, lines_at(i + w));
  }
  if constexpr (N / w % 2 != 0) {
    take(sums, lines_at(i));
    i += w;
  }
  if constexpr (N % w != 0) take(other_sums, lines_at(i, N - i), simd::lanes_below<T>(N - i));
  // Per slot, the sum of its adjoints.
  constexpr auto slot = input_slots<region_inputs_t<Root>>::slot;
  std::array<T, count> total;
  total.fill(T(-0.0));
  bool normal = true;
  (
      [&] {
        if constexpr (sums_over_elements<Root, K>) {
          const T sum = xsimd::hadd(sums[K] + other_sums[K]);
          normal = normal && comfortably_normal(sum) && comfortably_normal(scale[K]);
          total[slot[K]] += sum * scale[K];
        } else if constexpr (region_input_t<Root, K>::is_active) {
          total[slot[K]] += same[K] * scale[K];
        }
      }(),
      ...);
  if (normal) {
    (
        [&]<class Out>(Out& out) {
          if constexpr (Out::active) out.put(0, total[K]);
          out.template finish<N>();
        }(plain_get<K>(gathered)),
        ...);
  } else {
    const auto plain = number_adjoints_in_batches<N, T, Gathered>(n, v, g, inputs);
    (
        [&]<class Out>(Out& out) {
          if constexpr (Out::active) out.sum = plain[K];
        }(plain_get<K>(gathered)),
        ...);
  }
}
#endif

}  // namespace tapeless::detail
