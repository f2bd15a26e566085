// SPDX-License-Identifier: BSL-1.0
// kept_intermediates.hpp: a function whose sweep keeps intermediates of run-time size (every
// factorisation, and products held as operands, under sums), and the well-conditioned matrices it is
// taken at, for the tests of a gradient's memory (unit/sweep/sweep_memory_test.cpp,
// unit/transforms/workspace_test.cpp).
#pragma once

#include <tapeless/tapeless.hpp>

#include <run_time_twin.hpp>

#include <cstddef>
#include <cstdint>

namespace kept_intermediates {

/// A drawn N x N matrix with 3 added on its diagonal: well-conditioned, and A A^T of it positive
/// definite.
template <std::size_t N>
tapeless::matrix<double, N, N> well_conditioned(std::uint64_t seed) {
  auto a = run_time_twin::drawn<tapeless::matrix<double, N, N>>(seed);
  for (std::size_t i = 0; i < N; ++i) a(i, i) += 3.0;
  return a;
}

/// Every factorisation, and products held as operands, under sums.
inline constexpr auto factorisations = [](const auto& A) {
  namespace tl = tapeless;
  const auto S = tl::matmul(A, tl::transpose(A));
  return tl::det(A) + tl::sum(tl::inverse(A)) + tl::log_det(S) + tl::sum(tl::cholesky(S)) +
         tl::sum(tl::solve(A, tl::exp(tl::col(A, 0)))) + tl::sum(tl::exp(0.1 * tl::matmul(tl::tanh(A), A)));
};

}  // namespace kept_intermediates
