// SPDX-License-Identifier: BSL-1.0
// Linear algebra (ops/linear_algebra.hpp): matmul, transpose, dot, outer, trace, det, inverse, log_det,
// solve and cholesky. Each gradient against central finite differences, element by element, on seeded
// random inputs at 1 x 1 to 4 x 4 (and non-square shapes where the operation has them), and against
// the closed form computed here in long double, independently of the library (determinants by Laplace
// expansion, inverses as adjugate / det, Cholesky derivatives in forward mode); compositions; exact
// values at known matrices; and the conventions at singular, nearly singular and indefinite matrices.
//
// A matrix-valued op Y(X) is checked through the scalar <W, Y> = tr(W^T Y) with a random constant W,
// built from matmul, transpose and trace alone: its gradient is the vector-Jacobian product at G = W.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <sanitizers.hpp>

#include "matrix_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace tl = tapeless;

namespace {

constexpr int points = test_support::points_to_run(25);  // random inputs per operation and shape (2 under ASan)
constexpr double fd_tol = 1e-6;                          // AD against central differences
constexpr double exact_tol = 1e-10;                      // AD against the closed form in long double
constexpr double value_tol = 1e-12;                      // values against the long double references

template <std::size_t R, std::size_t C = R>
using mat = tl::matrix<double, R, C>;
template <std::size_t N>
using vec = tl::vector<double, N>;

// ---- printing and comparing --------------------------------------------------------------------------

template <std::size_t R, std::size_t C>
std::string str(const mat<R, C>& m) {
  std::ostringstream os;
  os.precision(17);
  os << "{";
  for (std::size_t i = 0; i < R; ++i) {
    os << (i ? ", {" : "{");
    for (std::size_t j = 0; j < C; ++j) os << (j ? ", " : "") << m(i, j);
    os << "}";
  }
  os << "}";
  return os.str();
}

}  // namespace

// Failed checks print matrices with all 17 digits.
template <class T, std::size_t R, std::size_t C>
struct doctest::StringMaker<tl::matrix<T, R, C>> {
  static doctest::String convert(const tl::matrix<T, R, C>& m) {
    mat<R, C> d;
    for (std::size_t i = 0; i < R * C; ++i) d[i] = static_cast<double>(m[i]);
    return str(d).c_str();
  }
};

namespace {

/// The largest fd::rel_error over the elements (NaN if any element's error is NaN).
template <std::size_t R, std::size_t C>
double max_rel_error(const mat<R, C>& a, const mat<R, C>& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < R * C; ++i) {
    const double e = fd::rel_error(a[i], b[i]);
    if (std::isnan(e)) return e;
    worst = std::max(worst, e);
  }
  return worst;
}

template <std::size_t R, std::size_t C>
bool all_nan(const mat<R, C>& m) {
  for (const double e : m)
    if (!std::isnan(e)) return false;
  return true;
}
template <std::size_t R, std::size_t C>
bool all_finite(const mat<R, C>& m) {
  for (const double e : m)
    if (!std::isfinite(e)) return false;
  return true;
}
/// Every element finite or NaN: what degenerate inputs may give (never an infinity from a division by 0).
template <std::size_t R, std::size_t C>
bool finite_or_nan(const mat<R, C>& m) {
  for (const double e : m)
    if (std::isinf(e)) return false;
  return true;
}

// ---- the finite-difference gradient of a function of a matrix ----------------------------------------

/// d f / d X by fd::derivative on each element in turn, the others held fixed. f is called with plain
/// matrices, so it evaluates through the library's values but not through its derivatives.
template <class F, std::size_t R, std::size_t C>
mat<R, C> fd_gradient(F f, const mat<R, C>& x) {
  mat<R, C> g;
  for (std::size_t i = 0; i < R * C; ++i)
    g[i] = fd::derivative(
        [&](double xi) {
          mat<R, C> y = x;
          y[i] = xi;
          return static_cast<double>(f(y));
        },
        x[i]);
  return g;
}

/// <W, Y> = tr(W^T Y) of a constant W and a matrix Y (node or plain): the scalar whose gradient
/// with respect to Y is W.
template <std::size_t R, std::size_t C, class Y>
auto weighted(const mat<R, C>& w, Y&& y) {
  return tl::trace(tl::matmul(tl::transpose(w), std::forward<Y>(y)));
}

// ---- random inputs -----------------------------------------------------------------------------------

template <std::size_t R, std::size_t C>
mat<R, C> random_matrix(fd::rng& r, double lo = -1.0, double hi = 1.0) {
  mat<R, C> m;
  for (auto& e : m) e = r.uniform(lo, hi);
  return m;
}

// ---- long double references, independent of the library ---------------------------------------------

using ld = long double;
using ldmat = std::vector<std::vector<ld>>;

template <std::size_t R, std::size_t C>
ldmat to_ld(const mat<R, C>& m) {
  ldmat a(R, std::vector<ld>(C));
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) a[i][j] = m(i, j);
  return a;
}
template <std::size_t R, std::size_t C>
mat<R, C> to_mat(const ldmat& a) {
  mat<R, C> m;
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) m(i, j) = static_cast<double>(a[i][j]);
  return m;
}

ldmat ld_zero(std::size_t r, std::size_t c) { return ldmat(r, std::vector<ld>(c, 0.0L)); }
ldmat ld_mul(const ldmat& a, const ldmat& b) {
  ldmat c = ld_zero(a.size(), b[0].size());
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t k = 0; k < b.size(); ++k)
      for (std::size_t j = 0; j < b[0].size(); ++j) c[i][j] += a[i][k] * b[k][j];
  return c;
}
ldmat ld_t(const ldmat& a) {
  ldmat t = ld_zero(a[0].size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a[0].size(); ++j) t[j][i] = a[i][j];
  return t;
}
ldmat ld_scale(ldmat a, ld s) {
  for (auto& row : a)
    for (auto& e : row) e *= s;
  return a;
}
ldmat ld_add(ldmat a, const ldmat& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a[0].size(); ++j) a[i][j] += b[i][j];
  return a;
}
ldmat ld_minor(const ldmat& a, std::size_t row, std::size_t col) {
  ldmat m;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i == row) continue;
    std::vector<ld> r;
    for (std::size_t j = 0; j < a.size(); ++j)
      if (j != col) r.push_back(a[i][j]);
    m.push_back(r);
  }
  return m;
}
/// Laplace expansion along the first row.
ld ld_det(const ldmat& a) {
  if (a.size() == 1) return a[0][0];
  ld d = 0.0L;
  for (std::size_t j = 0; j < a.size(); ++j) d += ((j % 2) ? -1.0L : 1.0L) * a[0][j] * ld_det(ld_minor(a, 0, j));
  return d;
}
/// The cofactor matrix: d det / dA.
ldmat ld_cofactors(const ldmat& a) {
  const std::size_t n = a.size();
  ldmat c = ld_zero(n, n);
  if (n == 1) {
    c[0][0] = 1.0L;
    return c;
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) c[i][j] = (((i + j) % 2) ? -1.0L : 1.0L) * ld_det(ld_minor(a, i, j));
  return c;
}
/// adj(A) / det(A).
ldmat ld_inverse(const ldmat& a) { return ld_scale(ld_t(ld_cofactors(a)), 1.0L / ld_det(a)); }
ldmat ld_cholesky(const ldmat& a) {
  const std::size_t n = a.size();
  ldmat l = ld_zero(n, n);
  for (std::size_t j = 0; j < n; ++j) {
    ld d = a[j][j];
    for (std::size_t k = 0; k < j; ++k) d -= l[j][k] * l[j][k];
    l[j][j] = std::sqrt(d);
    for (std::size_t i = j + 1; i < n; ++i) {
      ld v = a[i][j];
      for (std::size_t k = 0; k < j; ++k) v -= l[i][k] * l[j][k];
      l[i][j] = v / l[j][j];
    }
  }
  return l;
}
ld ld_dot(const ldmat& a, const ldmat& b) {
  ld s = 0.0L;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a[0].size(); ++j) s += a[i][j] * b[i][j];
  return s;
}

/// |det A| / prod ||row i||, in (0, 1]: 1 for orthogonal rows, 0 when singular.
template <std::size_t N>
double hadamard_ratio(const mat<N>& a) {
  ld p = 1.0L;
  for (std::size_t i = 0; i < N; ++i) {
    ld s = 0.0L;
    for (std::size_t j = 0; j < N; ++j) s += static_cast<ld>(a(i, j)) * a(i, j);
    p *= std::sqrt(s);
  }
  return static_cast<double>(std::abs(ld_det(to_ld(a))) / p);
}

