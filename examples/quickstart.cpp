// SPDX-License-Identifier: BSL-1.0
// The README's example: gradients of a function of two numbers, of a vector, and the imperative form.
#include <tapeless/tapeless.hpp>

#include <cstdio>
#include <tuple>

namespace tl = tapeless;

int main() {
  auto f = [](auto x1, auto x2) { return tl::pow(x1 - x2, 2) + tl::cos(x1 + x2); };

  auto [g1, g2] = tl::grad(f)(1.0, 2.0);          // the gradient: a std::tuple
  auto [v, g] = tl::value_and_grad(f)(1.0, 2.0);  // the value too, from the same sweep
  double g2_only = tl::grad<1>(f)(1.0, 2.0);      // only with respect to x2; x1 is a constant
  constexpr auto cg = tl::grad(f)(1.0, 2.0);      // at compile time
  static_assert(std::get<0>(cg) < -2.14 && std::get<0>(cg) > -2.15);

  tl::vector<double, 3> x{1.0, 2.0, 3.0};  // a matrix argument: its gradient has its type
  tl::vector<double, 3> gx = tl::grad([](const auto& u) { return tl::sum(tl::square(u)); })(x);

  tl::var<double> a{3.0}, b{10.0};  // the imperative form, as in PyTorch
  auto z = a * a + a * b;
  z.backward();

  std::printf("grad f(1, 2) = (%.5f, %.5f)\n", g1, g2);
  std::printf("f(1, 2) = %.5f, df/dx1 = %.5f, df/dx2 = %.5f\n", v, std::get<0>(g), g2_only);
  std::printf("d/dx sum(x^2) at (1, 2, 3) = (%g, %g, %g)\n", gx[0], gx[1], gx[2]);
  std::printf("z = %g, dz/da = %g, dz/db = %g\n", z.value(), a.grad(), b.grad());

  // A shared intermediate, evaluated and swept once: let.
  auto h = [](auto x1, auto x2) { return tl::let(x1 - x2, [](auto t) { return t * t + tl::sin(t); }); };
  auto [h1, h2] = tl::grad(h)(1.0, 2.0);
  std::printf("grad h(1, 2) = (%.5f, %.5f)\n", h1, h2);
}
