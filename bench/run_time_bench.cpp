// SPDX-License-Identifier: BSL-1.0
// bench/run_time_bench.cpp: S3 rosenbrock and S4 log_sum_exp of run-time size, n = 16 and 256, and S7
// matmul of run-time size, 8 x 8: x a tl::vector<double, tl::dynamic> (S7: A a tl::matrix<double,
// tl::dynamic, tl::dynamic>) holding the case's inputs, its extents read at run time in every gradient
// (the inputs are opaque, harness.hpp), so that no kernel knows them at compile time. Each
// implementation is one function for every size, returning the gradient in the argument's type:
//   handwritten        the classic adjoint, to x.size() (S7: its row and column sums, to A.rows());
//   handwritten_simd   the same a batch of elements at a time (xsimd), the rest one at a time;
//   tapeless           S3: tl::grad of tl::sum_over(tl::indices(x.size() - 1), term, x), the term
//                      reading x[i] and x[i + 1]; S4: tl::grad of tl::log_sum_exp(x); S7: tl::grad of
//                      tl::sum(tl::matmul(A, A));
// and, beside them in the same run, checked against the same hand-written gradient:
//   tapeless_whole_array  S3: tl::sum of the whole-array formula over tl::slice(x, 0, n - 1) and
//                         tl::slice(x, 1, n - 1), as S3's fixed-shape case writes it;
//   tapeless_bounded      S3 of x as a tl::vector<double, tl::bounded<256>> (no heap), the gradient
//                         returned in that type;
//   tapeless_eigen        S3 of x as an Eigen::VectorXd, read in place, returned as one;
//   tapeless_fixed_shape  the case's kernel as users write it (users.hpp) of x as a tl::vector<double, n>
//                         of fixed size: S3's sum over tl::indices with n read at run time, S4's
//                         tl::log_sum_exp(x); S7's tl::sum(tl::matmul(A, A)) of a tl::matrix<double,
//                         8, 8> (matrix_bench.cpp's tapeless);
//   tapeless_bounded      also S7's, of A as a tl::matrix<double, tl::bounded<8>, tl::bounded<8>>;
//   the peers             ADOL-C (tape reused, tape recorded at each call), Sacado (Rad; DFad, the
//                         forward mode of run-time length), Eigen's forward mode (AutoDiffScalar of a
//                         VectorXd) and central differences, on one function f of a std::vector of the
//                         library's numbers, its length read at run time (S7: A's n x n elements,
//                         row-major, n its square root). bench/peers/ takes a std::array of
//                         compile-time size: these are its peers for a run-time n.
// Beside them, a layer of run-time width, f(W, b) = sum((tanh(W x + b) - y)^2) with W and b both
// differentiated (16 x 8 and 64 x 32): the hand-written adjoint, scalar and SIMD, tapeless, and tapeless of
// fixed extents.
// Before timing, it states the heap each gradient allocates (allocations.hpp).
#include "adjoints.hpp"
#include "allocations.hpp"
#include "cases.hpp"
#include "simd.hpp"
#include "suite.hpp"
#include "users.hpp"

// System headers (bench/CMakeLists.txt): their warnings are not ours.
#include <Eigen/Core>
#include <Sacado_Fad_DFad.hpp>
#include <unsupported/Eigen/AutoDiff>

#include <tapeless/tapeless.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace tl = tapeless;
namespace simd = tapeless_bench::simd;

namespace {

using namespace tapeless_bench;

// ---------------------------------------------------------------------------------------------
// S3 rosenbrock of run-time size: f(x) = sum_{i<n-1} 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2,
// x[i] = 2u - 1, n = x.size().

using run_time_vector = tl::vector<double, tl::dynamic>;
inline constexpr std::size_t s3_bound = 256;  // tapeless_bounded's capacity: the largest n
using s3_bounded_vector = tl::vector<double, tl::bounded<s3_bound>>;

struct run_time_in {
  run_time_vector x;
};

/// A fixed-size case's inputs (s3_inputs<N>, s4_inputs<N>: the same numbers), in a vector of run-time size.
template <auto FixedInputs>
inline run_time_in run_time_inputs() {
  return {run_time_vector(FixedInputs().x)};
}
template <std::size_t N>
inline constexpr auto s3_run_time_inputs = run_time_inputs<s3_inputs<N>>;

TAPELESS_BENCH_KERNEL run_time_vector s3_run_time_handwritten(const run_time_in& in) {
  // forward and reverse in one pass (n >= 2): a_i = x_{i+1} - x_i^2, b_i = 1 - x_i; a_i_bar = 200 a_i,
  // b_i_bar = 2 b_i. x_i receives -2 x_i a_i_bar - b_i_bar through a_i and b_i, and a_{i-1}_bar through
  // a_{i-1}, which the pass keeps from the element before: one write per element.
  const auto& x = in.x;
  const std::size_t n = x.size();
  run_time_vector g(n);
  double a_before = x[1] - x[0] * x[0];
  g[0] = -400.0 * x[0] * a_before - 2.0 * (1.0 - x[0]);
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const double a = x[i + 1] - x[i] * x[i];
    g[i] = 200.0 * a_before - 400.0 * x[i] * a - 2.0 * (1.0 - x[i]);
    a_before = a;
  }
  g[n - 1] = 200.0 * a_before;
  return g;
}

