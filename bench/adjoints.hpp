// SPDX-License-Identifier: BSL-1.0
// bench/adjoints.hpp: the suite's fixed-shape cases S1 to S9: their inputs, drawn as the suite says, and their
// hand-written adjoints, the classic ones derived by hand (scalar loops; the bench files add the
// xsimd-vectorised ones).
//
// Every hand-written adjoint is one function from the case's inputs to the gradient (one gradient per
// call), returned in the type tl::grad returns, so that keeping the result costs both the same: a
// forward pass keeping what the reverse sweep needs, then the reverse sweep, as straight-line loops.
// grad does not return the function value, so no adjoint computes it. The bench files time them
// beside tapeless and the peers; bench/compile/ compiles them alone and beside the tapeless gradients
// as users write them (users.hpp), so this header needs only tapeless's matrix type, not the library.
#pragma once

#include "suite.hpp"

#include <tapeless/matrix/matrix.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <tuple>
#include <utility>

namespace tapeless_bench {

namespace tl = tapeless;

// Internal linkage, as the bench files' own kernels have: the library's functions instantiated for a
// kernel's types are then internal too, and a compiler inlines such a function called once where it
// would call an external one (with external linkage, clang's S4 kernel at n = 16 runs 15% more
// instructions). Each executable and compile unit includes these headers once.
namespace {

// The inputs of S1 and S2, both differentiated, spread over their kernels' two parameters.
using scalar_pair = std::array<double, 2>;

// ---------------------------------------------------------------------------------------------
// S1 walkthrough: f(x1, x2) = (x1 - x2)^2 + cos(x1 + x2) at x1 = 1, x2 = 2.

inline scalar_pair s1_inputs() { return {1.0, 2.0}; }

TAPELESS_BENCH_KERNEL std::tuple<double, double> s1_handwritten(double x1, double x2) {
  // forward
  const double a = x1 - x2;
  const double c = x1 + x2;
  // reverse, from f_bar = 1 through f = a^2 + cos(c)
  const double a_bar = 2.0 * a;
  const double c_bar = -std::sin(c);
  return {a_bar + c_bar, -a_bar + c_bar};
}

// ---------------------------------------------------------------------------------------------
// S2 log_mul_sin: f(x1, x2) = ln(x1) + x1 x2 - sin(x2) at x1 = 2, x2 = 3.

inline scalar_pair s2_inputs() { return {2.0, 3.0}; }

TAPELESS_BENCH_KERNEL std::tuple<double, double> s2_handwritten(double x1, double x2) {
  // forward: v1 = ln(x1), v2 = x1 x2, v3 = sin(x2); the sweep needs none of their values.
  // reverse, from f_bar = 1 through f = v1 + v2 - v3
  const double x1_bar = 1.0 / x1 + x2;      // v1_bar / x1 + v2_bar x2
  const double x2_bar = x1 - std::cos(x2);  // v2_bar x1 - v3_bar cos(x2)
  return {x1_bar, x2_bar};
}

// ---------------------------------------------------------------------------------------------
// S3 rosenbrock: f(x) = sum_{i<N-1} 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2, x[i] = 2u - 1.

template <std::size_t N>
struct s3_in {
  tl::vector<double, N> x;
};

template <std::size_t N>
inline s3_in<N> s3_inputs() {
  tapeless_bench::input_stream u;
  s3_in<N> in;
  for (auto& v : in.x) v = u.uniform(-1.0, 1.0);
  return in;
}

template <std::size_t N>
TAPELESS_BENCH_KERNEL tl::vector<double, N> s3_handwritten(const s3_in<N>& in) {
  const auto& x = in.x;
  // forward: a_i = x_{i+1} - x_i^2, b_i = 1 - x_i; f = sum 100 a_i^2 + b_i^2
  std::array<double, N - 1> a, b;
  for (std::size_t i = 0; i + 1 < N; ++i) {
    a[i] = x[i + 1] - x[i] * x[i];
    b[i] = 1.0 - x[i];
  }
  // reverse: a_i_bar = 200 a_i, b_i_bar = 2 b_i; x_i receives -2 x_i a_i_bar - b_i_bar through a_i and
  // b_i, and a_{i-1}_bar through a_{i-1}. One write per element, so the loop has no carried dependency.
  tl::vector<double, N> g;
  g[0] = -400.0 * x[0] * a[0] - 2.0 * b[0];
  for (std::size_t i = 1; i + 1 < N; ++i) g[i] = 200.0 * a[i - 1] - 400.0 * x[i] * a[i] - 2.0 * b[i];
  g[N - 1] = 200.0 * a[N - 2];
  return g;
}

// ---------------------------------------------------------------------------------------------
// S4 log_sum_exp: f(x) = log(sum_i exp(x[i])), x[i] = 4u - 2.

template <std::size_t N>
struct s4_in {
  tl::vector<double, N> x;
};

template <std::size_t N>
inline s4_in<N> s4_inputs() {
  tapeless_bench::input_stream u;
  s4_in<N> in;
  for (auto& v : in.x) v = u.uniform(-2.0, 2.0);
  return in;
}

/// The sweep of n >= 1 elements x into their gradient e: inlined where n is a constant.
[[gnu::always_inline]] inline void s4_adjoint(const double* x, double* e, std::size_t n) {
  // forward, shifted by the largest element so that no exp overflows: e_i = exp(x_i - m), s = sum e_i,
  // f = m + log(s)
  double m = x[0];
  for (std::size_t i = 1; i < n; ++i) m = std::max(m, x[i]);
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) {
    e[i] = std::exp(x[i] - m);
    s += e[i];
  }
  // reverse: x_i_bar = e_i / s, the softmax; the exps are the stored ones
  const double inv_s = 1.0 / s;
  for (std::size_t i = 0; i < n; ++i) e[i] *= inv_s;
}

template <std::size_t N>
TAPELESS_BENCH_KERNEL tl::vector<double, N> s4_handwritten(const s4_in<N>& in) {
  tl::vector<double, N> e;
  s4_adjoint(in.x.data(), e.data(), N);
  return e;
}

// ---------------------------------------------------------------------------------------------
// S5 normal_logpdf: f(mu, sigma) = sum_i -0.5 ((y[i] - mu) / sigma)^2 - log(sigma) - 0.5 log(2 pi),
// 64 data y[i] = 4u - 2 (a constant of f), mu = 0.3, sigma = 1.7.

inline constexpr std::size_t s5_n = 64;
inline constexpr double half_log_2pi = 0.91893853320467274178;  // 0.5 log(2 pi)

struct s5_in {
  tl::vector<double, s5_n> y;
  double mu, sigma;
};

inline s5_in s5_inputs() {
  tapeless_bench::input_stream u;
  s5_in in;
  for (auto& v : in.y) v = u.uniform(-2.0, 2.0);
  in.mu = 0.3;
  in.sigma = 1.7;
  return in;
}

TAPELESS_BENCH_KERNEL std::tuple<double, double> s5_handwritten(const s5_in& in) {
  // forward: z_i = (y_i - mu) / sigma; the reverse needs only sum z_i and sum z_i^2, accumulated here.
  const double inv_sigma = 1.0 / in.sigma;
  double sz = 0, szz = 0;
  for (std::size_t i = 0; i < s5_n; ++i) {
    const double z = (in.y[i] - in.mu) * inv_sigma;
    sz += z;
    szz += z * z;
  }
  // reverse: z_i_bar = -z_i; mu_bar = sum z_i_bar (-1 / sigma); sigma_bar = sum z_i_bar (-z_i / sigma) - n / sigma
  return {sz * inv_sigma, (szz - static_cast<double>(s5_n)) * inv_sigma};
}

// ---------------------------------------------------------------------------------------------
// S6 logistic_regression: f(beta) = -mean(y .* log(p) + (1 - y) .* log(1 - p)), p = sigmoid(X beta),
// X: 256 x 8 with X[i][j] = 2u - 1, then y[i] = (u < 0.5 ? 0 : 1), then beta[j] = 0.2u - 0.1.
// X and y are constants of f.

inline constexpr std::size_t s6_n = 256, s6_k = 8;

struct s6_in {
  tl::matrix<double, s6_n, s6_k> X;
  tl::vector<double, s6_n> y;
  tl::vector<double, s6_k> beta;
};

inline s6_in s6_inputs() {
  tapeless_bench::input_stream u;
  s6_in in;
  for (auto& v : in.X) v = u.uniform(-1.0, 1.0);
  for (auto& v : in.y) v = u.next() < 0.5 ? 0.0 : 1.0;
  for (auto& v : in.beta) v = u.uniform(-0.1, 0.1);
  return in;
}

/// The gradient of S6's loss over n rows, row i's j-th number x(i, j) and its label y[i]: S6's 256 rows of
/// a fixed-shape matrix, and S11's rows of run-time number (rows_bench.cpp).
template <class Row, class Labels>
TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> logistic_gradient(std::size_t n, const Row& x, const Labels& y,
                                                                 const tl::vector<double, s6_k>& beta) {
  // One pass over the rows. forward: z_i = X_i beta, p_i = sigmoid(z_i). reverse: the loss term of
  // row i has derivative (p_i - y_i) / n with respect to z_i (log and sigmoid's derivatives cancel),
  // and beta_bar = X^T z_bar, accumulated row by row while X_i is at hand.
  tl::vector<double, s6_k> g{};
  const double inv_n = 1.0 / static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i) {
    double z = 0;
    for (std::size_t j = 0; j < s6_k; ++j) z += x(i, j) * beta[j];
    const double p = 1.0 / (1.0 + std::exp(-z));
    const double z_bar = (p - y[i]) * inv_n;
    for (std::size_t j = 0; j < s6_k; ++j) g[j] += x(i, j) * z_bar;
  }
  return g;
}

TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s6_handwritten(const s6_in& in) {
  return logistic_gradient(
      s6_n, [&X = in.X](std::size_t i, std::size_t j) { return X(i, j); }, in.y, in.beta);
}

// ---------------------------------------------------------------------------------------------
// S7 matmul: f(A) = sum(A A), A: 8 x 8 with A[i][j] = 2u - 1.

inline constexpr std::size_t s7_n = 8;

struct s7_in {
  tl::matrix<double, s7_n, s7_n> A;
};

inline s7_in s7_inputs() {
  tapeless_bench::input_stream u;
  s7_in in;
  for (auto& v : in.A) v = u.uniform(-1.0, 1.0);
  return in;
}

/// S7's f of A's n x n numbers (row-major, any number type T): the sum of the elements of A A, each the
/// sum over k of A(i, k) A(k, j), as the peers compute it for n fixed or read at run time.
template <class T, class Numbers>
T s7_value(const Numbers& A, std::size_t n) {
  T value = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      T c = 0.0;
      for (std::size_t k = 0; k < n; ++k) c += A[i * n + k] * A[k * n + j];
      value += c;
    }
  return value;
}

TAPELESS_BENCH_KERNEL tl::matrix<double, s7_n, s7_n> s7_handwritten(const s7_in& in) {
  // f = sum_ij (A A)_ij, so C_bar = 1 and A_bar = C_bar A^T + A^T C_bar: (C_bar A^T)_pq is the sum of
  // row q of A, (A^T C_bar)_pq the sum of column p. The forward product is not needed.
  std::array<double, s7_n> row{}, col{};
  for (std::size_t i = 0; i < s7_n; ++i)
    for (std::size_t j = 0; j < s7_n; ++j) {
      row[i] += in.A(i, j);
      col[j] += in.A(i, j);
    }
  tl::matrix<double, s7_n, s7_n> g;
  for (std::size_t p = 0; p < s7_n; ++p)
    for (std::size_t q = 0; q < s7_n; ++q) g(p, q) = row[q] + col[p];
  return g;
}

