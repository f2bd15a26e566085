// SPDX-License-Identifier: BSL-1.0
// tapeless/simd/transpose.hpp: w rows' elements as w batches, one per element: a w x w transposition.
//
// A sum over rows of matrices runs a batch of w rows at once as a matrix of batches, lane k holding
// row k (sweep/sum_over_rows.hpp). Gathered element by element, each batch costs w loads and w - 1 inserts;
// loaded a batch per row and transposed in registers, w loads and about w shuffles make w batches.
// Tests: test/unit/transforms/sum_over/
#pragma once

#include <tapeless/simd/batch.hpp>

#include <cstddef>
#include <type_traits>

namespace tapeless::detail::simd {

#if TAPELESS_SIMD
/// Whether rows of T transpose in registers here: doubles in batches of 4 (AVX) or 2 (SSE2), on x86.
template <class T>
inline constexpr bool transposes = std::is_same_v<T, double> &&
#if defined(__AVX__)
                                   (sizeof(batch<T>) == 32 || sizeof(batch<T>) == 16);
#elif defined(__SSE2__)
                                   sizeof(batch<T>) == 16;
#else
                                   false;
#endif

/// out[j] = the elements `at + j` of the rows row[0], ..., row[w - 1], for j < w: lane k of out[j]
/// is row[k][at + j]. A dozen instructions, always inlined: out of line, its batches go through memory.
template <class T>
  requires transposes<T>
[[gnu::always_inline]] inline void transpose(const T* const* row, std::size_t at, batch<T>* out) {
#if defined(__AVX__)
  if constexpr (sizeof(batch<T>) == 32) {
    const __m256d r0 = _mm256_loadu_pd(row[0] + at), r1 = _mm256_loadu_pd(row[1] + at);
    const __m256d r2 = _mm256_loadu_pd(row[2] + at), r3 = _mm256_loadu_pd(row[3] + at);
    const __m256d even01 = _mm256_unpacklo_pd(r0, r1), odd01 = _mm256_unpackhi_pd(r0, r1);
    const __m256d even23 = _mm256_unpacklo_pd(r2, r3), odd23 = _mm256_unpackhi_pd(r2, r3);
    out[0] = _mm256_permute2f128_pd(even01, even23, 0x20);
    out[1] = _mm256_permute2f128_pd(odd01, odd23, 0x20);
    out[2] = _mm256_permute2f128_pd(even01, even23, 0x31);
    out[3] = _mm256_permute2f128_pd(odd01, odd23, 0x31);
    return;
  }
#endif
#if defined(__SSE2__)
  if constexpr (sizeof(batch<T>) == 16) {
    const __m128d r0 = _mm_loadu_pd(row[0] + at), r1 = _mm_loadu_pd(row[1] + at);
    out[0] = _mm_unpacklo_pd(r0, r1);
    out[1] = _mm_unpackhi_pd(r0, r1);
  }
#endif
}
#endif

}  // namespace tapeless::detail::simd
