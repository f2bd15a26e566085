// SPDX-License-Identifier: BSL-1.0
// tapeless/simd/lu_rows.hpp: the rows of an LU factorisation and its solves, as xsimd batches in registers.
//
// linalg/lu.hpp runs its factorisation and substitutions on rows of K numbers; at run time, where K
// splits into batches, a row is a batch_row here, so that a small system's rows stay in registers from
// the first load to the last store (through memory, each step waits for the store of the one before).
// Tests: test/unit/simd/map_test.cpp test/unit/ops/factorisations/
#pragma once

#include <tapeless/simd/batch.hpp>

#include <array>
#include <cstddef>

namespace tapeless::detail::simd {

#if TAPELESS_SIMD
/// The batch of the rows of K numbers of an LU solve: the build's batch where its width divides K, or
/// else AVX2's 4 lanes where the build has them too and 4 divides K, so that a 4 x 4 system in a build
/// with batches of 8 (TAPELESS_SIMD_AVX512) keeps its rows in batches too, not in scalars.
template <class T, std::size_t K>
consteval auto row_arch() {
#if XSIMD_WITH_FMA3_AVX2
  if constexpr (available<T> && K % width<T> != 0 && K % xsimd::batch<T, xsimd::fma3<xsimd::avx2>>::size == 0)
    return xsimd::fma3<xsimd::avx2>{};
  else
#endif
    return arch{};
}
template <class T, std::size_t K>
using row_batch = xsimd::batch<T, decltype(row_arch<T, K>())>;

/// Whether rows of K numbers of T split into whole row batches.
template <class T, std::size_t K>
consteval bool whole_row_batches() {
  if constexpr (available<T>)
    return K % row_batch<T, K>::size == 0;
  else
    return false;
}

/// A row of K numbers of the right-hand side of an LU solve, as K / w batches, with the two steps of
/// the substitutions (linalg::plain_row is the same in numbers). Left to itself, g++ makes each step a
/// scalar multiply-add and a store per element.
template <class T, std::size_t K>
struct batch_row {
  using B = row_batch<T, K>;
  static constexpr std::size_t w = B::size;
  std::array<B, K / w> e;
  static batch_row load(const T* p) {
    batch_row r;
    for (std::size_t j = 0; j < r.e.size(); ++j) r.e[j] = B::load_unaligned(p + j * w);
    return r;
  }
  /// The column of each lane of batch b: b w, b w + 1, ..., b w + w - 1, made in registers.
  static B columns(std::size_t b) {
    static constexpr std::array<T, w> lanes = [] {
      std::array<T, w> l{};
      for (std::size_t k = 0; k < l.size(); ++k) l[k] = T(k);
      return l;
    }();
    return B::load_unaligned(lanes.data()) + B(static_cast<T>(b * w));
  }
  /// Row j of the identity, made in registers (stored and read back, it waits for the stores).
  static batch_row unit(std::size_t j) {
    batch_row r;
    for (std::size_t b = 0; b < r.e.size(); ++b)
      r.e[b] = xsimd::select(columns(b) == B(static_cast<T>(j)), B(T(1)), B(T(0)));
    return r;
  }
  void store(T* p) const {
    for (std::size_t j = 0; j < e.size(); ++j) e[j].store_unaligned(p + j * w);
  }
  /// Rows one after another from p: their batches two at a time where the build's vectors are twice as
  /// wide (store_pair): clang copies the result 8 doubles at a time, and each copy of what two stores
  /// wrote waits for both.
  template <std::size_t N>
  static void store_all(const std::array<batch_row, N>& rows, T* p) {
    constexpr std::size_t batches = N * (K / w);
    const auto batch_at = [&rows](std::size_t b) -> const B& { return rows[b / (K / w)].e[b % (K / w)]; };
    std::size_t b = 0;
    if constexpr (wider_vectors_than<B>)
      for (; b + 2 <= batches; b += 2) store_pair(p + b * w, batch_at(b), batch_at(b + 1));
    for (; b < batches; ++b) batch_at(b).store_unaligned(p + b * w);
  }
  void subtract_scaled(T m, const batch_row& y) {
    const B mb(m);
    for (std::size_t j = 0; j < e.size(); ++j) e[j] -= mb * y.e[j];
  }
  T at(std::size_t c) const { return e[c / w].get(c % w); }
  /// linalg::plain_row::eliminate: this(c) -= m y(c) for c > k, this(k) = m, the rest as it is; a blend
  /// by lane, so that the row is never written in parts.
  void eliminate(std::size_t k, T m, const batch_row& y) {
    const B mb(m), kb(static_cast<T>(k));
    for (std::size_t b = 0; b < e.size(); ++b) {
      const B c = columns(b);
      e[b] = xsimd::select(c > kb, e[b] - mb * y.e[b], xsimd::select(c == kb, mb, e[b]));
    }
  }
  /// this /= d, as this *= r where r, 1 / d kept by the factorisation, is not 0
  void divide(T d, T r) {
    if (r != T(0)) {
      const B rb(r);
      for (auto& b : e) b *= rb;
    } else {
      const B db(d);
      for (auto& b : e) b /= db;
    }
  }
};
#endif

}  // namespace tapeless::detail::simd
