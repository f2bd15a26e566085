// SPDX-License-Identifier: BSL-1.0
// abs, relu, min, max and if_else: gradients away from the kinks against finite differences and the
// closed forms, the conventions at the kinks (abs'(0) = relu'(0) = 0, ties go to the first argument),
// if_else sending adjoint only to the taken branch, NaN, and plain numbers. (The comparisons if_else
// takes: compare_test.cpp.)
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

using fd::check_unary;

constexpr int points = 200;
constexpr double fd_tol = 1e-6;  // AD against central differences
// Away from the kinks, the value and derivative are exact.
constexpr fd::unary_tolerances exactly{.value = 0, .fd = fd_tol, .exact = 0};
/// Random points at least 0.05 from the kink at 0.
const auto away_from_kink = [](fd::rng& r) { return r.uniform_away(-10, 10, {0.0}, 0.05); };

const double qnan = std::numeric_limits<double>::quiet_NaN();

const auto abs_ = [](auto&& x) { return tl::abs(x); };
const auto relu_ = [](auto&& x) { return tl::relu(x); };
const auto min_ = [](auto&& a, auto&& b) { return tl::min(a, b); };
const auto max_ = [](auto&& a, auto&& b) { return tl::max(a, b); };

template <class F>
std::pair<double, double> at(F f, double x) {
  return tl::value_and_grad(f)(x);
}

/// min or max at `points` random (x, y) with |x - y| >= 0.05: expr-expr, expr-double, double-expr,
/// against finite differences and the selector `first(x, y)` (true when x is chosen).
template <class Op, class First>
void check_min_max(const std::string& name, Op op, First first, std::uint64_t seed) {
  fd::rng r{seed};
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform(-10, 10);
    const double y = r.uniform_away(-10, 10, {x}, 0.05);
    const auto vg = tl::value_and_grad(op)(x, y);
    const double gx = std::get<0>(vg.second), gy = std::get<1>(vg.second);
    const auto fdg = fd::gradient(op, x, y);
    const bool x_chosen = first(x, y);
    INFO(name << " at (" << fd::str(x) << ", " << fd::str(y) << "): AD (" << gx << ", " << gy << "), FD (" << fdg[0]
              << ", " << fdg[1] << ")");
    CHECK(vg.first == (x_chosen ? x : y));
    CHECK(gx == (x_chosen ? 1.0 : 0.0));
    CHECK(gy == (x_chosen ? 0.0 : 1.0));
    CHECK(fd::rel_error(gx, fdg[0]) < fd_tol);
    CHECK(fd::rel_error(gy, fdg[1]) < fd_tol);
    CHECK(tl::value_and_grad([y, op](auto a) { return op(a, y); })(x) == std::pair{vg.first, gx});
    CHECK(tl::value_and_grad([x, op](auto b) { return op(x, b); })(y) == std::pair{vg.first, gy});
  }
}

}  // namespace

TEST_CASE("abs") {
  SUBCASE("random points away from 0") {
    check_unary(
        "abs", abs_, [](double x) { return std::abs(x); }, [](double x) { return x > 0 ? 1.0 : -1.0; }, away_from_kink,
        601, exactly);
  }
  SUBCASE("the kink: abs'(0) = 0, for +0 and -0") {
    CHECK(at(abs_, 0.0) == std::pair{0.0, 0.0});
    CHECK(at(abs_, -0.0) == std::pair{0.0, 0.0});
    CHECK(!std::signbit(at(abs_, -0.0).first));  // abs(-0) is +0
  }
  SUBCASE("tiny and huge arguments keep their sign") {
    CHECK(at(abs_, 1e-310) == std::pair{1e-310, 1.0});
    CHECK(at(abs_, -1e-310) == std::pair{1e-310, -1.0});
    CHECK(at(abs_, -1e308) == std::pair{1e308, -1.0});
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(at(abs_, -inf) == std::pair{inf, -1.0});
  }
  SUBCASE("abs(x) against if_else(x > 0, x, -x) and sqrt(x^2)") {
    fd::rng r{602};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform_away(-10, 10, {0.0}, 1e-3);
      CAPTURE(x);
      CHECK(at(abs_, x) == at([](auto a) { return tl::if_else(a > 0.0, a, -a); }, x));
      CHECK(fd::rel_error(at(abs_, x).second, at([](auto a) { return tl::sqrt(a * a); }, x).second) < 1e-15);
    }
  }
}

