// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/linear_algebra.hpp: matmul, transpose, dot, outer, trace, det, inverse, log_det, solve
// and cholesky, each a coarse node with the closed-form matrix-calculus rule (for C = A B:
// dL/dA = G B^T, dL/dB = A^T G), written so that the backward pass reuses what the forward pass computed.
//
// What each backward pass reuses:
//   inverse, cholesky  the node's value (A^-1, L) is all the rule needs.
//   det, log_det,      the factorisation of A (LU with partial pivoting; Cholesky) is computed once, by
//   solve              the forward pass, and kept beside the value for the backward pass (ops/rules.hpp,
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
#include <tapeless/math/functions.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/shape.hpp>
#include <tapeless/ops/rules.hpp>
#include <tapeless/simd/product.hpp>

#include <array>
#include <cstddef>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail::linalg {

template <class M>
constexpr M nan_matrix() {
  return M::filled(std::numeric_limits<typename M::value_type>::quiet_NaN());
}

/// A row of K numbers of the right-hand side of a solve, and the two steps of the substitutions on it.
/// At run time, where K splits into SIMD batches, the rows are simd::batch_row: a small system's rows
/// then stay in registers (through memory, each step waited for the store of the one before).
template <class T, std::size_t K>
struct plain_row {
  std::array<T, K> e;
  static constexpr plain_row load(const T* p) {
    plain_row r;
    for (std::size_t c = 0; c < K; ++c) r.e[c] = p[c];
    return r;
  }
  /// Row j of the identity.
  static constexpr plain_row unit(std::size_t j) {
    plain_row r;
    for (std::size_t c = 0; c < K; ++c) r.e[c] = c == j ? T(1) : T(0);
    return r;
  }
  constexpr void store(T* p) const {
    for (std::size_t c = 0; c < K; ++c) p[c] = e[c];
  }
  /// Rows one after another from p.
  template <std::size_t N>
  static constexpr void store_all(const std::array<plain_row, N>& rows, T* p) {
    for (std::size_t i = 0; i < N; ++i) rows[i].store(p + i * K);
  }
  /// this -= m y
  constexpr void subtract_scaled(const T& m, const plain_row& y) {
    for (std::size_t c = 0; c < K; ++c) e[c] -= m * y.e[c];
  }
  constexpr T at(std::size_t c) const { return e[c]; }
  /// A step of the factorisation on this row, by the pivot row y of column k: this(c) -= m y(c) right of
  /// k, and this(k) = m, the multiplier L keeps.
  constexpr void eliminate(std::size_t k, const T& m, const plain_row& y) {
    for (std::size_t c = k + 1; c < K; ++c) e[c] -= m * y.e[c];
    e[k] = m;
  }
  /// this /= d, as this *= r where r, 1 / d kept by the factorisation, is not 0 (lu_factors::reciprocal)
  constexpr void divide(const T& d, const T& r) {
    const bool scale = r != T(0);
    for (std::size_t c = 0; c < K; ++c) e[c] = scale ? e[c] * r : e[c] / d;
  }
};

/// P A = L U with partial pivoting: L unit lower triangular (its multipliers stored below the
/// diagonal of `lu`), U upper triangular (on and above it), row k of P A is row perm[k] of A.
/// A zero pivot column (the matrix is singular) is skipped, so the factorisation exists for every
/// matrix; `singular` records it, and solves then return NaN instead of dividing by zero.
template <class T, std::size_t N>
struct lu_factors {
  matrix<T, N, N> lu{};
  std::array<std::size_t, N> perm{};
  T sign = T(1);  // det(P)
  bool singular = false;
  /// 1 / u_kk where that is normal (math::reciprocal_is_normal), else 0, which tells a solve to divide.
  /// Made once here, as LAPACK's getf2 scales by it: a division takes 13 cycles or more, the
  /// substitutions' divisions wait for each other, and the forward pass's solves and the backward
  /// pass's transposed ones would each have made it again.
  std::array<T, N> reciprocal{};

  constexpr lu_factors() = default;
  constexpr explicit lu_factors(const matrix<T, N, N>& a) : lu(a) { factorise(); }
  /// Factors that factorise() will write, for a store made before its matrix is known.
  constexpr explicit lu_factors(uninitialized_t u) : lu(u) {}

