// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/matrix_rows.hpp: the rows of a matrix as the loop of a sum over rows reads them.
//
// The loop of a sum over rows (sweep/sum_over_rows.hpp) reads a column through row_lanes. A column of
// the rows of a matrix (data/rows_of_matrices.hpp) gives a row as a tl::vector<T, C>, and a SIMD batch
// of rows as a vector of batches, lane k holding row i + k. Column-major, element e of the batch's rows
// is a run of adjacent numbers: one load. Row-major, each row is a run: loaded a batch per row and
// transposed in registers (simd/transpose.hpp) where the processor allows, else gathered.
// Tests: test/unit/data/rows_of_matrices_test.cpp
#pragma once

#include <tapeless/data/rows_of_matrices.hpp>
#include <tapeless/detail/inline.hpp>
#include <tapeless/expr/inline.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/simd/batch.hpp>
#include <tapeless/simd/transpose.hpp>

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// Row i of a column of a matrix's rows in lanes L, `count` of them real: the others repeat row i, so
/// that they hold numbers of the data and never read past its end. Inlined with either compiler, as the
/// other columns' row_lanes are: out of line, g++ returns a matrix of batches through memory.
template <class L, class T, std::size_t C, bool RowMajor>
TAPELESS_SWEEP_INLINE TAPELESS_BUILD_INLINE constexpr matrix<L, C, 1> row_lanes(
    const matrix_rows_column<T, C, RowMajor>& c, std::size_t i, [[maybe_unused]] std::size_t count) {
  matrix<L, C, 1> m(uninitialized);
  if constexpr (!simd::is_batch<L>) {
    for (std::size_t e = 0; e < C; ++e) m[e] = L(*c.at(i, e));
  }
#if TAPELESS_SIMD
  else {
    using U = typename L::value_type;
    // The lane k's row: i + k where it is real, else i.
    const auto lane_row = [&](std::size_t k) { return i + (k < count ? k : 0); };
    std::size_t e = 0;
    if constexpr (std::is_same_v<T, U> && !RowMajor) {
      if (count == L::size)
        for (; e < C; ++e) m[e] = L::load_unaligned(c.at(i, e));
    } else if constexpr (std::is_same_v<T, U> && simd::transposes<U>) {
      const auto row = [&]<std::size_t... K>(std::index_sequence<K...>) {
        return std::array<const U*, L::size>{c.at(lane_row(K), 0)...};
      }
      (std::make_index_sequence<L::size>{});
      for (; e + L::size <= C; e += L::size) simd::transpose(row.data(), e, m.data() + e);
    }
    for (; e < C; ++e) m[e] = [&]<std::size_t... K>(std::index_sequence<K...>) {
        return L{static_cast<U>(*c.at(lane_row(K), e))...};
      }
    (std::make_index_sequence<L::size>{});
  }
#endif
  return m;
}

}  // namespace tapeless::detail
