// SPDX-License-Identifier: BSL-1.0
// A loop of run-time length that carries a state: a damped oscillator integrated by explicit Euler for
// n steps with tl::iterate, and the gradient of a loss of its final state in the spring constant, the
// damping and the initial state. The states the reverse sweep reads are stored, one allocation per
// gradient, or none in a tl::workspace that serves every gradient after the first, or at most 32 of
// them are kept on the stack and the others recomputed (tl::checkpoints<32>).
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tl = tapeless;

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::stoul(argv[1]) : 1000;  // a run-time step count
  const double dt = 0.01;

  // One step: s = (x, v) -> (x + dt v, v + dt (-kk x - c v)), the state a 2-vector expression.
  const auto euler = [dt](const auto& s, std::size_t /*k*/, const auto& kk, const auto& c) {
    return tl::concat(s[0] + dt * s[1], s[1] + dt * (-kk * s[0] - c * s[1]));
  };
  // The loss of the state after n steps from (x0, v0); tl::let reads the state twice, and runs the loop once.
  auto loss = [&](const auto& x0, const auto& v0, const auto& kk, const auto& c) {
    return tl::let(tl::iterate(n, tl::concat(x0, v0), euler, kk, c),
                   [](const auto& s) { return tl::square(s[0] - 0.25) + s[1]; });
  };
  const auto [value, g] = tl::value_and_grad(loss)(1.0, 0.0, 2.0, 0.5);
  const auto [dx0, dv0, dkk, dc] = g;
  std::printf("%zu steps: loss %.6f\n", n, value);
  std::printf("d/dkk %.6f  d/dc %.6f  d/dx0 %.6f  d/dv0 %.6f\n", dkk, dc, dx0, dv0);

  // The same in a workspace the caller keeps: from the second gradient on, nothing is allocated.
  tl::workspace ws;
  auto loss_in_ws = [&](const auto& x0, const auto& v0, const auto& kk, const auto& c) {
    return tl::let(tl::iterate(ws, n, tl::concat(x0, v0), euler, kk, c),
                   [](const auto& s) { return tl::square(s[0] - 0.25) + s[1]; });
  };
  auto gradient = tl::grad(loss_in_ws);
  bool same = true;
  for (int call = 0; call < 3; ++call) same = same && gradient(1.0, 0.0, 2.0, 0.5) == g;

  // At most 32 states kept, on the stack inside the gradient: no heap for any n, and the same gradient.
  auto loss_checkpointed = [&](const auto& x0, const auto& v0, const auto& kk, const auto& c) {
    return tl::let(tl::iterate(tl::checkpoints<32>{}, n, tl::concat(x0, v0), euler, kk, c),
                   [](const auto& s) { return tl::square(s[0] - 0.25) + s[1]; });
  };
  const bool same_checkpointed = tl::grad(loss_checkpointed)(1.0, 0.0, 2.0, 0.5) == g;

  // On plain numbers the loss is a plain number: central differences check the gradient.
  const double h = 1e-6;
  const double fd_kk = (loss(1.0, 0.0, 2.0 + h, 0.5) - loss(1.0, 0.0, 2.0 - h, 0.5)) / (2 * h);
  const double fd_c = (loss(1.0, 0.0, 2.0, 0.5 + h) - loss(1.0, 0.0, 2.0, 0.5 - h)) / (2 * h);
  const bool agrees = std::abs(fd_kk - dkk) < 1e-6 && std::abs(fd_c - dc) < 1e-6;
  std::printf("workspace: %s; checkpoints<32>: %s; finite differences: %s\n", same ? "same gradient" : "DIFFERENT",
              same_checkpointed ? "same gradient" : "DIFFERENT", agrees ? "agree" : "DISAGREE");
  return same && same_checkpointed && agrees ? EXIT_SUCCESS : EXIT_FAILURE;
}
