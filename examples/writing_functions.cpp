// SPDX-License-Identifier: BSL-1.0
// The styles of "Writing functions" in doc/guide.md that compile: generic code that also runs on plain
// doubles, a branch as tl::if_else, Ceres-style code of one type T run in forward mode, a tl::var
// moved by set_value, and a local used twice, which tl::trace marks as computed twice.
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

namespace tl = tapeless;

// Ceres-style: one type T for every argument and local, and two returns. tl::grad cannot run it (each
// argument is a node of its own type); forward mode runs it unchanged, with T = tl::dual<double>.
template <class T>
constexpr T ceres_style(const T& x, const T& y) {
  T t = x * y;
  if (t > T(1.0)) return tl::sin(t) + x;
  return t * t;
}

int main() {
  // Generic code: auto parameters and locals, unqualified calls after using std::...
  auto model = [](auto x, auto y) {
    using std::exp;
    using std::sin;
    auto t = x * y;
    return sin(t) + exp(-x);
  };
  double plain = model(1.0, 2.0);  // the same code on plain doubles
  auto [gx, gy] = tl::grad(model)(1.0, 2.0);
  std::printf("model(1, 2) = %.6f, gradient (%.6f, %.6f)\n", plain, gx, gy);

  // Two branches of different expression types: tl::if_else builds both, sends adjoint to the one taken.
  auto branchy = [](auto x) { return tl::if_else(x > 0.0, x * x, -x); };
  std::printf("d/dx at 2 and -2: %g, %g\n", tl::grad(branchy)(2.0), tl::grad(branchy)(-2.0));

  // Forward mode runs the Ceres-style function: one evaluation per direction.
  auto call = [](auto x, auto y) { return ceres_style(x, y); };
  auto [value, dx] = tl::jvp(call, std::tuple{1.0, 2.0}, std::tuple{1.0, 0.0});
  auto [same, dy] = tl::jvp(call, std::tuple{1.0, 2.0}, std::tuple{0.0, 1.0});
  tl::dual<double> d = ceres_style(tl::dual<double>{1.0, 1.0}, tl::dual<double>{2.0, 0.0});
  std::printf("ceres_style(1, 2) = %.6f, gradient (%.6f, %.6f), dual: %.6f + %.6f e\n", value, dx, dy, d.value,
              d.tangent);

  // A var is moved between steps with set_value: value() returns a copy, not a reference.
  tl::var<double> w{3.0};
  for (int step = 0; step < 3; ++step) {
    w.zero_grad();
    auto loss = w * w;
    loss.backward();
    w.set_value(w.value() - 0.25 * w.grad());
  }
  std::printf("w after 3 steps = %g\n", w.value());

  // A local used twice is two copies, each computed and swept: the trace marks the second.
  auto f = [](auto x1, auto x2) {
    auto d = x1 - x2;
    return d * tl::exp(d);  // two copies of x1 - x2
  };
  const std::string text = tl::trace(f, 1.0, 2.0).str();
  const bool marked = text.find("t2 = x1 - x2 = -1          same as t1, computed twice") != std::string::npos;
  return same == value && marked ? 0 : 1;
}
