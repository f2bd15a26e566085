// SPDX-License-Identifier: BSL-1.0
// test/support/iterate_check.hpp: loops that carry a state, for the tests of tl::iterate: each step
// written for tapeless, and the same loop with its adjoint derived by hand in plain doubles.
//
//   oscillator          the damped oscillator by explicit Euler: x' = x + dt v, v' = v + dt (-kk x - c v),
//                       and its loss (x(n) - 0.25)^2 + v(n), in (x0, v0, kk, c)
//   recurrence          s' = tanh(A s + b u[k]) on 3-vectors, with inputs u read at step k, and its
//                       loss sum(s(n)^2), in (s0, A, b)
#pragma once

#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <vector>

namespace iterate_check {

namespace tl = tapeless;

inline constexpr double dt = 0.01;

/// One Euler step of the damped oscillator, state (x, v), parameters kk and c.
inline constexpr auto oscillator_step = [](const auto& s, std::size_t, const auto& kk, const auto& c) {
  return tl::concat(s[0] + dt * s[1], s[1] + dt * (-kk * s[0] - c * s[1]));
};

/// The loss of a state (x, v).
inline constexpr auto oscillator_state_loss = [](const auto& s) { return tl::square(s[0] - 0.25) + s[1]; };

/// The loss after n steps from (x0, v0), as a function of (x0, v0, kk, c). The state is read twice, so
/// it is named by tl::let: the loop runs once.
inline auto oscillator_loss(std::size_t n) {
  return [n](const auto& x0, const auto& v0, const auto& kk, const auto& c) {
    return tl::let(tl::iterate(n, tl::concat(x0, v0), oscillator_step, kk, c), oscillator_state_loss);
  };
}

/// The loss and its gradient in (x0, v0, kk, c), by hand.
struct oscillator_expected {
  double value = 0;
  std::array<double, 4> gradient{};
};

inline oscillator_expected oscillator_by_hand(std::size_t n, double x0, double v0, double kk, double c) {
  std::vector<double> x(n + 1), v(n + 1);
  x[0] = x0;
  v[0] = v0;
  for (std::size_t k = 0; k < n; ++k) {
    x[k + 1] = x[k] + dt * v[k];
    v[k + 1] = v[k] + dt * (-kk * x[k] - c * v[k]);
  }
  oscillator_expected e;
  e.value = (x[n] - 0.25) * (x[n] - 0.25) + v[n];
  double ax = 2 * (x[n] - 0.25), av = 1, akk = 0, ac = 0;
  for (std::size_t k = n; k-- > 0;) {
    const double w = dt * av;  // the adjoint of -kk x - c v
    akk += -(w * x[k]);
    ac += -(w * v[k]);
    const double ax_before = ax + w * -kk;
    const double av_before = ax * dt + av - w * c;
    ax = ax_before;
    av = av_before;
  }
  e.gradient = {ax, av, akk, ac};
  return e;
}

using vec3 = tl::vector<double, 3>;
using mat3 = tl::matrix<double, 3, 3>;

/// s' = tanh(A s + b u[k]), u captured.
inline auto recurrence_step(const std::vector<double>& u) {
  return [&u](const auto& s, std::size_t k, const auto& A, const auto& b) {
    return tl::tanh(tl::matmul(A, s) + b * u[k]);
  };
}

/// The recurrence's inputs: n inputs u, the initial state, A and b, drawn from rng.
struct recurrence_inputs {
  std::vector<double> u;
  vec3 s0;
  mat3 A;
  vec3 b;
};
inline recurrence_inputs draw_recurrence(fd::rng& rng, std::size_t n) {
  recurrence_inputs in{std::vector<double>(n), {}, {}, {}};
  for (double& x : in.u) x = rng.uniform(-1, 1);
  for (std::size_t i = 0; i < 3; ++i) in.s0[i] = rng.uniform(-1, 1);
  for (std::size_t i = 0; i < 9; ++i) in.A[i] = rng.uniform(-0.8, 0.8);
  for (std::size_t i = 0; i < 3; ++i) in.b[i] = rng.uniform(-1, 1);
  return in;
}

/// sum(s(n)^2) after u.size() steps, in (s0, A, b).
inline auto recurrence_loss(const std::vector<double>& u) {
  return [&u](const auto& s0, const auto& A, const auto& b) {
    return tl::sum(tl::square(tl::iterate(u.size(), s0, recurrence_step(u), A, b)));
  };
}

struct recurrence_expected {
  double value = 0;
  vec3 ds0{};
  mat3 dA{};
  vec3 db{};
};

inline recurrence_expected recurrence_by_hand(const std::vector<double>& u, const vec3& s0, const mat3& A,
                                              const vec3& b) {
  const std::size_t n = u.size();
  std::vector<std::array<double, 3>> s(n + 1);
  for (std::size_t i = 0; i < 3; ++i) s[0][i] = s0[i];
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = 0; i < 3; ++i) {
      double z = 0;
      for (std::size_t j = 0; j < 3; ++j) z += A(i, j) * s[k][j];
      s[k + 1][i] = std::tanh(z + b[i] * u[k]);
    }
  recurrence_expected e;
  std::array<double, 3> a{};
  for (std::size_t i = 0; i < 3; ++i) {
    e.value += s[n][i] * s[n][i];
    a[i] = 2 * s[n][i];
  }
  for (std::size_t k = n; k-- > 0;) {
    std::array<double, 3> dz{}, before{};
    for (std::size_t i = 0; i < 3; ++i) dz[i] = a[i] * (1 - s[k + 1][i] * s[k + 1][i]);
    for (std::size_t i = 0; i < 3; ++i) {
      e.db[i] += dz[i] * u[k];
      for (std::size_t j = 0; j < 3; ++j) {
        e.dA(i, j) += dz[i] * s[k][j];
        before[j] += A(i, j) * dz[i];
      }
    }
    a = before;
  }
  for (std::size_t i = 0; i < 3; ++i) e.ds0[i] = a[i];
  return e;
}

/// At `points` seeded random points (x0, v0, kk, c), each with a step count below 300, the gradient of
/// loss_of(n) against central differences and tl::check_gradient.
template <class LossOf>
void check_oscillator_at_random_points(const LossOf& loss_of, std::uint64_t seed, int points) {
  fd::rng rng{seed};
  for (int point = 0; point < points; ++point) {
    const double x0 = rng.uniform(-2, 2), v0 = rng.uniform(-2, 2), kk = rng.uniform(0.5, 4), c = rng.uniform(0, 2);
    const auto n = static_cast<std::size_t>(rng.uniform(0, 300));
    CAPTURE(n);
    const auto loss = loss_of(n);
    const auto g = tl::grad(loss)(x0, v0, kk, c);
    const auto want =
        fd::gradient([&](double a, double b, double k, double d) { return loss(a, b, k, d); }, x0, v0, kk, c);
    CHECK(fd::rel_error(std::get<0>(g), want[0]) < 1e-8);
    CHECK(fd::rel_error(std::get<1>(g), want[1]) < 1e-8);
    CHECK(fd::rel_error(std::get<2>(g), want[2]) < 1e-8);
    CHECK(fd::rel_error(std::get<3>(g), want[3]) < 1e-8);
    CHECK(tl::check_gradient(loss, x0, v0, kk, c));
  }
}

}  // namespace iterate_check