TEST_CASE("relu") {
  SUBCASE("random points away from 0") {
    check_unary(
        "relu", relu_, [](double x) { return x > 0 ? x : 0.0; }, [](double x) { return x > 0 ? 1.0 : 0.0; },
        away_from_kink, 603, exactly);
  }
  SUBCASE("the kink: relu'(0) = 0") {
    CHECK(at(relu_, 0.0) == std::pair{0.0, 0.0});
    CHECK(at(relu_, -0.0).second == 0.0);
    CHECK(at(relu_, 1e-310) == std::pair{1e-310, 1.0});
    CHECK(at(relu_, -1e-310) == std::pair{0.0, 0.0});
  }
  SUBCASE("relu(x) against max(x, 0) away from the kink, and against if_else(x > 0, x, 0)") {
    fd::rng r{604};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-10, 10);
      CAPTURE(x);
      CHECK(at(relu_, x) == at([](auto a) { return tl::if_else(a > 0.0, a, 0.0); }, x));
      if (x != 0) CHECK(at(relu_, x) == at([](auto a) { return tl::max(a, 0.0); }, x));
    }
  }
}

TEST_CASE("min") {
  SUBCASE("random points: expression with expression, with a double, a double with an expression") {
    check_min_max(
        "min", min_, [](double x, double y) { return x < y; }, 605);
  }
  SUBCASE("the same variable twice: min(x, x) = x") {
    fd::rng r{606};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-10, 10);
      CAPTURE(x);
      CHECK(at([](auto a) { return tl::min(a, a); }, x) == std::pair{x, 1.0});
    }
  }
  SUBCASE("int constants on either side") {
    CHECK(at([](auto a) { return tl::min(a, 2); }, 1.0) == std::pair{1.0, 1.0});
    CHECK(at([](auto a) { return tl::min(a, 2); }, 3.0) == std::pair{2.0, 0.0});
    CHECK(at([](auto a) { return tl::min(2, a); }, 1.0) == std::pair{1.0, 1.0});
    CHECK(at([](auto a) { return tl::min(2, a); }, 3.0) == std::pair{2.0, 0.0});
  }
  SUBCASE("a tie gives the whole adjoint to the first argument") {
    CHECK(tl::value_and_grad(min_)(2.0, 2.0) == std::pair{2.0, std::tuple{1.0, 0.0}});
    CHECK(tl::grad([](auto x, auto y) { return tl::min(y, x); })(2.0, 2.0) == std::tuple{0.0, 1.0});
    CHECK(tl::grad(min_)(0.0, -0.0) == std::tuple{1.0, 0.0});
    CHECK(at([](auto a) { return tl::min(a, 2.0); }, 2.0) == std::pair{2.0, 1.0});
    CHECK(at([](auto a) { return tl::min(2.0, a); }, 2.0) == std::pair{2.0, 0.0});  // the constant is first
  }
}