/// A random square matrix far enough from singular that central differences with h = 1e-3 are accurate.
template <std::size_t N>
mat<N> random_invertible(fd::rng& r) {
  for (;;) {
    const mat<N> a = random_matrix<N, N>(r);
    if (hadamard_ratio(a) > 0.25) return a;
  }
}

/// B B^T + I / 2 of a random B: symmetric positive definite, eigenvalues at least 1/2.
template <std::size_t N>
mat<N> random_spd(fd::rng& r) {
  const mat<N> b = random_matrix<N, N>(r);
  mat<N> a;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      double s = i == j ? 0.5 : 0.0;
      for (std::size_t k = 0; k < N; ++k) s += b(i, k) * b(j, k);
      a(i, j) = s;
    }
  return a;
}

template <std::size_t N>
constexpr mat<N> identity() {
  mat<N> m;
  for (std::size_t i = 0; i < N; ++i) m(i, i) = 1.0;
  return m;
}

// ---- the checks ----------------------------------------------------------------------------------

/// The gradient of a scalar f of one matrix at x: value against f on plain matrices, AD against
/// finite differences and against the closed form `exact`.
template <std::size_t R, std::size_t C, class F>
void check_exact_gradient(const std::string& name, F f, const mat<R, C>& x, const mat<R, C>& exact) {
  const auto vg = tl::value_and_grad(f)(x);
  const double value = vg.first;
  const mat<R, C> g = vg.second;
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(vg.second)>, mat<R, C>>);
  const mat<R, C> fdg = fd_gradient(f, x);
  INFO(name << " at X = " << str(x) << "\n  AD    " << str(g) << "\n  FD    " << str(fdg) << "\n  exact "
            << str(exact));
  CHECK(value == static_cast<double>(f(x)));
  CHECK(max_rel_error(g, fdg) < fd_tol);
  CHECK(max_rel_error(g, exact) < exact_tol);
}

/// The gradient of a scalar f of two matrices, with respect to each (and both at once).
template <std::size_t R1, std::size_t C1, std::size_t R2, std::size_t C2, class F>
void check_exact_gradient2(const std::string& name, F f, const mat<R1, C1>& x, const mat<R2, C2>& y,
                           const mat<R1, C1>& exact_x, const mat<R2, C2>& exact_y) {
  const auto both = tl::grad(f)(x, y);
  const mat<R1, C1> gx = std::get<0>(both);
  const mat<R2, C2> gy = std::get<1>(both);
  const mat<R1, C1> fdx = fd_gradient([&](const auto& a) { return f(a, y); }, x);
  const mat<R2, C2> fdy = fd_gradient([&](const auto& b) { return f(x, b); }, y);
  INFO(name << " at X = " << str(x) << ", Y = " << str(y) << "\n  AD    " << str(gx) << ", " << str(gy) << "\n  FD    "
            << str(fdx) << ", " << str(fdy) << "\n  exact " << str(exact_x) << ", " << str(exact_y));
  CHECK(max_rel_error(gx, fdx) < fd_tol);
  CHECK(max_rel_error(gy, fdy) < fd_tol);
  CHECK(max_rel_error(gx, exact_x) < exact_tol);
  CHECK(max_rel_error(gy, exact_y) < exact_tol);
  // One side at a time: the other a constant (its vjp is not called).
  CHECK(tl::grad<0>(f)(x, y) == gx);
  CHECK(tl::grad<1>(f)(x, y) == gy);
}

// ---- per operation, at one shape --------------------------------------------------------------------

template <std::size_t R, std::size_t K, std::size_t C>
void check_matmul(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const auto a = random_matrix<R, K>(r);
    const auto w = random_matrix<R, C>(r);
    const auto b = random_matrix<K, C>(r);
    const auto f = [&w](const auto& x, const auto& y) { return weighted(w, tl::matmul(x, y)); };
    // d<W, A B>/dA = W B^T, d/dB = A^T W
    const ldmat lw = to_ld(w), la = to_ld(a), lb = to_ld(b);
    check_exact_gradient2("matmul", f, a, b, to_mat<R, K>(ld_mul(lw, ld_t(lb))), to_mat<K, C>(ld_mul(ld_t(la), lw)));
    CHECK(max_rel_error(tl::matmul(a, b), to_mat<R, C>(ld_mul(la, lb))) < value_tol);
  }
}

template <std::size_t R, std::size_t C>
void check_transpose(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const auto a = random_matrix<R, C>(r);
    const auto w = random_matrix<C, R>(r);
    check_exact_gradient(
        "transpose", [&w](const auto& x) { return weighted(w, tl::transpose(x)); }, a, to_mat<R, C>(ld_t(to_ld(w))));
  }
}

template <std::size_t N>
void check_dot(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const auto a = random_matrix<N, 1>(r), b = random_matrix<N, 1>(r);
    check_exact_gradient2(
        "dot", [](const auto& x, const auto& y) { return tl::dot(x, y); }, a, b, b, a);
  }
}

template <std::size_t N, std::size_t M>
void check_outer(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const auto a = random_matrix<N, 1>(r);
    const auto w = random_matrix<N, M>(r);
    const auto b = random_matrix<M, 1>(r);
    // d<W, a b^T>/da = W b, d/db = W^T a
    const ldmat lw = to_ld(w), la = to_ld(a), lb = to_ld(b);
    check_exact_gradient2(
        "outer", [&w](const auto& x, const auto& y) { return weighted(w, tl::outer(x, y)); }, a, b,
        to_mat<N, 1>(ld_mul(lw, lb)), to_mat<M, 1>(ld_mul(ld_t(lw), la)));
    const mat<N, M> z = tl::outer(a, b);
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < M; ++j) CHECK(z(i, j) == a[i] * b[j]);
  }
}

template <std::size_t N>
void check_trace(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const auto a = random_matrix<N, N>(r, -5, 5);
    check_exact_gradient(
        "trace", [](const auto& x) { return tl::trace(x); }, a, identity<N>());
    CHECK(tl::grad([](const auto& x) { return tl::trace(x); })(a) == identity<N>());
  }
}

template <std::size_t N>
void check_det(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const auto a = random_matrix<N, N>(r, -2, 2);  // any matrix: the gradient is a polynomial
    const ldmat la = to_ld(a);
    check_exact_gradient(
        "det", [](const auto& x) { return tl::det(x); }, a, to_mat<N, N>(ld_cofactors(la)));
    CHECK(fd::rel_error(tl::det(a), static_cast<double>(ld_det(la))) < value_tol);
  }
}

template <std::size_t N>
void check_inverse(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const auto a = random_invertible<N>(r), w = random_matrix<N, N>(r);
    const ldmat y = ld_inverse(to_ld(a));
    // d<W, A^-1>/dA = -A^-T W A^-T
    const ldmat exact = ld_scale(ld_mul(ld_mul(ld_t(y), to_ld(w)), ld_t(y)), -1.0L);
    check_exact_gradient(
        "inverse", [&w](const auto& x) { return weighted(w, tl::inverse(x)); }, a, to_mat<N, N>(exact));
    CHECK(max_rel_error(tl::inverse(a), to_mat<N, N>(y)) < value_tol);
  }
}

template <std::size_t N>
void check_log_det(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const auto a = random_spd<N>(r);
    const ldmat la = to_ld(a);
    check_exact_gradient(
        "log_det", [](const auto& x) { return tl::log_det(x); }, a, to_mat<N, N>(ld_inverse(la)));
    CHECK(fd::rel_error(tl::log_det(a), static_cast<double>(std::log(ld_det(la)))) < value_tol);
  }
}

template <std::size_t N, std::size_t K>
void check_solve(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const auto a = random_invertible<N>(r);
    const auto b = random_matrix<N, K>(r, -2, 2), w = random_matrix<N, K>(r);
    // x = A^-1 b; d<W, x>/db = A^-T W, d/dA = -(A^-T W) x^T
    const ldmat ai = ld_inverse(to_ld(a)), x = ld_mul(ai, to_ld(b)), gb = ld_mul(ld_t(ai), to_ld(w));
    check_exact_gradient2(
        "solve", [&w](const auto& m, const auto& v) { return weighted(w, tl::solve(m, v)); }, a, b,
        to_mat<N, N>(ld_scale(ld_mul(gb, ld_t(x)), -1.0L)), to_mat<N, K>(gb));
    CHECK(max_rel_error(tl::solve(a, b), to_mat<N, K>(x)) < value_tol);
  }
}

