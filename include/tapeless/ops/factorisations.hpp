// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/factorisations.hpp: det, inverse, log_det, solve and cholesky, each a coarse node with
// the closed-form matrix-calculus rule, written so that the backward pass reuses what the forward pass
// computed. The factorisations themselves are linalg/'s. Each rule is written for a square matrix of
// any extent N, fixed or run-time (ops/run_time_factorisations.hpp gives them arrays of run-time extents).
//
// What each backward pass reuses:
//   inverse, cholesky  the node's value (A^-1, L) is all the rule needs.
//   det, log_det,      the factorisation of A (LU with partial pivoting; Cholesky) is computed once, by
//   solve              the forward pass, and kept beside the value for the backward pass (operation/protocol.hpp,
//                      forward): the value is read off it and the vector-Jacobian product solves with it.
//   across nodes       det (N >= 4), inverse and solve of one argument share one LU factorisation in a
//                      sweep (sweep/shared.hpp), and det's rule reads det(A) A^-T off a shared inverse.
//
// Degenerate inputs never crash and never divide by zero (so they stay usable in constant expressions):
//   det      of a singular matrix is 0 (or tiny) and its gradient, the cofactor matrix, is computed
//            without division, so it is finite there too. For N <= 3 the value and the cofactors come
//            from the minors directly, so that an infinite entry leaves the cofactors whose minors
//            leave it out finite; for N >= 4 they come from the LU factors, where an infinite entry
//            meets inf * 0 and may give NaN cofactors (and a NaN value) that the minors would not.
//   inverse, solve  at an exactly zero pivot (after partial pivoting) give NaN in every element, and
//            NaN gradients; a nearly singular matrix gives large finite values.
//   log_det, cholesky  of a matrix that is not positive definite (a pivot <= 0 or NaN) give NaN
//            (the whole factor for cholesky), and NaN gradients.
#pragma once

#include <tapeless/expr/make.hpp>
#include <tapeless/linalg/cholesky.hpp>
#include <tapeless/linalg/lu.hpp>
#include <tapeless/math/functions.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/shape.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/ops/matrix_op.hpp>

#include <array>
#include <cstddef>
#include <limits>
#include <string_view>
#include <utility>

namespace tapeless {

namespace ops {

/// y = det A, and dA = g cof(A) = g adj(A)^T (= g det(A) A^-T where A is invertible), the cofactor
/// matrix kept by the forward pass for the backward one, computed without a division, so that it is
/// finite at a singular A as well (where det(A) A^-T is 0 * inf).
///   N <= 3: the cofactors are the signed minors, written out (1 x 1 and 2 x 2 determinants), and y is
///           the first row's expansion in them: a few products, exact for small integers. A cofactor
///           is the IEEE value of its minor's products, so one whose minor leaves out an infinite
///           entry stays finite (det {{inf, 1}, {2, 3}} has the cofactors {{3, -2}, {-1, inf}}).
///   N >= 4: LU with partial pivoting, y the product of the pivots and the cofactors read off the
///           factors (lu_factors::cofactors): O(N^3), where minors would cost O(N!), and stable; an
///           infinite entry meets inf * 0 in the factors and may give NaN.
struct det : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "det"};
  template <class T, std::size_t N>
  static constexpr auto forward(const matrix<T, N, N>& a) {
    if constexpr (fixed_extent(N) && N <= 3) {
      const matrix<T, N, N> c = cofactors_from_minors(a);
      T y = a(0, 0) * c(0, 0);
      for (std::size_t j = 1; j < N; ++j) y += a(0, j) * c(0, j);
      return ::tapeless::detail::with_cache<T, matrix<T, N, N>>{y, c};
    } else {
      ::tapeless::detail::linalg::lu_factors<T, N> factors(a);
      const T y = factors.det();
      return ::tapeless::detail::with_cache<T, ::tapeless::detail::linalg::lu_cache<T, N>>{y, std::in_place,
                                                                                           std::move(factors)};
    }
  }
  /// With the LU factors the sweep shares among the nodes that factorise A (sweep/shared.hpp).
  template <class T, std::size_t N>
    requires(N >= 4)
  static constexpr auto forward(const matrix<T, N, N>& a, ::tapeless::detail::linalg::shared_lu<T, N>& shared) {
    return ::tapeless::detail::with_cache<T, ::tapeless::detail::linalg::lu_cache<T, N>>{shared.of(a).det(),
                                                                                         std::in_place, shared};
  }
  template <class T, std::size_t N, class A>
  static constexpr matrix<T, N, N> vjp(T g, const A& /*a*/, T, const matrix<T, N, N>& cofactors) {
    return cofactors * g;
  }
  /// Where inverse(A) is computed in the same sweep (log(det(A)) + sum(inverse(A))), cof(A) is
  /// det(A) A^-T, N^2 products in place of the cofactors' O(N^3) work; at a singular A, whose inverse is
  /// NaN, the cofactors still.
  template <class T, std::size_t N, class A>
  static constexpr matrix<T, N, N> vjp(T g, const A& /*a*/, T y,
                                       const ::tapeless::detail::linalg::lu_cache<T, N>& cache) {
    if constexpr (fixed_extent(N)) {  // a sweep shares the factors of fixed extents only (sweep/shared.hpp)
      if (const matrix<T, N, N>* inv = cache.inverse()) {
        const T s = g * y;
        matrix<T, N, N> ga(::tapeless::detail::uninitialized);
        for (std::size_t i = 0; i < N; ++i)
          for (std::size_t j = 0; j < N; ++j) ga(i, j) = s * (*inv)(j, i);
        return ga;
      }
    }
    return cache.factors().cofactors() * g;
  }

