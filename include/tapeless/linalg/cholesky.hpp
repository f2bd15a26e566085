// SPDX-License-Identifier: BSL-1.0
// tapeless/linalg/cholesky.hpp: the Cholesky factor of a symmetric matrix and the inverse read off it,
// and the symmetric part of a square matrix, which log_det factorises. N is an extent: a fixed one, or
// tl::dynamic or tl::bounded<Max>, the same loops to a run-time n.
// Tests: test/unit/linalg/cholesky_test.cpp test/unit/ops/factorisations/run_time_test.cpp
#pragma once

#include <tapeless/linalg/nan_matrix.hpp>
#include <tapeless/math/functions.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/run_time_matrix.hpp>

#include <cstddef>

namespace tapeless::detail::linalg {

/// The Cholesky factor of a symmetric matrix given by its lower triangle (the upper one is not read):
/// S = L L^T, L lower triangular with a positive diagonal. `positive_definite` is false, and L all
/// NaN, when a pivot is not positive (or is NaN).
template <class T, std::size_t N>
struct cholesky_factor {
  using square = matrix<T, N, N>;
  square l;
  bool positive_definite = true;

  constexpr explicit cholesky_factor(const square& s) : l(zero_matrix<square>(s.rows(), s.rows())) {
    const std::size_t n = s.rows();
    // Column j: l(i, j) for i >= j from s(i, j) minus the columns already done; the diagonal first.
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t i = j; i < n; ++i) {
        T v = s(i, j);
        for (std::size_t k = 0; k < j; ++k) v -= l(i, k) * l(j, k);
        if (i == j) {
          if (!(v > T(0))) {
            positive_definite = false;
            l = nan_matrix<square>(n, n);
            return;
          }
          l(j, j) = math::sqrt(v);
        } else {
          l(i, j) = v / l(j, j);
        }
      }
    }
  }

  /// L^-1, lower triangular.
  [[nodiscard]] constexpr square inverse_factor() const {
    const std::size_t n = l.rows();
    square r = zero_matrix<square>(n, n);
    for (std::size_t j = 0; j < n; ++j) {
      r(j, j) = T(1) / l(j, j);
      for (std::size_t i = j + 1; i < n; ++i) {
        T s(0);
        for (std::size_t k = j; k < i; ++k) s += l(i, k) * r(k, j);
        r(i, j) = -s / l(i, i);
      }
    }
    return r;
  }

  /// S^-1 = L^-T L^-1, symmetric.
  [[nodiscard]] constexpr square inverse() const {
    const std::size_t n = l.rows();
    if (!positive_definite) return nan_matrix<square>(n, n);
    const square r = inverse_factor();
    square s = zero_matrix<square>(n, n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j <= i; ++j) {
        T v(0);
        for (std::size_t k = i; k < n; ++k) v += r(k, i) * r(k, j);
        s(i, j) = v;
        s(j, i) = v;
      }
    return s;
  }
};

/// (A + A^T) / 2: the symmetric matrix log_det factorises, so that its gradient is A^-1 elementwise.
template <class T, std::size_t N>
constexpr matrix<T, N, N> symmetric_part(const matrix<T, N, N>& a) {
  const std::size_t n = a.rows();
  matrix<T, N, N> s = zero_matrix<matrix<T, N, N>>(n, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) s(i, j) = i == j ? a(i, i) : (a(i, j) + a(j, i)) / T(2);
  return s;
}

}  // namespace tapeless::detail::linalg
