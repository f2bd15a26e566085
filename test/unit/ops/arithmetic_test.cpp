// SPDX-License-Identifier: BSL-1.0
// Unary minus and + - * /: gradients against finite differences and the closed forms, for every
// combination of operands (expression, var, double, int, the same variable twice).
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <unary_check.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

using fd::check_fan_out;

constexpr int points = 200;
constexpr double fd_tol = 1e-6;      // AD against central differences
constexpr double exact_tol = 1e-12;  // AD against the closed form
constexpr double value_tol = 1e-15;  // the node's value against the same operation on doubles

/// Checks op(a, b) at `points` random (x, y) from `sample`: expr-expr, expr-double and double-expr,
/// against finite differences and the closed-form partials dx(x, y), dy(x, y).
template <class Op, class Dx, class Dy, class Sample>
void check_binary(const std::string& name, Op op, Dx dx, Dy dy, Sample sample, std::uint64_t seed) {
  fd::rng r{seed};
  for (int i = 0; i < points; ++i) {
    const auto p = sample(r);
    const double x = std::get<0>(p), y = std::get<1>(p);
    const double ref = op(x, y);  // plain doubles: the operation itself
    const auto vg = tl::value_and_grad(op)(x, y);
    const double v = vg.first, gx = std::get<0>(vg.second), gy = std::get<1>(vg.second);
    const auto fdg = fd::gradient(op, x, y);
    INFO(name << " at (" << fd::str(x) << ", " << fd::str(y) << "): AD (" << fd::str(gx) << ", " << fd::str(gy)
              << "), FD (" << fd::str(fdg[0]) << ", " << fd::str(fdg[1]) << "), exact (" << fd::str(dx(x, y)) << ", "
              << fd::str(dy(x, y)) << ")");
    CHECK(fd::rel_error(v, ref) < value_tol);
    CHECK(fd::rel_error(gx, fdg[0]) < fd_tol);
    CHECK(fd::rel_error(gy, fdg[1]) < fd_tol);
    CHECK(fd::rel_error(gx, dx(x, y)) < exact_tol);
    CHECK(fd::rel_error(gy, dy(x, y)) < exact_tol);
    // expression with a double, and a double with an expression
    const double gx_c = tl::grad([y, op](auto a) { return op(a, y); })(x);
    const double gy_c = tl::grad([x, op](auto b) { return op(x, b); })(y);
    CHECK(fd::rel_error(gx_c, dx(x, y)) < exact_tol);
    CHECK(fd::rel_error(gy_c, dy(x, y)) < exact_tol);
  }
}

const auto anywhere = [](fd::rng& r) { return std::tuple{r.uniform(-10, 10), r.uniform(-10, 10)}; };
const auto anywhere1 = [](fd::rng& r) { return r.uniform(-10, 10); };

}  // namespace

TEST_CASE("unary minus and unary plus") {
  fd::rng r{1};
  const auto neg = [](auto x) { return -x; };
  const auto pos = [](auto x) { return +x; };
  const auto neg_neg = [](auto x) { return -(-x); };
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform(-10, 10);
    CAPTURE(x);
    const auto [v, g] = tl::value_and_grad(neg)(x);
    CHECK(v == -x);
    CHECK(g == -1.0);
    CHECK(fd::rel_error(g, fd::derivative(neg, x)) < fd_tol);
    CHECK(tl::value_and_grad(pos)(x) == std::pair{x, 1.0});
    CHECK(tl::value_and_grad(neg_neg)(x) == std::pair{x, 1.0});
  }
  // -x - x: fan-out through a negation
  CHECK(tl::grad([](auto x) { return -x - x; })(3.0) == -2.0);
  CHECK(tl::grad([](auto x) { return -(x * x); })(3.0) == -6.0);
}