  /// Factorises the matrix in `lu` in place. At run time, where a row splits into SIMD batches, its rows
  /// are simd::batch_row, in registers from the first load to the last store: with the rows in memory,
  /// clang 14 on AVX-512 updated them two elements at a time at offsets that moved with the column, and
  /// each load of a pair written by two stores waited for them: S9 (log det(A) + sum(inverse(A)), 4 x 4)
  /// took 1.23x the hand-written adjoint's time, 63 ns where g++ took 31.
  constexpr void factorise() {
#if TAPELESS_SIMD
    if constexpr (simd::whole_row_batches<T, N>()) {
      if (!std::is_constant_evaluated()) return factorise_rows<simd::batch_row<T, N>>();
    }
#endif
    factorise_rows<plain_row<T, N>>();
  }

  [[nodiscard]] constexpr T det() const {
    T d = sign;
    for (std::size_t k = 0; k < N; ++k) d *= lu(k, k);
    return d;
  }

  /// X with A X = B (NaN if A is singular).
  template <std::size_t K>
  [[nodiscard]] constexpr matrix<T, N, K> solve(const matrix<T, N, K>& b) const {
    if (singular) return nan_matrix<matrix<T, N, K>>();
    const auto rows_of_p_b = [&](auto row, std::size_t i) { return decltype(row)::load(&b(perm[i], 0)); };
#if TAPELESS_SIMD
    if constexpr (simd::whole_row_batches<T, K>()) {
      if (!std::is_constant_evaluated()) return solve_rows<simd::batch_row<T, K>, K>(rows_of_p_b);
    }
#endif
    return solve_rows<plain_row<T, K>, K>(rows_of_p_b);
  }

  /// A^-1 (NaN if A is singular): the solve of A X = I, whose rows P I are made in place.
  [[nodiscard]] constexpr matrix<T, N, N> inverse() const {
    if (singular) return nan_matrix<matrix<T, N, N>>();
    const auto rows_of_p = [&](auto row, std::size_t i) { return decltype(row)::unit(perm[i]); };
#if TAPELESS_SIMD
    if constexpr (simd::whole_row_batches<T, N>()) {
      if (!std::is_constant_evaluated()) return solve_rows<simd::batch_row<T, N>, N>(rows_of_p);
    }
#endif
    return solve_rows<plain_row<T, N>, N>(rows_of_p);
  }

  /// X with A^T X = B (NaN if A is singular): A^T = U^T L^T P.
  template <std::size_t K>
  [[nodiscard]] constexpr matrix<T, N, K> solve_transposed(const matrix<T, N, K>& b) const {
    if (singular) return nan_matrix<matrix<T, N, K>>();
#if TAPELESS_SIMD
    if constexpr (simd::whole_row_batches<T, K>()) {
      if (!std::is_constant_evaluated()) return solve_transposed_rows<simd::batch_row<T, K>>(b);
    }
#endif
    return solve_transposed_rows<plain_row<T, K>>(b);
  }

 private:
  // factorise() on the rows of lu as Row (plain_row or simd::batch_row). The loop over columns is
  // unrolled by 4: clang 14 kept it at N = 4 and vectorised its inner loops with masks for every trip
  // count, 58% of S9's time; unrolled, S9 took 86-103 ns where it took 121-154 (paired, clang). A larger
  // N unrolls by 4 too, a copy of the body per column.
  template <class Row>
  constexpr void factorise_rows() {
    std::array<Row, N> rows;
    for (std::size_t i = 0; i < N; ++i) rows[i] = Row::load(&lu(i, 0));
    sign = T(1);
    singular = false;
    for (std::size_t k = 0; k < N; ++k) perm[k] = k;
#pragma GCC unroll 4
    for (std::size_t k = 0; k < N; ++k) {
      std::size_t p = k;
      T best = math::abs(rows[k].at(k));
      for (std::size_t i = k + 1; i < N; ++i)
        if (math::abs(rows[i].at(k)) > best) {
          best = math::abs(rows[i].at(k));
          p = i;
        }
      if (p != k) {
        std::swap(rows[k], rows[p]);
        std::swap(perm[k], perm[p]);
        sign = -sign;
      }
      const T pivot = rows[k].at(k);
      if (!(math::abs(pivot) > T(0))) {  // zero (the column below is zero too) or NaN: nothing to eliminate
        singular = true;
        continue;
      }
      const T r = T(1) / pivot;
      const bool scale = math::reciprocal_is_normal(r);
      reciprocal[k] = scale ? r : T(0);
      for (std::size_t i = k + 1; i < N; ++i)
        rows[i].eliminate(k, scale ? rows[i].at(k) * r : rows[i].at(k) / pivot, rows[k]);
    }
    Row::store_all(rows, lu.data());
  }