TAPELESS_BENCH_KERNEL run_time_vector s3_run_time_handwritten_simd(const run_time_in& in) {
  // S3_rosenbrock_<n>'s vectorised adjoint (vector_bench.cpp) to a run-time n: g_i = 200 a_{i-1} -
  // 400 x_i a_i - 2 b_i for 0 < i < n - 1, a batch of elements at a time, each batch reading x_{i-1},
  // x_i and x_{i+1}; the two ends, and the elements short of a batch, one at a time.
  const std::size_t n = in.x.size();
  const double* x = in.x.data();
  run_time_vector g(n);
  const auto middle = [](const auto& before, const auto& here, const auto& after) {
    return 200.0 * (here - before * before) - 400.0 * here * (after - here * here) - 2.0 * (1.0 - here);
  };
  g[0] = -400.0 * x[0] * (x[1] - x[0] * x[0]) - 2.0 * (1.0 - x[0]);
  std::size_t i = 1;
  for (; i + simd::width < n; i += simd::width)
    simd::store(g.data() + i, middle(simd::load(x + i - 1), simd::load(x + i), simd::load(x + i + 1)));
  for (; i + 1 < n; ++i) g[i] = middle(x[i - 1], x[i], x[i + 1]);
  g[n - 1] = 200.0 * (x[n - 1] - x[n - 2] * x[n - 2]);
  return g;
}

// S3 as every tapeless kernel here writes it: one sum over the indices of x, whatever holds x.
constexpr auto s3_rosenbrock_sum = [](const auto& x) {
  return tl::sum_over(
      tl::indices(x.size() - 1),
      [](std::size_t i, const auto& x) {
        return 100.0 * tl::square(x[i + 1] - tl::square(x[i])) + tl::square(1.0 - x[i]);
      },
      x);
};

TAPELESS_BENCH_KERNEL run_time_vector s3_run_time_tapeless(const run_time_in& in) {
  return tl::grad(s3_rosenbrock_sum)(in.x);
}

// tapeless_whole_array: S3 as a fixed-shape user writes it, over the whole of x with run-time slices.
constexpr auto s3_rosenbrock_whole_array = [](const auto& x) {
  const std::size_t n = x.size();
  const auto head = tl::slice(x, 0, n - 1), tail = tl::slice(x, 1, n - 1);
  return tl::sum(100.0 * tl::square(tail - tl::square(head)) + tl::square(1.0 - head));
};

TAPELESS_BENCH_KERNEL run_time_vector s3_whole_array_tapeless(const run_time_in& in) {
  return tl::grad(s3_rosenbrock_whole_array)(in.x);
}

// tapeless_bounded: the same numbers in a tl::vector<double, tl::bounded<256>>, the gradient in that type.

struct s3_bounded_in {
  s3_bounded_vector x;
};

template <std::size_t N>
inline s3_bounded_in s3_bounded_inputs() {
  return {s3_bounded_vector(s3_run_time_inputs<N>().x)};
}

TAPELESS_BENCH_KERNEL s3_bounded_vector s3_bounded_tapeless(const s3_bounded_in& in) {
  return tl::grad(s3_rosenbrock_sum)(in.x);
}

// tapeless_eigen: the same numbers in an Eigen::VectorXd, read in place; the gradient a VectorXd.

struct s3_eigen_in {
  Eigen::VectorXd x;
};

template <std::size_t N>
inline s3_eigen_in s3_eigen_inputs() {
  const run_time_vector x = s3_run_time_inputs<N>().x;
  return {Eigen::Map<const Eigen::VectorXd>(x.data(), Eigen::Index(x.size()))};
}

