// SPDX-License-Identifier: BSL-1.0
// The README's quick start and transforms, checked by the compiler: this file passes by compiling.
//
// The quick start's gradients are computed in constant expressions (cos and sin included, so this
// needs tapeless::math::cx evaluable at compile time), and the result types of the transforms and
// of tl:: functions on plain numbers are pinned down with decltype.
#include <tapeless/tapeless.hpp>

#include <tuple>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

constexpr double abs_(double x) { return x < 0 ? -x : x; }
/// |a - b| <= tol * max(1, |b|)
constexpr bool close(double a, double b, double tol = 1e-12) {
  return abs_(a - b) <= tol * (abs_(b) > 1 ? abs_(b) : 1.0);
}

// ---- the README quick start ---------------------------------------------------------------------
constexpr auto f = [](auto x1, auto x2) { return tl::pow(x1 - x2, 2) + tl::cos(x1 + x2); };

constexpr auto cg = tl::grad(f)(1.0, 2.0);
static_assert(std::get<0>(cg) < -2.14 && std::get<0>(cg) > -2.15);
static_assert(std::get<1>(cg) > 1.85 && std::get<1>(cg) < 1.86);
// (2 (x1 - x2) - sin(x1 + x2), -2 (x1 - x2) - sin(x1 + x2)) at (1, 2), to 40 digits
static_assert(close(std::get<0>(cg), -2.1411200080598672221));
static_assert(close(std::get<1>(cg), 1.8588799919401327779));

constexpr auto vg = tl::value_and_grad(f)(1.0, 2.0);
static_assert(close(vg.first, 0.010007503399554542728));  // 1 + cos 3
static_assert(vg.second == cg);
static_assert(tl::grad<1>(f)(1.0, 2.0) == std::get<1>(cg));
static_assert(tl::grad<0>(f)(1.0, 2.0) == std::get<0>(cg));
static_assert(tl::grad<0, 1>(f)(1.0, 2.0) == cg);
static_assert(tl::grad<1, 0>(f)(1.0, 2.0) == std::tuple{std::get<1>(cg), std::get<0>(cg)});
static_assert(tl::value_and_grad<1>(f)(1.0, 2.0) == std::pair{vg.first, std::get<1>(cg)});
static_assert(tl::grad([](auto x) { return x * x * x; })(2.0) == 12.0);

// The let form of the README: h = t^2 + sin t with t = x1 - x2: gradient (2t + cos t)(1, -1)
constexpr auto h = [](auto x1, auto x2) { return tl::let(x1 - x2, [](auto t) { return t * t + tl::sin(t); }); };
constexpr auto hg = tl::grad(h)(1.0, 2.0);
static_assert(close(std::get<0>(hg), -2.0 + 0.54030230586813971740));  // -2 + cos 1
static_assert(std::get<1>(hg) == -std::get<0>(hg));

// The second walkthrough: ln x1 + x1 x2 - sin x2 at (2, 3): (1/x1 + x2, x1 - cos x2)
constexpr auto w2 = tl::grad([](auto x1, auto x2) { return tl::log(x1) + x1 * x2 - tl::sin(x2); })(2.0, 3.0);
static_assert(close(std::get<0>(w2), 3.5));
static_assert(close(std::get<1>(w2), 2.9899924966004454573));

// The imperative form: z = x x + x y at (3, 10)
static_assert([] {
  tl::var<double> x{3.0}, y{10.0};
  auto z = x * x + x * y;
  z.backward();
  return x.grad() == 16.0 && y.grad() == 3.0 && z.value() == 39.0;
}());
// and through a generic function taking const auto&
static_assert([] {
  const auto g = [](const auto& a, const auto& b) { return a * a + a * b; };
  tl::var<double> x{3.0}, y{10.0};
  g(x, y).backward();
  return x.grad() == 16.0 && y.grad() == 3.0;
}());

// Branches, constants, captured data
static_assert(tl::grad([](auto x) { return tl::if_else(x > 0.0, x * x, -x); })(3.0) == 6.0);
static_assert(tl::grad([](auto x) { return tl::if_else(x > 0.0, x * x, -x); })(-3.0) == -1.0);
static_assert(tl::grad([](auto) { return 4.0; })(1.0) == 0.0);
static_assert(tl::grad([](auto, auto) { return 4.0; })(1.0, 2.0) == std::tuple{0.0, 0.0});
constexpr double c = 2.5;
static_assert(tl::grad([](auto x) { return 2.0 * x + x * c - c / x; })(1.0) == 2.0 + c + c);

// ---- result types -------------------------------------------------------------------------------
constexpr auto f1 = [](auto x) { return tl::sin(x) * x; };
static_assert(std::is_same_v<decltype(cg), const std::tuple<double, double>>);
static_assert(std::is_same_v<decltype(vg), const std::pair<double, std::tuple<double, double>>>);
static_assert(std::is_same_v<decltype(tl::grad(f1)(1.0)), double>);
static_assert(std::is_same_v<decltype(tl::grad(f1)(1.0f)), float>);
static_assert(std::is_same_v<decltype(tl::grad(f1)(1.0L)), long double>);
static_assert(std::is_same_v<decltype(tl::value_and_grad(f1)(1.0)), std::pair<double, double>>);
static_assert(std::is_same_v<decltype(tl::value_and_grad(f1)(1.0f)), std::pair<float, float>>);
static_assert(std::is_same_v<decltype(tl::grad<1>(f)(1.0, 2.0)), double>);
static_assert(std::is_same_v<decltype(tl::grad<1, 0>(f)(1.0, 2.0)), std::tuple<double, double>>);
static_assert(std::is_same_v<decltype(tl::grad(f)(1.0f, 2.0)), std::tuple<float, double>>);
static_assert(std::is_same_v<decltype(tl::grad<1>(f)(1.0f, 2.0)), double>);
// a plain number beside a node takes the node's type: the unselected double computes in float here
static_assert(std::is_same_v<decltype(tl::value_and_grad<0>(f)(1.0f, 2.0)), std::pair<float, float>>);

// tl:: functions on plain numbers return plain numbers; on a var or expression, an expression.
static_assert(std::is_same_v<decltype(tl::sin(1.0)), double>);
static_assert(std::is_same_v<decltype(tl::sin(1.0f)), float>);
static_assert(std::is_same_v<decltype(tl::sin(1)), double>);
static_assert(std::is_same_v<decltype(tl::pow(2.0, 3)), double>);
static_assert(std::is_same_v<decltype(tl::pow(2, 3)), double>);
static_assert(std::is_same_v<decltype(tl::let(2.0, [](auto t) { return t * t; })), double>);
static_assert(tl::pow(2.0, 3) == 8.0);
static_assert(tl::abs(-2.0) == 2.0 && tl::relu(-2.0) == 0.0 && tl::min(1.0, 2) == 1.0 && tl::max(1.0, 2) == 2.0);
static_assert(tl::square(3.0) == 9.0);
static_assert(close(tl::sin(1.0), 0.84147098480789650665));
static_assert(tl::Expression<decltype(std::declval<tl::var<double>&>() * 2.0)>);
static_assert(tl::Differentiable<tl::var<double>> && !tl::Expression<tl::var<double>>);
static_assert(!tl::Differentiable<double> && tl::Operand<double> && tl::Operand<int> && !tl::Operand<bool>);
static_assert(std::is_same_v<decltype(std::declval<tl::var<float>&>() * 2.0)::value_type, float>);
static_assert(!std::is_copy_constructible_v<tl::var<double>> && !std::is_move_constructible_v<tl::var<double>>);

}  // namespace