// ---------------------------------------------------------------------------------------------
// S8 mlp: f(W1, b1, W2, b2) = (W2 tanh(W1 x + b1) + b2 - t)^2, x: 8, W1: 16 x 8, b1: 16, W2: 1 x 16,
// drawn in that order (2u - 1); b2 = 0.1, t = 0.5. x and t are constants of f.

inline constexpr std::size_t s8_in_n = 8, s8_hidden = 16;

struct s8_in {
  tl::vector<double, s8_in_n> x;
  tl::matrix<double, s8_hidden, s8_in_n> W1;
  tl::vector<double, s8_hidden> b1;
  tl::matrix<double, 1, s8_hidden> W2;
  double b2, t;
};

inline s8_in s8_inputs() {
  tapeless_bench::input_stream u;
  s8_in in;
  for (auto& v : in.x) v = u.uniform(-1.0, 1.0);
  for (auto& v : in.W1) v = u.uniform(-1.0, 1.0);
  for (auto& v : in.b1) v = u.uniform(-1.0, 1.0);
  for (auto& v : in.W2) v = u.uniform(-1.0, 1.0);
  in.b2 = 0.1;
  in.t = 0.5;
  return in;
}

using s8_gradient = std::tuple<tl::matrix<double, s8_hidden, s8_in_n>, tl::vector<double, s8_hidden>,
                               tl::matrix<double, 1, s8_hidden>, double>;