TAPELESS_BENCH_KERNEL Eigen::VectorXd s3_eigen_tapeless(const s3_eigen_in& in) {
  return tl::grad(s3_rosenbrock_sum)(in.x);
}

// ---------------------------------------------------------------------------------------------
// S4 log_sum_exp of run-time size: f(x) = log(sum_i exp(x[i])), x[i] = 4u - 2, n = x.size().

template <std::size_t N>
inline constexpr auto s4_run_time_inputs = run_time_inputs<s4_inputs<N>>;

TAPELESS_BENCH_KERNEL run_time_vector s4_run_time_handwritten(const run_time_in& in) {
  // s4_handwritten's sweep (adjoints.hpp) to a run-time n.
  run_time_vector e(in.x.size());
  s4_adjoint(in.x.data(), e.data(), in.x.size());
  return e;
}

TAPELESS_BENCH_KERNEL run_time_vector s4_run_time_handwritten_simd(const run_time_in& in) {
  // The same, a batch of elements at a time (xsimd), the elements short of a batch one at a time.
  const std::size_t n = in.x.size(), whole = n - n % simd::width;
  const double* x = in.x.data();
  double m = x[0];
  if (whole > 0) {
    simd::batch mb = simd::load(x);
    for (std::size_t i = simd::width; i < whole; i += simd::width) mb = xsimd::max(mb, simd::load(x + i));
    std::array<double, simd::width> lanes;
    simd::store(lanes.data(), mb);
    m = *std::max_element(lanes.begin(), lanes.end());
  }
  for (std::size_t i = whole; i < n; ++i) m = std::max(m, x[i]);
  run_time_vector e(n);
  simd::batch sb(0.0);
  const simd::batch mb(m);
  for (std::size_t i = 0; i < whole; i += simd::width) {
    const simd::batch e_i = xsimd::exp(simd::load(x + i) - mb);
    simd::store(e.data() + i, e_i);
    sb += e_i;
  }
  double s = xsimd::hadd(sb);
  for (std::size_t i = whole; i < n; ++i) {
    e[i] = std::exp(x[i] - m);
    s += e[i];
  }
  const double inv_s = 1.0 / s;
  const simd::batch inv(inv_s);
  for (std::size_t i = 0; i < whole; i += simd::width) simd::store(e.data() + i, simd::load(e.data() + i) * inv);
  for (std::size_t i = whole; i < n; ++i) e[i] *= inv_s;
  return e;
}

// tapeless: S4 as the fixed-shape case writes it (users.hpp's s4_tapeless), of a vector of run-time size.
TAPELESS_BENCH_KERNEL run_time_vector s4_run_time_tapeless(const run_time_in& in) {
  return tl::grad([](const auto& x) { return tl::log_sum_exp(x); })(in.x);
}

// ---------------------------------------------------------------------------------------------
// S7 matmul of run-time size: f(A) = sum(A A), A: 8 x 8, A[i][j] = 2u - 1 (s7_inputs: the same numbers).

using run_time_matrix = tl::matrix<double, tl::dynamic, tl::dynamic>;
using s7_bounded_matrix = tl::matrix<double, tl::bounded<s7_n>, tl::bounded<s7_n>>;

template <class M>
struct s7_run_time_in {
  M A;
};

template <class M>
inline s7_run_time_in<M> s7_run_time_inputs() {
  const auto fixed = s7_inputs().A;
  M A(s7_n, s7_n);
  for (std::size_t k = 0; k < fixed.size(); ++k) A.data()[k] = fixed.data()[k];
  return {A};
}

TAPELESS_BENCH_KERNEL run_time_matrix s7_run_time_handwritten(const s7_run_time_in<run_time_matrix>& in) {
  // s7_handwritten (adjoints.hpp) to a run-time n: A_bar(p, q) = (sum of row q) + (sum of column p).
  const std::size_t n = in.A.rows();
  std::vector<double> row(n, 0.0), col(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      row[i] += in.A(i, j);
      col[j] += in.A(i, j);
    }
  run_time_matrix g(n, n);
  for (std::size_t p = 0; p < n; ++p)
    for (std::size_t q = 0; q < n; ++q) g(p, q) = row[q] + col[p];
  return g;
}

