// SPDX-License-Identifier: BSL-1.0
// bench/lstm_bench.cpp: S14 lstm, one LSTM layer over a sequence of a run-time number of steps:
// tapeless's tl::iterate over the steps, its state the hidden and cell vectors and the running loss,
// beside a hand-written backpropagation through time and the tape-based peers. The tapeless gradient
// has a translation unit of its own (lstm_tapeless.cpp), whose compile time is its own; the inputs are
// lstm.hpp's.
#include "cases.hpp"
#include "lstm.hpp"
#include "suite.hpp"

#include <tapeless/tapeless.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace tl = tapeless;

namespace {

using namespace tapeless_bench;

TAPELESS_BENCH_KERNEL s14_gradient s14_handwritten(const s14_in& in) {
  constexpr std::size_t H = s14_hidden, G = s14_gates, J = s14_joined;
  const std::size_t steps = in.x.size();
  // W transposed once, so that z = W [h; x] + b runs as sums of columns, each a contiguous loop over
  // the 64 gates that the compiler vectorises (a row's dot product, a reduction, it does not).
  std::array<double, J * G> Wt;
  for (std::size_t r = 0; r < G; ++r)
    for (std::size_t j = 0; j < J; ++j) Wt[j * G + r] = in.W(r, j);
  // forward, keeping per step what the sweep reads: [h(t-1); x(t)], the gates i, f, o, g, c(t-1) and
  // tanh(c(t)), in one allocation
  constexpr std::size_t kept = J + G + 2 * H;
  const auto tape = std::make_unique_for_overwrite<double[]>(kept * steps);
  std::array<double, H> h{}, c{};
  for (std::size_t t = 0; t < steps; ++t) {
    double* joined = &tape[kept * t];
    double* gate = joined + J;
    double* c_before = gate + G;
    double* tanh_c = c_before + H;
    for (std::size_t k = 0; k < H; ++k) {
      joined[k] = h[k];
      joined[H + k] = in.x[t][k];
    }
    std::array<double, G> z;
    for (std::size_t r = 0; r < G; ++r) z[r] = in.b[r];
    for (std::size_t j = 0; j < J; ++j)
      for (std::size_t r = 0; r < G; ++r) z[r] += Wt[j * G + r] * joined[j];
    for (std::size_t r = 0; r < 3 * H; ++r) gate[r] = 1.0 / (1.0 + std::exp(-z[r]));
    for (std::size_t r = 3 * H; r < G; ++r) gate[r] = std::tanh(z[r]);
    for (std::size_t k = 0; k < H; ++k) {
      c_before[k] = c[k];
      c[k] = gate[H + k] * c[k] + gate[k] * gate[3 * H + k];
      tanh_c[k] = std::tanh(c[k]);
      h[k] = gate[2 * H + k] * tanh_c[k];
    }
  }
  // reverse: h_bar and c_bar carry the adjoints of h(t) and c(t) back from the later steps; h(t)'s
  // loss term adds y(t). Through step t: o_bar = h_bar tanh(c), c_bar += h_bar o (1 - tanh(c)^2),
  // f_bar = c_bar c(t-1), i_bar = c_bar g, g_bar = c_bar i, then z_bar through sigmoid' = s (1 - s)
  // and tanh' = 1 - g^2; b_bar += z_bar, W_bar += z_bar [h; x]^T, [h; x]_bar = W^T z_bar, whose
  // first 16 are h(t-1)_bar; c(t-1)_bar = c_bar f.
  s14_gradient result;
  auto& [W_bar, b_bar] = result;
  std::array<double, H> h_bar{}, c_bar{};
  for (std::size_t t = steps; t-- > 0;) {
    const double* joined = &tape[kept * t];
    const double* gate = joined + J;
    const double* c_before = gate + G;
    const double* tanh_c = c_before + H;
    std::array<double, G> z_bar;
    for (std::size_t k = 0; k < H; ++k) {
      const double i = gate[k], f = gate[H + k], o = gate[2 * H + k], g = gate[3 * H + k];
      const double hb = h_bar[k] + in.y[t][k];
      const double cb = c_bar[k] + hb * o * (1.0 - tanh_c[k] * tanh_c[k]);
      z_bar[k] = cb * g * i * (1.0 - i);
      z_bar[H + k] = cb * c_before[k] * f * (1.0 - f);
      z_bar[2 * H + k] = hb * tanh_c[k] * o * (1.0 - o);
      z_bar[3 * H + k] = cb * i * (1.0 - g * g);
      c_bar[k] = cb * f;
    }
    for (std::size_t r = 0; r < G; ++r) b_bar[r] += z_bar[r];
    std::array<double, J> joined_bar{};
    for (std::size_t r = 0; r < G; ++r)
      for (std::size_t j = 0; j < J; ++j) {
        W_bar(r, j) += z_bar[r] * joined[j];
        joined_bar[j] += in.W(r, j) * z_bar[r];
      }
    for (std::size_t k = 0; k < H; ++k) h_bar[k] = joined_bar[k];
  }
  return result;
}

TAPELESS_BENCH_KERNEL s14_gradient s14_tapeless(const s14_in& in) { return s14_tapeless_gradient(in); }

struct s14 : tapeless_bench::kernels<s14_inputs, s14_handwritten, s14_tapeless> {
  static std::string name() { return "S14_lstm"; }
  // 2,112 numbers: forward mode and central differences would take seconds per gradient. The
  // reverse-mode peers check the hand-written sweep.
  using peer_list = std::tuple<adolc::peer<adolc::mode::tape>, sacado::rad>;
  static std::array<double, s14_gates * s14_joined + s14_gates> numbers(const s14_in& in) {
    return tapeless_bench::numbers(in.W, in.b);
  }
  template <class T>
  static T f(const std::array<T, s14_gates * s14_joined + s14_gates>& p, const s14_in& in) {
    using std::exp, std::tanh;
    constexpr std::size_t H = s14_hidden, J = s14_joined, G = s14_gates;
    std::array<T, H> h, c;
    for (std::size_t k = 0; k < H; ++k) h[k] = c[k] = 0.0;
    T loss = 0.0;
    for (std::size_t t = 0; t < in.x.size(); ++t) {
      std::array<T, G> z;
      for (std::size_t r = 0; r < G; ++r) {
        z[r] = p[G * J + r];
        for (std::size_t k = 0; k < H; ++k) z[r] += p[r * J + k] * h[k];
        for (std::size_t k = 0; k < H; ++k) z[r] += p[r * J + H + k] * in.x[t][k];
      }
      for (std::size_t k = 0; k < H; ++k) {
        const T i = 1.0 / (1.0 + exp(-z[k])), f = 1.0 / (1.0 + exp(-z[H + k])), o = 1.0 / (1.0 + exp(-z[2 * H + k])),
                g = tanh(z[3 * H + k]);
        c[k] = f * c[k] + i * g;
        h[k] = o * tanh(c[k]);
        loss += h[k] * in.y[t][k];
      }
    }
    return loss;
  }
};

}  // namespace

int main(int argc, char** argv) { return tapeless_bench::run<s14>(argc, argv); }
