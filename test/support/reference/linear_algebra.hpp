// SPDX-License-Identifier: BSL-1.0
// test/support/reference/linear_algebra.hpp: matrix products, determinants, inverses and Cholesky factors
// in long double, written independently of the library, to check its values and gradients against:
// determinants by Laplace expansion, inverses as adjugate / det, Cholesky derivatives in forward mode.
#pragma once

#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstddef>
#include <vector>

namespace la {

namespace tl = tapeless;

template <std::size_t R, std::size_t C = R>
using mat = tl::matrix<double, R, C>;
template <std::size_t N>
using vec = tl::vector<double, N>;

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

inline ldmat ld_zero(std::size_t r, std::size_t c) { return ldmat(r, std::vector<ld>(c, 0.0L)); }
inline ldmat ld_mul(const ldmat& a, const ldmat& b) {
  ldmat c = ld_zero(a.size(), b[0].size());
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t k = 0; k < b.size(); ++k)
      for (std::size_t j = 0; j < b[0].size(); ++j) c[i][j] += a[i][k] * b[k][j];
  return c;
}
inline ldmat ld_t(const ldmat& a) {
  ldmat t = ld_zero(a[0].size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a[0].size(); ++j) t[j][i] = a[i][j];
  return t;
}
inline ldmat ld_scale(ldmat a, ld s) {
  for (auto& row : a)
    for (auto& e : row) e *= s;
  return a;
}
inline ldmat ld_add(ldmat a, const ldmat& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a[0].size(); ++j) a[i][j] += b[i][j];
  return a;
}
inline ldmat ld_minor(const ldmat& a, std::size_t row, std::size_t col) {
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
inline ld ld_det(const ldmat& a) {
  if (a.size() == 1) return a[0][0];
  ld d = 0.0L;
  for (std::size_t j = 0; j < a.size(); ++j) d += ((j % 2) ? -1.0L : 1.0L) * a[0][j] * ld_det(ld_minor(a, 0, j));
  return d;
}
/// The cofactor matrix: d det / dA.
inline ldmat ld_cofactors(const ldmat& a) {
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
inline ldmat ld_inverse(const ldmat& a) { return ld_scale(ld_t(ld_cofactors(a)), 1.0L / ld_det(a)); }
inline ldmat ld_cholesky(const ldmat& a) {
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
inline ld ld_dot(const ldmat& a, const ldmat& b) {
  ld s = 0.0L;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a[0].size(); ++j) s += a[i][j] * b[i][j];
  return s;
}

/// The gradient of <W, chol(A)> in forward mode, element by element of A's lower triangle: a
/// perturbation of A_ij (i > j) is the symmetric E_ij + E_ji, of A_ii is E_ii, and
/// dL = L Phi(L^-1 dA L^-T) with Phi the lower triangle, diagonal halved. The upper triangle is not read.
inline ldmat ld_cholesky_gradient(const ldmat& a, const ldmat& w) {
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

}  // namespace la