TAPELESS_BENCH_KERNEL run_time_matrix s7_run_time_handwritten_simd(const s7_run_time_in<run_time_matrix>& in) {
  // The same, the columns a batch at a time: the column sums added row after row in batches, each row's
  // sum a horizontal add, and each row of the gradient the row sums plus one column's sum.
  const std::size_t n = in.A.rows(), whole = n - n % simd::width;
  const double* a = in.A.data();
  std::vector<double> row(n, 0.0), col(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double* r = a + i * n;
    simd::batch sum(0.0);
    for (std::size_t j = 0; j < whole; j += simd::width) {
      const simd::batch v = simd::load(r + j);
      sum += v;
      simd::store(col.data() + j, simd::load(col.data() + j) + v);
    }
    double s = xsimd::hadd(sum);
    for (std::size_t j = whole; j < n; ++j) {
      s += r[j];
      col[j] += r[j];
    }
    row[i] = s;
  }
  run_time_matrix g(n, n);
  for (std::size_t p = 0; p < n; ++p) {
    const simd::batch c(col[p]);
    for (std::size_t q = 0; q < whole; q += simd::width)
      simd::store(g.data() + p * n + q, simd::load(row.data() + q) + c);
    for (std::size_t q = whole; q < n; ++q) g(p, q) = row[q] + col[p];
  }
  return g;
}

// S7 as the fixed-shape case writes it (matrix_bench.cpp), of a matrix of run-time extents.
constexpr auto s7_sum_of_product = [](const auto& A) { return tl::sum(tl::matmul(A, A)); };

TAPELESS_BENCH_KERNEL run_time_matrix s7_run_time_tapeless(const s7_run_time_in<run_time_matrix>& in) {
  return tl::grad(s7_sum_of_product)(in.A);
}

TAPELESS_BENCH_KERNEL s7_bounded_matrix s7_bounded_tapeless(const s7_run_time_in<s7_bounded_matrix>& in) {
  return tl::grad(s7_sum_of_product)(in.A);
}

TAPELESS_BENCH_KERNEL tl::matrix<double, s7_n, s7_n> s7_fixed_tapeless(const s7_in& in) {
  return tl::grad(s7_sum_of_product)(in.A);
}

/// S7's numbers, row-major, in a vector of run-time size: the peers' inputs.
inline run_time_in s7_flat_inputs() {
  const auto A = s7_inputs().A;
  run_time_vector x(A.size());
  for (std::size_t k = 0; k < A.size(); ++k) x[k] = A.data()[k];
  return {x};
}

// ---------------------------------------------------------------------------------------------
// A layer of run-time width, beside the suite (which has no case differentiating two arrays of run-time
// extents in one formula): f(W, b) = sum((tanh(W x + b) - y)^2), W m x n and b of m elements both
// differentiated, x and y data; W[i][j], x[j] = 2u - 1, b[i], y[i] = u - 1/2. m x n = 16 x 8 and 64 x 32.

struct layer_in {
  run_time_matrix W;
  run_time_vector b, x, y;
};

template <std::size_t M, std::size_t N>
inline layer_in layer_inputs() {
  tapeless_bench::input_stream u;
  layer_in in{run_time_matrix(M, N), run_time_vector(M), run_time_vector(N), run_time_vector(M)};
  for (auto& v : in.W) v = u.uniform(-1.0, 1.0);
  for (auto& v : in.x) v = u.uniform(-1.0, 1.0);
  for (auto& v : in.b) v = u.uniform(-0.5, 0.5);
  for (auto& v : in.y) v = u.uniform(-0.5, 0.5);
  return in;
}

using layer_gradient = std::tuple<run_time_matrix, run_time_vector>;

TAPELESS_BENCH_KERNEL layer_gradient layer_handwritten(const layer_in& in) {
  // z_i = W_i . x + b_i, t_i = tanh(z_i): z_i_bar = 2 (t_i - y_i) (1 - t_i^2) is b_i's adjoint, and
  // W_ij's is z_i_bar x_j.
  const std::size_t m = in.W.rows(), n = in.W.cols();
  layer_gradient g{run_time_matrix(m, n), run_time_vector(m)};
  auto& [gw, gb] = g;
  for (std::size_t i = 0; i < m; ++i) {
    double z = in.b[i];
    for (std::size_t j = 0; j < n; ++j) z += in.W(i, j) * in.x[j];
    const double t = std::tanh(z), zb = 2.0 * (t - in.y[i]) * (1.0 - t * t);
    gb[i] = zb;
    for (std::size_t j = 0; j < n; ++j) gw(i, j) = zb * in.x[j];
  }
  return g;
}

