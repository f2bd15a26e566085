// SPDX-License-Identifier: BSL-1.0
// tapeless/simd/batch.hpp: the xsimd batch types of the SIMD loops, which operations run in them, and
// how a loop loads and stores a batch.
//
// A matrix node's loop at run time runs a batch of elements at a time (4 doubles with AVX2, 2 with
// SSE2: whatever the build's -m flags enable; 8 with AVX-512 where TAPELESS_SIMD_AVX512 asks),
// calling the operation's own value and rule with xsimd::batch<T> in place of T (simd/map.hpp,
// simd/reduce.hpp); the last, partial batch is padded, so every element goes through the same code.
// In a constant expression, and for a T without batches (long double), the loops stay scalar. xsimd
// (Debian's libxsimd-dev) is found by __has_include: without it, or with TAPELESS_NO_SIMD defined,
// TAPELESS_SIMD is 0 and every loop is scalar.
// Tests: test/unit/simd/map_test.cpp
#pragma once

#if !defined(TAPELESS_NO_SIMD) && __has_include(<xsimd/xsimd.hpp>)
#define TAPELESS_SIMD 1
// g++ 12 warns falsely inside the AVX-512 intrinsics wherever they are inlined (-Wmaybe-uninitialized
// and -Wuninitialized on their undefined operands, GCC bug 105593). Included here with those warnings
// off, they stay off for every later use in the translation unit. tapeless.hpp silences them over the
// whole library too, which also covers a unit that included <immintrin.h> first; this covers a unit
// that includes only some of tapeless's headers and <immintrin.h> after them.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif
#include <xsimd/xsimd.hpp>
#else
#define TAPELESS_SIMD 0
#endif

#include <array>
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail::simd {

#if TAPELESS_SIMD
/// The instruction set: AVX2 with FMA (4 doubles) where the build enables it, or SSE2 (2) at the
/// x86-64 baseline; AVX-512 (8) only where TAPELESS_SIMD_AVX512 is defined too: 8 lanes run the matrix
/// loops faster than 4, but g++ 12 warns falsely inside the AVX-512 intrinsics (above).
#if XSIMD_WITH_AVX512F && defined(TAPELESS_SIMD_AVX512)
using arch = xsimd::avx512f;
#elif XSIMD_WITH_FMA3_AVX2
using arch = xsimd::fma3<xsimd::avx2>;
#elif XSIMD_WITH_AVX2
using arch = xsimd::avx2;
#else
using arch = xsimd::default_arch;
#endif

/// Whether the loops over elements of T run in batches: double's (the functions of math/batch_functions.hpp
/// are measured for double only; float and long double loops stay scalar).
template <class T>
inline constexpr bool available = std::same_as<T, double>;
template <class T>
using batch = xsimd::batch<T, arch>;
template <class T>
inline constexpr std::size_t width = batch<T>::size;
#else
template <class T>
inline constexpr bool available = false;
#endif

/// Whether T is a batch of elements rather than one number.
template <class T>
inline constexpr bool is_batch = requires {
  typename T::arch_type;
};

#if TAPELESS_SIMD
/// Whether N elements of T make whole batches (never for a T without batches: dual numbers, float).
template <class T, std::size_t N>
consteval bool whole_batches() {
  if constexpr (available<T>)
    return N % width<T> == 0;
  else
    return false;
}

/// An operand of a loop: a pointer to the elements, or one number used for every element.
template <class T, class In>
batch<T> load(In in, std::size_t i) {
  if constexpr (std::is_pointer_v<In>)
    return batch<T>::load_unaligned(in + i);
  else
    return batch<T>(static_cast<T>(in));
}

/// The elements from i of an operand, n of them or a whole batch where n >= width, in a batch padded
/// with its element i where n < width.
/// Made in registers: written to an array and loaded as one batch, it would wait for the stores to
/// drain (a load wider than the stores it reads is not forwarded from them).
template <class T, class In>
batch<T> load_partial(In in, std::size_t i, std::size_t n) {
  if constexpr (std::is_pointer_v<In>) {
    if (n >= width<T>) return load<T>(in, i);  // a constant where the callers are inlined
    return [&]<std::size_t... K>(std::index_sequence<K...>) { return batch<T>{in[i + (K < n ? K : 0)]...}; }
    (std::make_index_sequence<width<T>>{});
  } else {
    return batch<T>(static_cast<T>(in));
  }
}

/// Which lanes of a batch hold real elements where n of them remain: those below n.
template <class T>
auto lanes_below(std::size_t n) {
  return [&]<std::size_t... K>(std::index_sequence<K...>) { return batch<T>{T(K)...} < batch<T>(T(n)); }
  (std::make_index_sequence<width<T>>{});
}

/// The largest (Largest) or the least of a batch's lanes (a NaN lane may or may not win).
template <bool Largest, class T, class A>
T extreme_lane(const xsimd::batch<T, A>& b) {
  alignas(A::alignment()) std::array<T, xsimd::batch<T, A>::size> lanes;
  b.store_aligned(lanes.data());
  T e = lanes[0];
  for (std::size_t k = 1; k < lanes.size(); ++k) e = (Largest ? lanes[k] > e : lanes[k] < e) ? lanes[k] : e;
  return e;
}

/// Whether the build's vectors are twice as wide as batches of B: AVX-512 enabled, B AVX2's 4 doubles.
/// There compilers vectorise plain loops and copies 8 doubles wide, and a 64-byte load of what two
/// 32-byte stores wrote waits for both to reach the cache, where one store it reads back at once.
template <class B>
inline constexpr bool wider_vectors_than =
#if defined(__AVX512F__)
    sizeof(B) == 32;
#else
    false;
#endif
template <class T>
inline constexpr bool wider_vectors = wider_vectors_than<batch<T>>;

/// lo and hi to p and p + their width: one store of both where wider_vectors_than<B>, as GCC and
/// clang's own vector type (no AVX-512 intrinsic: g++ 12 warns inside them, see above); two elsewhere.
template <class T, class A>
void store_pair(T* p, const xsimd::batch<T, A>& lo, const xsimd::batch<T, A>& hi) {
  if constexpr (wider_vectors_than<xsimd::batch<T, A>>) {
    using half [[gnu::vector_size(32)]] = T;
    using whole [[gnu::vector_size(64)]] = T;
    const whole both =
        __builtin_shufflevector(static_cast<half>(lo.data), static_cast<half>(hi.data), 0, 1, 2, 3, 4, 5, 6, 7);
    __builtin_memcpy(p, &both, sizeof both);
  } else {
    lo.store_unaligned(p);
    hi.store_unaligned(p + xsimd::batch<T, A>::size);
  }
}
#endif

}  // namespace tapeless::detail::simd