  // X with A X = B, from a maker of the rows of P B: first(Row{}, i) is row i.
  template <class Row, std::size_t K, class First>
  constexpr matrix<T, N, K> solve_rows(const First& first) const {
    std::array<Row, N> x;
    for (std::size_t i = 0; i < N; ++i) x[i] = first(Row{}, i);
    for (std::size_t i = 0; i < N; ++i)  // L y = P b
      for (std::size_t k = 0; k < i; ++k) x[i].subtract_scaled(lu(i, k), x[k]);
    for (std::size_t i = N; i-- > 0;) {  // U x = y
      for (std::size_t k = i + 1; k < N; ++k) x[i].subtract_scaled(lu(i, k), x[k]);
      x[i].divide(lu(i, i), reciprocal[i]);
    }
    matrix<T, N, K> out(uninitialized);
    Row::store_all(x, out.data());
    return out;
  }
  template <class Row, std::size_t K>
  constexpr matrix<T, N, K> solve_transposed_rows(const matrix<T, N, K>& b) const {
    std::array<Row, N> w;
    for (std::size_t i = 0; i < N; ++i) w[i] = Row::load(&b(i, 0));
    for (std::size_t i = 0; i < N; ++i) {  // U^T w = b
      for (std::size_t k = 0; k < i; ++k) w[i].subtract_scaled(lu(k, i), w[k]);
      w[i].divide(lu(i, i), reciprocal[i]);
    }
    for (std::size_t i = N; i-- > 0;)  // L^T v = w
      for (std::size_t k = i + 1; k < N; ++k) w[i].subtract_scaled(lu(k, i), w[k]);
    matrix<T, N, K> out(uninitialized);  // x = P^T v
    for (std::size_t i = 0; i < N; ++i) w[i].store(&out(perm[i], 0));
    return out;
  }

 public:
  /// The cofactor matrix of A, d det(A) / dA = adj(A)^T, without a division: exact and finite at a
  /// singular A as well. adj(A) = det(P) adj(U) L^-1 P; L^-1 needs no division (L is unit
  /// triangular), and adj(U)_ij = W_ij prod_{m<i} u_mm prod_{m>j} u_mm with W_jj = 1 and
  /// W_ij = -sum_{i<k<=j} u_ik W_kj prod_{i<m<k} u_mm, the back substitution of U^-1 scaled by pivots.
  [[nodiscard]] constexpr matrix<T, N, N> cofactors() const {
    std::array<T, N + 1> before{}, after{};  // before[i] = prod_{m<i} u_mm, after[j + 1] = prod_{m>j} u_mm
    before[0] = T(1);
    for (std::size_t m = 0; m < N; ++m) before[m + 1] = before[m] * lu(m, m);
    after[N] = T(1);
    for (std::size_t m = N; m-- > 0;) after[m] = after[m + 1] * lu(m, m);

    matrix<T, N, N> adj_u;  // adj(U), upper triangular
    for (std::size_t j = 0; j < N; ++j) {
      std::array<T, N> w{};
      w[j] = T(1);
      for (std::size_t i = j; i-- > 0;) {
        T s(0), p(1);
        for (std::size_t k = i + 1; k <= j; ++k) {
          s += lu(i, k) * w[k] * p;
          p *= lu(k, k);
        }
        w[i] = -s;
      }
      for (std::size_t i = 0; i <= j; ++i) adj_u(i, j) = w[i] * before[i] * after[j + 1];
    }

    matrix<T, N, N> l_inv;  // L^-1, unit lower triangular
    for (std::size_t j = 0; j < N; ++j) {
      l_inv(j, j) = T(1);
      for (std::size_t i = j + 1; i < N; ++i) {
        T s(0);
        for (std::size_t k = j; k < i; ++k) s += lu(i, k) * l_inv(k, j);
        l_inv(i, j) = -s;
      }
    }

    matrix<T, N, N> cof;  // cof(perm[k], i) = adj(A)(i, perm[k]) = sign (adj(U) L^-1)(i, k)
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t k = 0; k < N; ++k) {
        T s(0);
        for (std::size_t m = (i > k ? i : k); m < N; ++m) s += adj_u(i, m) * l_inv(m, k);
        cof(perm[k], i) = sign * s;
      }
    return cof;
  }
};

