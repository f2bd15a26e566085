// SPDX-License-Identifier: BSL-1.0
// bench/rows_bench.cpp: the cases of run-time size that are sums over data, S10 decay_fit, S11
// logistic_rows (over std::vector rows, and over an Eigen::MatrixXd) and S13 decay_fit_parallel:
// tapeless's tl::sum_over and tl::mean_over over tl::rows, beside the hand-written adjoints of a
// run-time number of rows, scalar and vectorised with xsimd, and every peer library (bench/cases.hpp).
//
// The data are std::vector, or an Eigen::MatrixXd read in place: each kernel reads the number of rows
// at run time, as every peer does. S11 is also timed against S6, the same regression on a fixed-shape
// matrix (logistic_regression.hpp), and S13, the sum over threads, against the sequential sum at the
// same n. S11 over the MatrixXd is also written over the whole matrix (tapeless_whole_array:
// tl::mean of a formula of tl::matmul(tl::cref(X), beta)).
#include "adjoints.hpp"
#include "cases.hpp"
#include "logistic_regression.hpp"
#include "simd.hpp"
#include "suite.hpp"

#include <Eigen/Core>
#include <tapeless/parallel.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <execution>
#include <string>
#include <tuple>
#include <vector>

namespace tl = tapeless;
namespace simd = tapeless_bench::simd;