/// The gradient of <W, chol(A)> in forward mode, element by element of A's lower triangle: a
/// perturbation of A_ij (i > j) is the symmetric E_ij + E_ji, of A_ii is E_ii, and
/// dL = L Phi(L^-1 dA L^-T) with Phi the lower triangle, diagonal halved. The upper triangle is not read.
ldmat ld_cholesky_gradient(const ldmat& a, const ldmat& w) {
  const std::size_t n = a.size();
  const ldmat l = ld_cholesky(a), li = ld_inverse(l);
  ldmat g = ld_zero(n, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      ldmat e = ld_zero(n, n);
      e[i][j] = e[j][i] = 1.0L;
      ldmat q = ld_mul(ld_mul(li, e), ld_t(li));
      for (std::size_t u = 0; u < n; ++u)
        for (std::size_t v = 0; v < n; ++v) q[u][v] = u > v ? q[u][v] : (u == v ? q[u][v] / 2 : 0.0L);
      g[i][j] = ld_dot(w, ld_mul(l, q));
    }
  return g;
}

template <std::size_t N>
void check_cholesky(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const auto a = random_spd<N>(r), w = random_matrix<N, N>(r);
    const ldmat la = to_ld(a);
    check_exact_gradient(
        "cholesky", [&w](const auto& x) { return weighted(w, tl::cholesky(x)); }, a,
        to_mat<N, N>(ld_cholesky_gradient(la, to_ld(w))));
    const mat<N> l = tl::cholesky(a);
    CHECK(max_rel_error(l, to_mat<N, N>(ld_cholesky(la))) < value_tol);
    CHECK(max_rel_error(tl::matmul(l, tl::transpose(l)), a) < value_tol);
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = i + 1; j < N; ++j) CHECK(l(i, j) == 0.0);
  }
}

}  // namespace

// ---- matmul, transpose, dot, outer, trace ------------------------------------------------------------

TEST_CASE("matmul: gradients against finite differences and G B^T, A^T G") {
  check_matmul<1, 1, 1>(701);
  check_matmul<2, 2, 2>(702);
  check_matmul<3, 3, 3>(703);
  check_matmul<4, 4, 4>(704);
  check_matmul<2, 3, 4>(705);
  check_matmul<4, 2, 1>(706);
  check_matmul<1, 3, 2>(707);
  check_matmul<1, 4, 1>(708);  // a row times a column: 1 x 1
  check_matmul<4, 1, 3>(709);  // a column times a row: rank 1
  check_matmul<1, 1, 4>(710);
  check_matmul<3, 5, 2>(700);
  check_matmul<16, 8, 1>(711);  // shapes of SIMD batches (simd/product.hpp): G a vector, A^T G along rows of A
  check_matmul<3, 4, 8>(712);   // and along rows of B
}

TEST_CASE("transpose: the gradient is the adjoint transposed") {
  check_transpose<1, 1>(711);
  check_transpose<2, 3>(712);
  check_transpose<3, 3>(713);
  check_transpose<4, 1>(714);
  check_transpose<1, 4>(715);
  check_transpose<5, 2>(716);
}

TEST_CASE("dot: d(a . b) = (b, a)") {
  check_dot<1>(721);
  check_dot<3>(722);
  check_dot<4>(723);
  check_dot<5>(724);
}

TEST_CASE("outer: a b^T, with da = G b and db = G^T a") {
  check_outer<1, 1>(731);
  check_outer<3, 2>(732);
  check_outer<2, 4>(733);
  check_outer<4, 3>(734);
  check_outer<1, 4>(735);
  check_outer<4, 1>(736);
}

TEST_CASE("trace: the gradient is the identity") {
  check_trace<1>(741);
  check_trace<2>(742);
  check_trace<3>(743);
  check_trace<4>(744);
  check_trace<5>(745);
}

// ---- det, inverse, log_det, solve, cholesky ----------------------------------------------------------

TEST_CASE("det: gradient is the cofactor matrix") {
  check_det<1>(751);
  check_det<2>(752);
  check_det<3>(753);
  check_det<4>(754);
  check_det<5>(755);
}

TEST_CASE("inverse: gradient -A^-T G A^-T") {
  check_inverse<1>(761);
  check_inverse<2>(762);
  check_inverse<3>(763);
  check_inverse<4>(764);
  check_inverse<5>(765);
}

TEST_CASE("log_det: gradient A^-1 of a symmetric positive-definite A") {
  check_log_det<1>(771);
  check_log_det<2>(772);
  check_log_det<3>(773);
  check_log_det<4>(774);
  check_log_det<5>(775);
}

TEST_CASE("solve: gradients -A^-T G x^T and A^-T G, for vector and matrix right-hand sides") {
  check_solve<1, 1>(781);
  check_solve<2, 1>(782);
  check_solve<3, 1>(783);
  check_solve<4, 1>(784);
  check_solve<3, 2>(785);
  check_solve<2, 4>(786);
  check_solve<1, 3>(787);
  check_solve<5, 1>(788);
  check_solve<5, 3>(789);
}

TEST_CASE("cholesky: L L^T = A, and the gradient of the function of A's lower triangle") {
  check_cholesky<1>(791);
  check_cholesky<2>(792);
  check_cholesky<3>(793);
  check_cholesky<4>(794);
  check_cholesky<5>(796);
}

TEST_CASE("cholesky: the strict upper triangle is not read, and its gradient is 0") {
  fd::rng r{795};
  for (int p = 0; p < points; ++p) {
    auto a = random_spd<3>(r);
    const auto w = random_matrix<3, 3>(r);
    const auto f = [&w](const auto& x) { return weighted(w, tl::cholesky(x)); };
    const mat<3> g = tl::grad(f)(a);
    CHECK(g(0, 1) == 0.0);
    CHECK(g(0, 2) == 0.0);
    CHECK(g(1, 2) == 0.0);
    mat<3> garbled = a;  // another upper triangle: the same factor and gradient
    garbled(0, 1) = 100.0;
    garbled(1, 2) = -7.0;
    CHECK(tl::cholesky(garbled) == tl::cholesky(a));
    CHECK(tl::grad(f)(garbled) == g);
    // A symmetric perturbation E sees the same derivative as the symmetric convention (S + S^T) / 2:
    // <g, E> equals the finite difference of f along E.
    mat<3> e = random_matrix<3, 3>(r);
    e = e + tl::transpose(e);
    const double along = fd::derivative([&](double t) { return static_cast<double>(f(a + e * t)); }, 0.0);
    double predicted = 0.0;
    for (std::size_t i = 0; i < 9; ++i) predicted += g[i] * e[i];
    CHECK(fd::rel_error(predicted, along) < fd_tol);
  }
}

// ---- compositions --------------------------------------------------------------------------------