/// The LU factors of one argument, shared by the nodes of one sweep that factorise it (det, inverse,
/// solve; sweep/shared.hpp): made by the first of them that runs, and A^-1 by the first inverse.
template <class T, std::size_t N>
struct shared_lu {
  lu_factors<T, N> factors{uninitialized};
  matrix<T, N, N> inverse{uninitialized};
  bool factored = false, inverted = false;

  constexpr const lu_factors<T, N>& of(const matrix<T, N, N>& a) {
    if (!factored) {
      factors.lu = a;
      factors.factorise();
      factored = true;
    }
    return factors;
  }
  constexpr const matrix<T, N, N>& inverse_of(const matrix<T, N, N>& a) {
    if (!inverted) {
      inverse = of(a).inverse();
      inverted = true;
    }
    return inverse;
  }
};

/// What det (N >= 4) and solve keep for their rules: LU factors of their own, or the sweep's shared ones.
template <class T, std::size_t N>
struct lu_cache {
  lu_factors<T, N> own;
  const shared_lu<T, N>* shared = nullptr;

  constexpr explicit lu_cache(const lu_factors<T, N>& f) : own(f) {}
  // No factors of its own: left unwritten at run time (a constant expression may not copy them so).
  constexpr explicit lu_cache(const shared_lu<T, N>& s)
      : own(std::is_constant_evaluated() ? lu_factors<T, N>() : lu_factors<T, N>(uninitialized)), shared(&s) {}

  [[nodiscard]] constexpr const lu_factors<T, N>& factors() const { return shared ? shared->factors : own; }
  /// A^-1, where another node of the sweep computed it and A is not singular; else null.
  [[nodiscard]] constexpr const matrix<T, N, N>* inverse() const {
    return shared && shared->inverted && !shared->factors.singular ? &shared->inverse : nullptr;
  }
};

/// The Cholesky factor of a symmetric matrix given by its lower triangle (the upper one is not read):
/// S = L L^T, L lower triangular with a positive diagonal. `positive_definite` is false, and L all
/// NaN, when a pivot is not positive (or is NaN).
template <class T, std::size_t N>
struct cholesky_factor {
  matrix<T, N, N> l{};
  bool positive_definite = true;