TAPELESS_BENCH_KERNEL layer_gradient layer_handwritten_simd(const layer_in& in) {
  // The same, a batch at a time: each row's dot product along x, then z's tanh and adjoints a batch of
  // rows at a time (xsimd's tanh), and each row of W's adjoint x times z_i_bar; the elements short of a
  // batch one at a time.
  const std::size_t m = in.W.rows(), n = in.W.cols(), whole_n = n - n % simd::width, whole_m = m - m % simd::width;
  const double* x = in.x.data();
  layer_gradient g{run_time_matrix(m, n), run_time_vector(m)};
  auto& [gw, gb] = g;
  for (std::size_t i = 0; i < m; ++i) {
    const double* w = in.W.data() + i * n;
    simd::batch sum(0.0);
    for (std::size_t j = 0; j < whole_n; j += simd::width) sum = xsimd::fma(simd::load(w + j), simd::load(x + j), sum);
    double z = in.b[i] + xsimd::hadd(sum);
    for (std::size_t j = whole_n; j < n; ++j) z += w[j] * x[j];
    gb[i] = z;  // z for now, its adjoint below
  }
  const auto adjoint = [](const auto& z, const auto& y) {
    const auto t = tanh(z);
    return 2.0 * (t - y) * (1.0 - t * t);
  };
  using std::tanh, xsimd::tanh;
  std::size_t i = 0;
  for (; i < whole_m; i += simd::width)
    simd::store(gb.data() + i, adjoint(simd::load(gb.data() + i), simd::load(in.y.data() + i)));
  for (; i < m; ++i) gb[i] = adjoint(gb[i], in.y[i]);
  for (std::size_t r = 0; r < m; ++r) {
    const simd::batch zb(gb[r]);
    double* out = gw.data() + r * n;
    std::size_t j = 0;
    for (; j < whole_n; j += simd::width) simd::store(out + j, zb * simd::load(x + j));
    for (; j < n; ++j) out[j] = gb[r] * x[j];
  }
  return g;
}

// The layer as users write it, for W and b of any extents, x and y data read in place.
template <class X, class Y>
constexpr auto layer_loss(const X& x, const Y& y) {
  return [&x, &y](const auto& W, const auto& b) {
    return tl::sum(tl::square(tl::tanh(tl::matmul(W, tl::cref(x)) + b) - tl::cref(y)));
  };
}

TAPELESS_BENCH_KERNEL layer_gradient layer_tapeless(const layer_in& in) {
  return tl::grad(layer_loss(in.x, in.y))(in.W, in.b);
}

template <std::size_t M, std::size_t N>
struct layer_fixed_in {
  tl::matrix<double, M, N> W;
  tl::vector<double, M> b;
  tl::vector<double, N> x;
  tl::vector<double, M> y;
};

template <std::size_t M, std::size_t N>
inline layer_fixed_in<M, N> layer_fixed_inputs() {
  const layer_in r = layer_inputs<M, N>();
  layer_fixed_in<M, N> in;
  std::copy(r.W.begin(), r.W.end(), in.W.begin());
  std::copy(r.b.begin(), r.b.end(), in.b.begin());
  std::copy(r.x.begin(), r.x.end(), in.x.begin());
  std::copy(r.y.begin(), r.y.end(), in.y.begin());
  return in;
}

template <std::size_t M, std::size_t N>
TAPELESS_BENCH_KERNEL auto layer_fixed_tapeless(const layer_fixed_in<M, N>& in) {
  return tl::grad(layer_loss(in.x, in.y))(in.W, in.b);
}

// ---------------------------------------------------------------------------------------------
// The peers, on f of a std::vector of their numbers, n read from it: bench/peers/'s libraries for a
// run-time n, each writing the gradient into a vector of x's size.