TEST_CASE("addition") {
  const auto op = [](auto a, auto b) { return a + b; };
  const auto dx = [](double, double) { return 1.0; };
  const auto dy = [](double, double) { return 1.0; };
  SUBCASE("random points, every operand combination") {
    check_binary("+", op, dx, dy, anywhere, 11);
    check_fan_out("+", op, dx, dy, anywhere1, 12);
  }

  SUBCASE("int constants on either side") {
    CHECK(tl::value_and_grad([](auto x) { return x + 1; })(2.5) == std::pair{3.5, 1.0});
    CHECK(tl::value_and_grad([](auto x) { return 1 + x; })(2.5) == std::pair{3.5, 1.0});
    CHECK(tl::value_and_grad([](auto x) { return x + 2u; })(2.5) == std::pair{4.5, 1.0});
    CHECK(tl::value_and_grad([](auto x) { return 3L + x; })(2.5) == std::pair{5.5, 1.0});
    CHECK(tl::value_and_grad([](auto x) { return x + 0.5f; })(2.5) == std::pair{3.0, 1.0});
  }
  SUBCASE("a long sum gives each term its coefficient") {
    const auto f = [](auto x, auto y, auto z) { return x + y + z + x + 1.0 + y + x; };
    CHECK(tl::grad(f)(1.0, 2.0, 3.0) == std::tuple{3.0, 2.0, 1.0});
  }
}

TEST_CASE("subtraction") {
  const auto op = [](auto a, auto b) { return a - b; };
  const auto dx = [](double, double) { return 1.0; };
  const auto dy = [](double, double) { return -1.0; };
  SUBCASE("random points, every operand combination") {
    check_binary("-", op, dx, dy, anywhere, 21);
    check_fan_out("-", op, dx, dy, anywhere1, 22);
  }

  SUBCASE("int constants on either side") {
    CHECK(tl::value_and_grad([](auto x) { return x - 1; })(2.5) == std::pair{1.5, 1.0});
    CHECK(tl::value_and_grad([](auto x) { return 1 - x; })(2.5) == std::pair{-1.5, -1.0});
    CHECK(tl::value_and_grad([](auto x) { return 10u - x; })(2.5) == std::pair{7.5, -1.0});
  }
  SUBCASE("x - x is exactly zero with gradient zero") {
    CHECK(tl::value_and_grad([](auto x) { return x - x; })(1.7) == std::pair{0.0, 0.0});
  }
  SUBCASE("is not associative: (x - y) - z against x - (y - z)") {
    CHECK(tl::grad([](auto x, auto y, auto z) { return x - y - z; })(1.0, 2.0, 3.0) == std::tuple{1.0, -1.0, -1.0});
    CHECK(tl::grad([](auto x, auto y, auto z) { return x - (y - z); })(1.0, 2.0, 3.0) == std::tuple{1.0, -1.0, 1.0});
  }
}

TEST_CASE("multiplication") {
  const auto op = [](auto a, auto b) { return a * b; };
  const auto dx = [](double, double y) { return y; };
  const auto dy = [](double x, double) { return x; };
  SUBCASE("random points, every operand combination") {
    check_binary("*", op, dx, dy, anywhere, 31);
    check_fan_out("*", op, dx, dy, anywhere1, 32);
  }

  SUBCASE("int constants on either side") {
    CHECK(tl::value_and_grad([](auto x) { return x * 3; })(2.5) == std::pair{7.5, 3.0});
    CHECK(tl::value_and_grad([](auto x) { return 3 * x; })(2.5) == std::pair{7.5, 3.0});
    CHECK(tl::value_and_grad([](auto x) { return -2 * x; })(2.5) == std::pair{-5.0, -2.0});
    CHECK(tl::value_and_grad([](auto x) { return x * 0; })(2.5) == std::pair{0.0, 0.0});
  }
  SUBCASE("powers by repeated multiplication") {
    // x^k written as x * x * ... * x: d/dx = k x^(k-1), exactly for these small integers
    CHECK(tl::grad([](auto x) { return x * x * x; })(2.0) == 12.0);
    CHECK(tl::grad([](auto x) { return x * x * x * x; })(3.0) == 108.0);
    CHECK(tl::grad([](auto x) { return (x * x) * (x * x) * x; })(2.0) == 80.0);
  }
  SUBCASE("three factors") {
    const auto f = [](auto x, auto y, auto z) { return x * y * z; };
    CHECK(tl::grad(f)(2.0, 3.0, 5.0) == std::tuple{15.0, 10.0, 6.0});
  }
  SUBCASE("by zero still carries the other factor's derivative") {
    CHECK(tl::grad([](auto x, auto y) { return x * y; })(0.0, 4.0) == std::tuple{4.0, 0.0});
  }
}

