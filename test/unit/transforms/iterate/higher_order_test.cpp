// SPDX-License-Identifier: BSL-1.0
// Second order through tl::iterate, whose loop then runs in dual numbers: tl::hessian, tl::jvp and grad
// of grad against finite differences of the gradient, for the oscillator (a vector state) and the tanh
// recurrence (a matrix parameter); and tl::iterate in constant expressions, on plain values and in a
// gradient, against values worked out by hand.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <iterate_check.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <tuple>
#include <vector>

namespace tl = tapeless;
using namespace iterate_check;

namespace {

/// The oscillator's gradient in (x0, v0, kk, c) as an array.
std::array<double, 4> oscillator_gradient(std::size_t n, const std::array<double, 4>& p) {
  const auto g = tl::grad(oscillator_loss(n))(p[0], p[1], p[2], p[3]);
  return {std::get<0>(g), std::get<1>(g), std::get<2>(g), std::get<3>(g)};
}

/// d (gradient i) / d p_j by finite differences of the gradient.
double gradient_derivative(std::size_t n, std::array<double, 4> p, std::size_t i, std::size_t j) {
  return fd::derivative(
      [&](double x) {
        auto moved = p;
        moved[j] = x;
        return oscillator_gradient(n, moved)[i];
      },
      p[j]);
}

}  // namespace

TEST_CASE("tl::hessian, tl::jvp and grad of grad through the oscillator, against differences of its gradient") {
  fd::rng rng{42};
  for (const std::size_t n : {0, 1, 2, 33, 200}) {
    CAPTURE(n);
    const std::array<double, 4> p{rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(0.5, 4), rng.uniform(0, 2)};
    const auto loss = oscillator_loss(n);
    const auto H = tl::hessian(loss)(p[0], p[1], p[2], p[3]);
    const std::array<std::array<double, 4>, 4> h{{{std::get<0>(std::get<0>(H)), std::get<1>(std::get<0>(H)),
                                                   std::get<2>(std::get<0>(H)), std::get<3>(std::get<0>(H))},
                                                  {std::get<0>(std::get<1>(H)), std::get<1>(std::get<1>(H)),
                                                   std::get<2>(std::get<1>(H)), std::get<3>(std::get<1>(H))},
                                                  {std::get<0>(std::get<2>(H)), std::get<1>(std::get<2>(H)),
                                                   std::get<2>(std::get<2>(H)), std::get<3>(std::get<2>(H))},
                                                  {std::get<0>(std::get<3>(H)), std::get<1>(std::get<3>(H)),
                                                   std::get<2>(std::get<3>(H)), std::get<3>(std::get<3>(H))}}};
    std::array<std::array<double, 4>, 4> by_differences{};
    for (std::size_t i = 0; i < 4; ++i)
      for (std::size_t j = 0; j < 4; ++j) {
        CAPTURE(i);
        CAPTURE(j);
        by_differences[i][j] = gradient_derivative(n, p, i, j);
        CHECK(fd::rel_error(h[i][j], by_differences[i][j]) < 1e-8);
      }
    // jvp: the value, and the gradient along a direction.
    const std::array<double, 4> v{0.5, -1.0, 0.25, 2.0};
    const auto [value, slope] = tl::jvp(loss, std::tuple{p[0], p[1], p[2], p[3]}, std::tuple{v[0], v[1], v[2], v[3]});
    const auto g = oscillator_gradient(n, p);
    const auto e = oscillator_by_hand(n, p[0], p[1], p[2], p[3]);
    CHECK(fd::rel_error(value, e.value) < 1e-13);
    CHECK(fd::rel_error(slope, g[0] * v[0] + g[1] * v[1] + g[2] * v[2] + g[3] * v[3]) < 1e-12);
    // grad of grad: d2/dkk2 with the others plain, and a row of the Hessian in (kk, c).
    const auto of_kk = [n, &p](const auto& kk) { return oscillator_loss(n)(p[0], p[1], kk, p[3]); };
    CHECK(fd::rel_error(tl::grad(tl::grad(of_kk))(p[2]), by_differences[2][2]) < 1e-8);
    const auto of_kk_c = [n, &p](const auto& kk, const auto& c) { return oscillator_loss(n)(p[0], p[1], kk, c); };
    const auto [hck, hcc] = tl::grad(tl::grad<1>(of_kk_c))(p[2], p[3]);
    CHECK(fd::rel_error(hck, by_differences[3][2]) < 1e-8);
    CHECK(fd::rel_error(hcc, by_differences[3][3]) < 1e-8);
  }
}