template <std::size_t N>
void check_compositions(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const auto a = random_invertible<N>(r);
    const ldmat la = to_ld(a), ai = ld_inverse(la);
    const ld d = ld_det(la);
    {  // det(A A^T) = det(A)^2: gradient 2 det(A)^2 A^-T
      const auto f = [](const auto& x) { return tl::det(tl::matmul(x, tl::transpose(x))); };
      check_exact_gradient("det(A A^T)", f, a, to_mat<N, N>(ld_scale(ld_t(ai), 2.0L * d * d)));
    }
    {  // log det(A A^T + 3 I): gradient 2 (A A^T + 3 I)^-1 A
      const mat<N> three_i = 3.0 * identity<N>();
      const auto f = [&three_i](const auto& x) { return tl::log_det(tl::matmul(x, tl::transpose(x)) + three_i); };
      ldmat m = ld_mul(la, ld_t(la));
      for (std::size_t i = 0; i < N; ++i) m[i][i] += 3.0L;
      check_exact_gradient("log_det(A A^T + 3 I)", f, a, to_mat<N, N>(ld_scale(ld_mul(ld_inverse(m), la), 2.0L)));
      // the identity written as a constant inside f
      const auto f2 = [](const auto& x) {
        const mat<N> id = identity<N>();
        return tl::log_det(tl::matmul(x, tl::transpose(x)) + 3.0 * id);
      };
      CHECK(tl::grad(f2)(a) == tl::grad(f)(a));
    }
    {  // sum(A^-1): gradient -A^-T 1 1^T A^-T
      const ldmat ones = ldmat(N, std::vector<ld>(N, 1.0L));
      check_exact_gradient(
          "sum(inverse(A))", [](const auto& x) { return tl::sum(tl::inverse(x)); }, a,
          to_mat<N, N>(ld_scale(ld_mul(ld_mul(ld_t(ai), ones), ld_t(ai)), -1.0L)));
    }
    {  // sum(A^-1 b): gb = A^-T 1, gA = -gb x^T
      const auto b = random_matrix<N, 1>(r, -2, 2);
      const ldmat x = ld_mul(ai, to_ld(b)), gb = ld_mul(ld_t(ai), ldmat(N, std::vector<ld>(1, 1.0L)));
      check_exact_gradient2(
          "sum(solve(A, b))", [](const auto& m, const auto& v) { return tl::sum(tl::solve(m, v)); }, a, b,
          to_mat<N, N>(ld_scale(ld_mul(gb, ld_t(x)), -1.0L)), to_mat<N, 1>(gb));
    }
    {  // solve agrees with inverse: sum(solve(A, b)) = sum(matmul(inverse(A), b)), value and gradient
      const auto b = random_matrix<N, 2>(r, -2, 2);
      const auto via_solve = [&b](const auto& m) { return tl::sum(tl::solve(m, b)); };
      const auto via_inverse = [&b](const auto& m) { return tl::sum(tl::matmul(tl::inverse(m), b)); };
      CHECK(fd::rel_error(via_solve(a), via_inverse(a)) < 1e-12);
      CHECK(max_rel_error(tl::grad(via_solve)(a), tl::grad(via_inverse)(a)) < 1e-11);
    }
    {  // log_det(A) = log(det(A)) and 2 sum log diag(chol(A)) for an SPD A: values and gradients agree
      const auto s = random_spd<N>(r);
      const auto via_det = [](const auto& m) { return tl::log(tl::det(m)); };
      const auto direct = [](const auto& m) { return tl::log_det(m); };
      CHECK(fd::rel_error(via_det(s), direct(s)) < 1e-12);
      CHECK(max_rel_error(tl::grad(via_det)(s), tl::grad(direct)(s)) < 1e-11);
      // log_det reads (A + A^T) / 2: its gradient is symmetric
      const mat<N> g = tl::grad(direct)(s);
      CHECK(max_rel_error(g, tl::transpose(g)) < 1e-14);
    }
    {  // det(inverse(A)) = 1 / det(A), and trace(outer(u, v)) = u . v
      const auto f = [](const auto& x) { return tl::det(tl::inverse(x)); };
      check_exact_gradient("det(inverse(A))", f, a, to_mat<N, N>(ld_scale(ld_t(ai), -1.0L / d)));
      const auto u = random_matrix<N, 1>(r), v = random_matrix<N, 1>(r);
      const auto [gu, gv] = tl::grad([](const auto& x, const auto& y) { return tl::trace(tl::outer(x, y)); })(u, v);
      CHECK(gu == v);
      CHECK(gv == u);
    }
  }
}

TEST_CASE("compositions: det(A A^T), log_det(A A^T + 3 I), sum(inverse(A)), sum(solve(A, b)) and more") {
  check_compositions<1>(801);
  check_compositions<2>(802);
  check_compositions<3>(803);
  check_compositions<4>(804);
}

// ---- exact values ------------------------------------------------------------------------------

TEST_CASE("exact values at known matrices") {
  SUBCASE("a permutation: det -1, its own inverse, exactly") {
    const mat<3> p{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}};  // a 3-cycle: det +1
    CHECK(tl::det(p) == 1.0);
    CHECK(tl::inverse(p) == tl::transpose(p));
    const mat<2> swap{{0, 1}, {1, 0}};
    CHECK(tl::det(swap) == -1.0);
    CHECK(tl::inverse(swap) == swap);
    CHECK(tl::grad([](const auto& x) { return tl::det(x); })(swap) == mat<2>{{0, -1}, {-1, 0}});
  }
  SUBCASE("triangular and diagonal matrices") {
    const mat<3> u{{2, 3, 5}, {0, 4, 7}, {0, 0, 0.5}};
    CHECK(tl::det(u) == 4.0);
    CHECK(tl::det(tl::transpose(u)) == 4.0);
    const mat<3> d{{2, 0, 0}, {0, 4, 0}, {0, 0, 8}};
    CHECK(tl::inverse(d) == mat<3>{{0.5, 0, 0}, {0, 0.25, 0}, {0, 0, 0.125}});
    CHECK(tl::log_det(d) == doctest::Approx(std::log(64.0)).epsilon(1e-15));
    CHECK(max_rel_error(tl::grad([](const auto& x) { return tl::log_det(x); })(d), tl::inverse(d)) < 1e-15);
    CHECK(tl::cholesky(mat<3>{{4, 0, 0}, {0, 9, 0}, {0, 0, 16}}) == mat<3>{{2, 0, 0}, {0, 3, 0}, {0, 0, 4}});
  }
  SUBCASE("a 2 x 2: det, inverse and the cofactor gradient") {
    const mat<2> a{{4, 1}, {2, 3}};
    CHECK(tl::det(a) == 10.0);
    CHECK(tl::grad([](const auto& x) { return tl::det(x); })(a) == mat<2>{{3, -2}, {-1, 4}});
    CHECK(max_rel_error(tl::inverse(a), mat<2>{{0.3, -0.1}, {-0.2, 0.4}}) < 1e-16);
    const mat<2> b{{1, 2}, {3, 4}};
    CHECK(tl::det(b) == doctest::Approx(-2.0).epsilon(1e-15));
    CHECK(max_rel_error(tl::inverse(b), mat<2>{{-2, 1}, {1.5, -0.5}}) < 1e-15);
  }
  SUBCASE("the 3 x 3 second-difference matrix") {
    const mat<3> t{{2, -1, 0}, {-1, 2, -1}, {0, -1, 2}};
    CHECK(tl::det(t) == doctest::Approx(4.0).epsilon(1e-15));
    CHECK(max_rel_error(tl::inverse(t), mat<3>{{0.75, 0.5, 0.25}, {0.5, 1, 0.5}, {0.25, 0.5, 0.75}}) < 1e-15);
    CHECK(tl::log_det(t) == doctest::Approx(std::log(4.0)).epsilon(1e-15));
    const mat<3> l = tl::cholesky(t);  // L = [sqrt 2; -1/sqrt 2, sqrt(3/2); 0, -sqrt(2/3), 2/sqrt 3]
    CHECK(max_rel_error(l, mat<3>{{std::sqrt(2.0), 0, 0},
                                  {-1 / std::sqrt(2.0), std::sqrt(1.5), 0},
                                  {0, -std::sqrt(2.0 / 3.0), 2 / std::sqrt(3.0)}}) < 1e-15);
    CHECK(max_rel_error(tl::solve(t, vec<3>{1.0, 0.0, 1.0}), vec<3>{1.0, 1.0, 1.0}) < 1e-15);
  }
  SUBCASE("the 3 x 3 Hilbert matrix: det 1/2160 and its integer inverse") {
    const mat<3> h{{1, 1 / 2.0, 1 / 3.0}, {1 / 2.0, 1 / 3.0, 1 / 4.0}, {1 / 3.0, 1 / 4.0, 1 / 5.0}};
    CHECK(tl::det(h) == doctest::Approx(1 / 2160.0).epsilon(1e-13));
    CHECK(max_rel_error(tl::inverse(h), mat<3>{{9, -36, 30}, {-36, 192, -180}, {30, -180, 180}}) < 1e-12);
    CHECK(tl::log_det(h) == doctest::Approx(-std::log(2160.0)).epsilon(1e-13));
  }
  SUBCASE("float and long double compute in their own type") {
    const tl::matrix<float, 2, 2> af{{4, 1}, {2, 3}};
    const auto gf = tl::grad([](const auto& x) { return tl::det(x); })(af);
    static_assert(std::is_same_v<decltype(gf), const tl::matrix<float, 2, 2>>);
    CHECK(gf == tl::matrix<float, 2, 2>{{3, -2}, {-1, 4}});
    const tl::matrix<long double, 2, 2> al{{4, 1}, {2, 3}};
    const auto gl = tl::grad([](const auto& x) { return tl::sum(tl::inverse(x)); })(al);
    static_assert(std::is_same_v<decltype(gl), const tl::matrix<long double, 2, 2>>);
    // -A^-T 1 1^T A^-T with A^-1 = [0.3 -0.1; -0.2 0.4]: column sums (0.1, 0.3), row sums (0.2, 0.2)
    CHECK(std::abs(gl(0, 0) + 0.1L * 0.2L) < 1e-18L);
    CHECK(std::abs(gl(1, 0) + 0.3L * 0.2L) < 1e-18L);
  }
  SUBCASE("plain matrices give plain values") {
    const mat<2> a{{4, 1}, {2, 3}};
    static_assert(std::is_same_v<decltype(tl::det(a)), double>);
    static_assert(std::is_same_v<decltype(tl::inverse(a)), mat<2>>);
    static_assert(std::is_same_v<decltype(tl::solve(a, vec<2>{1.0, 2.0})), vec<2>>);
    static_assert(std::is_same_v<decltype(tl::outer(vec<2>{1.0, 2.0}, vec<3>{1.0, 2.0, 3.0})), mat<2, 3>>);
    static_assert(std::is_same_v<decltype(tl::trace(a)), double>);
    static_assert(std::is_same_v<decltype(tl::log_det(a)), double>);
    static_assert(std::is_same_v<decltype(tl::cholesky(a)), mat<2>>);
  }
}

