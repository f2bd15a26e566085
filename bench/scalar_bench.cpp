// SPDX-License-Identifier: BSL-1.0
// bench/scalar_bench.cpp: the scalar cases, S1 walkthrough, S2 log_mul_sin and a chain of lets,
// each hand-written and with tapeless, side by side; S1 and S2 also with every peer library
// (bench/cases.hpp), which differentiate each case's `f`, the function written once for any number type.
//
// Every implementation is one function from the inputs to the gradient (one gradient per call).
// The hand-written one is the classic adjoint: a forward pass computing the intermediate values the
// reverse sweep needs, then the reverse sweep, as straight-line scalar code. grad does not return the
// function value, so neither implementation is asked for it.
#include "adjoints.hpp"
#include "cases.hpp"
#include "suite.hpp"
#include "users.hpp"

#include <tapeless/tapeless.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

namespace tl = tapeless;

namespace {

// The cases' inputs and hand-written adjoints (adjoints.hpp), and their tapeless kernels as users write
// them (users.hpp).
using namespace tapeless_bench;

// ---------------------------------------------------------------------------------------------
// S1 walkthrough (inputs and hand-written adjoint: adjoints.hpp; tapeless, as users write it too: users.hpp).

struct s1 : tapeless_bench::kernels<s1_inputs, s1_handwritten, s1_tapeless> {
  static std::string name() { return "S1_walkthrough"; }
  static scalar_pair numbers(const scalar_pair& in) { return in; }
  template <class T>
  static T f(const std::array<T, 2>& x, const scalar_pair&) {
    using std::cos;
    const T a = x[0] - x[1];
    return T(a * a + cos(x[0] + x[1]));
  }
};

// ---------------------------------------------------------------------------------------------
// S2 log_mul_sin (inputs and hand-written adjoint: adjoints.hpp; tapeless, as users write it too: users.hpp).

struct s2 : tapeless_bench::kernels<s2_inputs, s2_handwritten, s2_tapeless> {
  static std::string name() { return "S2_log_mul_sin"; }
  static scalar_pair numbers(const scalar_pair& in) { return in; }
  template <class T>
  static T f(const std::array<T, 2>& x, const scalar_pair&) {
    using std::log, std::sin;
    return T(log(x[0]) + x[0] * x[1] - sin(x[1]));
  }
};

// ---------------------------------------------------------------------------------------------
// let_chain_K: f(x) = y_K, y_0 = x, y_{i+1} = y_i y_i + y_i, so f'(x) = prod_{i<K} (2 y_i + 1).
// Each y_i is used three times; tapeless names it with tl::let, K nested lets.
// x = 0.01 u(0), in [0, 0.01), so that y_16 stays near x (y_i ~ 1 / (1/x - i)): finite, no overflow.

std::array<double, 1> let_chain_inputs() {
  tapeless_bench::input_stream u;
  return {u.uniform(0.0, 0.01)};
}

template <int K>
TAPELESS_BENCH_KERNEL double let_chain_handwritten(double x) {
  // forward, storing y_0 .. y_{K-1}
  std::array<double, K> y;
  y[0] = x;
  for (int i = 0; i + 1 < K; ++i) y[i + 1] = y[i] * y[i] + y[i];
  // reverse, from y_K_bar = 1
  double y_bar = 1.0;
  for (int i = K - 1; i >= 0; --i) y_bar *= 2.0 * y[i] + 1.0;
  return y_bar;
}

/// let(y, t -> let(t t + t, ...)), K lets deep: returns y_K built from y = y_0.
template <int K, class Y>
constexpr auto let_chain(const Y& y) {
  if constexpr (K == 0)
    return y;
  else
    return tl::let(y, [](const auto& t) { return let_chain<K - 1>(t * t + t); });
}

template <int K>
TAPELESS_BENCH_KERNEL double let_chain_tapeless(double x) {
  return tl::grad([](const auto& x) { return let_chain<K>(x); })(x);
}

// Not a case of the suite: no peers.
template <int K>
struct let_chain_case : tapeless_bench::kernels<let_chain_inputs, let_chain_handwritten<K>, let_chain_tapeless<K>> {
  static std::string name() { return "let_chain_" + std::to_string(K); }
};

// ---------------------------------------------------------------------------------------------
// The checks, once, before timing.

/// The hand-written references themselves, against the gradient the suite states (S1), the
/// closed form (S2) and central differences (let chain).
bool check_references() {
  bool ok = true;
  auto expect = [&](const char* what, double got, double want, double rel) {
    if (!tapeless_bench::agrees(got, want, rel)) {
      std::fprintf(stderr, "MISMATCH reference %s: %.17g, expected %.17g\n", what, got, want);
      ok = false;
    }
  };
  const auto [s1_g1, s1_g2] = s1_handwritten(1.0, 2.0);
  expect("S1 d/dx1", s1_g1, -2.14112, 1e-5);
  expect("S1 d/dx2", s1_g2, 1.85888, 1e-5);
  const auto [s2_g1, s2_g2] = s2_handwritten(2.0, 3.0);
  expect("S2 d/dx1", s2_g1, 0.5 + 3.0, 1e-15);
  expect("S2 d/dx2", s2_g2, 2.0 - std::cos(3.0), 1e-15);
  auto chain = [](int k, double x) {
    for (int i = 0; i < k; ++i) x = x * x + x;
    return x;
  };
  const double x = let_chain_inputs()[0], h = 1e-6;
  expect("let_chain_8", let_chain_handwritten<8>(x), (chain(8, x + h) - chain(8, x - h)) / (2 * h), 1e-7);
  expect("let_chain_16", let_chain_handwritten<16>(x), (chain(16, x + h) - chain(16, x - h)) / (2 * h), 1e-7);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  return tapeless_bench::run<s1, s2, let_chain_case<8>, let_chain_case<16>>(argc, argv, check_references);
}
