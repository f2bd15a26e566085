// SPDX-License-Identifier: BSL-1.0
// bench/matrix_bench.cpp: the matrix cases, S6 logistic_regression, S7 matmul, S8 mlp and
// S9 logdet_inverse, each hand-written (S6 and S8 also vectorised with xsimd), with tapeless and with
// every peer library (bench/cases.hpp), side by side.
//
// Every implementation is one function from the case's input struct to the gradient (one gradient
// per call), returned in the type tl::grad returns, so that keeping the result costs both the same.
// The hand-written one is the classic adjoint, derived by hand: a forward pass keeping what the
// reverse sweep needs, then the reverse sweep, as straight-line loops. grad does not return the
// function value, so neither implementation is asked for it. The peers differentiate each case's `f`,
// the function written once for any number type.
#include "cases.hpp"
#include "simd.hpp"
#include "suite.hpp"

#include <tapeless/tapeless.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <tuple>
#include <utility>

namespace tl = tapeless;
namespace simd = tapeless_bench::simd;

namespace {

// ---------------------------------------------------------------------------------------------
// S6 logistic_regression: f(beta) = -mean(y .* log(p) + (1 - y) .* log(1 - p)), p = sigmoid(X beta),
// X: 256 x 8 with X[i][j] = 2u - 1, then y[i] = (u < 0.5 ? 0 : 1), then beta[j] = 0.2u - 0.1.
// X and y are constants of f.

constexpr std::size_t s6_n = 256, s6_k = 8;

struct s6_in {
  tl::matrix<double, s6_n, s6_k> X;
  tl::vector<double, s6_n> y;
  tl::vector<double, s6_k> beta;
};

s6_in s6_inputs() {
  tapeless_bench::input_stream u;
  s6_in in;
  for (auto& v : in.X) v = u.uniform(-1.0, 1.0);
  for (auto& v : in.y) v = u.next() < 0.5 ? 0.0 : 1.0;
  for (auto& v : in.beta) v = u.uniform(-0.1, 0.1);
  return in;
}

TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s6_handwritten(const s6_in& in) {
  // One pass over the rows. forward: z_i = X_i beta, p_i = sigmoid(z_i). reverse: the loss term of
  // row i has derivative (p_i - y_i) / n with respect to z_i (log and sigmoid's derivatives cancel),
  // and beta_bar = X^T z_bar, accumulated row by row while X_i is at hand.
  tl::vector<double, s6_k> g{};
  for (std::size_t i = 0; i < s6_n; ++i) {
    double z = 0;
    for (std::size_t j = 0; j < s6_k; ++j) z += in.X(i, j) * in.beta[j];
    const double p = 1.0 / (1.0 + std::exp(-z));
    const double z_bar = (p - in.y[i]) * (1.0 / s6_n);
    for (std::size_t j = 0; j < s6_k; ++j) g[j] += in.X(i, j) * z_bar;
  }
  return g;
}

TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s6_handwritten_simd(const s6_in& in) {
  // s6_handwritten in three passes: z = X beta as there; p = sigmoid(z) and z_bar = (p - y) / n, a
  // batch of rows at a time; beta_bar = X^T z_bar, a batch of columns at a time.
  static_assert(simd::whole_batches<s6_n> && simd::whole_batches<s6_k>);
  std::array<double, s6_n> z_bar;
  for (std::size_t i = 0; i < s6_n; ++i) {
    double z = 0;
    for (std::size_t j = 0; j < s6_k; ++j) z += in.X(i, j) * in.beta[j];
    z_bar[i] = z;
  }
  const simd::batch inv_n(1.0 / s6_n);
  for (std::size_t i = 0; i < s6_n; i += simd::width) {
    const simd::batch p = 1.0 / (1.0 + xsimd::exp(-simd::load(z_bar.data() + i)));
    simd::store(z_bar.data() + i, (p - simd::load(in.y.data() + i)) * inv_n);
  }
  std::array<simd::batch, s6_k / simd::width> g;
  g.fill(simd::batch(0.0));
  for (std::size_t i = 0; i < s6_n; ++i)
    for (std::size_t j = 0; j < g.size(); ++j)
      g[j] = xsimd::fma(simd::load(in.X.data() + i * s6_k + j * simd::width), simd::batch(z_bar[i]), g[j]);
  tl::vector<double, s6_k> beta_bar;
  for (std::size_t j = 0; j < g.size(); ++j) simd::store(beta_bar.data() + j * simd::width, g[j]);
  return beta_bar;
}

TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s6_tapeless(const s6_in& in) {
  const auto& X = in.X;
  const auto& y = in.y;
  // p is used twice: tl::let shares it (a local would copy its subtree, and sweep X beta twice).
  return tl::grad([&X, &y](const auto& beta) {
    return tl::let(tl::sigmoid(tl::matmul(tl::cref(X), beta)), [&y](const auto& p) {
      return -tl::mean(tl::cref(y) * tl::log(p) + (1.0 - tl::cref(y)) * tl::log(1.0 - p));
    });
  })(in.beta);
}

struct s6 : tapeless_bench::kernels<s6_inputs, s6_handwritten, s6_tapeless, s6_handwritten_simd> {
  static std::string name() { return "S6_logistic_regression"; }
  static std::array<double, s6_k> numbers(const s6_in& in) { return tapeless_bench::numbers(in.beta); }
  template <class T>
  static T f(const std::array<T, s6_k>& beta, const s6_in& in) {
    using std::exp, std::log;
    T value = 0.0;
    for (std::size_t i = 0; i < s6_n; ++i) {
      T z = 0.0;
      for (std::size_t j = 0; j < s6_k; ++j) z += in.X(i, j) * beta[j];
      const T p = 1.0 / (1.0 + exp(-z));
      value -= in.y[i] * log(p) + (1.0 - in.y[i]) * log(1.0 - p);
    }
    return T(value / static_cast<double>(s6_n));
  }
};

// ---------------------------------------------------------------------------------------------
// S7 matmul: f(A) = sum(A A), A: 8 x 8 with A[i][j] = 2u - 1.

constexpr std::size_t s7_n = 8;

struct s7_in {
  tl::matrix<double, s7_n, s7_n> A;
};

s7_in s7_inputs() {
  tapeless_bench::input_stream u;
  s7_in in;
  for (auto& v : in.A) v = u.uniform(-1.0, 1.0);
  return in;
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

TAPELESS_BENCH_KERNEL tl::matrix<double, s7_n, s7_n> s7_tapeless(const s7_in& in) {
  return tl::grad([](const auto& A) { return tl::sum(tl::matmul(A, A)); })(in.A);
}

struct s7 : tapeless_bench::kernels<s7_inputs, s7_handwritten, s7_tapeless> {
  static std::string name() { return "S7_matmul"; }
  static std::array<double, s7_n * s7_n> numbers(const s7_in& in) { return tapeless_bench::numbers(in.A); }
  template <class T>
  static T f(const std::array<T, s7_n * s7_n>& A, const s7_in&) {
    // A(i, j) = A[i n + j]; f = sum_ij (A A)_ij
    T value = 0.0;
    for (std::size_t i = 0; i < s7_n; ++i)
      for (std::size_t j = 0; j < s7_n; ++j) {
        T c = 0.0;
        for (std::size_t k = 0; k < s7_n; ++k) c += A[i * s7_n + k] * A[k * s7_n + j];
        value += c;
      }
    return value;
  }
};

// ---------------------------------------------------------------------------------------------
// S8 mlp: f(W1, b1, W2, b2) = (W2 tanh(W1 x + b1) + b2 - t)^2, x: 8, W1: 16 x 8, b1: 16, W2: 1 x 16,
// drawn in that order (2u - 1); b2 = 0.1, t = 0.5. x and t are constants of f.

constexpr std::size_t s8_in_n = 8, s8_hidden = 16;

struct s8_in {
  tl::vector<double, s8_in_n> x;
  tl::matrix<double, s8_hidden, s8_in_n> W1;
  tl::vector<double, s8_hidden> b1;
  tl::matrix<double, 1, s8_hidden> W2;
  double b2, t;
};

s8_in s8_inputs() {
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

TAPELESS_BENCH_KERNEL s8_gradient s8_handwritten_simd(const s8_in& in) {
  // s8_handwritten with its loops over the hidden units a batch of units at a time, and W1_bar's rows
  // a batch of columns at a time; W1 x + b1 as there.
  static_assert(simd::whole_batches<s8_hidden> && simd::whole_batches<s8_in_n>);
  std::array<double, s8_hidden> h;
  for (std::size_t i = 0; i < s8_hidden; ++i) {
    h[i] = in.b1[i];
    for (std::size_t j = 0; j < s8_in_n; ++j) h[i] += in.W1(i, j) * in.x[j];
  }
  simd::batch w2h(0.0);
  for (std::size_t i = 0; i < s8_hidden; i += simd::width) {
    const simd::batch h_i = xsimd::tanh(simd::load(h.data() + i));
    simd::store(h.data() + i, h_i);
    w2h = xsimd::fma(simd::load(in.W2.data() + i), h_i, w2h);
  }
  const double r_bar = 2.0 * (xsimd::hadd(w2h) + in.b2 - in.t);
  s8_gradient g;
  auto& [gW1, gb1, gW2, gb2] = g;
  const simd::batch r(r_bar);
  for (std::size_t i = 0; i < s8_hidden; i += simd::width) {
    const simd::batch h_i = simd::load(h.data() + i);
    simd::store(gW2.data() + i, r * h_i);
    simd::store(gb1.data() + i, r * simd::load(in.W2.data() + i) * (1.0 - h_i * h_i));
  }
  std::array<simd::batch, s8_in_n / simd::width> x;
  for (std::size_t j = 0; j < x.size(); ++j) x[j] = simd::load(in.x.data() + j * simd::width);
  for (std::size_t i = 0; i < s8_hidden; ++i)
    for (std::size_t j = 0; j < x.size(); ++j) simd::store(gW1.data() + i * s8_in_n + j * simd::width, gb1[i] * x[j]);
  gb2 = r_bar;
  return g;
}

TAPELESS_BENCH_KERNEL s8_gradient s8_tapeless(const s8_in& in) {
  const auto& x = in.x;
  const double t = in.t;
  return tl::grad([&x, t](const auto& W1, const auto& b1, const auto& W2, const auto& b2) {
    auto y = tl::matmul(W2, tl::tanh(tl::matmul(W1, tl::cref(x)) + b1))(0, 0) + b2;
    return tl::square(y - t);
  })(in.W1, in.b1, in.W2, in.b2);
}

struct s8 : tapeless_bench::kernels<s8_inputs, s8_handwritten, s8_tapeless, s8_handwritten_simd> {
  static std::string name() { return "S8_mlp"; }
  static constexpr std::size_t n = s8_hidden * s8_in_n + 2 * s8_hidden + 1;
  static std::array<double, n> numbers(const s8_in& in) { return tapeless_bench::numbers(in.W1, in.b1, in.W2, in.b2); }
  template <class T>
  static T f(const std::array<T, n>& p, const s8_in& in) {
    using std::tanh;
    // p = W1 (row-major), b1, W2, b2
    constexpr std::size_t b1 = s8_hidden * s8_in_n, W2 = b1 + s8_hidden, b2 = W2 + s8_hidden;
    T y = p[b2];
    for (std::size_t i = 0; i < s8_hidden; ++i) {
      T a = p[b1 + i];
      for (std::size_t j = 0; j < s8_in_n; ++j) a += p[i * s8_in_n + j] * in.x[j];
      y += p[W2 + i] * tanh(a);
    }
    const T r = y - in.t;
    return T(r * r);
  }
};

// ---------------------------------------------------------------------------------------------
// S9 logdet_inverse: f(A) = log(det(A)) + sum(inverse(A)), A = M M^T + 4 I, M: 4 x 4 with M[i][j] = 2u - 1.

constexpr std::size_t s9_n = 4;
using s9_matrix = tl::matrix<double, s9_n, s9_n>;

struct s9_in {
  s9_matrix A;
};

s9_in s9_inputs() {
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

TAPELESS_BENCH_KERNEL s9_matrix s9_tapeless(const s9_in& in) {
  return tl::grad([](const auto& A) { return tl::log(tl::det(A)) + tl::sum(tl::inverse(A)); })(in.A);
}

struct s9 : tapeless_bench::kernels<s9_inputs, s9_handwritten, s9_tapeless> {
  static std::string name() { return "S9_logdet_inverse"; }
  static constexpr std::size_t n = s9_n;
  static std::array<double, n * n> numbers(const s9_in& in) { return tapeless_bench::numbers(in.A); }
  // det and inverse by the Gauss-Jordan elimination with partial pivoting of s9_inverse_det. The
  // pivots are chosen on the values (an ADOL-C tape records the row order of the input it is recorded
  // at). Rows are exchanged through the permutation `row` rather than by moving numbers, which a
  // tape-based library would record as copies.
  template <class T>
  static T f(const std::array<T, n * n>& A, const s9_in&) {
    using std::log;
    std::array<T, n * n> a, y;  // a(i, j) = a[i n + j], reduced to I; y from I to A^-1 (rows permuted)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        a[i * n + j] = A[i * n + j];
        y[i * n + j] = i == j ? 1.0 : 0.0;
      }
    std::array<std::size_t, n> row;  // pivot row k is stored in row row[k]
    for (std::size_t k = 0; k < n; ++k) row[k] = k;
    T det = 1.0;
    for (std::size_t k = 0; k < n; ++k) {
      auto magnitude = [&](std::size_t i) { return std::abs(tapeless_bench::value_of(a[row[i] * n + k])); };
      std::size_t p = k;
      for (std::size_t i = k + 1; i < n; ++i)
        if (magnitude(i) > magnitude(p)) p = i;
      if (p != k) {
        std::swap(row[k], row[p]);
        det = -det;
      }
      const std::size_t rk = row[k] * n;
      det *= a[rk + k];
      const T inv_pivot = 1.0 / a[rk + k];
      for (std::size_t j = 0; j < n; ++j) {
        a[rk + j] *= inv_pivot;
        y[rk + j] *= inv_pivot;
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (i == k) continue;
        const std::size_t ri = row[i] * n;
        const T m = a[ri + k];
        for (std::size_t j = 0; j < n; ++j) {
          a[ri + j] -= m * a[rk + j];
          y[ri + j] -= m * y[rk + j];
        }
      }
    }
    // A^-1 is y with its rows in the order row[0], ..., row[n-1]; its sum does not depend on the order.
    T value = log(det);
    for (const T& v : y) value += v;
    return value;
  }
};

}  // namespace

int main(int argc, char** argv) { return tapeless_bench::run<s6, s7, s8, s9>(argc, argv); }