TEST_CASE("division") {
  const auto op = [](auto a, auto b) { return a / b; };
  const auto dx = [](double, double y) { return 1.0 / y; };
  const auto dy = [](double x, double y) { return -x / (y * y); };
  const auto away_from_zero = [](fd::rng& r) {
    return std::tuple{r.uniform(-10, 10), r.uniform_away(-10, 10, {0.0}, 0.1)};
  };
  SUBCASE("random points, every operand combination") {
    check_binary("/", op, dx, dy, away_from_zero, 41);
    check_fan_out(
        "/", op, dx, dy, [](fd::rng& r) { return r.uniform_away(-10, 10, {0.0}, 0.1); }, 42);
  }

  SUBCASE("x / x is 1 with gradient 0") {
    for (const double x : {-3.0, 0.25, 7.0}) {
      CAPTURE(x);
      const auto [v, g] = tl::value_and_grad([](auto a) { return a / a; })(x);
      CHECK(v == 1.0);
      CHECK(std::abs(g) < 1e-15);
    }
  }
  SUBCASE("int constants on either side") {
    CHECK(tl::value_and_grad([](auto x) { return x / 2; })(3.0) == std::pair{1.5, 0.5});
    const auto [v, g] = tl::value_and_grad([](auto x) { return 2 / x; })(4.0);
    CHECK(v == 0.5);
    CHECK(g == -2.0 / 16.0);
    // 1 / x at a few points, against -1 / x^2
    fd::rng r{43};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform_away(-10, 10, {0.0}, 0.1);
      CAPTURE(x);
      CHECK(fd::rel_error(tl::grad([](auto a) { return 1 / a; })(x), -1.0 / (x * x)) < exact_tol);
    }
  }
  SUBCASE("division by zero gives infinities, not an exception") {
    const auto [v, g] = tl::value_and_grad([](auto x) { return 1.0 / x; })(0.0);
    CHECK(std::isinf(v));
    CHECK(std::isinf(g));
  }
}

TEST_CASE("arithmetic: mixed expression against the closed form") {
  // f = (x * y - 3) / (x + 2) - y / 4 + 2 * x * x
  const auto f = [](auto x, auto y) { return (x * y - 3) / (x + 2) - y / 4 + 2 * x * x; };
  fd::rng r{51};
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform_away(-10, 10, {-2.0}, 0.2), y = r.uniform(-10, 10);
    const auto g = tl::grad(f)(x, y);
    const double gx = std::get<0>(g), gy = std::get<1>(g);
    const double ex = (y * (x + 2) - (x * y - 3)) / ((x + 2) * (x + 2)) + 4 * x;
    const double ey = x / (x + 2) - 0.25;
    const auto fdg = fd::gradient(f, x, y);
    INFO("at (" << fd::str(x) << ", " << fd::str(y) << "): AD (" << fd::str(gx) << ", " << fd::str(gy) << "), exact ("
                << fd::str(ex) << ", " << fd::str(ey) << ")");
    CHECK(fd::rel_error(gx, ex) < exact_tol);
    CHECK(fd::rel_error(gy, ey) < exact_tol);
    CHECK(fd::rel_error(gx, fdg[0]) < fd_tol);
    CHECK(fd::rel_error(gy, fdg[1]) < fd_tol);
  }
}

TEST_CASE("arithmetic: NaN propagates to the value and, through a product, to the gradient") {
  const double qnan = std::numeric_limits<double>::quiet_NaN();
  const auto [v, g] = tl::value_and_grad([](auto x) { return x * x + 1.0; })(qnan);
  CHECK(std::isnan(v));
  CHECK(std::isnan(g));
  const auto [v2, g2] = tl::value_and_grad([](auto x, auto y) { return x * y; })(qnan, 2.0);
  CHECK(std::isnan(v2));
  CHECK(std::get<0>(g2) == 2.0);  // d(x y)/dx = y does not involve x
  CHECK(std::isnan(std::get<1>(g2)));
}

TEST_CASE("arithmetic on plain numbers returns plain numbers") {
  // With no differentiable operand, the library's operators are not involved at all.
  static_assert(std::is_same_v<decltype(-tl::sin(1.0)), double>);
  static_assert(!tl::Differentiable<double>);
  static_assert(tl::Operand<int> && tl::Operand<double> && !tl::Operand<bool>);
  static_assert(!tl::BinaryOperands<double, int>);
  const double one = 1.0;
  CHECK(-tl::sin(one) == -std::sin(one));
  CHECK(tl::exp(one) * 2 == std::exp(one) * 2);
}