namespace run_time_peers {

/// S3's f, once for any number type T (double, adouble, Sacado's, Eigen's) and any n >= 2.
struct s3_f {
  template <class T>
  T operator()(const std::vector<T>& x) const {
    T value = 0.0;
    for (std::size_t i = 0; i + 1 < x.size(); ++i) {
      const T a = x[i + 1] - x[i] * x[i];
      const T b = 1.0 - x[i];
      value += 100.0 * (a * a) + b * b;
    }
    return value;
  }
};

/// S4's f as the suite states it, log(sum of exp(x_i)) without a shift (vector_bench.cpp's s4::f), any n >= 1.
struct s4_f {
  template <class T>
  T operator()(const std::vector<T>& x) const {
    using std::exp, std::log;
    T s = 0.0;
    for (const T& x_i : x) s += exp(x_i);
    return T(log(s));
  }
};

/// S7's f of A's n x n elements, row-major, n the square root of x.size() (adjoints.hpp).
struct s7_f {
  template <class T>
  T operator()(const std::vector<T>& x) const {
    std::size_t n = 0;
    while ((n + 1) * (n + 1) <= x.size()) ++n;
    return s7_value<T>(x, n);
  }
};

// ADOL-C, as bench/peers/adolc.hpp's two modes: the tape recorded before the checks and reused
// (adolc_tape), or recorded again at each call (adolc_retape); case `id` owns tags 2 id and 2 id + 1
// (adolc::tag), which no case of this executable takes through bench/peers/.

/// Records F at x on tape `tag`, in buffers of `sizes`, or ADOL-C's default ones when none.
template <class F>
void trace(short tag, const run_time_vector& x, const std::optional<adolc::buffer_sizes>& sizes) {
  if (sizes)
    trace_on(tag, 0, (*sizes)[0], (*sizes)[1], (*sizes)[2], (*sizes)[3]);
  else
    trace_on(tag);
  {
    std::vector<adouble> ax(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) ax[i] <<= x[i];
    adouble y = F{}(std::as_const(ax));
    double value;
    y >>= value;
  }
  trace_off();
}

/// The buffers of each tape, by tag: ADOL-C's defaults where they hold it (adolc::record_sized says why).
inline std::map<short, std::optional<adolc::buffer_sizes>>& tape_buffers() {
  static std::map<short, std::optional<adolc::buffer_sizes>> sizes;
  return sizes;
}

template <class F>
void record_sized(short tag, const run_time_vector& x) {
  constexpr unsigned ample = 1U << 26;
  trace<F>(tag, x, adolc::buffer_sizes{ample, ample, ample, ample});
  std::array<std::size_t, STAT_SIZE> stats;
  tapestats(tag, stats.data());
  std::optional<adolc::buffer_sizes> sizes;
  if (stats[NUM_OPERATIONS] >= OBUFSIZE || stats[NUM_LOCATIONS] >= LBUFSIZE || stats[NUM_VALUES] >= VBUFSIZE ||
      stats[NUM_OPERATIONS] >= TBUFSIZE) {
    auto room = [](std::size_t count) { return static_cast<unsigned>(2 * count + 1024); };
    sizes = adolc::buffer_sizes{room(stats[NUM_OPERATIONS]), room(stats[NUM_LOCATIONS]), room(stats[NUM_VALUES]),
                                room(stats[NUM_OPERATIONS])};
  }
  tape_buffers()[tag] = sizes;
  trace<F>(tag, x, sizes);
}

template <class F, auto Inputs, int Id, adolc::mode M>
void adolc_prepare() {
  record_sized<F>(adolc::tag(Id, M), Inputs().x);
}

template <class F, int Id, adolc::mode M>
TAPELESS_BENCH_KERNEL run_time_vector adolc_gradient(const run_time_in& in) {
  const short t = adolc::tag(Id, M);
  if constexpr (M == adolc::mode::retape) trace<F>(t, in.x, tape_buffers().at(t));
  run_time_vector g(in.x.size());
  if (const int rc = ::gradient(t, static_cast<int>(in.x.size()), in.x.data(), g.data()); rc < 0) {
    std::fprintf(stderr, "ADOL-C gradient on tape %d returned %d\n", t, rc);
    std::abort();
  }
  return g;
}

template <class F>
TAPELESS_BENCH_KERNEL run_time_vector sacado_rad(const run_time_in& in) {
  using var = Sacado::Rad::ADvar<double>;
  const std::size_t n = in.x.size();
  std::vector<var> ax(n);
  for (std::size_t i = 0; i < n; ++i) ax[i] = in.x[i];  // an independent variable each
  var y = F{}(std::as_const(ax));
  var::Outvar_Gradcomp(y);
  run_time_vector g(n);
  for (std::size_t i = 0; i < n; ++i) g[i] = ax[i].adj();
  return g;
}

/// The gradient in one forward pass of a forward-mode number type of run-time length (bench/peers/
/// common.hpp's forward_mode_gradient, to x.size()): seed(x_i, n, i) is x_i with the derivatives e_i.
template <class F, class Number, class Seed, class Derivative>
run_time_vector forward_mode_gradient(const run_time_vector& x, Seed seed, Derivative derivative) {
  const std::size_t n = x.size();
  std::vector<Number> ax;
  ax.reserve(n);
  for (std::size_t i = 0; i < n; ++i) ax.push_back(seed(x[i], static_cast<int>(n), static_cast<int>(i)));
  const Number y = F{}(std::as_const(ax));
  run_time_vector g(n);
  for (std::size_t i = 0; i < n; ++i) g[i] = derivative(y, static_cast<int>(i));
  return g;
}

template <class F>
TAPELESS_BENCH_KERNEL run_time_vector sacado_fad(const run_time_in& in) {
  using number = Sacado::Fad::DFad<double>;
  return forward_mode_gradient<F, number>(
      in.x, [](double v, int n, int i) { return number(n, i, v); }, [](const number& y, int i) { return y.dx(i); });
}

template <class F>
TAPELESS_BENCH_KERNEL run_time_vector eigen_forward(const run_time_in& in) {
  using number = Eigen::AutoDiffScalar<Eigen::VectorXd>;
  return forward_mode_gradient<F, number>(
      in.x, [](double v, int n, int i) { return number(v, n, i); },
      [](const number& y, int i) { return y.derivatives()(i); });
}

template <class F>
TAPELESS_BENCH_KERNEL run_time_vector finite_diff(const run_time_in& in) {
  // As bench/peers/finite_diff.hpp: central differences, 2 n evaluations of f in doubles.
  const std::size_t n = in.x.size();
  std::vector<double> xh(in.x.begin(), in.x.end());
  run_time_vector g(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double x_i = in.x[i], h = 6e-6 * std::max(1.0, std::abs(x_i));
    xh[i] = x_i + h;
    const double up = F{}(xh), step_up = xh[i] - x_i;
    xh[i] = x_i - h;
    const double down = F{}(xh), step_down = x_i - xh[i];
    xh[i] = x_i;
    g[i] = (up - down) / (step_up + step_down);
  }
  return g;
}

}  // namespace run_time_peers