  constexpr explicit cholesky_factor(const matrix<T, N, N>& s) {
    // Column j: l(i, j) for i >= j from s(i, j) minus the columns already done; the diagonal first.
    for (std::size_t j = 0; j < N; ++j) {
      for (std::size_t i = j; i < N; ++i) {
        T v = s(i, j);
        for (std::size_t k = 0; k < j; ++k) v -= l(i, k) * l(j, k);
        if (i == j) {
          if (!(v > T(0))) {
            positive_definite = false;
            l = nan_matrix<matrix<T, N, N>>();
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
  [[nodiscard]] constexpr matrix<T, N, N> inverse_factor() const {
    matrix<T, N, N> r;
    for (std::size_t j = 0; j < N; ++j) {
      r(j, j) = T(1) / l(j, j);
      for (std::size_t i = j + 1; i < N; ++i) {
        T s(0);
        for (std::size_t k = j; k < i; ++k) s += l(i, k) * r(k, j);
        r(i, j) = -s / l(i, i);
      }
    }
    return r;
  }

  /// S^-1 = L^-T L^-1, symmetric.
  [[nodiscard]] constexpr matrix<T, N, N> inverse() const {
    if (!positive_definite) return nan_matrix<matrix<T, N, N>>();
    const matrix<T, N, N> r = inverse_factor();
    matrix<T, N, N> s;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j <= i; ++j) {
        T v(0);
        for (std::size_t k = i; k < N; ++k) v += r(k, i) * r(k, j);
        s(i, j) = v;
        s(j, i) = v;
      }
    return s;
  }
};

/// (A + A^T) / 2: the symmetric matrix log_det factorises, so that its gradient is A^-1 elementwise.
template <class T, std::size_t N>
constexpr matrix<T, N, N> symmetric_part(const matrix<T, N, N>& a) {
  matrix<T, N, N> s;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < N; ++j) s(i, j) = i == j ? a(i, i) : (a(i, j) + a(j, i)) / T(2);
  return s;
}

}  // namespace detail::linalg

namespace ops {

struct matmul : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "matmul",
                                           .lhs_vjp_reads = reads{.lhs = false, .rhs = true, .value = false},
                                           .rhs_vjp_reads = reads{.lhs = true, .rhs = false, .value = false}};
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  static constexpr matrix<T, R, C> value(const matrix<T, R, K>& a, const matrix<T, K, C>& b) {
    matrix<T, R, C> c(::tapeless::detail::uninitialized);  // one object returned on both paths: no copy
#if TAPELESS_SIMD
    if constexpr (::tapeless::detail::simd::product_in_batches<T, C>) {
      if (!std::is_constant_evaluated()) {
        ::tapeless::detail::simd::product<R, K, C>(a.data(), b.data(), c.data());
        return c;
      }
    } else if constexpr (::tapeless::detail::simd::matrix_vector_in_batches<T, K, C>) {
      if (!std::is_constant_evaluated()) {
        ::tapeless::detail::simd::matrix_vector<R, K>(a.data(), b.data(), c.data());
        return c;
      }
    }
#endif
    for (auto& e : c) e = T(0);
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t j = 0; j < C; ++j) c(i, j) += a(i, k) * b(k, j);
    return c;
  }
  // dA = G B^T
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  static constexpr matrix<T, R, K> vjp_lhs(const matrix<T, R, C>& g, const matrix<T, R, K>&, const matrix<T, K, C>& b,
                                           const matrix<T, R, C>&) {
    matrix<T, R, K> ga(::tapeless::detail::uninitialized);
#if TAPELESS_SIMD
    if constexpr (::tapeless::detail::simd::outer_product_in_batches<T, K, C>) {
      if (!std::is_constant_evaluated()) {
        ::tapeless::detail::simd::outer_product<R, K>(g.data(), b.data(), ga.data());
        return ga;
      }
    }
#endif
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t k = 0; k < K; ++k) {
        T s(0);
        for (std::size_t j = 0; j < C; ++j) s += g(i, j) * b(k, j);
        ga(i, k) = s;
      }
    return ga;
  }
  // With a uniform G = g 1 (sum and mean send it): dA(i, k) = g sum_j B(k, j), the same row for every
  // i, and dB(k, j) = g sum_i A(i, k), the same column for every j: each is sent as that one line.
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  static constexpr auto vjp_lhs(const ::tapeless::detail::uniform<matrix<T, R, C>>& g, const matrix<T, R, K>&,
                                const matrix<T, K, C>& b, const matrix<T, R, C>&) {
    ::tapeless::detail::repeated<matrix<T, R, K>, true> ga{matrix<T, 1, K>(::tapeless::detail::uninitialized)};
#if TAPELESS_SIMD
    if constexpr (::tapeless::detail::simd::row_sums_in_batches<T, C>) {
      if (!std::is_constant_evaluated()) {
        ::tapeless::detail::simd::row_sums<K, C>(b.data(), ga.line.data());
        for (auto& e : ga.line) e *= g.value;
        return ga;
      }
    }
#endif
    for (std::size_t k = 0; k < K; ++k) {
      T s(0);
      for (std::size_t j = 0; j < C; ++j) s += b(k, j);
      ga.line[k] = g.value * s;
    }
    return ga;
  }
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  static constexpr auto vjp_rhs(const ::tapeless::detail::uniform<matrix<T, R, C>>& g, const matrix<T, R, K>& a,
                                const matrix<T, K, C>&, const matrix<T, R, C>&) {
    ::tapeless::detail::repeated<matrix<T, K, C>, false> gb{matrix<T, K, 1>(::tapeless::detail::uninitialized)};
    for (std::size_t k = 0; k < K; ++k) {
      T s(0);
      for (std::size_t i = 0; i < R; ++i) s += a(i, k);
      gb.line[k] = g.value * s;
    }
    return gb;
  }
  // dB = A^T G
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  static constexpr matrix<T, K, C> vjp_rhs(const matrix<T, R, C>& g, const matrix<T, R, K>& a, const matrix<T, K, C>&,
                                           const matrix<T, R, C>&) {
    matrix<T, K, C> gb(::tapeless::detail::uninitialized);
#if TAPELESS_SIMD
    if constexpr (::tapeless::detail::simd::transposed_product_in_batches<T, K, C>) {
      if (!std::is_constant_evaluated()) {
        ::tapeless::detail::simd::transposed_product<R, K, C>(a.data(), g.data(), gb.data());
        return gb;
      }
    }
#endif
    for (auto& e : gb) e = T(0);
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t j = 0; j < C; ++j) gb(k, j) += a(i, k) * g(i, j);
    return gb;
  }
};

