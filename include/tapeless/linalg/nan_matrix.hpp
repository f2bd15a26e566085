// SPDX-License-Identifier: BSL-1.0
// tapeless/linalg/nan_matrix.hpp: the matrices a factorisation makes of a shape known from its operand,
// fixed or run-time, and the one it returns where it does not exist.
// Tests: test/unit/ops/factorisations/singular_test.cpp
//        test/unit/ops/factorisations/run_time_test.cpp
#pragma once

#include <tapeless/matrix/matrix.hpp>

#include <cstddef>
#include <limits>

namespace tapeless::detail::linalg {

/// rows x cols zeros of type M: M's own extents where its type fixes them.
template <class M>
constexpr M zero_matrix([[maybe_unused]] std::size_t rows, [[maybe_unused]] std::size_t cols) {
  if constexpr (M::fixed_shape)
    return M{};
  else
    return M(rows, cols);
}

template <class M>
constexpr M nan_matrix([[maybe_unused]] std::size_t rows = 0, [[maybe_unused]] std::size_t cols = 0) {
  constexpr auto nan = std::numeric_limits<typename M::value_type>::quiet_NaN();
  if constexpr (M::fixed_shape)
    return M::filled(nan);
  else
    return M::filled(rows, cols, nan);
}

}  // namespace tapeless::detail::linalg