 private:
  /// cof(A)_ij = (-1)^(i+j) det(A without row i and column j), for N <= 3. For N = 3 the rows and
  /// columns after i and j, taken cyclically, give the sign by themselves.
  template <class T, std::size_t N>
  static constexpr matrix<T, N, N> cofactors_from_minors(const matrix<T, N, N>& a) {
    matrix<T, N, N> c;
    if constexpr (N == 1) {
      c(0, 0) = T(1);
    } else if constexpr (N == 2) {
      c(0, 0) = a(1, 1);
      c(0, 1) = -a(1, 0);
      c(1, 0) = -a(0, 1);
      c(1, 1) = a(0, 0);
    } else {
      for (std::size_t i = 0; i < 3; ++i) {
        const std::size_t i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (std::size_t j = 0; j < 3; ++j) {
          const std::size_t j1 = (j + 1) % 3, j2 = (j + 2) % 3;
          c(i, j) = a(i1, j1) * a(i2, j2) - a(i1, j2) * a(i2, j1);
        }
      }
    }
    return c;
  }
};

/// Y = A^-1 by LU with partial pivoting (all NaN at a zero pivot): dA = -Y^T G Y^T, from the value Y.
struct inverse : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "inverse", .vjp_reads = reads_value};
  template <class T, std::size_t N>
  static constexpr matrix<T, N, N> value(const matrix<T, N, N>& a) {
    return ::tapeless::detail::linalg::lu_factors<T, N>(a).inverse();
  }
  /// With the LU factors the sweep shares among the nodes that factorise A (sweep/shared.hpp).
  template <class T, std::size_t N>
  static constexpr matrix<T, N, N> forward(const matrix<T, N, N>& a,
                                           ::tapeless::detail::linalg::shared_lu<T, N>& shared) {
    return shared.inverse_of(a);
  }
  // With a uniform G = g 1 1^T (from sum or mean): dA = -g (Y^T 1)(1^T Y^T), the column sums of Y times
  // its row sums: O(N^2).
  template <class T, std::size_t N>
  static constexpr matrix<T, N, N> vjp(const ::tapeless::detail::uniform<matrix<T, N, N>>& g, const matrix<T, N, N>&,
                                       const matrix<T, N, N>& y) {
    std::array<T, N> col{}, row{};
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        col[j] += y(i, j);
        row[i] += y(i, j);
      }
    matrix<T, N, N> ga;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) ga(i, j) = -g.value * col[i] * row[j];
    return ga;
  }
  template <class T, std::size_t N, class A>
  static constexpr matrix<T, N, N> vjp(const matrix<T, N, N>& g, const A& /*a*/, const matrix<T, N, N>& y) {
    using square = matrix<T, N, N>;
    const std::size_t n = y.rows();
    square h = ::tapeless::detail::linalg::zero_matrix<square>(n, n);  // G Y^T
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t j = 0; j < n; ++j) {
        T s(0);
        for (std::size_t l = 0; l < n; ++l) s += g(k, l) * y(j, l);
        h(k, j) = s;
      }
    square ga = ::tapeless::detail::linalg::zero_matrix<square>(n, n);  // -Y^T (G Y^T)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        T s(0);
        for (std::size_t k = 0; k < n; ++k) s += y(k, i) * h(k, j);
        ga(i, j) = -s;
      }
    return ga;
  }
};

