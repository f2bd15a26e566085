// SPDX-License-Identifier: BSL-1.0
// tapeless/simd/product.hpp: the loops of the matrix product and of its rules, over xsimd batches.
//
// Matrices are row-major, so a batch is w neighbouring elements of one row. Every element is still the
// scalar loop's sum, term by term in the same order from 0 up, a batch doing w such sums side by side;
// except in A x, a matrix times a vector, and the sums of rows, which run in lanes, and in A^T g of a
// vector g down many rows, which runs in several chains of rows. Written out with batches because the
// compiler, left to itself inside a whole sweep, vectorises A^T g across rows, shuffling two rows at a
// time in 128-bit registers, several times the instructions of these loops.
// Shapes whose rows do not split into whole batches keep the scalar loops (multiply and the others, below).
// Tests: test/unit/simd/map_test.cpp test/unit/ops/products_test.cpp
#pragma once

#include <tapeless/simd/batch.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

namespace tapeless::detail::simd {

#if TAPELESS_SIMD
/// Whether c = a b, with b of C columns, runs in batches: along the rows of b and c.
template <class T, std::size_t C>
inline constexpr bool product_in_batches = whole_batches<T, C>();

/// Whether a^T g, for a of K columns and g of C, runs in batches: along the rows of g and of the
/// result, or, when g is a vector (C = 1), along the rows of a.
template <class T, std::size_t K, std::size_t C>
inline constexpr bool transposed_product_in_batches = whole_batches<T, C == 1 ? K : C>();

/// Whether a b, for a of K columns and a vector b (C = 1), runs in batches: along the rows of a.
template <class T, std::size_t K, std::size_t C>
inline constexpr bool matrix_vector_in_batches = C == 1 && whole_batches<T, K>();

/// Whether g b^T, for g of C columns and b of K rows, runs in batches: when g and b are vectors (C = 1),
/// along the rows of the result, K elements each.
template <class T, std::size_t K, std::size_t C>
inline constexpr bool outer_product_in_batches = C == 1 && whole_batches<T, K>();

/// c = a b for a: R x K and b: K x C, c(i, :) = sum over k of a(i, k) b(k, :).
template <std::size_t R, std::size_t K, std::size_t C, class T>
void product(const T* a, const T* b, T* c) {
  constexpr std::size_t w = width<T>, batches = C / w;
  for (std::size_t i = 0; i < R; ++i) {
    std::array<batch<T>, batches> row;
    row.fill(batch<T>(T(0)));
    for (std::size_t k = 0; k < K; ++k) {
      const batch<T> aik(a[i * K + k]);
      for (std::size_t j = 0; j < batches; ++j) row[j] += aik * batch<T>::load_unaligned(b + k * C + j * w);
    }
    for (std::size_t j = 0; j < batches; ++j) row[j].store_unaligned(c + i * C + j * w);
  }
}

/// c(i) = the sum of the lanes of the batch row_lanes(i), for i < R: of w rows at once (xsimd::haddp).
template <std::size_t R, class T, class Lanes>
void sum_lanes_of_rows(const Lanes& row_lanes, T* c) {
  constexpr std::size_t w = width<T>;
  const auto sums_of_batch = [&](std::size_t i) {
    std::array<batch<T>, w> rows;
    for (std::size_t r = 0; r < w; ++r) rows[r] = row_lanes(i + r);
    return xsimd::haddp(rows.data());
  };
  std::size_t i = 0;
  if constexpr (wider_vectors<T>)
    for (; i + 2 * w <= R; i += 2 * w) store_pair(c + i, sums_of_batch(i), sums_of_batch(i + w));
  for (; i + w <= R; i += w) sums_of_batch(i).store_unaligned(c + i);
  if constexpr (R % w != 0)
    for (; i < R; ++i) c[i] = xsimd::hadd(row_lanes(i));
}

/// c = a b for a: R x K and a vector b of K: each c(i) the sum over k of a(i, k) b(k), in w lanes
/// (lane l adds the terms of k = l, l + w, ... in turn, from 0), then across the lanes. The one product
/// here that adds in another order than the scalar loop: a row of a is contiguous, its column is not,
/// and keeping the order would mean transposing blocks of a.
template <std::size_t R, std::size_t K, class T>
void matrix_vector(const T* a, const T* b, T* c) {
  constexpr std::size_t w = width<T>, chunks = K / w;
  std::array<batch<T>, chunks> b_chunk;
  for (std::size_t j = 0; j < chunks; ++j) b_chunk[j] = batch<T>::load_unaligned(b + j * w);
  sum_lanes_of_rows<R>(
      [&](std::size_t i) {
        batch<T> lanes(T(0));
        for (std::size_t j = 0; j < chunks; ++j) lanes += batch<T>::load_unaligned(a + i * K + j * w) * b_chunk[j];
        return lanes;
      },
      c);
}

/// Whether the sums of the rows of a matrix of K columns run in batches (row_sums).
template <class T, std::size_t K>
inline constexpr bool row_sums_in_batches = whole_batches<T, K>();

/// c(i) = the sum of row i of a: R x K, in lanes as matrix_vector adds. The scalar loop, one chain of
/// additions per row, clang 14 vectorises across rows, gathering each batch from four rows with
/// shuffles.
template <std::size_t R, std::size_t K, class T>
void row_sums(const T* a, T* c) {
  constexpr std::size_t w = width<T>;
  sum_lanes_of_rows<R>(
      [&](std::size_t i) {
        batch<T> lanes(T(0));  // from +0, as the scalar sum: a row of -0 sums to +0
        for (std::size_t j = 0; j < K; j += w) lanes += batch<T>::load_unaligned(a + i * K + j);
        return lanes;
      },
      c);
}

/// out = a^T g for a: R x K and a vector g of R: out(k) = the sum over i of a(i, k) g(i), a batch of k
/// from row i of a at a time. With few batches to a row, one chain of additions per batch leaves the
/// adder waiting on its own latency. So row i goes to the sums of chain i mod `chains` (the rows left
/// over to chain 0), enough chains for 8 additions in flight, and the chains' sums are added in turn
/// at the end. Another order than the scalar loop's, as in matrix_vector.
template <class T, std::size_t R, std::size_t K>
consteval std::size_t transposed_chains() {
  constexpr std::size_t batches = K / width<T>;
  if constexpr (batches == 0 || batches >= 8)
    return 1;
  else
    return R < 2 * (8 / batches) ? 1 : 8 / batches;
}

template <std::size_t R, std::size_t K, class T>
void transposed_matrix_vector(const T* a, const T* g, T* out) {
  constexpr std::size_t w = width<T>, batches = K / w, chains = transposed_chains<T, R, K>();
  std::array<std::array<batch<T>, batches>, chains> sums;
  for (auto& chain : sums) chain.fill(batch<T>(T(0)));
  const auto add_row = [&](std::array<batch<T>, batches>& chain, std::size_t i) {
    const batch<T> gi(g[i]);
    for (std::size_t b = 0; b < batches; ++b) chain[b] += batch<T>::load_unaligned(a + i * K + b * w) * gi;
  };
  constexpr std::size_t whole_rounds = R / chains * chains;
  for (std::size_t i = 0; i < whole_rounds; i += chains)
    for (std::size_t c = 0; c < chains; ++c) add_row(sums[c], i + c);
  if constexpr (whole_rounds < R)
    for (std::size_t i = whole_rounds; i < R; ++i) add_row(sums[0], i);
  for (std::size_t b = 0; b < batches; ++b) {
    batch<T> total = sums[0][b];
    for (std::size_t c = 1; c < chains; ++c) total += sums[c][b];
    total.store_unaligned(out + b * w);
  }
}

/// out = a^T g for a: R x K and g: R x C, out(k, :) = sum over i of a(i, k) g(i, :).
template <std::size_t R, std::size_t K, std::size_t C, class T>
void transposed_product(const T* a, const T* g, T* out) {
  // A vector g in one chain (few rows) stays in the loop below, which g++ inlines, where it calls
  // transposed_matrix_vector out of line.
  if constexpr (C == 1 && transposed_chains<T, R, K>() > 1) {
    transposed_matrix_vector<R, K>(a, g, out);
  } else {
    constexpr std::size_t w = width<T>, batches = K * C / w;
    // The sums in registers where they fit (16 batches: all of AVX2's); beyond, in out itself, so that
    // a large result does not take its size twice on the stack.
    constexpr bool in_registers = batches <= 16;
    std::array<batch<T>, in_registers ? batches : 0> held;
    const auto add = [&](std::size_t b, const batch<T>& term) {
      if constexpr (in_registers)
        held[b] += term;
      else
        (batch<T>::load_unaligned(out + b * w) + term).store_unaligned(out + b * w);
    };
    for (std::size_t b = 0; b < batches; ++b) {
      if constexpr (in_registers)
        held[b] = batch<T>(T(0));
      else
        batch<T>(T(0)).store_unaligned(out + b * w);
    }
    for (std::size_t i = 0; i < R; ++i) {
      if constexpr (C == 1) {  // out(k) += a(i, k) g(i): a batch of k from row i of a
        const batch<T> gi(g[i]);
        for (std::size_t b = 0; b < batches; ++b) add(b, batch<T>::load_unaligned(a + i * K + b * w) * gi);
      } else {  // out(k, :) += a(i, k) g(i, :): a batch of columns from row i of g
        for (std::size_t k = 0; k < K; ++k) {
          const batch<T> aik(a[i * K + k]);
          for (std::size_t j = 0; j < C / w; ++j)
            add(k * (C / w) + j, aik * batch<T>::load_unaligned(g + i * C + j * w));
        }
      }
    }
    if constexpr (in_registers)
      for (std::size_t b = 0; b < batches; ++b) held[b].store_unaligned(out + b * w);
  }
}

/// out = g b^T for vectors g of R and b of K: out(i, k) = 0 + g(i) b(k), the scalar loop's sum of one
/// term (which turns a product of -0 into +0).
template <std::size_t R, std::size_t K, class T>
void outer_product(const T* g, const T* b, T* out) {
  constexpr std::size_t w = width<T>;
  for (std::size_t i = 0; i < R; ++i) {
    const batch<T> gi(g[i]);
    for (std::size_t k = 0; k < K; k += w)
      (batch<T>(T(0)) + gi * batch<T>::load_unaligned(b + k)).store_unaligned(out + i * K + k);
  }
}
#endif

// The loops the operations call (ops/products.hpp): in batches at run time where the shape splits into
// them (above), else one number at a time, each element's terms added in order from 0.

/// c = a b for a: R x K and b: K x C.
template <std::size_t R, std::size_t K, std::size_t C, class T>
constexpr void multiply(const T* a, const T* b, T* c) {
#if TAPELESS_SIMD
  if constexpr (product_in_batches<T, C>) {
    if (!std::is_constant_evaluated()) return product<R, K, C>(a, b, c);
  } else if constexpr (matrix_vector_in_batches<T, K, C>) {
    if (!std::is_constant_evaluated()) return matrix_vector<R, K>(a, b, c);
  }
#endif
  for (std::size_t i = 0; i < R * C; ++i) c[i] = T(0);
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t j = 0; j < C; ++j) c[i * C + j] += a[i * K + k] * b[k * C + j];
}

