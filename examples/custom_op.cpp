// SPDX-License-Identifier: BSL-1.0
// An operation of one's own, sinc (examples/sinc.hpp), used as tapeless's own are: its gradient near
// 0 against the closed form's, on a matrix, to second order, and in a constant expression.
#include "sinc.hpp"

#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstdio>

namespace tl = tapeless;
using example::sinc;

int main() {
  int failures = 0;
  const auto check = [&](bool ok, const char* what) {
    if (!ok) {
      std::printf("FAILED: %s\n", what);
      ++failures;
    }
  };

  // Near 0 the series branch keeps every digit the closed form (x cos x - sin x) / x^2 loses.
  const auto f = [](const auto& x) { return sinc(x); };
  for (double x : {0.0, 1e-3, 0.3, 2.0}) {
    const auto [value, slope] = tl::value_and_grad(f)(x);
    const double closed = x == 0.0 ? 0.0 : (x * std::cos(x) - std::sin(x)) / (x * x);
    std::printf("x = %-6g sinc %.17g  d/dx %.17g  (closed form %.17g)\n", x, value, slope, closed);
  }
  check(tl::grad(f)(0.0) == 0.0, "sinc'(0) = 0");
  const double t = 1e-3, leading_terms = -t / 3 + t * t * t / 30 - t * t * t * t * t / 840;
  check(std::abs(tl::grad(f)(t) / leading_terms - 1) < 1e-15, "sinc'(1e-3) to every digit");

  // On a matrix, element by element (in SIMD batches where the machine has them).
  const tl::matrix<double, 2, 4> a{{0.0, 0.1, 0.5, 1.0}, {-2.0, 3.0, 1e-4, -0.7}};
  const auto g = tl::grad([](const auto& m) { return tl::sum(sinc(m)); })(a);
  for (std::size_t i = 0; i < a.size(); ++i) check(g[i] == tl::grad(f)(a[i]), "a matrix element by element");

  // Second order: sinc''(0) = -1/3.
  const double h = tl::hessian(f)(0.0);
  std::printf("sinc''(0) = %.17g\n", h);
  check(std::abs(h + 1.0 / 3) < 1e-15, "sinc''(0) = -1/3");

  // In a constant expression.
  static_assert(tl::grad(f)(0.0) == 0.0);
  static_assert(tl::grad(f)(0.25) < 0.0 && tl::grad(f)(0.25) > -0.25 / 3);
  return failures == 0 ? 0 : 1;
}