/// y = log det S of the symmetric S = (A + A^T) / 2 (A itself when A is symmetric), through the
/// Cholesky factor S = L L^T, kept by the forward pass for the backward one: y = 2 sum log L_ii, and
/// dA = g S^-1 = g L^-T L^-1 (= g A^-T for a symmetric A): symmetric, and the exact gradient of
/// this function with respect to every element. Not positive definite: y and dA are NaN.
struct log_det : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "log_det"};
  template <class T, std::size_t N>
  static constexpr auto forward(const matrix<T, N, N>& a) {
    const ::tapeless::detail::linalg::cholesky_factor<T, N> factor(::tapeless::detail::linalg::symmetric_part(a));
    T y = std::numeric_limits<T>::quiet_NaN();
    if (factor.positive_definite) {
      T s(0);
      for (std::size_t i = 0; i < a.rows(); ++i) s += math::log(factor.l(i, i));
      y = T(2) * s;
    }
    return ::tapeless::detail::with_cache<T, ::tapeless::detail::linalg::cholesky_factor<T, N>>{y, factor};
  }
  template <class T, std::size_t N, class A>
  static constexpr matrix<T, N, N> vjp(T g, const A& /*a*/, T,
                                       const ::tapeless::detail::linalg::cholesky_factor<T, N>& factor) {
    return factor.inverse() * g;
  }
};

/// X = A^-1 B for a vector or matrix B, through the LU factorisation of A, kept by the forward pass
/// for the backward one: dB = A^-T G (solved with the same factors), dA = -dB X^T. Singular A: X and
/// both adjoints NaN.
struct solve : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "solve"};
  template <class T, std::size_t N, std::size_t K>
  static constexpr auto forward(const matrix<T, N, N>& a, const matrix<T, N, K>& b) {
    ::tapeless::detail::linalg::lu_factors<T, N> factors(a);
    matrix<T, N, K> x = factors.solve(b);
    return ::tapeless::detail::with_cache<matrix<T, N, K>, ::tapeless::detail::linalg::lu_cache<T, N>>{
        std::move(x), std::in_place, std::move(factors)};
  }
  /// With the LU factors the sweep shares among the nodes that factorise A (sweep/shared.hpp).
  template <class T, std::size_t N, std::size_t K>
  static constexpr auto forward(const matrix<T, N, N>& a, const matrix<T, N, K>& b,
                                ::tapeless::detail::linalg::shared_lu<T, N>& shared) {
    return ::tapeless::detail::with_cache<matrix<T, N, K>, ::tapeless::detail::linalg::lu_cache<T, N>>{
        shared.of(a).solve(b), std::in_place, shared};
  }
  template <class T, std::size_t N, std::size_t K, class A, class B>
  static constexpr matrix<T, N, N> vjp_lhs(const matrix<T, N, K>& g, const A& /*a*/, const B& /*b*/,
                                           const matrix<T, N, K>& x,
                                           const ::tapeless::detail::linalg::lu_cache<T, N>& cache) {
    const matrix<T, N, K> gb = cache.factors().solve_transposed(g);
    const std::size_t n = x.rows();
    auto ga = ::tapeless::detail::linalg::zero_matrix<matrix<T, N, N>>(n, n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        T s(0);
        for (std::size_t c = 0; c < x.cols(); ++c) s += gb(i, c) * x(j, c);
        ga(i, j) = -s;
      }
    return ga;
  }
  template <class T, std::size_t N, std::size_t K, class A, class B>
  static constexpr matrix<T, N, K> vjp_rhs(const matrix<T, N, K>& g, const A& /*a*/, const B& /*b*/,
                                           const matrix<T, N, K>&,
                                           const ::tapeless::detail::linalg::lu_cache<T, N>& cache) {
    return cache.factors().solve_transposed(g);
  }
};