namespace {

using namespace tapeless_bench;

// ---------------------------------------------------------------------------------------------
// S10 decay_fit: f(a, b, c) = sum_i (a exp(-b t[i]) + c - y[i])^2 over n points, t[i] = 5 i / n,
// y[i] = 2 exp(-0.7 t[i]) + 0.3 + 0.01 (2u - 1); a = 1.5, b = 0.5, c = 0.1. t and y are constants of f.

struct s10_in {
  std::vector<double> t, y;
  double a, b, c;
};

template <std::size_t N>
inline s10_in s10_inputs() {
  tapeless_bench::input_stream u;
  s10_in in{std::vector<double>(N), std::vector<double>(N), 1.5, 0.5, 0.1};
  for (std::size_t i = 0; i < N; ++i) {
    in.t[i] = 5.0 * static_cast<double>(i) / static_cast<double>(N);
    in.y[i] = 2.0 * std::exp(-0.7 * in.t[i]) + 0.3 + 0.01 * u.uniform(-1.0, 1.0);
  }
  return in;
}

using s10_gradient = std::tuple<double, double, double>;

/// The sums of r e, r e t and r over points, r = a e + c - y and e = exp(minus_b t), for one point
/// (T = double) or a batch of them (T = simd::batch): xsimd's functions take both.
template <class T>
[[gnu::always_inline]] inline void add_decay_point(const T& t, const T& y, const T& a, const T& minus_b, const T& c,
                                                   T& sum_re, T& sum_ret, T& sum_r) {
  const T e = xsimd::exp(minus_b * t);
  const T r = a * e + c - y;
  const T re = r * e;
  sum_re += re;
  sum_ret += re * t;
  sum_r += r;
}

TAPELESS_BENCH_KERNEL s10_gradient s10_handwritten(const s10_in& in) {
  // One pass. forward: e_i = exp(-b t_i), r_i = a e_i + c - y_i; f = sum r_i^2. reverse: r_i_bar = 2 r_i,
  // a_bar = sum r_i_bar e_i, b_bar = -a sum r_i_bar e_i t_i, c_bar = sum r_i_bar.
  double sum_re = 0, sum_ret = 0, sum_r = 0;
  for (std::size_t i = 0; i < in.t.size(); ++i)
    add_decay_point(in.t[i], in.y[i], in.a, -in.b, in.c, sum_re, sum_ret, sum_r);
  return {2.0 * sum_re, -2.0 * in.a * sum_ret, 2.0 * sum_r};
}

TAPELESS_BENCH_KERNEL s10_gradient s10_handwritten_simd(const s10_in& in) {
  // s10_handwritten, a batch of points at a time, then the last n mod width points one at a time.
  const std::size_t n = in.t.size();
  const simd::batch a(in.a), minus_b(-in.b), c(in.c);
  simd::batch re(0.0), ret(0.0), r(0.0);
  std::size_t i = 0;
  for (; i + simd::width <= n; i += simd::width)
    add_decay_point(simd::load(in.t.data() + i), simd::load(in.y.data() + i), a, minus_b, c, re, ret, r);
  double sum_re = xsimd::hadd(re), sum_ret = xsimd::hadd(ret), sum_r = xsimd::hadd(r);
  for (; i < n; ++i) add_decay_point(in.t[i], in.y[i], in.a, -in.b, in.c, sum_re, sum_ret, sum_r);
  return {2.0 * sum_re, -2.0 * in.a * sum_ret, 2.0 * sum_r};
}

/// The squared residual of one point of the data (t_i, y_i) from the decay a exp(-b t) + c.
inline constexpr auto decay_residual_squared = [](const auto& t_i, const auto& y_i, const auto& a, const auto& b,
                                                  const auto& c) {
  return tl::square(a * tl::exp(-b * t_i) + c - y_i);
};

/// S10's gradient in tapeless: the sum over the points, on threads when Parallel (S13).
template <bool Parallel>
TAPELESS_BENCH_KERNEL s10_gradient decay_fit_tapeless(const s10_in& in) {
  const auto& t = in.t;
  const auto& y = in.y;
  return tl::grad([&t, &y](const auto& a, const auto& b, const auto& c) {
    if constexpr (Parallel)
      return tl::sum_over(std::execution::par, tl::rows(t, y), decay_residual_squared, a, b, c);
    else
      return tl::sum_over(tl::rows(t, y), decay_residual_squared, a, b, c);
  })(in.a, in.b, in.c);
}

template <std::size_t N>
struct s10 : tapeless_bench::kernels<s10_inputs<N>, s10_handwritten, decay_fit_tapeless<false>, s10_handwritten_simd> {
  static std::string name() { return "S10_decay_fit_" + std::to_string(N); }
  static std::array<double, 3> numbers(const s10_in& in) { return tapeless_bench::numbers(in.a, in.b, in.c); }
  template <class T>
  static T f(const std::array<T, 3>& p, const s10_in& in) {
    using std::exp;
    T value = 0.0;
    for (std::size_t i = 0; i < in.t.size(); ++i) {
      const T r = p[0] * exp(-p[1] * in.t[i]) + p[2] - in.y[i];
      value += r * r;
    }
    return value;
  }
};

// ---------------------------------------------------------------------------------------------
// S13 decay_fit_parallel: S10 at n = 10^6, the sum over threads; timed against the sequential sum.

inline constexpr std::size_t s13_n = 1'000'000;

struct s13 : s10<s13_n> {
  static std::string name() { return "S13_decay_fit_parallel"; }
  static constexpr auto tapeless = decay_fit_tapeless<true>;
  static constexpr auto tapeless_reference = decay_fit_tapeless<false>;
  static constexpr const char* tapeless_reference_name = "tapeless_sequential";
};

// ---------------------------------------------------------------------------------------------
// S11 logistic_rows: S6 as a mean over 256 rows of run-time number, x[i] a tl::vector of 8, y[i] a
// number; the same numbers as S6 (its inputs, read into rows).

struct s11_in {
  std::vector<tl::vector<double, s6_k>> x;
  std::vector<double> y;
  tl::vector<double, s6_k> beta;
  s6_in fixed_shape;  // the same numbers in S6's fixed-shape matrix, for S6's kernel S11 is timed against
};

inline s11_in s11_inputs() {
  s11_in in;
  in.fixed_shape = s6_inputs();
  const s6_in& s6 = in.fixed_shape;
  in.x.resize(s6_n);
  for (std::size_t i = 0; i < s6_n; ++i)
    for (std::size_t j = 0; j < s6_k; ++j) in.x[i][j] = s6.X(i, j);
  in.y.assign(s6.y.begin(), s6.y.end());
  in.beta = s6.beta;
  return in;
}

/// S6's loss over n rows in any number type T (the peers'), row i's j-th number x(i, j), its label y[i].
template <class T, class Row, class Labels>
T logistic_loss(std::size_t n, const Row& x, const Labels& y, const std::array<T, s6_k>& beta) {
  using std::exp, std::log;
  T value = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    T z = 0.0;
    for (std::size_t j = 0; j < s6_k; ++j) z += x(i, j) * beta[j];
    const T p = 1.0 / (1.0 + exp(-z));
    value -= y[i] * log(p) + (1.0 - y[i]) * log(1.0 - p);
  }
  return T(value / static_cast<double>(n));
}

TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s11_handwritten(const s11_in& in) {
  return logistic_gradient(
      in.x.size(), [&x = in.x](std::size_t i, std::size_t j) { return x[i][j]; }, in.y, in.beta);
}

TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s11_handwritten_simd(const s11_in& in) {
  // S6's vectorised adjoint (matrix_bench.cpp) on chunks of up to 256 rows, whose z_bar fit on the
  // stack: z = x_i beta row by row; p = sigmoid(z) and z_bar = (p - y) / n a batch of rows at a time
  // (the chunk's last rows short of a batch one at a time); beta_bar += x_i z_bar_i a batch of
  // columns at a time.
  static_assert(simd::whole_batches<s6_k>);
  constexpr std::size_t chunk = 256;
  const std::size_t n = in.x.size();
  const double inv_n = 1.0 / static_cast<double>(n);
  std::array<simd::batch, s6_k / simd::width> g;
  g.fill(simd::batch(0.0));
  std::array<double, chunk> z_bar;
  for (std::size_t from = 0; from < n; from += chunk) {
    const std::size_t rows = std::min(chunk, n - from), batched = rows - rows % simd::width;
    const tl::vector<double, s6_k>* x = in.x.data() + from;
    const double* y = in.y.data() + from;
    for (std::size_t i = 0; i < rows; ++i) {
      double z = 0;
      for (std::size_t j = 0; j < s6_k; ++j) z += x[i][j] * in.beta[j];
      z_bar[i] = z;
    }
    for (std::size_t i = 0; i < batched; i += simd::width) {
      const simd::batch p = 1.0 / (1.0 + xsimd::exp(-simd::load(z_bar.data() + i)));
      simd::store(z_bar.data() + i, (p - simd::load(y + i)) * simd::batch(inv_n));
    }
    for (std::size_t i = batched; i < rows; ++i) z_bar[i] = (1.0 / (1.0 + std::exp(-z_bar[i])) - y[i]) * inv_n;
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < g.size(); ++j)
        g[j] = xsimd::fma(simd::load(x[i].data() + j * simd::width), simd::batch(z_bar[i]), g[j]);
  }
  tl::vector<double, s6_k> beta_bar;
  for (std::size_t j = 0; j < g.size(); ++j) simd::store(beta_bar.data() + j * simd::width, g[j]);
  return beta_bar;
}

TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s11_tapeless(const s11_in& in) {
  const auto& x = in.x;
  const auto& y = in.y;
  // The term is written inside the call, as S11_logistic_rows_eigen's is: shared with it as a lambda at
  // namespace scope, or as a function template the body calls, the sum took twice the instructions
  // (callgrind, 17,660 and 17,690 against 8,830).
  return tl::grad([&x, &y](const auto& beta) {
    return tl::mean_over(
        tl::rows(x, y),
        [](const auto& x_i, const auto& y_i, const auto& beta) {
          // p is used twice: tl::let shares it, as in S6.
          return tl::let(tl::sigmoid(tl::dot(x_i, beta)),
                         [&y_i](const auto& p) { return -(y_i * tl::log(p) + (1.0 - y_i) * tl::log(1.0 - p)); });
        },
        beta);
  })(in.beta);
}

