// SPDX-License-Identifier: BSL-1.0
// Sums over indices and pairs: Rosenbrock's function as a loop over i, and the Lennard-Jones energy of
// particles as a loop over the pairs i < j, each a tl::sum_over whose body reads the parameters'
// elements by index. The particles' number comes from the command line (32 without one): their
// positions are a matrix of run-time rows, and so is the gradient. Each gradient is checked against
// its adjoint written by hand.
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>

namespace tl = tapeless;

int main(int argc, char** argv) {
  // Rosenbrock over the first n elements of x: n is known at run time, x's extent at compile time.
  constexpr std::size_t extent = 64;
  tl::vector<double, extent> x{};
  for (std::size_t k = 0; k < extent; ++k) x[k] = std::cos(0.3 * static_cast<double>(k));
  const std::size_t n = 50;
  auto rosenbrock = [n](const auto& x) {
    return tl::sum_over(
        tl::indices(n - 1),
        [](std::size_t i, const auto& x) {
          return 100.0 * tl::square(x[i + 1] - tl::square(x[i])) + tl::square(1.0 - x[i]);
        },
        x);
  };
  const auto [value, g] = tl::value_and_grad(rosenbrock)(x);

  tl::vector<double, extent> by_hand{};
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const double a = x[i + 1] - x[i] * x[i];
    by_hand[i] += -400.0 * a * x[i] - 2.0 * (1.0 - x[i]);
    by_hand[i + 1] += 200.0 * a;
  }
  double worst = 0;
  for (std::size_t k = 0; k < extent; ++k) worst = std::fmax(worst, std::fabs(g[k] - by_hand[k]));
  std::printf("Rosenbrock over %zu indices: value %.6f, largest difference from the hand-written adjoint %.1e\n", n - 1,
              value, worst);

  // The Lennard-Jones energy of N particles on a jittered lattice, p holding one particle per row and N
  // known at run time; its gradient, of p's type, is minus the forces.
  const std::size_t particles = argc > 1 ? std::stoul(argv[1]) : 32;
  tl::matrix<double, tl::dynamic, 3> p(particles, 3);
  for (std::size_t k = 0; k < particles; ++k) {
    p(k, 0) = 1.1 * static_cast<double>(k % 4) + 0.05 * std::sin(static_cast<double>(k));
    p(k, 1) = 1.1 * static_cast<double>((k / 4) % 4) + 0.05 * std::cos(static_cast<double>(3 * k));
    p(k, 2) = 1.1 * static_cast<double>(k / 16);
  }
  auto energy = [](const auto& p) {
    return tl::sum_over(
        tl::pairs(p.rows()),
        [](std::size_t i, std::size_t j, const auto& p) {
          const auto s6 = tl::pow(tl::squared_norm(tl::row(p, i) - tl::row(p, j)), -3.0);  // (sigma / r)^6
          return 4.0 * (tl::square(s6) - s6);
        },
        p);
  };
  const auto [e, de] = tl::value_and_grad(energy)(p);

  tl::matrix<double, tl::dynamic, 3> forces(particles, 3);
  for (std::size_t i = 0; i < particles; ++i)
    for (std::size_t j = i + 1; j < particles; ++j) {
      double r[3], r2 = 0;
      for (std::size_t c = 0; c < 3; ++c) {
        r[c] = p(i, c) - p(j, c);
        r2 += r[c] * r[c];
      }
      const double s6 = 1.0 / (r2 * r2 * r2);
      const double f = 24.0 * s6 * (2.0 * s6 - 1.0) / r2;  // -dE/dr divided by r
      for (std::size_t c = 0; c < 3; ++c) {
        forces(i, c) += f * r[c];
        forces(j, c) -= f * r[c];
      }
    }
  double worst_force = 0;
  for (std::size_t k = 0; k < forces.size(); ++k) worst_force = std::fmax(worst_force, std::fabs(de[k] + forces[k]));
  std::printf("Lennard-Jones over %zu pairs: energy %.6f, largest difference from the hand-written forces %.1e\n",
              particles * (particles - 1) / 2, e, worst_force);
  return worst < 1e-9 && worst_force < 1e-9 ? 0 : 1;
}