/// out = g b^T for g: R x C and b: K x C.
template <std::size_t R, std::size_t K, std::size_t C, class T>
constexpr void multiply_transposed(const T* g, const T* b, T* out) {
#if TAPELESS_SIMD
  if constexpr (outer_product_in_batches<T, K, C>) {
    if (!std::is_constant_evaluated()) return outer_product<R, K>(g, b, out);
  }
#endif
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t k = 0; k < K; ++k) {
      T s(0);
      for (std::size_t j = 0; j < C; ++j) s += g[i * C + j] * b[k * C + j];
      out[i * K + k] = s;
    }
}

/// out = a^T g for a: R x K and g: R x C.
template <std::size_t R, std::size_t K, std::size_t C, class T>
constexpr void transposed_multiply(const T* a, const T* g, T* out) {
#if TAPELESS_SIMD
  if constexpr (transposed_product_in_batches<T, K, C>) {
    if (!std::is_constant_evaluated()) return transposed_product<R, K, C>(a, g, out);
  }
#endif
  for (std::size_t i = 0; i < K * C; ++i) out[i] = T(0);
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t j = 0; j < C; ++j) out[k * C + j] += a[i * K + k] * g[i * C + j];
}

/// out(i) = the sum of row i of a: R x C.
template <std::size_t R, std::size_t C, class T>
constexpr void sum_rows(const T* a, T* out) {
#if TAPELESS_SIMD
  if constexpr (row_sums_in_batches<T, C>) {
    if (!std::is_constant_evaluated()) return row_sums<R, C>(a, out);
  }
#endif
  for (std::size_t i = 0; i < R; ++i) {
    T s(0);
    for (std::size_t j = 0; j < C; ++j) s += a[i * C + j];
    out[i] = s;
  }
}

}  // namespace tapeless::detail::simd