struct transpose : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "transpose", .vjp_reads = reads_nothing};
  template <class T, std::size_t R, std::size_t C>
  static constexpr matrix<T, C, R> value(const matrix<T, R, C>& a) {
    matrix<T, C, R> t(::tapeless::detail::uninitialized);
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t j = 0; j < C; ++j) t(j, i) = a(i, j);
    return t;
  }
  template <class T, std::size_t R, std::size_t C>
  static constexpr matrix<T, R, C> vjp(const matrix<T, C, R>& g, const matrix<T, R, C>&, const matrix<T, C, R>&) {
    return value(g);
  }
};

/// a . b of two vectors of one length.
struct dot : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "dot",
                                           .lhs_vjp_reads = reads{.lhs = false, .rhs = true, .value = false},
                                           .rhs_vjp_reads = reads{.lhs = true, .rhs = false, .value = false}};
  template <class M>
  static constexpr auto value(const M& a, const M& b) {
    typename M::value_type s(0);
    for (std::size_t i = 0; i < M::size(); ++i) s += a[i] * b[i];
    return s;
  }
  // g may be of a wider type than the vectors (a float dot inside a double expression).
  template <class G, class M, class T>
  static constexpr M vjp_lhs(G g, const M&, const M& b, T) {
    return b * static_cast<typename M::value_type>(g);
  }
  template <class G, class M, class T>
  static constexpr M vjp_rhs(G g, const M& a, const M&, T) {
    return a * static_cast<typename M::value_type>(g);
  }
};

/// Z = a b^T of an N-vector and an M-vector: da = G b, db = G^T a.
struct outer : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "outer",
                                           .lhs_vjp_reads = reads{.lhs = false, .rhs = true, .value = false},
                                           .rhs_vjp_reads = reads{.lhs = true, .rhs = false, .value = false}};
  template <class T, std::size_t N, std::size_t M>
  static constexpr matrix<T, N, M> value(const matrix<T, N, 1>& a, const matrix<T, M, 1>& b) {
    matrix<T, N, M> z;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < M; ++j) z(i, j) = a[i] * b[j];
    return z;
  }
  template <class T, std::size_t N, std::size_t M>
  static constexpr matrix<T, N, 1> vjp_lhs(const matrix<T, N, M>& g, const matrix<T, N, 1>&, const matrix<T, M, 1>& b,
                                           const matrix<T, N, M>&) {
    matrix<T, N, 1> ga;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < M; ++j) ga[i] += g(i, j) * b[j];
    return ga;
  }
  template <class T, std::size_t N, std::size_t M>
  static constexpr matrix<T, M, 1> vjp_rhs(const matrix<T, N, M>& g, const matrix<T, N, 1>& a, const matrix<T, M, 1>&,
                                           const matrix<T, N, M>&) {
    matrix<T, M, 1> gb;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < M; ++j) gb[j] += g(i, j) * a[i];
    return gb;
  }
};

