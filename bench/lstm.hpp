// SPDX-License-Identifier: BSL-1.0
// bench/lstm.hpp: S14 lstm's inputs, shared by its benchmark (lstm_bench.cpp: the hand-written
// backpropagation through time, the peers, the timing) and its tapeless gradient, which has a
// translation unit of its own (lstm_tapeless.cpp), so that its compile time is measured alone.
#pragma once

#include "suite.hpp"

#include <tapeless/matrix/matrix.hpp>

#include <cstddef>
#include <tuple>
#include <vector>

namespace tapeless_bench {

namespace tl = tapeless;

// ---------------------------------------------------------------------------------------------
// S14 lstm: for t < T, z = W [h(t-1); x(t)] + b, split in four of 16: i, f, o = sigmoid, g = tanh;
// c(t) = f c(t-1) + i g; h(t) = o tanh(c(t)); f(W, b) = sum_t sum(h(t) .* y(t)); h(-1) = c(-1) = 0.
// x(t), y(t) = 2u - 1 (all of x, then all of y), then W (64 x 32) and b (64) = 0.2u - 0.1.

inline constexpr std::size_t s14_hidden = 16, s14_input = 16, s14_steps = 64;
inline constexpr std::size_t s14_gates = 4 * s14_hidden, s14_joined = s14_hidden + s14_input;
using s14_weights = tl::matrix<double, s14_gates, s14_joined>;
using s14_bias = tl::vector<double, s14_gates>;
using s14_gradient = std::tuple<s14_weights, s14_bias>;

struct s14_in {
  std::vector<tl::vector<double, s14_input>> x;   // one per step: the sequence's length is read at run time
  std::vector<tl::vector<double, s14_hidden>> y;  // the weights of h(t) in the loss
  s14_weights W;
  s14_bias b;
};

inline s14_in s14_inputs() {
  tapeless_bench::input_stream u;
  s14_in in{std::vector<tl::vector<double, s14_input>>(s14_steps),
            std::vector<tl::vector<double, s14_hidden>>(s14_steps),
            {},
            {}};
  for (auto& x_t : in.x)
    for (auto& v : x_t) v = u.uniform(-1.0, 1.0);
  for (auto& y_t : in.y)
    for (auto& v : y_t) v = u.uniform(-1.0, 1.0);
  for (auto& v : in.W) v = u.uniform(-0.1, 0.1);
  for (auto& v : in.b) v = u.uniform(-0.1, 0.1);
  return in;
}

/// S14's gradient by tl::iterate over the steps (lstm_tapeless.cpp).
s14_gradient s14_tapeless_gradient(const s14_in& in);

}  // namespace tapeless_bench
