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
#include "adjoints.hpp"
#include "cases.hpp"
#include "logistic_regression.hpp"
#include "simd.hpp"
#include "suite.hpp"
#include "users.hpp"

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

// The cases' inputs and hand-written adjoints (adjoints.hpp), and their tapeless kernels as users write
// them (users.hpp).
using namespace tapeless_bench;

// ---------------------------------------------------------------------------------------------
// S6 logistic_regression (inputs and hand-written adjoint: adjoints.hpp; tapeless: logistic_regression.hpp;
// as users write it: users.hpp).

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

struct s6 : tapeless_bench::kernels<s6_inputs, s6_handwritten, s6_tapeless, s6_handwritten_simd> {
  static std::string name() { return "S6_logistic_regression"; }
  using users = tapeless_bench::as_users_write_it<inputs_with_function<s6_inputs, s6_users_function>, s6_users>;
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
// S7 matmul (inputs and hand-written adjoint: adjoints.hpp; as users write it: users.hpp).

TAPELESS_BENCH_KERNEL tl::matrix<double, s7_n, s7_n> s7_tapeless(const s7_in& in) {
  return tl::grad([](const auto& A) { return tl::sum(tl::matmul(A, A)); })(in.A);
}

struct s7 : tapeless_bench::kernels<s7_inputs, s7_handwritten, s7_tapeless> {
  static std::string name() { return "S7_matmul"; }
  using users = tapeless_bench::as_users_write_it<s7_inputs, s7_users>;
  static std::array<double, s7_n * s7_n> numbers(const s7_in& in) { return tapeless_bench::numbers(in.A); }
  template <class T>
  static T f(const std::array<T, s7_n * s7_n>& A, const s7_in&) {
    return s7_value<T>(A, s7_n);
  }
};

// ---------------------------------------------------------------------------------------------
// S8 mlp (inputs and hand-written adjoint: adjoints.hpp; as users write it: users.hpp).

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
// S9 logdet_inverse (inputs and hand-written adjoint: adjoints.hpp; as users write it: users.hpp).

TAPELESS_BENCH_KERNEL s9_matrix s9_tapeless(const s9_in& in) {
  return tl::grad([](const auto& A) { return tl::log(tl::det(A)) + tl::sum(tl::inverse(A)); })(in.A);
}

struct s9 : tapeless_bench::kernels<s9_inputs, s9_handwritten, s9_tapeless> {
  static std::string name() { return "S9_logdet_inverse"; }
  using users = tapeless_bench::as_users_write_it<s9_inputs, s9_users>;
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
