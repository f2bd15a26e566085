// SPDX-License-Identifier: BSL-1.0
// Where tl::iterate keeps its states: in one allocation per gradient by default, none for zero steps
// or on plain values; in a caller's tl::workspace, given to tl::iterate or to the transform, none once
// it is large enough, also for two loops of one expression on one workspace (and so for a result read
// twice as a local, not through tl::let, which is two copies of the loop). The global operator new is
// replaced and counted around each call. The gradients agree bit for bit whichever memory holds the
// states.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <iterate_check.hpp>

#include <cstddef>
#include <tuple>

namespace tl = tapeless;
using namespace iterate_check;
using test_support::allocations_during;

TEST_CASE("the states of one gradient take one allocation; none for zero steps or plain values") {
  std::tuple<double, double, double, double> g{};
  for (const std::size_t n : {1, 2, 1000, 100000}) {
    CAPTURE(n);
    CHECK(allocations_during([&] { g = tl::grad(oscillator_loss(n))(1.0, -0.5, 2.0, 0.5); }) == 1);
  }
  CHECK(allocations_during([&] { g = tl::grad(oscillator_loss(0))(1.0, -0.5, 2.0, 0.5); }) == 0);
  double value = 0;
  CHECK(allocations_during([&] { value = oscillator_loss(1000)(1.0, -0.5, 2.0, 0.5); }) == 0);
  CHECK(value == oscillator_by_hand(1000, 1.0, -0.5, 2.0, 0.5).value);
}

TEST_CASE("a workspace: one allocation to grow, none after, the same gradient bit for bit") {
  tl::workspace ws;
  CHECK(ws.capacity() == 0);
  const auto in_workspace = [&ws](std::size_t n) {
    return [n, &ws](const auto& x0, const auto& v0, const auto& kk, const auto& c) {
      return tl::let(tl::iterate(ws, n, tl::concat(x0, v0), oscillator_step, kk, c), oscillator_state_loss);
    };
  };
  std::tuple<double, double, double, double> g{};
  CHECK(allocations_during([&] { g = tl::grad(in_workspace(1000))(1.0, -0.5, 2.0, 0.5); }) == 1);
  CHECK(ws.capacity() >= 1000 * sizeof(tl::vector<double, 2>));
  CHECK(g == tl::grad(oscillator_loss(1000))(1.0, -0.5, 2.0, 0.5));
  for (const std::size_t n : {1000, 10, 0, 999}) {
    CAPTURE(n);
    CHECK(allocations_during([&] { g = tl::grad(in_workspace(n))(1.0, -0.5, 2.0, 0.5); }) == 0);
    CHECK(g == tl::grad(oscillator_loss(n))(1.0, -0.5, 2.0, 0.5));
  }
  // More steps than it holds: it grows once.
  CHECK(allocations_during([&] { g = tl::grad(in_workspace(5000))(1.0, -0.5, 2.0, 0.5); }) == 1);
  CHECK(allocations_during([&] { g = tl::grad(in_workspace(5000))(1.0, -0.5, 2.0, 0.5); }) == 0);
}

TEST_CASE("a workspace given to the transform holds the states of a loop of its own room too") {
  // The loop read once, inside the expression the sweep evaluates: its states take their room in the
  // transform's workspace. (A loop bound by tl::let is evaluated as f builds its expression, before
  // the sweep: it keeps its own room, unless tl::iterate is given the workspace.)
  const auto velocity_loss = [](std::size_t n) {
    return [n](const auto& x0, const auto& v0, const auto& kk, const auto& c) {
      return tl::square(tl::iterate(n, tl::concat(x0, v0), oscillator_step, kk, c)[1]);
    };
  };
  tl::workspace ws;
  std::tuple<double, double, double, double> g{};
  // The first call finds the workspace empty, and it grows after the sweep: then nothing is allocated.
  CHECK(allocations_during([&] { g = tl::grad(velocity_loss(1000), ws)(1.0, -0.5, 2.0, 0.5); }) == 2);
  CHECK(ws.capacity() >= 1000 * sizeof(tl::vector<double, 2>));
  for (const std::size_t n : {1000, 10, 0, 999}) {
    CAPTURE(n);
    CHECK(allocations_during([&] { g = tl::grad(velocity_loss(n), ws)(1.0, -0.5, 2.0, 0.5); }) == 0);
    CHECK(g == tl::grad(velocity_loss(n))(1.0, -0.5, 2.0, 0.5));
  }
  CHECK(allocations_during([&] { g = tl::grad(velocity_loss(1000))(1.0, -0.5, 2.0, 0.5); }) == 1);
  CHECK(allocations_during([&] { g = tl::grad(oscillator_loss(1000), ws)(1.0, -0.5, 2.0, 0.5); }) == 1);
}

TEST_CASE("two loops of one expression on one workspace: it grows to hold both, then allocates nothing") {
  tl::workspace ws;
  const auto two_loops = [&ws](const auto& kk, const auto& c) {
    const auto s = tl::iterate(ws, 300, tl::vector<double, 2>{1.0, 0.0}, oscillator_step, kk, c);
    const auto r = tl::iterate(ws, 500, tl::vector<double, 2>{0.0, 1.0}, oscillator_step, c, kk);
    return s[0] * r[1];
  };
  const auto apart = [](const auto& kk, const auto& c) {
    const auto s = tl::iterate(300, tl::vector<double, 2>{1.0, 0.0}, oscillator_step, kk, c);
    const auto r = tl::iterate(500, tl::vector<double, 2>{0.0, 1.0}, oscillator_step, c, kk);
    return s[0] * r[1];
  };
  std::tuple<double, double> g{};
  // The first gradient: the workspace grows for the first loop, the second allocates its own.
  CHECK(allocations_during([&] { g = tl::grad(two_loops)(2.0, 0.5); }) == 2);
  CHECK(g == tl::grad(apart)(2.0, 0.5));
  // The second grows it to hold both; from the third on, nothing.
  CHECK(allocations_during([&] { g = tl::grad(two_loops)(2.0, 0.5); }) == 1);
  CHECK(allocations_during([&] { g = tl::grad(two_loops)(2.0, 0.5); }) == 0);
  CHECK(g == tl::grad(apart)(2.0, 0.5));
  // reserve beforehand: no allocation at all.
  tl::workspace big(1 << 16);
  const auto in_big = [&big](const auto& kk, const auto& c) {
    return tl::sum(tl::iterate(big, 1000, tl::vector<double, 2>{1.0, 0.0}, oscillator_step, kk, c));
  };
  CHECK(allocations_during([&] { g = tl::grad(in_big)(2.0, 0.5); }) == 0);
}