TEST_CASE("max") {
  SUBCASE("random points: expression with expression, with a double, a double with an expression") {
    check_min_max(
        "max", max_, [](double x, double y) { return x > y; }, 607);
  }
  SUBCASE("the same variable twice: max(x, x) = x") {
    fd::rng r{608};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-10, 10);
      CAPTURE(x);
      CHECK(at([](auto a) { return tl::max(a, a); }, x) == std::pair{x, 1.0});
    }
  }
  SUBCASE("int constants on either side") {
    CHECK(at([](auto a) { return tl::max(a, 2); }, 1.0) == std::pair{2.0, 0.0});
    CHECK(at([](auto a) { return tl::max(a, 2); }, 3.0) == std::pair{3.0, 1.0});
    CHECK(at([](auto a) { return tl::max(2, a); }, 1.0) == std::pair{2.0, 0.0});
    CHECK(at([](auto a) { return tl::max(2, a); }, 3.0) == std::pair{3.0, 1.0});
  }
  SUBCASE("a tie gives the whole adjoint to the first argument") {
    CHECK(tl::value_and_grad(max_)(2.0, 2.0) == std::pair{2.0, std::tuple{1.0, 0.0}});
    CHECK(tl::grad([](auto x, auto y) { return tl::max(y, x); })(2.0, 2.0) == std::tuple{0.0, 1.0});
    CHECK(at([](auto a) { return tl::max(a, 2.0); }, 2.0) == std::pair{2.0, 1.0});
    CHECK(at([](auto a) { return tl::max(2.0, a); }, 2.0) == std::pair{2.0, 0.0});
  }
  SUBCASE("min and max of the same pair split the adjoint between them") {
    fd::rng r{609};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-10, 10), y = r.uniform(-10, 10);
      CAPTURE(x);
      CAPTURE(y);
      // min + max = x + y, at ties too
      CHECK(tl::grad([](auto a, auto b) { return tl::min(a, b) + tl::max(a, b); })(x, y) == std::tuple{1.0, 1.0});
      CHECK(tl::grad([](auto a, auto b) { return tl::min(a, b) + tl::max(a, b); })(x, x) == std::tuple{2.0, 0.0});
    }
  }
}

TEST_CASE("piecewise: NaN operands give NaN values and NaN derivatives, not a silent 0") {
  const auto check = [](const std::string& name, auto f, double x) {
    const auto vg = tl::value_and_grad(f)(x);
    INFO(name << " at x = " << fd::str(x) << ": value " << fd::str(vg.first) << ", gradient " << fd::str(vg.second));
    CHECK(std::isnan(vg.first));
    CHECK(std::isnan(vg.second));
  };
  SUBCASE("abs and relu") {
    check("abs", abs_, qnan);
    check("relu", relu_, qnan);
  }
  SUBCASE("a NaN from upstream reaches the gradient through the chosen operand") {
    // sqrt(-1) is NaN with a NaN derivative; min and max must choose it, whichever side it is on
    check(
        "min(sqrt(x), 1)", [](auto a) { return tl::min(tl::sqrt(a), 1.0); }, -1.0);
    check(
        "min(1, sqrt(x))", [](auto a) { return tl::min(1.0, tl::sqrt(a)); }, -1.0);
    check(
        "max(sqrt(x), 1)", [](auto a) { return tl::max(tl::sqrt(a), 1.0); }, -1.0);
    check(
        "max(1, sqrt(x))", [](auto a) { return tl::max(1.0, tl::sqrt(a)); }, -1.0);
    check(
        "relu(sqrt(x))", [](auto a) { return tl::relu(tl::sqrt(a)); }, -1.0);
    check(
        "abs(sqrt(x))", [](auto a) { return tl::abs(tl::sqrt(a)); }, -1.0);
  }
  SUBCASE("a NaN operand of min and max itself") {
    // README: "a NaN operand of min, max, abs or relu gives a NaN value and a NaN derivative"
    check(
        "min(x, 2)", [](auto a) { return tl::min(a, 2.0); }, qnan);
    check(
        "min(2, x)", [](auto a) { return tl::min(2.0, a); }, qnan);
    check(
        "max(x, 2)", [](auto a) { return tl::max(a, 2.0); }, qnan);
    check(
        "max(2, x)", [](auto a) { return tl::max(2.0, a); }, qnan);
  }
  SUBCASE("the NaN operand is the one chosen, and receives the adjoint") {
    const auto g1 = tl::value_and_grad(min_)(qnan, 2.0);
    CHECK(std::isnan(g1.first));
    CHECK(std::get<1>(g1.second) == 0.0);
    const auto g2 = tl::value_and_grad(max_)(2.0, qnan);
    CHECK(std::isnan(g2.first));
    CHECK(std::get<0>(g2.second) == 0.0);
  }
}

