// SPDX-License-Identifier: BSL-1.0
// tapeless/linalg/lu.hpp: LU factorisation with partial pivoting, its solves and cofactors, and the
// factors one sweep shares among the nodes that factorise one argument (det, inverse, solve). N is an
// extent: a fixed one (the rows of a small system in registers), or tl::dynamic or tl::bounded<Max>,
// the same steps in loops to a run-time n.
//
// Degenerate inputs never crash and never divide by zero, so the factors serve constant expressions too:
// a zero pivot column is skipped and recorded (`singular`), and the solves then return NaN.
#pragma once

#include <tapeless/detail/arena.hpp>
#include <tapeless/linalg/nan_matrix.hpp>
#include <tapeless/math/functions.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/run_time_matrix.hpp>
#include <tapeless/simd/lu_rows.hpp>

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail::linalg {

/// A row of K numbers of the right-hand side of a solve, and the two steps of the substitutions on it.
/// At run time, where K splits into SIMD batches, the rows are simd::batch_row: a small system's rows
/// then stay in registers (through memory, each step waits for the store of the one before).
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

/// A vector of n numbers (Index: of positions) for a factorisation of extent N: inline for a fixed or
/// bounded N, on the heap for tl::dynamic.
template <class T, std::size_t N>
using work_vector = std::conditional_t<fixed_extent(N), std::array<T, N>, matrix<T, N, 1>>;
template <std::size_t N>
using index_vector =
    std::conditional_t<N == dynamic, detail::arena_elements<std::size_t>, std::array<std::size_t, max_extent(N)>>;
template <class V>
constexpr V work_vector_of([[maybe_unused]] std::size_t n) {
  if constexpr (requires { V(n); })
    return V(n);
  else
    return V{};
}

/// Step k of P A = L U on the factors f (lu_factors of any extent, n rows): the pivot of column k is
/// the largest magnitude at or below row k, its row swapped into row k (`swap_with(p)`); a zero or NaN
/// pivot (the column below is zero too) marks f singular and eliminates nothing, else each row i below
/// is eliminated by its multiplier m (`eliminate(i, m)`, which L keeps). `at(i)` reads row i in column k.
template <class Factors, class At, class Swap, class Eliminate>
constexpr void pivot_step(Factors& f, std::size_t k, std::size_t n, const At& at, const Swap& swap_with,
                          const Eliminate& eliminate) {
  using T = std::remove_cvref_t<decltype(at(k))>;
  std::size_t p = k;
  T best = math::abs(at(k));
  for (std::size_t i = k + 1; i < n; ++i)
    if (math::abs(at(i)) > best) {
      best = math::abs(at(i));
      p = i;
    }
  if (p != k) {
    swap_with(p);
    std::swap(f.perm[k], f.perm[p]);
    f.sign = -f.sign;
  }
  const T pivot = at(k);
  if (!(math::abs(pivot) > T(0))) {
    f.singular = true;
    return;
  }
  const T r = T(1) / pivot;
  const bool scale = math::reciprocal_is_normal(r);
  f.reciprocal[k] = scale ? r : T(0);
  for (std::size_t i = k + 1; i < n; ++i) eliminate(i, scale ? at(i) * r : at(i) / pivot);
}

/// The cofactor matrix of A, d det(A) / dA = adj(A)^T, from its factors f (lu_factors of any extent),
/// without a division: exact and finite at a singular A as well. adj(A) = det(P) adj(U) L^-1 P; L^-1
/// needs no division (L is unit triangular), and adj(U)_ij = W_ij prod_{m<i} u_mm prod_{m>j} u_mm with
/// W_jj = 1 and W_ij = -sum_{i<k<=j} u_ik W_kj prod_{i<m<k} u_mm, the back substitution of U^-1 scaled
/// by pivots.
template <class Factors>
constexpr auto cofactors_of(const Factors& f) {
  using square = std::remove_cvref_t<decltype(f.lu)>;
  using T = typename square::value_type;
  constexpr std::size_t extent = [] {
    if constexpr (square::fixed_shape)
      return square::rows();
    else
      return square::rows_extent;
  }();
  using column = work_vector<T, extent>;
  const auto& lu = f.lu;
  const std::size_t n = lu.rows();
  column before = work_vector_of<column>(n), after = work_vector_of<column>(n), w = work_vector_of<column>(n);
  for (std::size_t m = 0; m < n; ++m) before[m] = m == 0 ? T(1) : before[m - 1] * lu(m - 1, m - 1);  // prod_{k<m}
  for (std::size_t m = n; m-- > 0;) after[m] = m + 1 == n ? T(1) : after[m + 1] * lu(m + 1, m + 1);  // prod_{k>m}

  square adj_u = zero_matrix<square>(n, n);  // adj(U), upper triangular
  for (std::size_t j = 0; j < n; ++j) {
    w[j] = T(1);
    for (std::size_t i = j; i-- > 0;) {
      T s(0), p(1);
      for (std::size_t k = i + 1; k <= j; ++k) {
        s += lu(i, k) * w[k] * p;
        p *= lu(k, k);
      }
      w[i] = -s;
    }
    for (std::size_t i = 0; i <= j; ++i) adj_u(i, j) = w[i] * before[i] * after[j];
  }

  square l_inv = zero_matrix<square>(n, n);  // L^-1, unit lower triangular
  for (std::size_t j = 0; j < n; ++j) {
    l_inv(j, j) = T(1);
    for (std::size_t i = j + 1; i < n; ++i) {
      T s(0);
      for (std::size_t k = j; k < i; ++k) s += lu(i, k) * l_inv(k, j);
      l_inv(i, j) = -s;
    }
  }

  square cof = zero_matrix<square>(n, n);  // cof(perm[k], i) = adj(A)(i, perm[k]) = sign (adj(U) L^-1)(i, k)
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k) {
      T s(0);
      for (std::size_t m = (i > k ? i : k); m < n; ++m) s += adj_u(i, m) * l_inv(m, k);
      cof(f.perm[k], i) = f.sign * s;
    }
  return cof;
}

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
  /// clang 14 on AVX-512 updates them two elements at a time at offsets that move with the column, and
  /// each load of a pair written by two stores waits for them.
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
  // unrolled by 4: clang 14 otherwise keeps it at N = 4 and vectorises its inner loops with masks for
  // every trip count. A larger N unrolls by 4 too, a copy of the body per column.
  template <class Row>
  constexpr void factorise_rows() {
    std::array<Row, N> rows;
    for (std::size_t i = 0; i < N; ++i) rows[i] = Row::load(&lu(i, 0));
    sign = T(1);
    singular = false;
    for (std::size_t k = 0; k < N; ++k) perm[k] = k;
#pragma GCC unroll 4
    for (std::size_t k = 0; k < N; ++k)
      pivot_step(
          *this, k, N, [&](std::size_t i) { return rows[i].at(k); },
          [&](std::size_t p) { std::swap(rows[k], rows[p]); },
          [&](std::size_t i, const T& m) { rows[i].eliminate(k, m, rows[k]); });
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
  /// The cofactor matrix of A (cofactors_of).
  [[nodiscard]] constexpr matrix<T, N, N> cofactors() const { return cofactors_of(*this); }
};

