// SPDX-License-Identifier: BSL-1.0
// bench/vector_bench.cpp: the vector cases, S3 rosenbrock, S4 log_sum_exp and S5 normal_logpdf, each
// hand-written (also vectorised with xsimd), with tapeless and with every peer library
// (bench/cases.hpp), side by side.
//
// Every implementation is one function from the case's input struct to the gradient (one gradient
// per call), returned in the type tl::grad returns, so that keeping the result costs both the same.
// The hand-written one is the classic adjoint: a forward pass keeping what the reverse sweep needs,
// then the reverse sweep, as straight-line loops over the elements. grad does not return the function
// value, so neither implementation is asked for it. The peers differentiate each case's `f`, the
// function written once for any number type.
#include "adjoints.hpp"
#include "cases.hpp"
#include "simd.hpp"
#include "suite.hpp"
#include "users.hpp"

#include <tapeless/tapeless.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <tuple>

namespace tl = tapeless;
namespace simd = tapeless_bench::simd;

namespace {

// The cases' inputs and hand-written adjoints (adjoints.hpp), and their tapeless kernels as users write
// them (users.hpp).
using namespace tapeless_bench;

// ---------------------------------------------------------------------------------------------
// S3 rosenbrock (inputs and hand-written adjoint: adjoints.hpp; as users write it: users.hpp).

template <std::size_t N>
TAPELESS_BENCH_KERNEL tl::vector<double, N> s3_tapeless(const s3_in<N>& in) {
  return tl::grad([](const auto& x) {
    auto head = tl::slice<0, N - 1>(x);
    auto tail = tl::slice<1, N - 1>(x);
    return tl::sum(100.0 * tl::square(tail - tl::square(head)) + tl::square(1.0 - head));
  })(in.x);
}

template <std::size_t N>
TAPELESS_BENCH_KERNEL tl::vector<double, N> s3_handwritten_simd(const s3_in<N>& in) {
  // s3_handwritten's one write per element, g_i = 200 a_{i-1} - 400 x_i a_i - 2 b_i for 0 < i < N - 1,
  // a batch of elements at a time, each batch reading x_{i-1}, x_i and x_{i+1} (a_i = x_{i+1} - x_i^2,
  // b_i = 1 - x_i); the two ends, and the elements short of a batch, one at a time.
  const double* x = in.x.data();
  tl::vector<double, N> g;
  const auto middle = [](const auto& before, const auto& here, const auto& after) {
    return 200.0 * (here - before * before) - 400.0 * here * (after - here * here) - 2.0 * (1.0 - here);
  };
  g[0] = -400.0 * x[0] * (x[1] - x[0] * x[0]) - 2.0 * (1.0 - x[0]);
  std::size_t i = 1;
  for (; i + simd::width < N; i += simd::width)
    simd::store(g.data() + i, middle(simd::load(x + i - 1), simd::load(x + i), simd::load(x + i + 1)));
  for (; i + 1 < N; ++i) g[i] = middle(x[i - 1], x[i], x[i + 1]);
  g[N - 1] = 200.0 * (x[N - 1] - x[N - 2] * x[N - 2]);
  return g;
}

template <std::size_t N>
struct s3 : tapeless_bench::kernels<s3_inputs<N>, s3_handwritten<N>, s3_tapeless<N>, s3_handwritten_simd<N>> {
  static std::string name() { return "S3_rosenbrock_" + std::to_string(N); }
  using users = tapeless_bench::as_users_write_it<s3_users_inputs<N>, s3_users<N>>;
  static std::array<double, N> numbers(const s3_in<N>& in) { return tapeless_bench::numbers(in.x); }
  template <class T>
  static T f(const std::array<T, N>& x, const s3_in<N>&) {
    T value = 0.0;
    for (std::size_t i = 0; i + 1 < N; ++i) {
      const T a = x[i + 1] - x[i] * x[i];
      const T b = 1.0 - x[i];
      value += 100.0 * (a * a) + b * b;
    }
    return value;
  }
};

// ---------------------------------------------------------------------------------------------
// S4 log_sum_exp (inputs and hand-written adjoint: adjoints.hpp; tapeless, as users write it too: users.hpp).

template <std::size_t N>
TAPELESS_BENCH_KERNEL tl::vector<double, N> s4_handwritten_simd(const s4_in<N>& in) {
  // s4_handwritten, a batch of elements at a time
  static_assert(simd::whole_batches<N>);
  const double* x = in.x.data();
  const simd::batch m(simd::max<N>(x));
  tl::vector<double, N> e;
  simd::batch s(0.0);
  for (std::size_t i = 0; i < N; i += simd::width) {
    const simd::batch e_i = xsimd::exp(simd::load(x + i) - m);
    simd::store(e.data() + i, e_i);
    s += e_i;
  }
  const simd::batch inv_s(1.0 / xsimd::hadd(s));
  for (std::size_t i = 0; i < N; i += simd::width) simd::store(e.data() + i, simd::load(e.data() + i) * inv_s);
  return e;
}

template <std::size_t N>
struct s4 : tapeless_bench::kernels<s4_inputs<N>, s4_handwritten<N>, s4_tapeless<N>, s4_handwritten_simd<N>> {
  static std::string name() { return "S4_log_sum_exp_" + std::to_string(N); }
  static std::array<double, N> numbers(const s4_in<N>& in) { return tapeless_bench::numbers(in.x); }
  // The plain definition log(sum exp), as the suite states f (no shift by the largest element).
  template <class T>
  static T f(const std::array<T, N>& x, const s4_in<N>&) {
    using std::exp, std::log;
    T s = 0.0;
    for (std::size_t i = 0; i < N; ++i) s += exp(x[i]);
    return T(log(s));
  }
};

// ---------------------------------------------------------------------------------------------
// S5 normal_logpdf (inputs and hand-written adjoint: adjoints.hpp; as users write it: users.hpp).

TAPELESS_BENCH_KERNEL std::tuple<double, double> s5_handwritten_simd(const s5_in& in) {
  // s5_handwritten, a batch of elements at a time
  static_assert(simd::whole_batches<s5_n>);
  const double inv_sigma = 1.0 / in.sigma;
  const simd::batch mu(in.mu), inv(inv_sigma);
  simd::batch sz(0.0), szz(0.0);
  for (std::size_t i = 0; i < s5_n; i += simd::width) {
    const simd::batch z = (simd::load(in.y.data() + i) - mu) * inv;
    sz += z;
    szz = xsimd::fma(z, z, szz);
  }
  return {xsimd::hadd(sz) * inv_sigma, (xsimd::hadd(szz) - static_cast<double>(s5_n)) * inv_sigma};
}

TAPELESS_BENCH_KERNEL std::tuple<double, double> s5_tapeless(const s5_in& in) {
  const auto& y = in.y;
  return tl::grad([&y](const auto& mu, const auto& sigma) {
    const auto z = (tl::cref(y) - mu) / sigma;
    return tl::sum(-0.5 * tl::square(z) - tl::log(sigma) - half_log_2pi);
  })(in.mu, in.sigma);
}

struct s5 : tapeless_bench::kernels<s5_inputs, s5_handwritten, s5_tapeless, s5_handwritten_simd> {
  static std::string name() { return "S5_normal_logpdf"; }
  using users = tapeless_bench::as_users_write_it<inputs_with_function<s5_inputs, s5_users_function>, s5_users>;
  static std::array<double, 2> numbers(const s5_in& in) { return tapeless_bench::numbers(in.mu, in.sigma); }
  template <class T>
  static T f(const std::array<T, 2>& x, const s5_in& in) {
    using std::log;
    const T& mu = x[0];
    const T& sigma = x[1];
    T value = 0.0;
    for (std::size_t i = 0; i < s5_n; ++i) {
      const T z = (in.y[i] - mu) / sigma;
      value += -0.5 * (z * z) - log(sigma) - half_log_2pi;
    }
    return value;
  }
};

}  // namespace

int main(int argc, char** argv) { return tapeless_bench::run<s3<16>, s3<256>, s4<16>, s4<256>, s5>(argc, argv); }