TEST_CASE("if_else") {
  SUBCASE("random points on both sides: against the branch derivatives and finite differences") {
    const auto f = [](auto x) { return tl::if_else(x > 0.0, x * x, -3.0 * x); };
    fd::rng r{610};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform_away(-10, 10, {0.0}, 0.05);
      const auto vg = tl::value_and_grad(f)(x);
      const double fdg = fd::derivative(f, x);
      INFO("if_else at x = " << fd::str(x) << ": AD " << fd::str(vg.second) << ", FD " << fd::str(fdg));
      CHECK(vg.first == (x > 0 ? x * x : -3.0 * x));
      CHECK(vg.second == (x > 0 ? 2.0 * x : -3.0));
      CHECK(fd::rel_error(vg.second, fdg) < fd_tol);
    }
  }
  SUBCASE("only the taken branch receives adjoint") {
    const auto f = [](auto x, auto y) { return tl::if_else(x > 0.0, y * y, x * 5.0); };
    CHECK(tl::value_and_grad(f)(1.0, 3.0) == std::pair{9.0, std::tuple{0.0, 6.0}});
    CHECK(tl::value_and_grad(f)(-1.0, 3.0) == std::pair{-5.0, std::tuple{5.0, 0.0}});
    // a var in the untaken branch keeps gradient 0
    tl::var<double> x{-1.0}, y{3.0};
    const auto z = tl::if_else(x > 0.0, y * y, x * 5.0);
    z.backward();
    CHECK(x.grad() == 5.0);
    CHECK(y.grad() == 0.0);
  }
  SUBCASE("a NaN or infinity in the untaken branch does not leak") {
    CHECK(at([](auto x) { return tl::if_else(x > 0.0, tl::log(x), x); }, -1.0) == std::pair{-1.0, 1.0});
    CHECK(at([](auto x) { return tl::if_else(x > 0.0, tl::log(x), x); }, 2.0) == std::pair{std::log(2.0), 0.5});
    CHECK(at([](auto x) { return tl::if_else(x >= 0.0, tl::sqrt(x), -x); }, -4.0) == std::pair{4.0, -1.0});
    CHECK(at([](auto x) { return tl::if_else(x != 0.0, 1.0 / x, 0.0 * x); }, 0.0) == std::pair{0.0, 0.0});
    CHECK(at([](auto x) { return tl::if_else(x < 1.0, x, tl::acos(x)); }, 0.5) == std::pair{0.5, 1.0});
  }
  SUBCASE("the same value in the condition and in both branches, and nested") {
    // x < -1: -1 - (x + 1)^2;  -1 <= x < 1: x^3;  x >= 1: 2x - 1
    const auto f = [](auto x) {
      return tl::if_else(x < -1.0, -1.0 - (x + 1.0) * (x + 1.0), tl::if_else(x < 1.0, x * x * x, 2.0 * x - 1.0));
    };
    CHECK(at(f, -2.0) == std::pair{-2.0, 2.0});
    CHECK(at(f, 0.5) == std::pair{0.125, 0.75});
    CHECK(at(f, 3.0) == std::pair{5.0, 2.0});
  }
  SUBCASE("constant branches, int branches, and mixed") {
    CHECK(at([](auto x) { return tl::if_else(x > 0.0, x, 0.0); }, 2.0) == std::pair{2.0, 1.0});
    CHECK(at([](auto x) { return tl::if_else(x > 0.0, x, 0.0); }, -2.0) == std::pair{0.0, 0.0});
    CHECK(at([](auto x) { return tl::if_else(x > 0.0, 7, x); }, 2.0) == std::pair{7.0, 0.0});
    CHECK(at([](auto x) { return tl::if_else(x > 0.0, 7, x); }, -2.0) == std::pair{-2.0, 1.0});
    // both branches plain: a plain number, whose gradient is 0
    CHECK(at([](auto x) { return tl::if_else(x > 0.0, 1.0, 2.0); }, 2.0) == std::pair{1.0, 0.0});
  }
  SUBCASE("an ordinary if works when both branches have the same type") {
    const auto f = [](auto x) {
      if (x > 0.0)
        return x * 2.0;
      else
        return x * -1.0;
    };
    CHECK(at(f, 3.0) == std::pair{6.0, 2.0});
    CHECK(at(f, -3.0) == std::pair{3.0, -1.0});
  }
}