/// The peers of a case of run-time size whose f is F, on its inputs; ADOL-C's tapes are tags 2 Id and 2 Id + 1.
template <class F, auto Inputs, int Id>
void add_peers(std::vector<entry_t>& entries, const std::string& c) {
  namespace p = run_time_peers;
  entries.push_back(entry<p::adolc_gradient<F, Id, adolc::mode::tape>, Inputs>(
      c + "/adolc_tape", exact, p::adolc_prepare<F, Inputs, Id, adolc::mode::tape>));
  entries.push_back(entry<p::adolc_gradient<F, Id, adolc::mode::retape>, Inputs>(
      c + "/adolc_retape", exact, p::adolc_prepare<F, Inputs, Id, adolc::mode::retape>));
  entries.push_back(entry<p::sacado_rad<F>, Inputs>(c + "/sacado_rad"));
  entries.push_back(entry<p::sacado_fad<F>, Inputs>(c + "/sacado_fad"));
  entries.push_back(entry<p::eigen_forward<F>, Inputs>(c + "/eigen_forward"));
  entries.push_back(entry<p::finite_diff<F>, Inputs>(c + "/finite_diff", tapeless_bench::finite_diff::agreement));
}

template <std::size_t N, int Id>
struct s3_run_time : tapeless_bench::kernels<s3_run_time_inputs<N>, s3_run_time_handwritten, s3_run_time_tapeless,
                                             s3_run_time_handwritten_simd> {
  static_assert(N <= s3_bound);
  static std::string name() { return "S3_rosenbrock_run_time_" + std::to_string(N); }

  static void add_libraries(std::vector<entry_t>& entries, const std::string& c) {
    constexpr auto inputs = s3_run_time_inputs<N>;
    entries.push_back(entry<s3_whole_array_tapeless, inputs>(c + "/tapeless_whole_array"));
    entries.push_back(entry<s3_bounded_tapeless, s3_bounded_inputs<N>>(c + "/tapeless_bounded"));
    entries.push_back(entry<s3_eigen_tapeless, s3_eigen_inputs<N>>(c + "/tapeless_eigen"));
    entries.push_back(entry<s3_users<N>, s3_users_inputs<N>>(c + "/tapeless_fixed_shape"));
    add_peers<run_time_peers::s3_f, inputs, Id>(entries, c);
  }
};

template <std::size_t N, int Id>
struct s4_run_time : tapeless_bench::kernels<s4_run_time_inputs<N>, s4_run_time_handwritten, s4_run_time_tapeless,
                                             s4_run_time_handwritten_simd> {
  static std::string name() { return "S4_log_sum_exp_run_time_" + std::to_string(N); }

  static void add_libraries(std::vector<entry_t>& entries, const std::string& c) {
    entries.push_back(entry<s4_tapeless<N>, s4_inputs<N>>(c + "/tapeless_fixed_shape"));
    add_peers<run_time_peers::s4_f, s4_run_time_inputs<N>, Id>(entries, c);
  }
};

