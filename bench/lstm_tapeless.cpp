// SPDX-License-Identifier: BSL-1.0
// bench/lstm_tapeless.cpp: S14 lstm's gradient in tapeless, tl::iterate over the run-time sequence,
// its state the hidden and cell vectors and the running loss (33 numbers). A translation unit of its
// own, linked into the lstm benchmark: its compile time is that of the LSTM's gradient alone (the
// target: under 15 s with g++ -O3), and a call per gradient of 64 steps costs nothing to measure.
#include "lstm.hpp"

#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;

namespace {

using namespace tapeless_bench;

/// One step of the layer on the state s = [h; c; running loss] (33 numbers), reading x(t) and y(t).
struct lstm_step {
  const s14_in* in;

  template <class S, class W, class B>
  constexpr auto operator()(const S& s, std::size_t t, const W& weights, const B& bias) const {
    constexpr std::size_t H = s14_hidden;
    const auto& y_t = in->y[t];
    return tl::let(tl::matmul(weights, tl::concat(tl::slice<0, H>(s), tl::cref(in->x[t]))) + bias, [&](const auto& z) {
      const auto i = tl::sigmoid(tl::slice<0, H>(z));
      const auto f = tl::sigmoid(tl::slice<H, H>(z));
      const auto o = tl::sigmoid(tl::slice<2 * H, H>(z));
      const auto g = tl::tanh(tl::slice<3 * H, H>(z));
      return tl::let(f * tl::slice<H, H>(s) + i * g, [&](const auto& c) {
        return tl::let(o * tl::tanh(c),
                       [&](const auto& h) { return tl::concat(h, c, s[2 * H] + tl::sum(h * tl::cref(y_t))); });
      });
    });
  }
};

}  // namespace

s14_gradient tapeless_bench::s14_tapeless_gradient(const s14_in& in) {
  const std::size_t steps = in.x.size();
  return tl::grad([&in, steps](const auto& W, const auto& b) {
    // the state starts at h = c = 0 and a loss of 0; the loss is its last number
    return tl::iterate(steps, tl::vector<double, 2 * s14_hidden + 1>{}, lstm_step{&in}, W, b)[2 * s14_hidden];
  })(in.W, in.b);
}