TEST_CASE("if_else with one bool and matrix branches: elementwise, as if_else of a mask filled with it") {
  using M = tl::matrix<double, 2, 2>;
  const M a{{1, 2}, {3, 4}}, b{{5, 6}, {-7, 8}};
  SUBCASE("plain matrices give a plain matrix, in their common type") {
    static_assert(std::is_same_v<decltype(tl::if_else(true, a, b)), M>);
    for (const bool c : {true, false}) {
      CHECK(tl::if_else(c, a, b) == (c ? a : b));
      CHECK(tl::if_else(c, a, b) == tl::if_else(M::filled(c ? 1.0 : -1.0) > 0.0, a, b));
      CHECK(tl::if_else(c, a, 0.5) == (c ? a : M::filled(0.5)));  // a number is used for every element
      CHECK(tl::if_else(c, 2, b) == (c ? M::filled(2.0) : b));
    }
    constexpr auto z = tl::if_else(false, tl::matrix<float, 1, 2>{{1, 2}}, tl::matrix<double, 1, 2>{{3, 4}});
    static_assert(std::is_same_v<decltype(z), const tl::matrix<double, 1, 2>>);
    static_assert(z[0] == 3.0 && z[1] == 4.0);
  }
  SUBCASE("a matrix expression beside a plain matrix or a number: the taken branch gets the adjoint") {
    for (const bool c : {true, false}) {
      CAPTURE(c);
      const auto with_matrix = [&](const auto& x) { return tl::sum(tl::if_else(c, x * x, b)); };
      const auto [u, h] = tl::value_and_grad(with_matrix)(a);
      CHECK(u == (c ? 30.0 : 12.0));
      CHECK(h == (c ? 2.0 * a : M{}));
      // s is a scalar branch beside a matrix one: it receives the sum over the elements that took it.
      const auto with_scalar = [&](const auto& x, auto s) { return tl::sum(tl::if_else(c, x * 3.0, s * s)); };
      const auto [v, g] = tl::value_and_grad(with_scalar)(a, 1.5);
      CHECK(v == (c ? 30.0 : 9.0));
      CHECK(std::get<0>(g) == (c ? M::filled(3.0) : M{}));
      CHECK(std::get<1>(g) == (c ? 0.0 : 12.0));
    }
  }
}

TEST_CASE("piecewise: plain numbers through tl:: functions are plain numbers") {
  static_assert(std::is_same_v<decltype(tl::abs(-1.0)), double>);
  static_assert(std::is_same_v<decltype(tl::relu(-1.0f)), float>);
  static_assert(std::is_same_v<decltype(tl::min(1, 2)), double>);
  static_assert(std::is_same_v<decltype(tl::max(1.0f, 2.0f)), float>);
  static_assert(std::is_same_v<decltype(tl::if_else(true, 1.0, 2)), double>);
  static_assert(std::is_same_v<decltype(tl::if_else(true, 1.0f, 2.0f)), float>);
  volatile double input = -2.5;
  const double x = input;
  CHECK(tl::abs(x) == 2.5);
  CHECK(tl::relu(x) == 0.0);
  CHECK(tl::relu(-x) == 2.5);
  CHECK(tl::min(x, 1.0) == x);
  CHECK(tl::max(x, 1) == 1.0);
  CHECK(tl::if_else(x > 0, 1.0, 2.0) == 2.0);
  CHECK(std::isnan(tl::min(qnan, 1.0)));
  CHECK(std::isnan(tl::min(1.0, qnan)));
  CHECK(std::isnan(tl::max(qnan, 1.0)));
  CHECK(std::isnan(tl::max(1.0, qnan)));
  CHECK(std::isnan(tl::abs(qnan)));
  CHECK(std::isnan(tl::relu(qnan)));
}