template <int Id>
struct s7_run_time : tapeless_bench::kernels<s7_run_time_inputs<run_time_matrix>, s7_run_time_handwritten,
                                             s7_run_time_tapeless, s7_run_time_handwritten_simd> {
  static std::string name() { return "S7_matmul_run_time"; }

  static void add_libraries(std::vector<entry_t>& entries, const std::string& c) {
    entries.push_back(entry<s7_bounded_tapeless, s7_run_time_inputs<s7_bounded_matrix>>(c + "/tapeless_bounded"));
    entries.push_back(entry<s7_fixed_tapeless, s7_inputs>(c + "/tapeless_fixed_shape"));
    add_peers<run_time_peers::s7_f, s7_flat_inputs, Id>(entries, c);
  }
};

template <std::size_t M, std::size_t N>
struct layer_run_time
    : tapeless_bench::kernels<layer_inputs<M, N>, layer_handwritten, layer_tapeless, layer_handwritten_simd> {
  static std::string name() { return "layer_run_time_" + std::to_string(M) + "x" + std::to_string(N); }

  static void add_libraries(std::vector<entry_t>& entries, const std::string& c) {
    entries.push_back(entry<layer_fixed_tapeless<M, N>, layer_fixed_inputs<M, N>>(c + "/tapeless_fixed_shape"));
  }
};

/// States the heap each gradient of tapeless and the hand-written adjoints of Case allocates, its
/// name's prefix c (harness.hpp, note_memory: Google Benchmark prints it in its context).
template <class Case>
void note_kernels_memory(const std::string& c) {
  constexpr auto inputs = Case::inputs;
  note_memory(c + "handwritten",
              describe(measure_allocations<Case::handwritten, inputs>()) + ": the gradient returned");
  note_memory(c + "handwritten_simd",
              describe(measure_allocations<Case::handwritten_simd, inputs>()) + ": the gradient returned");
  note_memory(c + "tapeless", describe(measure_allocations<Case::tapeless, inputs>()));
}

/// The same for S3 at n = N, and for its other tapeless kernels.
template <std::size_t N>
void note_s3_memory_at() {
  const std::string c = s3_run_time<N, 0>::name() + "/";
  constexpr auto inputs = s3_run_time_inputs<N>;
  note_kernels_memory<s3_run_time<N, 0>>(c);
  note_memory(c + "tapeless_whole_array", describe(measure_allocations<s3_whole_array_tapeless, inputs>()));
  note_memory(c + "tapeless_bounded", describe(measure_allocations<s3_bounded_tapeless, s3_bounded_inputs<N>>()));
  note_memory(c + "tapeless_eigen", describe(measure_allocations<s3_eigen_tapeless, s3_eigen_inputs<N>>()) +
                                        ", and the VectorXd returned, which Eigen allocates with malloc");
  note_memory(c + "tapeless_fixed_shape", describe(measure_allocations<s3_users<N>, s3_users_inputs<N>>()));
}

/// Returns true: the gradients themselves are checked by the harness.
bool note_memory_of_each() {
  note_s3_memory_at<16>();
  note_s3_memory_at<256>();
  note_kernels_memory<s4_run_time<16, 0>>(s4_run_time<16, 0>::name() + "/");
  note_kernels_memory<s4_run_time<256, 0>>(s4_run_time<256, 0>::name() + "/");
  const std::string s7 = s7_run_time<0>::name() + "/";
  note_kernels_memory<s7_run_time<0>>(s7);
  note_memory(s7 + "tapeless_bounded",
              describe(measure_allocations<s7_bounded_tapeless, s7_run_time_inputs<s7_bounded_matrix>>()));
  note_memory(layer_run_time<16, 8>::name() + "/handwritten",
              describe(measure_allocations<layer_handwritten, layer_inputs<16, 8>>()) + ": the gradient returned");
  note_memory(layer_run_time<16, 8>::name() + "/tapeless",
              describe(measure_allocations<layer_tapeless, layer_inputs<16, 8>>()));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  return tapeless_bench::run<s3_run_time<16, 1>, s3_run_time<256, 2>, s4_run_time<16, 3>, s4_run_time<256, 4>,
                             s7_run_time<5>, layer_run_time<16, 8>, layer_run_time<64, 32>>(argc, argv,
                                                                                            note_memory_of_each);
}