/// y = tr A: dA = g I.
struct trace : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "trace", .vjp_reads = reads_nothing};
  template <class T, std::size_t N>
  static constexpr T value(const matrix<T, N, N>& a) {
    T s(0);
    for (std::size_t i = 0; i < N; ++i) s += a(i, i);
    return s;
  }
  template <class T, std::size_t N>
  static constexpr matrix<T, N, N> vjp(T g, const matrix<T, N, N>&, T) {
    matrix<T, N, N> ga;
    for (std::size_t i = 0; i < N; ++i) ga(i, i) = g;
    return ga;
  }
};

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
    if constexpr (N <= 3) {
      const matrix<T, N, N> c = cofactors_from_minors(a);
      T y = a(0, 0) * c(0, 0);
      for (std::size_t j = 1; j < N; ++j) y += a(0, j) * c(0, j);
      return ::tapeless::detail::with_cache<T, matrix<T, N, N>>{y, c};
    } else {
      const ::tapeless::detail::linalg::lu_factors<T, N> factors(a);
      return ::tapeless::detail::with_cache<T, ::tapeless::detail::linalg::lu_cache<T, N>>{factors.det(), std::in_place,
                                                                                           factors};
    }
  }
  /// With the LU factors the sweep shares among the nodes that factorise A (sweep/shared.hpp).
  template <class T, std::size_t N>
    requires(N >= 4)
  static constexpr auto forward(const matrix<T, N, N>& a, ::tapeless::detail::linalg::shared_lu<T, N>& shared) {
    return ::tapeless::detail::with_cache<T, ::tapeless::detail::linalg::lu_cache<T, N>>{shared.of(a).det(),
                                                                                         std::in_place, shared};
  }
  template <class T, std::size_t N>
  static constexpr matrix<T, N, N> vjp(T g, const matrix<T, N, N>&, T, const matrix<T, N, N>& cofactors) {
    return cofactors * g;
  }
  /// Where inverse(A) was computed in the same sweep (S9: log(det(A)) + sum(inverse(A))), cof(A) is
  /// det(A) A^-T, 16 products for N = 4 in place of the cofactors' 400 instructions; at a singular A,
  /// whose inverse is NaN, the cofactors still.
  template <class T, std::size_t N>
  static constexpr matrix<T, N, N> vjp(T g, const matrix<T, N, N>&, T y,
                                       const ::tapeless::detail::linalg::lu_cache<T, N>& cache) {
    if (const matrix<T, N, N>* inv = cache.inverse()) {
      const T s = g * y;
      matrix<T, N, N> ga(::tapeless::detail::uninitialized);
      for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = 0; j < N; ++j) ga(i, j) = s * (*inv)(j, i);
      return ga;
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
  template <class T, std::size_t N>
  static constexpr matrix<T, N, N> vjp(const matrix<T, N, N>& g, const matrix<T, N, N>&, const matrix<T, N, N>& y) {
    matrix<T, N, N> h;  // G Y^T
    for (std::size_t k = 0; k < N; ++k)
      for (std::size_t j = 0; j < N; ++j) {
        T s(0);
        for (std::size_t l = 0; l < N; ++l) s += g(k, l) * y(j, l);
        h(k, j) = s;
      }
    matrix<T, N, N> ga;  // -Y^T (G Y^T)
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        T s(0);
        for (std::size_t k = 0; k < N; ++k) s += y(k, i) * h(k, j);
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
      for (std::size_t i = 0; i < N; ++i) s += math::log(factor.l(i, i));
      y = T(2) * s;
    }
    return ::tapeless::detail::with_cache<T, ::tapeless::detail::linalg::cholesky_factor<T, N>>{y, factor};
  }
  template <class T, std::size_t N>
  static constexpr matrix<T, N, N> vjp(T g, const matrix<T, N, N>&, T,
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
    const ::tapeless::detail::linalg::lu_factors<T, N> factors(a);
    return ::tapeless::detail::with_cache<matrix<T, N, K>, ::tapeless::detail::linalg::lu_cache<T, N>>{
        factors.solve(b), std::in_place, factors};
  }
  /// With the LU factors the sweep shares among the nodes that factorise A (sweep/shared.hpp).
  template <class T, std::size_t N, std::size_t K>
  static constexpr auto forward(const matrix<T, N, N>& a, const matrix<T, N, K>& b,
                                ::tapeless::detail::linalg::shared_lu<T, N>& shared) {
    return ::tapeless::detail::with_cache<matrix<T, N, K>, ::tapeless::detail::linalg::lu_cache<T, N>>{
        shared.of(a).solve(b), std::in_place, shared};
  }
  template <class T, std::size_t N, std::size_t K>
  static constexpr matrix<T, N, N> vjp_lhs(const matrix<T, N, K>& g, const matrix<T, N, N>&, const matrix<T, N, K>&,
                                           const matrix<T, N, K>& x,
                                           const ::tapeless::detail::linalg::lu_cache<T, N>& cache) {
    const matrix<T, N, K> gb = cache.factors().solve_transposed(g);
    matrix<T, N, N> ga;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        T s(0);
        for (std::size_t c = 0; c < K; ++c) s += gb(i, c) * x(j, c);
        ga(i, j) = -s;
      }
    return ga;
  }
  template <class T, std::size_t N, std::size_t K>
  static constexpr matrix<T, N, K> vjp_rhs(const matrix<T, N, K>& g, const matrix<T, N, N>&, const matrix<T, N, K>&,
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
  template <class T, std::size_t N>
  static constexpr matrix<T, N, N> vjp(const matrix<T, N, N>& g, const matrix<T, N, N>&, const matrix<T, N, N>& l) {
    matrix<T, N, N> p;  // Phi(L^T G)
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j <= i; ++j) {
        T s(0);
        for (std::size_t k = i; k < N; ++k) s += l(k, i) * g(k, j);
        p(i, j) = i == j ? s / T(2) : s;
      }
    for (std::size_t c = 0; c < N; ++c)  // P <- L^-T P, column by column (back substitution)
      for (std::size_t i = N; i-- > 0;) {
        T s = p(i, c);
        for (std::size_t k = i + 1; k < N; ++k) s -= l(k, i) * p(k, c);
        p(i, c) = s / l(i, i);
      }
    for (std::size_t r = 0; r < N; ++r)  // S = P L^-1, row by row: L^T S(r, :)^T = P(r, :)^T
      for (std::size_t j = N; j-- > 0;) {
        T s = p(r, j);
        for (std::size_t k = j + 1; k < N; ++k) s -= l(k, j) * p(r, k);
        p(r, j) = s / l(j, j);
      }
    matrix<T, N, N> ga;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j <= i; ++j) ga(i, j) = i == j ? p(i, i) : p(i, j) + p(j, i);
    return ga;
  }
};

}  // namespace ops

