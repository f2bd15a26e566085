// SPDX-License-Identifier: BSL-1.0
// Gradients of arithmetic, checked by the compiler: this file passes by compiling.
#include <tapeless/tapeless.hpp>

#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

constexpr auto cube = [](auto x) { return x * x * x; };
static_assert(tl::grad(cube)(2.0) == 12.0);
static_assert(std::is_same_v<decltype(tl::grad(cube)(2.0)), double>);
static_assert(std::is_same_v<decltype(tl::grad(cube)(2.0f)), float>);

constexpr auto poly = [](auto x, auto y) { return 3.0 * x * y - y / x + 2 * x - 1; };
static_assert(std::is_same_v<decltype(tl::grad(poly)(1.0, 2.0)), std::tuple<double, double>>);
static_assert(tl::grad(poly)(1.0, 2.0) == std::tuple{3.0 * 2.0 + 2.0 + 2.0, 3.0 - 1.0});
static_assert(tl::grad<1>(poly)(1.0, 2.0) == 2.0);
static_assert(tl::grad<1, 0>(poly)(1.0, 2.0) == std::tuple{2.0, 10.0});
static_assert(tl::value_and_grad(poly)(1.0, 2.0).first == 6.0 - 2.0 + 2.0 - 1.0);

// Fan-out: a value used twice receives its adjoint twice.
static_assert(tl::grad([](auto x) { return x + x; })(5.0) == 2.0);
// A function that ignores its argument has a zero gradient.
static_assert(tl::grad([](auto) { return 4.0; })(5.0) == 0.0);
// Locals and let.
static_assert(tl::grad([](auto x) {
                auto t = x - 1.0;
                return t * t;
              })(3.0) == 4.0);
static_assert(tl::grad([](auto x) { return tl::let(x * x, [](auto t) { return t * t + t; }); })(2.0) ==
              4.0 * 8.0 + 4.0);
// The imperative form runs at compile time too.
static_assert([] {
  tl::var<double> x{3.0}, y{10.0};
  auto z = x * x + x * y;
  z.backward();
  return x.grad() == 16.0 && y.grad() == 3.0 && z.value() == 39.0;
}());

}  // namespace