/// The same factorisation of a matrix of run-time extents (tl::dynamic, tl::bounded<Max>), its rows
/// updated in place: det, solve, inverse, solve_transposed and cofactors as the fixed one's, of a
/// right-hand side of any extents with n rows.
template <class T, std::size_t N>
  requires(!fixed_extent(N))
struct lu_factors<T, N> {
  using square = matrix<T, N, N>;
  square lu;
  index_vector<N> perm;
  T sign = T(1);
  bool singular = false;
  work_vector<T, N> reciprocal;  // as the fixed one's

  constexpr explicit lu_factors(const square& a)
      : lu(a), perm(work_vector_of<index_vector<N>>(a.rows())), reciprocal(a.rows()) {
    factorise();
  }

  constexpr void factorise() {
    const std::size_t n = lu.rows();
    for (std::size_t k = 0; k < n; ++k) perm[k] = k;
    for (std::size_t k = 0; k < n; ++k)
      pivot_step(
          *this, k, n, [&](std::size_t i) { return lu(i, k); },
          [&](std::size_t p) {
            for (std::size_t c = 0; c < n; ++c) std::swap(lu(k, c), lu(p, c));
          },
          [&](std::size_t i, const T& m) {
            for (std::size_t c = k + 1; c < n; ++c) lu(i, c) -= m * lu(k, c);
            lu(i, k) = m;
          });
  }