// ---- singular, nearly singular, not positive definite --------------------------------------------

TEST_CASE("det at singular matrices: 0, and the cofactor gradient, finite and exact") {
  const auto gdet = [](const auto& m) { return tl::grad([](const auto& x) { return tl::det(x); })(m); };
  SUBCASE("rank 1, 2 x 2") {
    const mat<2> a{{1, 2}, {2, 4}};
    CHECK(tl::det(a) == 0.0);
    CHECK(gdet(a) == mat<2>{{4, -2}, {-2, 1}});
  }
  SUBCASE("rank 2, 3 x 3 with an exactly zero pivot") {
    const mat<3> a{{1, 2, 3}, {2, 4, 6}, {1, 0, 1}};  // row 2 = 2 row 1
    CHECK(tl::det(a) == 0.0);
    const mat<3> g = gdet(a);
    CHECK(all_finite(g));
    CHECK(max_rel_error(g, to_mat<3, 3>(ld_cofactors(to_ld(a)))) < 1e-14);
  }
  SUBCASE("rank 2, 3 x 3 where rounding leaves a tiny pivot") {
    const mat<3> a{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    CHECK(std::abs(tl::det(a)) < 1e-14);
    CHECK(max_rel_error(gdet(a), mat<3>{{-3, 6, -3}, {6, -12, 6}, {-3, 6, -3}}) < 1e-13);
  }
  SUBCASE("rank 1 and 0: the cofactors vanish") {
    const mat<3> ones = mat<3>::filled(1.0);
    CHECK(tl::det(ones) == 0.0);
    CHECK(gdet(ones) == mat<3>{});
    CHECK(tl::det(mat<3>{}) == 0.0);
    CHECK(gdet(mat<3>{}) == mat<3>{});
    CHECK(gdet(mat<1>{}) == mat<1>{{1}});  // d det / dA of a 1 x 1 is 1, also at 0
  }
  SUBCASE("a column of zeros, a 4 x 4") {
    const mat<4> a{{1, 0, 2, 3}, {4, 0, 5, 6}, {7, 0, 8, 10}, {1, 0, 1, 1}};
    CHECK(tl::det(a) == 0.0);
    const mat<4> g = gdet(a);
    CHECK(max_rel_error(g, to_mat<4, 4>(ld_cofactors(to_ld(a)))) < 1e-14);
    for (std::size_t i = 0; i < 4; ++i) CHECK(g(i, 0) == 0.0);  // every other cofactor has the zero column
  }
  SUBCASE("NaN in, NaN out, no crash") {
    mat<3> a = identity<3>();
    a(1, 2) = std::numeric_limits<double>::quiet_NaN();
    CHECK(std::isnan(tl::det(a)));
    CHECK(finite_or_nan(gdet(a)));
  }
}

TEST_CASE("inverse and solve at singular matrices: NaN, never an infinity or a crash") {
  const mat<2> a{{1, 2}, {2, 4}};
  CHECK(all_nan(tl::inverse(a)));
  CHECK(all_nan(tl::grad([](const auto& x) { return tl::sum(tl::inverse(x)); })(a)));
  CHECK(all_nan(tl::solve(a, vec<2>{1.0, 1.0})));
  const auto [ga, gb] =
      tl::grad([](const auto& m, const auto& v) { return tl::sum(tl::solve(m, v)); })(a, vec<2>{1.0, 1.0});
  CHECK(all_nan(ga));
  CHECK(all_nan(gb));
  CHECK(all_nan(tl::inverse(mat<3>{})));
  CHECK(all_nan(tl::inverse(mat<1>{})));
  // rounding may leave a tiny pivot instead of 0: huge but finite, or NaN; never infinite
  const mat<3> b{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  CHECK(finite_or_nan(tl::inverse(b)));
  CHECK(finite_or_nan(tl::grad([](const auto& x) { return tl::sum(tl::inverse(x)); })(b)));
  CHECK(finite_or_nan(tl::solve(b, vec<3>{1.0, 2.0, 3.0})));
}

TEST_CASE("nearly singular matrices: large, finite, and still accurate") {
  for (const double eps : {1e-6, 1e-9, 1e-12}) {
    CAPTURE(eps);
    const mat<2> a{{1, 2}, {2, 4 + eps}};  // det = eps, A^-1 = [4 + eps, -2; -2, 1] / eps
    const double d = tl::det(a);
    CHECK(fd::rel_error(d / eps, 1.0) < 1e-15 / eps);  // eps is rounded on entry: 4 + eps has 2^-50 steps
    const mat<2> y = tl::inverse(a);
    CHECK(all_finite(y));
    // A A^-1 = I up to the conditioning
    CHECK(max_rel_error(tl::matmul(a, y), identity<2>()) < 1e-15 / eps);
    CHECK(tl::grad([](const auto& x) { return tl::det(x); })(a) == mat<2>{{4 + eps, -2}, {-2, 1}});
    CHECK(all_finite(tl::grad([](const auto& x) { return tl::sum(tl::inverse(x)); })(a)));
    CHECK(all_finite(tl::solve(a, vec<2>{1.0, 0.0})));
  }
}

namespace {

/// A random N x N matrix whose last row is a random combination of the others plus eps times a random
/// row: nearly singular (det of the order of eps), and singular up to rounding at eps = 0.
template <std::size_t N>
mat<N> random_near_singular(fd::rng& r, double eps) {
  mat<N> a = random_matrix<N, N>(r);
  const auto c = random_matrix<N, 1>(r);
  const auto e = random_matrix<1, N>(r);
  for (std::size_t j = 0; j < N; ++j) {
    double s = eps * e[j];
    for (std::size_t k = 0; k + 1 < N; ++k) s += c[k] * a(k, j);
    a(N - 1, j) = s;
  }
  return a;
}

/// det, inverse and solve at random nearly singular N x N matrices: det and its cofactor gradient
/// finite and accurate; inverse, solve and their gradients finite or NaN (finite while a pivot is
/// left), never an infinity or a crash.
template <std::size_t N>
void check_near_singular(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p)
    for (const double eps : {1e-3, 1e-6, 1e-9, 1e-12, 1e-15, 0.0}) {
      const mat<N> a = random_near_singular<N>(r, eps);
      const auto w = random_matrix<N, N>(r);
      const auto b = random_matrix<N, 1>(r);
      INFO("eps = " << eps << ", A = " << str(a));
      const double d = tl::det(a);
      CHECK(std::isfinite(d));
      CHECK(std::abs(d) < 100.0 * std::max(eps, 1e-13));  // of the order of eps (of rounding at 0)
      const auto [vd, gd] = tl::value_and_grad([](const auto& x) { return tl::det(x); })(a);
      CHECK(vd == d);
      CHECK(all_finite(gd));
      CHECK(max_rel_error(gd, to_mat<N, N>(ld_cofactors(to_ld(a)))) < 1e-12);
      const mat<N> y = tl::inverse(a);
      const auto inverse_loss = [&w](const auto& x) { return weighted(w, tl::inverse(x)); };
      const mat<N> gy = tl::grad(inverse_loss)(a);
      const vec<N> x = tl::solve(a, b);
      const auto [ga, gb] = tl::grad([](const auto& m, const auto& v) { return tl::sum(tl::solve(m, v)); })(a, b);
      CHECK(finite_or_nan(y));
      CHECK(finite_or_nan(gy));
      CHECK(finite_or_nan(x));
      CHECK(finite_or_nan(ga));
      CHECK(finite_or_nan(gb));
      if (eps >= 1e-12) {  // a pivot of the order of eps is left: large but finite, and A A^-1 = I
        CHECK(all_finite(y));
        CHECK(all_finite(gy));
        CHECK(all_finite(x));
        CHECK(max_rel_error(tl::matmul(a, y), identity<N>()) < 1e-12 / eps);  // the conditioning
      }
    }
}

}  // namespace

TEST_CASE("det, inverse and solve at random nearly singular matrices, 1 x 1 to 5 x 5") {
  check_near_singular<1>(821);
  check_near_singular<2>(822);
  check_near_singular<3>(823);
  check_near_singular<5>(825);
}

TEST_CASE("log_det and cholesky of matrices not positive definite: NaN") {
  const mat<2> indefinite{{1, 2}, {2, 1}};
  const mat<2> negative{{-1, 0}, {0, -2}};
  const mat<2> semidefinite{{1, 1}, {1, 1}};
  for (const mat<2>& a : {indefinite, negative, semidefinite, mat<2>{}}) {
    CAPTURE(str(a));
    CHECK(std::isnan(tl::log_det(a)));
    CHECK(all_nan(tl::grad([](const auto& x) { return tl::log_det(x); })(a)));
    CHECK(all_nan(tl::cholesky(a)));
    const mat<2> g = tl::grad([](const auto& x) { return tl::sum(tl::cholesky(x)); })(a);
    CHECK(std::isnan(g(0, 0)));
    CHECK(std::isnan(g(1, 0)));
    CHECK(std::isnan(g(1, 1)));
    CHECK(g(0, 1) == 0.0);  // the upper triangle is never read: its gradient is 0 whatever A is
  }
  CHECK(std::isnan(tl::log_det(mat<1>{{-3}})));
  // positive definite but for the sign of one off-diagonal entry's partner: log_det reads (A + A^T) / 2
  const mat<2> skew{{2, 3}, {-3, 2}};  // symmetric part 2 I
  CHECK(tl::log_det(skew) == doctest::Approx(std::log(4.0)).epsilon(1e-15));
}

TEST_CASE("a node keeping its factorisation may be copied, used twice, and shared by let") {
  fd::rng r{811};
  for (int p = 0; p < points; ++p) {
    const auto a = random_invertible<3>(r);
    const auto b = random_matrix<3, 1>(r);
    const ldmat la = to_ld(a);
    const ld d = ld_det(la);
    const mat<3> exact = to_mat<3, 3>(ld_scale(ld_cofactors(la), 2.0L * d));  // d det^2 = 2 det cof
    const auto copied = [](const auto& x) {
      const auto dt = tl::det(x);
      return dt * dt;
    };
    const auto shared = [](const auto& x) { return tl::let(tl::det(x), [](auto dt) { return dt * dt; }); };
    check_exact_gradient("det(A) * det(A), a local used twice", copied, a, exact);
    check_exact_gradient("let(det(A), t * t)", shared, a, exact);
    // solve's factorisation, copied with its node into both operands of a sum
    const auto twice = [&b](const auto& x) {
      const auto s = tl::solve(x, b);
      return tl::dot(s, s);
    };
    const ldmat ai = ld_inverse(la), x = ld_mul(ai, to_ld(b)), gb = ld_scale(ld_mul(ld_t(ai), x), 2.0L);
    check_exact_gradient("dot(solve(A, b), solve(A, b))", twice, a, to_mat<3, 3>(ld_scale(ld_mul(gb, ld_t(x)), -1.0L)));
  }
}

namespace {
/// det, inverse and solve of one argument share its LU factors (sweep/shared.hpp), and det's rule
/// reads det(A) A^-T off the shared inverse. Each gradient against finite differences and the closed
/// form, and against the same function of A * 1.0, an expression no node shares (the same values).
template <std::size_t N>
void check_shared_factors(std::uint64_t seed) {
  using M = mat<N>;
  using A = tl::argument<0, M>;
  const auto unshared = [](const auto& f) { return [f](const auto& x) { return f(x * 1.0); }; };
  const auto agrees = [&](const std::string& name, const auto& f, const M& x, const M& exact) {
    check_exact_gradient(name, f, x, exact);
    CHECK(max_rel_error(tl::grad(f)(x), tl::grad(unshared(f))(x)) < 1e-13);
  };
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const M a = random_invertible<N>(r);
    const auto b = random_matrix<N, 1>(r, -2, 2);
    const auto bb = random_matrix<N, 2>(r, -2, 2);
    const ldmat la = to_ld(a), ai = ld_inverse(la), ait = ld_t(ai), ones = ldmat(N, std::vector<ld>(N, 1.0L));
    const ld d = ld_det(la);
    const ldmat inverse_sum = ld_scale(ld_mul(ld_mul(ait, ones), ait), -1.0L);  // d sum(A^-1)
    {  // det and inverse: cof(A) - A^-T 1 1^T A^-T
      const auto f = [](const auto& x) { return tl::det(x) + tl::sum(tl::inverse(x)); };
      static_assert(tl::detail::lu_uses<A, decltype(f(std::declval<A>()))> == (N >= 4 ? 2 : 1));
      agrees("det(A) + sum(inverse(A))", f, a, to_mat<N, N>(ld_add(ld_cofactors(la), inverse_sum)));
    }
    {  // S9, at a symmetric positive-definite A: A^-T - A^-T 1 1^T A^-T
      const M s = random_spd<N>(r);
      const ldmat si = ld_inverse(to_ld(s)), sit = ld_t(si);
      const auto f = [](const auto& x) { return tl::log(tl::det(x)) + tl::sum(tl::inverse(x)); };
      agrees("log(det(A)) + sum(inverse(A))", f, s,
             to_mat<N, N>(ld_add(sit, ld_scale(ld_mul(ld_mul(sit, ones), sit), -1.0L))));
    }
    {  // det and solve: sum(x) cof(A) - det(A) gb x^T, x = A^-1 b, gb = A^-T 1
      const auto f = [&b](const auto& m) { return tl::det(m) * tl::sum(tl::solve(m, b)); };
      static_assert(tl::detail::lu_uses<A, decltype(f(std::declval<A>()))> == (N >= 4 ? 2 : 1));
      const ldmat x = ld_mul(ai, to_ld(b)), gb = ld_mul(ait, ldmat(N, std::vector<ld>(1, 1.0L)));
      ld sx = 0.0L;
      for (std::size_t i = 0; i < N; ++i) sx += x[i][0];
      agrees("det(A) * sum(solve(A, b))", f, a,
             to_mat<N, N>(ld_add(ld_scale(ld_cofactors(la), sx), ld_scale(ld_mul(gb, ld_t(x)), -d))));
    }
    {  // inverse, solve and solve again: three nodes, one factorisation
      const auto f = [&b, &bb](const auto& m) {
        return tl::sum(tl::inverse(m)) + tl::sum(tl::solve(m, bb)) + tl::dot(tl::solve(m, b), b);
      };
      static_assert(tl::detail::lu_uses<A, decltype(f(std::declval<A>()))> == 3);
      const ldmat x2 = ld_mul(ai, to_ld(bb)), g2 = ld_mul(ait, ldmat(N, std::vector<ld>(2, 1.0L)));
      const ldmat x1 = ld_mul(ai, to_ld(b)), g1 = ld_mul(ait, to_ld(b));
      agrees("sum(inverse(A)) + sum(solve(A, B)) + solve(A, b) . b", f, a,
             to_mat<N, N>(ld_add(inverse_sum, ld_scale(ld_add(ld_mul(g2, ld_t(x2)), ld_mul(g1, ld_t(x1))), -1.0L))));
    }
    {  // two arguments: A's det alone keeps its own factors, C's det and inverse share
      const M c = random_invertible<N>(r);
      const ldmat lc = to_ld(c), cit = ld_t(ld_inverse(lc));
      const auto f = [](const auto& x, const auto& y) { return tl::det(x) + tl::det(y) + tl::sum(tl::inverse(y)); };
      check_exact_gradient2("det(A) + det(C) + sum(inverse(C))", f, a, c, to_mat<N, N>(ld_cofactors(la)),
                            to_mat<N, N>(ld_add(ld_cofactors(lc), ld_scale(ld_mul(ld_mul(cit, ones), cit), -1.0L))));
    }
  }
}
}  // namespace

