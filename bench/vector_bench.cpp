// SPDX-License-Identifier: BSL-1.0
// bench/vector_bench.cpp: the vector cases, S3 rosenbrock, S4 log_sum_exp and S5 normal_logpdf, each
// hand-written, with tapeless and with ADOL-C (reused tape and tape recorded at each call,
// bench/adolc_peers.hpp), side by side.
//
// Every implementation is one function from the case's input struct to the gradient (one gradient
// per call), returned in the type tl::grad returns, so that keeping the result costs both the same.
// The hand-written one is the classic adjoint: a forward pass keeping what the reverse sweep needs,
// then the reverse sweep, as straight-line loops over the elements. grad does not return the function
// value, so neither implementation is asked for it.
#include "adolc_peers.hpp"
#include "harness.hpp"
#include "suite.hpp"

#include <tapeless/tapeless.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <tuple>

namespace tl = tapeless;
namespace adolc = tapeless_bench::adolc;

namespace {

// The ADOL-C tapes of the cases of this file (adolc_peers.hpp).
enum adolc_case : int { s3_16_case = 1, s3_256_case, s4_16_case, s4_256_case, s5_case };

// ---------------------------------------------------------------------------------------------
// S3 rosenbrock: f(x) = sum_{i<N-1} 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2, x[i] = 2u - 1.

template <std::size_t N>
struct s3_in {
  tl::vector<double, N> x;
};

template <std::size_t N>
s3_in<N> s3_inputs() {
  tapeless_bench::input_stream u;
  s3_in<N> in;
  for (auto& v : in.x) v = u.uniform(-1.0, 1.0);
  return in;
}

template <std::size_t N>
double s3_value(const s3_in<N>& in) {
  double f = 0;
  for (std::size_t i = 0; i + 1 < N; ++i)
    f += 100 * (in.x[i + 1] - in.x[i] * in.x[i]) * (in.x[i + 1] - in.x[i] * in.x[i]) + (1 - in.x[i]) * (1 - in.x[i]);
  return f;
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

template <std::size_t N>
TAPELESS_BENCH_KERNEL tl::vector<double, N> s3_tapeless(const s3_in<N>& in) {
  return tl::grad([](const auto& x) {
    auto head = tl::slice<0, N - 1>(x);
    auto tail = tl::slice<1, N - 1>(x);
    return tl::sum(100.0 * tl::square(tail - tl::square(head)) + tl::square(1.0 - head));
  })(in.x);
}

template <std::size_t N, adolc::mode M>
TAPELESS_BENCH_KERNEL tl::vector<double, N> s3_adolc(const s3_in<N>& in) {
  constexpr int id = N == 16 ? s3_16_case : s3_256_case;
  return adolc::gradient<tl::vector<double, N>, M>(id, adolc::numbers(in.x), [](const auto& x) {
    adouble f = 0.0;
    for (std::size_t i = 0; i + 1 < N; ++i) {
      const adouble a = x[i + 1] - x[i] * x[i];
      const adouble b = 1.0 - x[i];
      f += 100.0 * (a * a) + b * b;
    }
    return f;
  });
}

// ---------------------------------------------------------------------------------------------
// S4 log_sum_exp: f(x) = log(sum_i exp(x[i])), x[i] = 4u - 2.

template <std::size_t N>
struct s4_in {
  tl::vector<double, N> x;
};

template <std::size_t N>
s4_in<N> s4_inputs() {
  tapeless_bench::input_stream u;
  s4_in<N> in;
  for (auto& v : in.x) v = u.uniform(-2.0, 2.0);
  return in;
}

template <std::size_t N>
double s4_value(const s4_in<N>& in) {
  double s = 0;
  for (double v : in.x) s += std::exp(v);
  return std::log(s);
}

template <std::size_t N>
TAPELESS_BENCH_KERNEL tl::vector<double, N> s4_handwritten(const s4_in<N>& in) {
  const auto& x = in.x;
  // forward, shifted by the largest element so that no exp overflows: e_i = exp(x_i - m), s = sum e_i,
  // f = m + log(s)
  double m = x[0];
  for (std::size_t i = 1; i < N; ++i) m = std::max(m, x[i]);
  tl::vector<double, N> e;
  double s = 0;
  for (std::size_t i = 0; i < N; ++i) {
    e[i] = std::exp(x[i] - m);
    s += e[i];
  }
  // reverse: x_i_bar = e_i / s, the softmax; the exps are the stored ones
  const double inv_s = 1.0 / s;
  for (std::size_t i = 0; i < N; ++i) e[i] *= inv_s;
  return e;
}

template <std::size_t N>
TAPELESS_BENCH_KERNEL tl::vector<double, N> s4_tapeless(const s4_in<N>& in) {
  return tl::grad([](const auto& x) { return tl::log_sum_exp(x); })(in.x);
}

// The plain definition log(sum exp), as benchmarks.md states f (no shift by the largest element).
template <std::size_t N, adolc::mode M>
TAPELESS_BENCH_KERNEL tl::vector<double, N> s4_adolc(const s4_in<N>& in) {
  constexpr int id = N == 16 ? s4_16_case : s4_256_case;
  return adolc::gradient<tl::vector<double, N>, M>(id, adolc::numbers(in.x), [](const auto& x) {
    adouble s = 0.0;
    for (std::size_t i = 0; i < N; ++i) s += exp(x[i]);
    return adouble(log(s));
  });
}

// ---------------------------------------------------------------------------------------------
// S5 normal_logpdf: f(mu, sigma) = sum_i -0.5 ((y[i] - mu) / sigma)^2 - log(sigma) - 0.5 log(2 pi),
// 64 data y[i] = 4u - 2 (a constant of f), mu = 0.3, sigma = 1.7.

constexpr std::size_t s5_n = 64;
constexpr double half_log_2pi = 0.91893853320467274178;  // 0.5 log(2 pi)

struct s5_in {
  tl::vector<double, s5_n> y;
  double mu, sigma;
};

s5_in s5_inputs() {
  tapeless_bench::input_stream u;
  s5_in in;
  for (auto& v : in.y) v = u.uniform(-2.0, 2.0);
  in.mu = 0.3;
  in.sigma = 1.7;
  return in;
}

double s5_value(const s5_in& in) {
  double f = 0;
  for (double v : in.y) {
    const double z = (v - in.mu) / in.sigma;
    f += -0.5 * z * z - std::log(in.sigma) - half_log_2pi;
  }
  return f;
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

TAPELESS_BENCH_KERNEL std::tuple<double, double> s5_tapeless(const s5_in& in) {
  const auto& y = in.y;
  return tl::grad([&y](const auto& mu, const auto& sigma) {
    const auto z = (tl::cref(y) - mu) / sigma;
    return tl::sum(-0.5 * tl::square(z) - tl::log(sigma) - half_log_2pi);
  })(in.mu, in.sigma);
}

template <adolc::mode M>
TAPELESS_BENCH_KERNEL std::tuple<double, double> s5_adolc(const s5_in& in) {
  const auto& y = in.y;
  return adolc::gradient<std::tuple<double, double>, M>(s5_case, adolc::numbers(in.mu, in.sigma), [&y](const auto& x) {
    const adouble& mu = x[0];
    const adouble& sigma = x[1];
    adouble f = 0.0;
    for (std::size_t i = 0; i < s5_n; ++i) {
      const adouble z = (y[i] - mu) / sigma;
      f += -0.5 * (z * z) - log(sigma) - half_log_2pi;
    }
    return f;
  });
}

// ---------------------------------------------------------------------------------------------
// The checks, once, before timing.

bool check_all() {
  using tapeless_bench::check_case;
  using tapeless_bench::check_differences;
  using tapeless_bench::parameters;
  bool ok = true;
  ok &= check_differences<s3_handwritten<16>, s3_inputs<16>>("S3_rosenbrock_16", s3_value<16>,
                                                             [](auto& in) { return parameters(in.x); });
  ok &= check_differences<s3_handwritten<256>, s3_inputs<256>>("S3_rosenbrock_256", s3_value<256>,
                                                               [](auto& in) { return parameters(in.x); });
  ok &= check_differences<s4_handwritten<16>, s4_inputs<16>>("S4_log_sum_exp_16", s4_value<16>,
                                                             [](auto& in) { return parameters(in.x); });
  ok &= check_differences<s4_handwritten<256>, s4_inputs<256>>("S4_log_sum_exp_256", s4_value<256>,
                                                               [](auto& in) { return parameters(in.x); });
  ok &= check_differences<s5_handwritten, s5_inputs>("S5_normal_logpdf", s5_value,
                                                     [](auto& in) { return parameters(in.mu, in.sigma); });
  ok &= check_case<s3_handwritten<16>, s3_tapeless<16>, s3_inputs<16>>("S3_rosenbrock_16");
  ok &= check_case<s3_handwritten<256>, s3_tapeless<256>, s3_inputs<256>>("S3_rosenbrock_256");
  ok &= check_case<s4_handwritten<16>, s4_tapeless<16>, s4_inputs<16>>("S4_log_sum_exp_16");
  ok &= check_case<s4_handwritten<256>, s4_tapeless<256>, s4_inputs<256>>("S4_log_sum_exp_256");
  ok &= check_case<s5_handwritten, s5_tapeless, s5_inputs>("S5_normal_logpdf");
  using enum adolc::mode;
  ok &= check_case<s3_handwritten<16>, s3_adolc<16, tape>, s3_inputs<16>>("S3_rosenbrock_16", "adolc_tape");
  ok &= check_case<s3_handwritten<16>, s3_adolc<16, retape>, s3_inputs<16>>("S3_rosenbrock_16", "adolc_retape");
  ok &= check_case<s3_handwritten<256>, s3_adolc<256, tape>, s3_inputs<256>>("S3_rosenbrock_256", "adolc_tape");
  ok &= check_case<s3_handwritten<256>, s3_adolc<256, retape>, s3_inputs<256>>("S3_rosenbrock_256", "adolc_retape");
  ok &= check_case<s4_handwritten<16>, s4_adolc<16, tape>, s4_inputs<16>>("S4_log_sum_exp_16", "adolc_tape");
  ok &= check_case<s4_handwritten<16>, s4_adolc<16, retape>, s4_inputs<16>>("S4_log_sum_exp_16", "adolc_retape");
  ok &= check_case<s4_handwritten<256>, s4_adolc<256, tape>, s4_inputs<256>>("S4_log_sum_exp_256", "adolc_tape");
  ok &= check_case<s4_handwritten<256>, s4_adolc<256, retape>, s4_inputs<256>>("S4_log_sum_exp_256", "adolc_retape");
  ok &= check_case<s5_handwritten, s5_adolc<tape>, s5_inputs>("S5_normal_logpdf", "adolc_tape");
  ok &= check_case<s5_handwritten, s5_adolc<retape>, s5_inputs>("S5_normal_logpdf", "adolc_retape");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  using tapeless_bench::entry;
  using enum adolc::mode;
  // The reused ADOL-C tapes, recorded once, before the checks and the timing.
  adolc::record_tape<s3_adolc<16, record>, s3_inputs<16>>();
  adolc::record_tape<s3_adolc<256, record>, s3_inputs<256>>();
  adolc::record_tape<s4_adolc<16, record>, s4_inputs<16>>();
  adolc::record_tape<s4_adolc<256, record>, s4_inputs<256>>();
  adolc::record_tape<s5_adolc<record>, s5_inputs>();
  return tapeless_bench::main(argc, argv, check_all,
                              {
                                  entry<s3_handwritten<16>, s3_inputs<16>>("S3_rosenbrock_16/handwritten"),
                                  entry<s3_tapeless<16>, s3_inputs<16>>("S3_rosenbrock_16/tapeless"),
                                  entry<s3_adolc<16, tape>, s3_inputs<16>>("S3_rosenbrock_16/adolc_tape"),
                                  entry<s3_adolc<16, retape>, s3_inputs<16>>("S3_rosenbrock_16/adolc_retape"),
                                  entry<s3_handwritten<256>, s3_inputs<256>>("S3_rosenbrock_256/handwritten"),
                                  entry<s3_tapeless<256>, s3_inputs<256>>("S3_rosenbrock_256/tapeless"),
                                  entry<s3_adolc<256, tape>, s3_inputs<256>>("S3_rosenbrock_256/adolc_tape"),
                                  entry<s3_adolc<256, retape>, s3_inputs<256>>("S3_rosenbrock_256/adolc_retape"),
                                  entry<s4_handwritten<16>, s4_inputs<16>>("S4_log_sum_exp_16/handwritten"),
                                  entry<s4_tapeless<16>, s4_inputs<16>>("S4_log_sum_exp_16/tapeless"),
                                  entry<s4_adolc<16, tape>, s4_inputs<16>>("S4_log_sum_exp_16/adolc_tape"),
                                  entry<s4_adolc<16, retape>, s4_inputs<16>>("S4_log_sum_exp_16/adolc_retape"),
                                  entry<s4_handwritten<256>, s4_inputs<256>>("S4_log_sum_exp_256/handwritten"),
                                  entry<s4_tapeless<256>, s4_inputs<256>>("S4_log_sum_exp_256/tapeless"),
                                  entry<s4_adolc<256, tape>, s4_inputs<256>>("S4_log_sum_exp_256/adolc_tape"),
                                  entry<s4_adolc<256, retape>, s4_inputs<256>>("S4_log_sum_exp_256/adolc_retape"),
                                  entry<s5_handwritten, s5_inputs>("S5_normal_logpdf/handwritten"),
                                  entry<s5_tapeless, s5_inputs>("S5_normal_logpdf/tapeless"),
                                  entry<s5_adolc<tape>, s5_inputs>("S5_normal_logpdf/adolc_tape"),
                                  entry<s5_adolc<retape>, s5_inputs>("S5_normal_logpdf/adolc_retape"),
                              });
}