  [[nodiscard]] constexpr T det() const {
    T d = sign;
    for (std::size_t k = 0; k < lu.rows(); ++k) d *= lu(k, k);
    return d;
  }

  /// X with A X = B (NaN if A is singular), B of n rows.
  template <class B>
  [[nodiscard]] constexpr B solve(const B& b) const {
    B x = zero_matrix<B>(b.rows(), b.cols());
    for (std::size_t i = 0; i < b.rows(); ++i)
      for (std::size_t c = 0; c < b.cols(); ++c) x(i, c) = b(perm[i], c);
    return solved(std::move(x));
  }

  /// A^-1 (NaN if A is singular): the solve of A X = I, whose rows P I are made in place.
  [[nodiscard]] constexpr square inverse() const {
    const std::size_t n = lu.rows();
    square x = zero_matrix<square>(n, n);
    for (std::size_t i = 0; i < n; ++i) x(i, perm[i]) = T(1);
    return solved(std::move(x));
  }

  /// X with A^T X = B (NaN if A is singular): A^T = U^T L^T P.
  template <class B>
  [[nodiscard]] constexpr B solve_transposed(const B& b) const {
    const std::size_t n = lu.rows(), cols = b.cols();
    if (singular) return nan_matrix<B>(n, cols);
    B w = b;
    for (std::size_t i = 0; i < n; ++i) {  // U^T w = b
      for (std::size_t k = 0; k < i; ++k) subtract_scaled(w, i, lu(k, i), k);
      divide(w, i);
    }
    for (std::size_t i = n; i-- > 0;)  // L^T v = w
      for (std::size_t k = i + 1; k < n; ++k) subtract_scaled(w, i, lu(k, i), k);
    B x = zero_matrix<B>(n, cols);  // x = P^T v
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < cols; ++c) x(perm[i], c) = w(i, c);
    return x;
  }

  /// The cofactor matrix of A (cofactors_of).
  [[nodiscard]] constexpr square cofactors() const { return cofactors_of(*this); }

 private:
  // The substitutions on the rows of P B, in x.
  template <class B>
  constexpr B solved(B x) const {
    const std::size_t n = lu.rows();
    if (singular) return nan_matrix<B>(n, x.cols());
    for (std::size_t i = 0; i < n; ++i)  // L y = P b
      for (std::size_t k = 0; k < i; ++k) subtract_scaled(x, i, lu(i, k), k);
    for (std::size_t i = n; i-- > 0;) {  // U x = y
      for (std::size_t k = i + 1; k < n; ++k) subtract_scaled(x, i, lu(i, k), k);
      divide(x, i);
    }
    return x;
  }
  /// Row i of x -= m times row k.
  template <class B>
  static constexpr void subtract_scaled(B& x, std::size_t i, const T& m, std::size_t k) {
    for (std::size_t c = 0; c < x.cols(); ++c) x(i, c) -= m * x(k, c);
  }
  /// Row i of x /= u_ii, as a product by 1 / u_ii where that is kept (plain_row::divide).
  template <class B>
  constexpr void divide(B& x, std::size_t i) const {
    const T r = reciprocal[i], d = lu(i, i);
    for (std::size_t c = 0; c < x.cols(); ++c) x(i, c) = r != T(0) ? x(i, c) * r : x(i, c) / d;
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
  constexpr explicit lu_cache(lu_factors<T, N>&& f) : own(std::move(f)) {}  // a run-time one's blocks move
  // No factors of its own: left unwritten at run time (a constant expression may not copy them so).
  constexpr explicit lu_cache(const shared_lu<T, N>& s)
      : own(std::is_constant_evaluated() ? lu_factors<T, N>() : lu_factors<T, N>(uninitialized)), shared(&s) {}

  [[nodiscard]] constexpr const lu_factors<T, N>& factors() const { return shared ? shared->factors : own; }
  /// A^-1, where another node of the sweep computed it and A is not singular; else null.
  [[nodiscard]] constexpr const matrix<T, N, N>* inverse() const {
    return shared && shared->inverted && !shared->factors.singular ? &shared->inverse : nullptr;
  }
};

}  // namespace tapeless::detail::linalg