TEST_CASE("det, inverse and solve of one argument share its LU factors: the same gradients") {
  check_shared_factors<2>(841);
  check_shared_factors<3>(842);
  check_shared_factors<4>(843);
  check_shared_factors<5>(844);
}

TEST_CASE("shared LU factors at a singular matrix, in constant expressions and in second derivatives") {
  using M = mat<4>;
  // Singular: inverse(A) is NaN, and det's rule, which would read det(A) A^-T off it, takes the
  // cofactors instead. if_else sweeps the det branch only; both branches are evaluated.
  const M singular{{1, 0, 2, 3}, {4, 0, 5, 6}, {7, 0, 8, 10}, {1, 0, 1, 1}};
  const auto det_only = [](const auto& x) { return tl::det(x); };
  const auto with_inverse = [](const auto& x) { return tl::if_else(true, tl::det(x), tl::sum(tl::inverse(x))); };
  CHECK(all_nan(tl::inverse(singular)));
  CHECK(tl::grad(with_inverse)(singular) == tl::grad(det_only)(singular));
  CHECK(max_rel_error(tl::grad(with_inverse)(singular), to_mat<4, 4>(ld_cofactors(to_ld(singular)))) < 1e-14);
  // and at an invertible one, the cofactors read off the inverse
  const M a{{4, 1, 0, 0.5}, {1, 3, 1, 0}, {0, 1, 5, 1}, {0.5, 0, 1, 4}};
  CHECK(max_rel_error(tl::grad(with_inverse)(a), to_mat<4, 4>(ld_cofactors(to_ld(a)))) < 1e-14);

  // in a constant expression the same sharing, to rounding the same gradient as at run time
  const auto s9 = [](const auto& x) { return tl::det(x) + tl::sum(tl::inverse(x)); };
  constexpr M at_compile_time = tl::grad(s9)(M{{4, 1, 0, 0.5}, {1, 3, 1, 0}, {0, 1, 5, 1}, {0.5, 0, 1, 4}});
  CHECK(max_rel_error(at_compile_time, tl::grad(s9)(a)) < 1e-14);

  // second derivatives sweep matrices of dual numbers, whose LU factors are shared the same way
  const auto s9_unshared = [](const auto& x) { return tl::det(x * 1.0) + tl::sum(tl::inverse(x * 1.0)); };
  const auto h = tl::hessian(s9)(a);
  CHECK(max_rel_error(h, tl::hessian(s9_unshared)(a)) < 1e-12);
  for (const double e : h) CHECK(std::isfinite(e));
}

