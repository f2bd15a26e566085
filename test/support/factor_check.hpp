// SPDX-License-Identifier: BSL-1.0
// What the tests of the factorisation kernels (linalg/lu.hpp, linalg/cholesky.hpp) both check against:
// the identity, and the largest difference between two matrices.
#pragma once

#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstddef>

namespace factor_check {

template <std::size_t R, std::size_t C>
double max_abs_difference(const tapeless::matrix<double, R, C>& a, const tapeless::matrix<double, R, C>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) worst = std::fmax(worst, std::abs(a(i, j) - b(i, j)));
  return worst;
}

template <std::size_t N>
tapeless::matrix<double, N, N> identity() {
  tapeless::matrix<double, N, N> e{};
  for (std::size_t i = 0; i < N; ++i) e(i, i) = 1;
  return e;
}

}  // namespace factor_check