namespace detail {
/// Whether every operand is a matrix, or a shape_error passed on; a static_assert says so if not.
template <class... X>
constexpr bool are_matrices() {
  constexpr bool ok = (... && (Matrix<value_type_of_t<X>> || ShapeError<X>));
  static_assert(ok,
                "this operation (matmul, transpose, dot, outer, trace, det, inverse, log_det, solve, cholesky) "
                "takes matrices or matrix expressions, not numbers");
  return ok;
}

/// op of one or two matrix operands whose shapes must satisfy the shapes:: check Fits.
template <template <shape...> class Fits, class Op, class... X>
constexpr auto matrix_op(Op op, X&&... x) {
  constexpr bool kind = are_matrices<X...>() && !any_shape_error<X...>;
  return checked_node<Fits<shape_of<value_type_of_t<X>>...>, kind>(op, std::forward<X>(x)...);
}
}  // namespace detail

/// The matrix product A B (`*` is elementwise).
template <Operand A, Operand B>
constexpr auto matmul(A&& a, B&& b) {
  return detail::matrix_op<shapes::matmul_shapes>(ops::matmul{}, std::forward<A>(a), std::forward<B>(b));
}

template <Operand A>
constexpr auto transpose(A&& a) {
  return detail::matrix_op<shapes::any_shapes>(ops::transpose{}, std::forward<A>(a));
}

/// a . b of two vectors of one length.
template <Operand A, Operand B>
constexpr auto dot(A&& a, B&& b) {
  return detail::matrix_op<shapes::dot_shapes>(ops::dot{}, std::forward<A>(a), std::forward<B>(b));
}

/// a b^T of two column vectors (N x 1 and M x 1): an N x M matrix.
template <Operand A, Operand B>
constexpr auto outer(A&& a, B&& b) {
  return detail::matrix_op<shapes::outer_shapes>(ops::outer{}, std::forward<A>(a), std::forward<B>(b));
}

/// The sum of the diagonal of a square matrix.
template <Operand A>
constexpr auto trace(A&& a) {
  return detail::matrix_op<shapes::square_shape>(ops::trace{}, std::forward<A>(a));
}

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