TEST_CASE("dot of float vectors inside a double expression: the adjoint is brought to float") {
  using V = tl::vector<float, 2>;
  const auto [gs, gv] = tl::grad([](auto s, const auto& v) { return s * tl::dot(v, v); })(2.0, V{1.0f, 3.0f});
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(gv)>, V>);
  CHECK(gs == 10.0);            // v . v
  CHECK(gv == V{4.0f, 12.0f});  // 2 s v
}

// Under sum or mean, matmul's rules send a repeated row (G B^T) or column (A^T G), which an
// argument's or a let name's adjoint sum adds without forming the matrix (ops/rules.hpp, repeated);
// every other operand's sweep receives it dense. Each case against the same function with G made
// dense by a weight matrix of ones (the general rules), whose gradient is the same sums.
template <std::size_t R, std::size_t K, std::size_t C>
void check_repeated_adjoints(std::uint64_t seed) {
  fd::rng r{seed};
  const mat<R, C> ones = mat<R, C>::filled(1.0);
  const auto dense = [&ones](const auto& m) { return tl::sum(tl::cref(ones) * m); };
  const auto check_pair = [](const char* name, const auto& f, const auto& g, const auto&... x) {
    INFO(name << " at " << R << " x " << K << " by " << K << " x " << C);
    const auto a = tl::grad(f)(x...), b = tl::grad(g)(x...);
    if constexpr (sizeof...(x) == 1) {
      CHECK(max_rel_error(a, b) < 1e-14);
    } else {
      CHECK(max_rel_error(std::get<0>(a), std::get<0>(b)) < 1e-14);
      CHECK(max_rel_error(std::get<1>(a), std::get<1>(b)) < 1e-14);
    }
  };
  const mat<R, K> a = random_matrix<R, K>(r);
  const mat<K, C> b = random_matrix<K, C>(r);
  // arguments on both sides, under sum and under mean
  check_pair(
      "sum(A B)", [](const auto& x, const auto& y) { return tl::sum(tl::matmul(x, y)); },
      [&](const auto& x, const auto& y) { return dense(tl::matmul(x, y)); }, a, b);
  check_pair(
      "mean(A B)", [](const auto& x, const auto& y) { return 3.0 * tl::mean(tl::matmul(x, y)); },
      [&](const auto& x, const auto& y) { return 3.0 * dense(tl::matmul(x, y)) / double(R * C); }, a, b);
  // operands that are not leaves: an elementwise region, a transpose, a let name
  check_pair(
      "sum(exp(A) B)", [](const auto& x, const auto& y) { return tl::sum(tl::matmul(tl::exp(x), y)); },
      [&](const auto& x, const auto& y) { return dense(tl::matmul(tl::exp(x), y)); }, a, b);
  check_pair(
      "sum(transpose(A^T) B)",
      [](const auto& x, const auto& y) { return tl::sum(tl::matmul(tl::transpose(tl::transpose(x)), y)); },
      [&](const auto& x, const auto& y) { return dense(tl::matmul(x, y)); }, a, b);
  check_pair(
      "let p = 2 A: sum(p B)",
      [](const auto& x, const auto& y) { return tl::let(x * 2.0, [&y](auto p) { return tl::sum(tl::matmul(p, y)); }); },
      [&](const auto& x, const auto& y) { return dense(tl::matmul(x * 2.0, y)); }, a, b);
  if constexpr (R == K && K == C) {
    // one argument on both sides: the repeated row and the repeated column summed in one pass
    // (sum_of_repeated), into A's sum or added to what it holds; a let's name likewise
    check_pair(
        "sum(A A)", [](const auto& x) { return tl::sum(tl::matmul(x, x)); },
        [&](const auto& x) { return dense(tl::matmul(x, x)); }, a);
    check_pair(
        "sum(A) + sum(A A)", [](const auto& x) { return tl::sum(x) + tl::sum(tl::matmul(x, x)); },
        [&](const auto& x) { return tl::sum(x) + dense(tl::matmul(x, x)); }, a);
    check_pair(
        "let p = 2 A: sum(p p)",
        [](const auto& x) { return tl::let(x * 2.0, [](auto p) { return tl::sum(tl::matmul(p, p)); }); },
        [&](const auto& x) { return dense(tl::matmul(x * 2.0, x * 2.0)); }, a);
    const auto f = [](const auto& x) { return tl::sum(tl::matmul(x, x)); };
    CHECK(tl::trace(f, a).gradient() == tl::grad(f)(a));  // the trace's sweep receives them dense
    // exact: d sum(A A) / dA(p, q) = sum_j A(q, j) + sum_i A(i, p)
    const mat<R, C> g = tl::grad(f)(a);
    for (std::size_t p = 0; p < R; ++p)
      for (std::size_t q = 0; q < C; ++q) {
        double row = 0, col = 0;
        for (std::size_t j = 0; j < C; ++j) row += a(q, j);
        for (std::size_t i = 0; i < R; ++i) col += a(i, p);
        CHECK(fd::rel_error(g(p, q), row + col) < 1e-14);
      }
  }
}

TEST_CASE("matmul under sum or mean: repeated rows and columns reach every kind of operand") {
  // sum(A A) in a constant expression: A's two adjoints summed in the scalar loop
  constexpr auto exact = tl::grad([](const auto& x) { return tl::sum(tl::matmul(x, x)); })(mat<2, 2>{{1, 2}, {3, 4}});
  static_assert(exact == mat<2, 2>{{7, 11}, {9, 13}});
  check_repeated_adjoints<8, 8, 8>(731);  // rows of whole SIMD batches
  check_repeated_adjoints<4, 4, 4>(736);
  check_repeated_adjoints<3, 3, 3>(732);
  check_repeated_adjoints<2, 5, 4>(733);
  check_repeated_adjoints<4, 6, 1>(734);
  check_repeated_adjoints<1, 4, 8>(735);
}