/// S6's tapeless gradient on S11's numbers, in S6's fixed-shape matrix.
TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s11_fixed_shape_tapeless(const s11_in& in) {
  return s6_tapeless(in.fixed_shape);
}

struct s11 : tapeless_bench::kernels<s11_inputs, s11_handwritten, s11_tapeless, s11_handwritten_simd> {
  static std::string name() { return "S11_logistic_rows"; }
  static constexpr auto tapeless_reference = s11_fixed_shape_tapeless;
  static constexpr const char* tapeless_reference_name = "tapeless_fixed_shape";
  static std::array<double, s6_k> numbers(const s11_in& in) { return tapeless_bench::numbers(in.beta); }
  template <class T>
  static T f(const std::array<T, s6_k>& beta, const s11_in& in) {
    return logistic_loss(
        in.x.size(), [&x = in.x](std::size_t i, std::size_t j) { return x[i][j]; }, in.y, beta);
  }
};

// ---------------------------------------------------------------------------------------------
// S11_logistic_rows_eigen: S11 with X an Eigen::MatrixXd of 256 x 8, column-major as Eigen keeps it,
// read in place as rows of 8 (tl::row_vectors<8>), and y an Eigen::VectorXd; the same numbers. The
// hand-written adjoints read the same matrix: the vectorised one takes a batch of rows of one column,
// which column-major storage holds side by side.

struct s11_eigen_in {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  tl::vector<double, s6_k> beta;
  s6_in fixed_shape;
};

inline s11_eigen_in s11_eigen_inputs() {
  s11_eigen_in in;
  in.fixed_shape = s6_inputs();
  const s6_in& s6 = in.fixed_shape;
  in.X.resize(s6_n, s6_k);
  in.y.resize(s6_n);
  for (std::size_t i = 0; i < s6_n; ++i) {
    for (std::size_t j = 0; j < s6_k; ++j) in.X(Eigen::Index(i), Eigen::Index(j)) = s6.X(i, j);
    in.y(Eigen::Index(i)) = s6.y[i];
  }
  in.beta = s6.beta;
  return in;
}

/// Element (i, j) of an Eigen matrix, by std::size_t.
inline auto eigen_element(const Eigen::MatrixXd& X) {
  return [&X](std::size_t i, std::size_t j) { return X(Eigen::Index(i), Eigen::Index(j)); };
}

TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s11_eigen_handwritten(const s11_eigen_in& in) {
  return logistic_gradient(static_cast<std::size_t>(in.X.rows()), eigen_element(in.X), in.y, in.beta);
}

TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s11_eigen_handwritten_simd(const s11_eigen_in& in) {
  // In chunks of up to 256 rows, whose z_bar fit on the stack, a batch of rows at a time: z = X beta
  // column by column, p = sigmoid(z) and z_bar = (p - y) / n; then beta_bar_j += column j . z_bar.
  // The chunk's last rows short of a batch one at a time.
  constexpr std::size_t chunk = 256;
  const auto n = static_cast<std::size_t>(in.X.rows());
  const double* X = in.X.data();
  const double* y = in.y.data();
  const double inv_n = 1.0 / static_cast<double>(n);
  std::array<simd::batch, s6_k> g;
  g.fill(simd::batch(0.0));
  tl::vector<double, s6_k> beta_bar{};
  std::array<double, chunk> z_bar;
  for (std::size_t from = 0; from < n; from += chunk) {
    const std::size_t rows = std::min(chunk, n - from), batched = rows - rows % simd::width;
    for (std::size_t i = 0; i < batched; i += simd::width) {
      simd::batch z(0.0);
      for (std::size_t j = 0; j < s6_k; ++j)
        z = xsimd::fma(simd::load(X + j * n + from + i), simd::batch(in.beta[j]), z);
      const simd::batch p = 1.0 / (1.0 + xsimd::exp(-z));
      simd::store(z_bar.data() + i, (p - simd::load(y + from + i)) * simd::batch(inv_n));
    }
    for (std::size_t i = batched; i < rows; ++i) {
      double z = 0;
      for (std::size_t j = 0; j < s6_k; ++j) z += X[j * n + from + i] * in.beta[j];
      z_bar[i] = (1.0 / (1.0 + std::exp(-z)) - y[from + i]) * inv_n;
    }
    for (std::size_t j = 0; j < s6_k; ++j) {
      for (std::size_t i = 0; i < batched; i += simd::width)
        g[j] = xsimd::fma(simd::load(X + j * n + from + i), simd::load(z_bar.data() + i), g[j]);
      for (std::size_t i = batched; i < rows; ++i) beta_bar[j] += X[j * n + from + i] * z_bar[i];
    }
  }
  for (std::size_t j = 0; j < s6_k; ++j) beta_bar[j] += xsimd::hadd(g[j]);
  return beta_bar;
}

TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s11_eigen_tapeless(const s11_eigen_in& in) {
  const auto& X = in.X;
  const auto& y = in.y;
  return tl::grad([&X, &y](const auto& beta) {
    return tl::mean_over(
        tl::rows(tl::row_vectors<s6_k>(X), y),
        [](const auto& x_i, const auto& y_i, const auto& beta) {
          // p is used twice: tl::let shares it, as in S6.
          return tl::let(tl::sigmoid(tl::dot(x_i, beta)),
                         [&y_i](const auto& p) { return -(y_i * tl::log(p) + (1.0 - y_i) * tl::log(1.0 - p)); });
        },
        beta);
  })(in.beta);
}

/// S6 as its formula reads, over the whole of the MatrixXd: tl::matmul(tl::cref(X), beta) is a column of
/// run-time length, and the mean of the loss over it one loop over its rows (-log likelihood of y given
/// sigmoid(z): softplus(z) - y z).
TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s11_eigen_whole_array_tapeless(const s11_eigen_in& in) {
  const auto& X = in.X;
  const auto& y = in.y;
  return tl::grad([&X, &y](const auto& beta) {
    const auto z = tl::matmul(tl::cref(X), beta);
    return tl::mean(tl::softplus(z) - tl::cref(y) * z);
  })(in.beta);
}

/// S6's tapeless gradient on the same numbers, in S6's fixed-shape matrix.
TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s11_eigen_fixed_shape_tapeless(const s11_eigen_in& in) {
  return s6_tapeless(in.fixed_shape);
}

struct s11_eigen
    : tapeless_bench::kernels<s11_eigen_inputs, s11_eigen_handwritten, s11_eigen_tapeless, s11_eigen_handwritten_simd> {
  static std::string name() { return "S11_logistic_rows_eigen"; }
  static constexpr auto tapeless_reference = s11_eigen_fixed_shape_tapeless;
  static constexpr const char* tapeless_reference_name = "tapeless_fixed_shape";
  static void add_libraries(std::vector<entry_t>& entries, const std::string& c) {
    entries.push_back(entry<s11_eigen_whole_array_tapeless, s11_eigen_inputs>(c + "/tapeless_whole_array"));
  }
  static std::array<double, s6_k> numbers(const s11_eigen_in& in) { return tapeless_bench::numbers(in.beta); }
  template <class T>
  static T f(const std::array<T, s6_k>& beta, const s11_eigen_in& in) {
    return logistic_loss(static_cast<std::size_t>(in.X.rows()), eigen_element(in.X), in.y, beta);
  }
};

}  // namespace

int main(int argc, char** argv) {
  return tapeless_bench::run<s10<1'000>, s10<100'000>, s11, s11_eigen, s13>(argc, argv);
}