TEST_CASE("tl::hessian through the tanh recurrence in b, a vector parameter whose seed is a matrix of duals") {
  fd::rng rng{43};
  std::vector<double> u(25);
  for (double& x : u) x = rng.uniform(-1, 1);
  const vec3 s0{0.3, -0.2, 0.5};
  mat3 A{};
  for (std::size_t i = 0; i < 9; ++i) A[i] = rng.uniform(-0.8, 0.8);
  const vec3 b{0.4, -0.7, 0.1};
  const auto of_b = [&](const auto& bb) { return recurrence_loss(u)(s0, A, bb); };
  const tl::matrix<double, 3, 3> H = tl::hessian(of_b)(b);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      const double by_differences = fd::derivative(
          [&](double x) {
            vec3 moved = b;
            moved[j] = x;
            return tl::grad(of_b)(moved)[i];
          },
          b[j]);
      CHECK(fd::rel_error(H(i, j), by_differences) < 1e-8);
    }
}

namespace {

// s' = a s + 1 from s0, three steps: s3 = a^3 s0 + a^2 + a + 1, d/ds0 = a^3, d/da = 3 a^2 s0 + 2 a + 1,
// d2/da2 = 6 a s0 + 2. At a = 0.5, s0 = 2: s3 = 1.75 + 0.25 + 0.5 + 1 ... all exact in binary.
constexpr auto affine_step = [](const auto& s, std::size_t, const auto& a) { return a * s + 1.0; };
constexpr auto three_steps = [](const auto& s0, const auto& a) { return tl::iterate(3, s0, affine_step, a); };

// The state a vector: (x, y)' = (y, x + k) with k the step index, two steps from (1, 2) times a.
constexpr auto swap_step = [](const auto& s, std::size_t k, const auto& a) {
  return tl::concat(a * s[1], s[0] + static_cast<double>(k));
};

}  // namespace

TEST_CASE("in constant expressions: plain values, a gradient, a second derivative") {
  static_assert(three_steps(2.0, 0.5) == 0.25 + 0.25 + 0.5 + 1.0);
  constexpr auto g = tl::grad(three_steps)(2.0, 0.5);
  static_assert(std::get<0>(g) == 0.125);
  static_assert(std::get<1>(g) == 3 * 0.25 * 2 + 2 * 0.5 + 1);
  static_assert(tl::grad(tl::grad<1>(three_steps))(2.0, 0.5) == std::tuple{3 * 0.25, 6 * 0.5 * 2 + 2});
  static_assert(std::get<1>(std::get<1>(tl::hessian(three_steps)(2.0, 0.5))) == 6 * 0.5 * 2 + 2);
  // Zero steps: init itself, and the gradient 1 in init, +0 in the parameter.
  static_assert(tl::grad([](const auto& s0, const auto& a) { return tl::iterate(0, s0, affine_step, a); })(2.0, 0.5) ==
                std::tuple{1.0, 0.0});
  // A vector state: s1 = (2a, 1), s2 = (a, 2a + 1); sum = 3a + 1, d/da = 3.
  constexpr auto vector_sum = [](const auto& a) {
    return tl::sum(tl::iterate(2, tl::vector<double, 2>{1.0, 2.0}, swap_step, a));
  };
  static_assert(vector_sum(0.5) == 2.5);
  static_assert(tl::grad(vector_sum)(0.5) == 3.0);
  CHECK(tl::grad(vector_sum)(0.5) == 3.0);
}

TEST_CASE("plain values as init and parameters give a plain value, whatever the number type") {
  const double s = tl::iterate(10, 1.0, affine_step, 0.5);
  double by_hand = 1.0;
  for (int k = 0; k < 10; ++k) by_hand = 0.5 * by_hand + 1.0;
  CHECK(s == by_hand);
  const float sf = tl::iterate(10, 1.0f, affine_step, 0.5f);
  CHECK(sf == doctest::Approx(by_hand));
  const tl::vector<double, 2> v = tl::iterate(2, tl::vector<double, 2>{1.0, 2.0}, swap_step, 0.5);
  CHECK(v == tl::vector<double, 2>{0.5, 2.0});  // (1, 2) -> (1, 1) -> (0.5, 2)
  // An integer init is a number of the parameters' type.
  CHECK(tl::iterate(10, 1, affine_step, 0.5) == by_hand);
}