TAPELESS_BENCH_KERNEL s8_gradient s8_handwritten(const s8_in& in) {
  // forward: h = tanh(W1 x + b1), kept for the reverse; r = W2 h + b2 - t
  std::array<double, s8_hidden> h;
  double y = in.b2;
  for (std::size_t i = 0; i < s8_hidden; ++i) {
    double a = in.b1[i];
    for (std::size_t j = 0; j < s8_in_n; ++j) a += in.W1(i, j) * in.x[j];
    h[i] = std::tanh(a);
    y += in.W2[i] * h[i];
  }
  // reverse: r_bar = 2 r = b2_bar; W2_bar = r_bar h^T; a_bar = r_bar W2^T .* (1 - h^2) = b1_bar; W1_bar = a_bar x^T
  const double r_bar = 2.0 * (y - in.t);
  s8_gradient g;
  auto& [gW1, gb1, gW2, gb2] = g;
  for (std::size_t i = 0; i < s8_hidden; ++i) {
    gW2[i] = r_bar * h[i];
    gb1[i] = r_bar * in.W2[i] * (1.0 - h[i] * h[i]);
    for (std::size_t j = 0; j < s8_in_n; ++j) gW1(i, j) = gb1[i] * in.x[j];
  }
  gb2 = r_bar;
  return g;
}

// ---------------------------------------------------------------------------------------------
// S9 logdet_inverse: f(A) = log(det(A)) + sum(inverse(A)), A = M M^T + 4 I, M: 4 x 4 with M[i][j] = 2u - 1.

inline constexpr std::size_t s9_n = 4;
using s9_matrix = tl::matrix<double, s9_n, s9_n>;

struct s9_in {
  s9_matrix A;
};

inline s9_in s9_inputs() {
  tapeless_bench::input_stream u;
  s9_matrix M;
  for (auto& v : M) v = u.uniform(-1.0, 1.0);
  s9_in in;
  for (std::size_t i = 0; i < s9_n; ++i)
    for (std::size_t j = 0; j < s9_n; ++j) {
      double s = i == j ? 4.0 : 0.0;
      for (std::size_t k = 0; k < s9_n; ++k) s += M(i, k) * M(j, k);
      in.A(i, j) = s;
    }
  return in;
}

/// A^-1 and det A by Gauss-Jordan elimination with partial pivoting (A is invertible here).
TAPELESS_BENCH_KERNEL std::pair<s9_matrix, double> s9_inverse_det(s9_matrix a) {
  s9_matrix y{};
  for (std::size_t i = 0; i < s9_n; ++i) y(i, i) = 1.0;
  double det = 1.0;
  for (std::size_t k = 0; k < s9_n; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < s9_n; ++i)
      if (std::abs(a(i, k)) > std::abs(a(p, k))) p = i;
    if (p != k) {
      for (std::size_t j = 0; j < s9_n; ++j) {
        std::swap(a(k, j), a(p, j));
        std::swap(y(k, j), y(p, j));
      }
      det = -det;
    }
    det *= a(k, k);
    const double inv_pivot = 1.0 / a(k, k);
    for (std::size_t j = 0; j < s9_n; ++j) {
      a(k, j) *= inv_pivot;
      y(k, j) *= inv_pivot;
    }
    for (std::size_t i = 0; i < s9_n; ++i) {
      if (i == k) continue;
      const double m = a(i, k);
      for (std::size_t j = 0; j < s9_n; ++j) {
        a(i, j) -= m * a(k, j);
        y(i, j) -= m * y(k, j);
      }
    }
  }
  return {y, det};
}

TAPELESS_BENCH_KERNEL s9_matrix s9_handwritten(const s9_in& in) {
  // forward: Y = A^-1 (det A is not needed: the gradient of log det A is A^-T whatever its value).
  const s9_matrix y = s9_inverse_det(in.A).first;
  // reverse: d log det A = A^-T = Y^T; d sum(Y) = -Y^T 1 1^T Y^T = -c r^T, c_i = sum_k Y_ki (column
  // sums), r_j = sum_k Y_jk (row sums).
  std::array<double, s9_n> r{}, c{};
  for (std::size_t i = 0; i < s9_n; ++i)
    for (std::size_t j = 0; j < s9_n; ++j) {
      r[i] += y(i, j);
      c[j] += y(i, j);
    }
  s9_matrix g;
  for (std::size_t i = 0; i < s9_n; ++i)
    for (std::size_t j = 0; j < s9_n; ++j) g(i, j) = y(j, i) - c[i] * r[j];
  return g;
}

}  // namespace

}  // namespace tapeless_bench