TEST_CASE("matmul under sum: the row sums of B start from +0, in SIMD batches as in the scalar loop") {
  // dA(i, k) = g sum_j B(k, j). Rows of 8 and 4 sum in batches at run time (simd::row_sums), rows of
  // 3 and constant evaluation in the scalar loop; each starts from +0, so a row of -0 gives +0.
  const auto f = [](const auto& a, const auto& b) { return tl::sum(tl::matmul(a, b)); };
  const auto check_zero_rows = [&f]<std::size_t C>(std::integral_constant<std::size_t, C>) {
    INFO("rows of " << C);
    const mat<5, 4> a = mat<5, 4>::filled(0.25);
    mat<4, C> b = mat<4, C>::filled(-0.0);
    for (std::size_t j = 0; j < C; ++j) b(2, j) = double(j + 1);  // one row that is not zero
    const auto g = std::get<0>(tl::grad(f)(a, b));
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t k = 0; k < 4; ++k) {
        CHECK(g(i, k) == (k == 2 ? double(C * (C + 1) / 2) : 0.0));
        CHECK(!std::signbit(g(i, k)));
      }
  };
  check_zero_rows(std::integral_constant<std::size_t, 8>{});
  check_zero_rows(std::integral_constant<std::size_t, 4>{});
  check_zero_rows(std::integral_constant<std::size_t, 3>{});
  constexpr auto gc = [] {
    const auto f = [](const auto& a, const auto& b) { return tl::sum(tl::matmul(a, b)); };
    return std::get<0>(tl::grad(f)(mat<1, 2>{{1.0, 2.0}}, mat<2, 4>{{-0.0, -0.0, -0.0, -0.0}, {1.0, 2.0, 3.0, 4.0}}));
  }();
  static_assert(gc(0, 0) == 0.0 && gc(0, 1) == 10.0);
  CHECK(!std::signbit(gc(0, 0)));
  // Random rows of 8, 4 and 12, 7 of them (whole batches of rows and one left): the sums in lanes
  // against the sums in long double, within the bound of any order of C - 1 additions.
  fd::rng r{741};
  const mat<2, 7> a = random_matrix<2, 7>(r);
  const auto check_random = [&]<std::size_t C>(std::integral_constant<std::size_t, C>) {
    INFO("rows of " << C);
    const mat<7, C> b = random_matrix<7, C>(r);
    const auto g = std::get<0>(tl::grad(f)(a, b));
    for (std::size_t k = 0; k < 7; ++k) {
      long double row = 0, magnitude = 0;
      for (std::size_t j = 0; j < C; ++j) {
        row += b(k, j);
        magnitude += std::abs(b(k, j));
      }
      const long double bound = (C - 1) * std::numeric_limits<double>::epsilon() / 2 * magnitude;
      CHECK(std::abs(g(1, k) - row) <= bound);
    }
  };
  check_random(std::integral_constant<std::size_t, 8>{});
  check_random(std::integral_constant<std::size_t, 4>{});
  check_random(std::integral_constant<std::size_t, 12>{});
}

/// Whether s, a sum of the n products term(0), ..., term(n - 1) computed in double, is within the bound
/// of any order of its n - 1 additions and n roundings of products, each within half an ulp, of their
/// sum in long double.
template <class Term>
bool within_any_order(double s, std::size_t n, const Term& term) {
  long double exact = 0, magnitude = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const long double t = term(j);
    exact += t;
    magnitude += std::abs(t);
  }
  return std::abs(s - exact) <= (2 * n - 1) * std::numeric_limits<double>::epsilon() / 2 * magnitude;
}

TEST_CASE("sum(w .* (A b)): A^T w and A b, each sum within any order's bound, with +0, NaN and inf") {
  // Its gradient is A^T w in b and A b in w. At run time, with rows of A in whole batches:
  // - A^T w: row i goes to chain i mod c (simd::transposed_matrix_vector), c up to 8 / (batches per
  //   row): 4 for rows of 8 in batches of 4, 8 for rows of 4; the rows left over (37 = 9 rounds of 4
  //   and 1) go to the first;
  // - A b: the rows' sums come out a batch of rows at a time (simd::sum_lanes_of_rows), two batches in
  //   one store where the build's vectors are twice as wide as its batches (AVX-512 with batches of 4:
  //   simd::store_pair), then the rows left over.
  // Each sum is within the bound of any order of the long double sum, starts from +0 as the scalar
  // loop does, and carries a NaN or an infinity of its terms.
  fd::rng r{742};
  const auto check = [&r]<std::size_t R, std::size_t K>(std::integral_constant<std::size_t, R>,
                                                        std::integral_constant<std::size_t, K>) {
    INFO(R << " x " << K);
    const auto f = [](const mat<R, K>& a) {
      return [&a](const auto& w, const auto& b) { return tl::sum(w * tl::matmul(tl::cref(a), b)); };
    };
    const mat<R, K> a = random_matrix<R, K>(r);
    const mat<R, 1> w = random_matrix<R, 1>(r);
    const mat<K, 1> b = random_matrix<K, 1>(r);
    const auto [a_b, a_t_w] = tl::grad(f(a))(w, b);
    for (std::size_t k = 0; k < K; ++k)
      CHECK(within_any_order(a_t_w[k], R, [&](std::size_t i) { return static_cast<long double>(a(i, k)) * w[i]; }));
    for (std::size_t i = 0; i < R; ++i)
      CHECK(within_any_order(a_b[i], K, [&](std::size_t k) { return static_cast<long double>(a(i, k)) * b[k]; }));
    // -0 terms only: +0, as 0 + -0 in the scalar loop
    const auto [zero_b, zero_w] = tl::grad(f(a))(mat<R, 1>::filled(-0.0), mat<K, 1>::filled(-0.0));
    for (std::size_t k = 0; k < K; ++k) CHECK((zero_w[k] == 0.0 && !std::signbit(zero_w[k])));
    for (std::size_t i = 0; i < R; ++i) CHECK((zero_b[i] == 0.0 && !std::signbit(zero_b[i])));
    // an infinity in the last row (the rows left over, where there are any), a NaN in the first
    mat<R, K> special = a;
    special(R - 1, 0) = std::numeric_limits<double>::infinity();
    special(0, K - 1) = std::numeric_limits<double>::quiet_NaN();
    const auto [special_b, special_w] = tl::grad(f(special))(mat<R, 1>::filled(0.5), mat<K, 1>::filled(0.5));
    CHECK(special_w[0] == std::numeric_limits<double>::infinity());
    CHECK(std::isnan(special_w[K - 1]));
    CHECK(std::isnan(special_b[0]));
    CHECK(special_b[R - 1] == std::numeric_limits<double>::infinity());
  };
  using std::integral_constant;
  check(integral_constant<std::size_t, 256>{}, integral_constant<std::size_t, 8>{});  // S6
  check(integral_constant<std::size_t, 37>{}, integral_constant<std::size_t, 8>{});
  check(integral_constant<std::size_t, 100>{}, integral_constant<std::size_t, 4>{});
  check(integral_constant<std::size_t, 21>{}, integral_constant<std::size_t, 4>{});
  check(integral_constant<std::size_t, 7>{}, integral_constant<std::size_t, 8>{});  // too few rows for chains
  check(integral_constant<std::size_t, 50>{}, integral_constant<std::size_t, 16>{});
  check(integral_constant<std::size_t, 30>{}, integral_constant<std::size_t, 64>{});  // batches enough already
  check(integral_constant<std::size_t, 13>{}, integral_constant<std::size_t, 3>{});   // no whole batches
  check(integral_constant<std::size_t, 16>{}, integral_constant<std::size_t, 8>{});   // S8's W1 x: two pairs
  check(integral_constant<std::size_t, 12>{}, integral_constant<std::size_t, 8>{});   // a pair and a batch
  check(integral_constant<std::size_t, 27>{}, integral_constant<std::size_t, 4>{});   // and 3 rows left
  check(integral_constant<std::size_t, 3>{}, integral_constant<std::size_t, 16>{});
}

TEST_CASE("matmul under sum: a deep number chain (a cut) and second derivatives") {
  using M = mat<2, 2>;
  const M a{{0.3, -0.7}, {1.1, 0.4}};
  const M ones = M::filled(1.0);
  // a chain deeper than the cut depth over sum(A A): the cut's sweep adds repeated lines
  const auto deep = [](const auto& x) { return mx::affine_chain<20>(tl::sum(tl::matmul(x, x))); };
  const auto deep_dense = [&ones](const auto& x) {
    return mx::affine_chain<20>(tl::sum(tl::cref(ones) * tl::matmul(x, x)));
  };
  CHECK(max_rel_error(tl::grad(deep)(a), tl::grad(deep_dense)(a)) < 1e-14);
  // second derivatives run the rules in dual numbers: the same Hessian either way
  const auto f = [](const auto& x) { return tl::sum(tl::matmul(x, x)); };
  const auto f_dense = [&ones](const auto& x) { return tl::sum(tl::cref(ones) * tl::matmul(x, x)); };
  CHECK(max_rel_error(tl::hessian(f)(a), tl::hessian(f_dense)(a)) < 1e-14);
}
