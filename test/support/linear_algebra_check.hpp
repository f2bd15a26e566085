// SPDX-License-Identifier: BSL-1.0
// test/support/linear_algebra_check.hpp: the checks of the linear algebra tests (test/unit/ops/products_test.cpp,
// test/unit/ops/factorisations/): random inputs, finite-difference gradients of functions of a matrix,
// and each operation's gradient at one shape against finite differences and the long double
// references (reference/linear_algebra.hpp).
//
// A matrix-valued op Y(X) is checked through the scalar <W, Y> = tr(W^T Y) with a random constant W,
// built from matmul, transpose and trace alone: its gradient is the vector-Jacobian product at G = W.
#pragma once

#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <matrix_check.hpp>
#include <reference/linear_algebra.hpp>
#include <sanitizers.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace la {

constexpr int points = test_support::points_to_run(25);  // random inputs per operation and shape (2 under ASan)
constexpr double fd_tol = 1e-6;                          // AD against central differences
constexpr double exact_tol = 1e-10;                      // AD against the closed form in long double
constexpr double value_tol = 1e-12;                      // values against the long double references

// ---- printing and comparing --------------------------------------------------------------------------

using mx::str;

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
  return mx::random<mat<R, C>>(r, lo, hi);
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

/// B B^T + d I of a square B of fixed or run-time extents: symmetric, and positive definite for d > 0.
template <class M>
M gram_plus_diagonal(const M& b, double d) {
  const std::size_t n = b.rows();
  M a = b;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double s = i == j ? d : 0.0;
      for (std::size_t k = 0; k < n; ++k) s += b(i, k) * b(j, k);
      a(i, j) = s;
    }
  return a;
}

/// B B^T + I / 2 of a random B: symmetric positive definite, eigenvalues at least 1/2.
template <std::size_t N>
mat<N> random_spd(fd::rng& r) {
  return gram_plus_diagonal(random_matrix<N, N>(r), 0.5);
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

}  // namespace la