/// L with A = L L^T, lower triangular with a positive diagonal, from the lower triangle of A (the
/// strict upper triangle is not read, as in LAPACK's potrf); all NaN if A is not positive definite.
///
/// Backward (Murray 2016, "Differentiation of the Cholesky decomposition"), from the value L alone:
/// with Phi(X) the lower triangle of X with its diagonal halved,
///   S = L^-T Phi(L^T G) L^-1,   dA_ij = S_ij + S_ji (i > j),  dA_ii = S_ii,  dA_ij = 0 (i < j).
/// This is the exact gradient of the function cholesky computes, which reads the lower triangle: an
/// element A_ij below the diagonal stands for both A_ij and A_ji of the symmetric matrix, so its
/// gradient is the sum of the two entries ij and ji of the symmetric gradient (S + S^T) / 2, and the
/// strict upper triangle, never read, gets 0. For every symmetric perturbation E, <dA, E> equals
/// <(S + S^T) / 2, E>: both conventions give the same directional derivatives, and the gradient flows
/// correctly back through any symmetric construction of A (B B^T, A + A^T, ...). Only the lower
/// triangle of G is used (L's upper triangle is the constant 0).
struct cholesky : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "cholesky", .vjp_reads = reads_value};
  template <class T, std::size_t N>
  static constexpr matrix<T, N, N> value(const matrix<T, N, N>& a) {
    return ::tapeless::detail::linalg::cholesky_factor<T, N>(a).l;
  }
  template <class T, std::size_t N, class A>
  static constexpr matrix<T, N, N> vjp(const matrix<T, N, N>& g, const A& /*a*/, const matrix<T, N, N>& l) {
    using square = matrix<T, N, N>;
    const std::size_t n = l.rows();
    square p = ::tapeless::detail::linalg::zero_matrix<square>(n, n);  // Phi(L^T G)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j <= i; ++j) {
        T s(0);
        for (std::size_t k = i; k < n; ++k) s += l(k, i) * g(k, j);
        p(i, j) = i == j ? s / T(2) : s;
      }
    for (std::size_t c = 0; c < n; ++c)  // P <- L^-T P, column by column (back substitution)
      for (std::size_t i = n; i-- > 0;) {
        T s = p(i, c);
        for (std::size_t k = i + 1; k < n; ++k) s -= l(k, i) * p(k, c);
        p(i, c) = s / l(i, i);
      }
    for (std::size_t r = 0; r < n; ++r)  // S = P L^-1, row by row: L^T S(r, :)^T = P(r, :)^T
      for (std::size_t j = n; j-- > 0;) {
        T s = p(r, j);
        for (std::size_t k = j + 1; k < n; ++k) s -= l(k, j) * p(r, k);
        p(r, j) = s / l(j, j);
      }
    square ga = ::tapeless::detail::linalg::zero_matrix<square>(n, n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j <= i; ++j) ga(i, j) = i == j ? p(i, i) : p(i, j) + p(j, i);
    return ga;
  }
};

}  // namespace ops

/// The determinant of a square matrix: from the minors for N <= 3, by LU with partial pivoting for
/// N >= 4. Its gradient, the cofactor matrix, is computed without division and is finite at singular
/// matrices too; for N <= 3 also beside an infinite entry (see ops::det).
template <Operand A>
constexpr auto det(A&& a) {
  return detail::matrix_op<shapes::square_shape>(ops::det{}, std::forward<A>(a));
}

/// A^-1 of a square matrix (LU with partial pivoting): all NaN if a pivot is exactly zero.
template <Operand A>
constexpr auto inverse(A&& a) {
  return detail::matrix_op<shapes::square_shape>(ops::inverse{}, std::forward<A>(a));
}

/// log det A of a symmetric positive-definite matrix, through its Cholesky factor: more accurate than
/// log(det(A)) and free of overflow. A is read as (A + A^T) / 2, so the gradient is A^-1, symmetric.
/// A matrix that is not positive definite gives NaN (value and gradient).
template <Operand A>
constexpr auto log_det(A&& a) {
  return detail::matrix_op<shapes::square_shape>(ops::log_det{}, std::forward<A>(a));
}

/// x = A^-1 b for a square A and a vector or matrix b with as many rows (LU with partial pivoting;
/// all NaN if A is singular). Both A and b may be differentiated.
template <Operand A, Operand B>
constexpr auto solve(A&& a, B&& b) {
  return detail::matrix_op<shapes::solve_shapes>(ops::solve{}, std::forward<A>(a), std::forward<B>(b));
}

/// The lower-triangular L with A = L L^T of a symmetric positive-definite A, of which only the lower
/// triangle is read; all NaN if A is not positive definite. See ops::cholesky for the gradient's
/// convention (lower triangular: the gradient of the function of A's lower triangle).
template <Operand A>
constexpr auto cholesky(A&& a) {
  return detail::matrix_op<shapes::square_shape>(ops::cholesky{}, std::forward<A>(a));
}

}  // namespace tapeless
