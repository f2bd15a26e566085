// SPDX-License-Identifier: BSL-1.0
// The README's quick start: gradients of a function of two numbers, four ways.
#include <tapeless/tapeless.hpp>

#include <cstdio>
#include <tuple>

namespace tl = tapeless;

int main() {
  // f(x1, x2) = (x1 - x2)^2 + cos(x1 + x2), written once for numbers and for tapeless alike.
  auto f = [](auto x1, auto x2) { return tl::pow(x1 - x2, 2) + tl::cos(x1 + x2); };

  auto [g1, g2] = tl::grad(f)(1.0, 2.0);          // the gradient: a std::tuple
  auto [v, g] = tl::value_and_grad(f)(1.0, 2.0);  // the value too, from the same sweep
  double g2_only = tl::grad<1>(f)(1.0, 2.0);      // only with respect to x2
  constexpr auto cg = tl::grad(f)(1.0, 2.0);      // at compile time
  static_assert(std::get<0>(cg) < -2.14 && std::get<0>(cg) > -2.15);

  std::printf("grad f(1, 2)   = (%.5f, %.5f)\n", g1, g2);
  std::printf("f(1, 2)        = %.5f, df/dx1 = %.5f\n", v, std::get<0>(g));
  std::printf("df/dx2         = %.5f\n", g2_only);

  // A shared intermediate, evaluated and swept once: let.
  auto h = [](auto x1, auto x2) { return tl::let(x1 - x2, [](auto t) { return t * t + tl::sin(t); }); };
  auto [h1, h2] = tl::grad(h)(1.0, 2.0);
  std::printf("grad h(1, 2)   = (%.5f, %.5f)\n", h1, h2);

  // The imperative form, as in PyTorch.
  tl::var<double> x{3.0}, y{10.0};
  auto z = x * x + x * y;
  z.backward();
  std::printf("z = %g, dz/dx = %g, dz/dy = %g\n", z.value(), x.grad(), y.grad());
}
