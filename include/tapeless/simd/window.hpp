// SPDX-License-Identifier: BSL-1.0
// tapeless/simd/window.hpp: sums into a run of 2W consecutive elements, held in two batches of W lanes.
//
// A sum over indices adds each batch's adjoint of a read x[i + d] to the elements k .. k + W - 1. Added
// lane after lane, that is W scalar additions through memory per read; added as one batch, the next
// read at another offset loads what the last store half wrote, a load the store cannot forward to, and
// waits for it to drain. A window holds the elements [base, base + 2W) in two registers instead: a
// batch at offset d of base (0 <= d <= W) is rotated by d lanes and split between them. The batch of
// rows that follows starts W further on, so the lower register is then final: it is added to the
// elements once, by a store that no later load overlaps, and the upper one takes its place. Its
// functions are forced inline under both compilers (not TAPELESS_SWEEP_INLINE, clang's only): g++ 12
// leaves add out of line, and the window then lives in memory, its batches loaded and stored again
// for every read.
// Tests: test/unit/sweep/index_batches_test.cpp
#pragma once

#include <tapeless/simd/batch.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace tapeless::detail::simd {

#if TAPELESS_SIMD
/// The sums of the elements [base, base + 2W) of a vector, W the lanes of L; -0, the identity of IEEE
/// addition, where nothing was added.
template <class L>
class window {
 public:
  using value_type = typename L::value_type;
  static constexpr std::size_t width = L::size;

  /// Adds g, whose lane l belongs to element base + d + l, where 0 <= d <= W: false, adding nothing,
  /// for any other d.
  [[gnu::always_inline]] bool add(const L& g, std::size_t d) noexcept {
    return add_at_one_of(g, d, std::make_index_sequence<width + 1>{});
  }

  /// Adds the elements [base, base + W) that lie below `size` to v[base], ..., and moves the window up
  /// by W: the upper batch becomes the lower.
  [[gnu::always_inline]] void advance(value_type* v, std::size_t base, std::size_t size) noexcept {
    if (base + width <= size) {
      (L::load_unaligned(v + base) + low_).store_unaligned(v + base);
      low_ = high_;
      high_ = L(value_type(-0.0));
    } else {
      advance_past_end(v, base, size);
    }
  }

  /// advance where fewer than W elements lie from base below `size`: lane after lane. (A vector of
  /// fixed size below W calls it alone: g++ -O2 warns of the whole-batch load of advance, never run.)
  [[gnu::always_inline]] void advance_past_end(value_type* v, std::size_t base, std::size_t size) noexcept {
    if (base < size) {
      alignas(L::arch_type::alignment()) std::array<value_type, width> lanes;
      low_.store_aligned(lanes.data());
      for (std::size_t l = 0; base + l < size; ++l) v[base + l] += lanes[l];
    }
    low_ = high_;
    high_ = L(value_type(-0.0));
  }

 private:
  L low_ = L(value_type(-0.0)), high_ = L(value_type(-0.0));

  template <std::size_t... D>
  [[gnu::always_inline]] bool add_at_one_of(const L& g, std::size_t d, std::index_sequence<D...>) noexcept {
    return ((d == D ? (add_at<D>(g), true) : false) || ...);
  }

  template <std::size_t D>
  [[gnu::always_inline]] void add_at(const L& g) noexcept {
    if constexpr (D == 0) {
      low_ += g;
    } else if constexpr (D == width) {
      high_ += g;
    } else {
      // Lane l of `rotated` holds g's lane l - D modulo W: element base + l for l >= D, in the lower
      // batch, and base + W + l below D, in the upper one.
      const L rotated = [&]<std::size_t... K>(std::index_sequence<K...>) {
        return xsimd::swizzle(g, xsimd::batch_constant<xsimd::batch<std::uint64_t, typename L::arch_type>,
                                                       static_cast<std::uint64_t>((K + width - D) % width)...>{});
      }
      (std::make_index_sequence<width>{});
      const auto from_d = [&]<std::size_t... K>(std::index_sequence<K...>) {
        return xsimd::batch_bool_constant<L, (K >= D)...>{};
      }
      (std::make_index_sequence<width>{});
      const L none(value_type(-0.0));
      low_ += xsimd::select(from_d, rotated, none);
      high_ += xsimd::select(from_d, none, rotated);
    }
  }
};
#endif

}  // namespace tapeless::detail::simd
