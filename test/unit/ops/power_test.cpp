// SPDX-License-Identifier: BSL-1.0
// pow (expression^int, expression^number, number^expression, expression^expression), sqrt, cbrt,
// square, hypot: gradients against finite differences and the closed forms, every operand
// combination, the rules at 0 and outside the domain, and plain numbers.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <unary_check.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

using fd::check_fan_out;
using fd::check_unary;

constexpr int points = 200;
constexpr double fd_tol = 1e-6;      // AD against central differences
constexpr double exact_tol = 1e-12;  // AD against the closed form
constexpr double value_tol = 1e-14;  // the node's value against std:: (ipow may differ from std::pow by ulps)
constexpr fd::unary_tolerances pow_tolerances{.value = value_tol, .fd = fd_tol, .exact = exact_tol};

const double qnan = std::numeric_limits<double>::quiet_NaN();
const double infinity = std::numeric_limits<double>::infinity();

/// op(a, b) at `points` random (x, y): expr-expr, expr-double and double-expr, against finite
/// differences and the closed-form partials.
template <class Op, class V, class Dx, class Dy, class Sample>
void check_binary(const std::string& name, Op op, V value, Dx dx, Dy dy, Sample sample, std::uint64_t seed) {
  fd::rng r{seed};
  for (int i = 0; i < points; ++i) {
    const auto p = sample(r);
    const double x = std::get<0>(p), y = std::get<1>(p);
    const auto vg = tl::value_and_grad(op)(x, y);
    const double gx = std::get<0>(vg.second), gy = std::get<1>(vg.second);
    const auto fdg = fd::gradient(op, x, y);
    const double ex = dx(x, y), ey = dy(x, y);
    INFO(name << " at (" << fd::str(x) << ", " << fd::str(y) << "): AD (" << fd::str(gx) << ", " << fd::str(gy)
              << "), FD (" << fd::str(fdg[0]) << ", " << fd::str(fdg[1]) << "), exact (" << fd::str(ex) << ", "
              << fd::str(ey) << ")");
    CHECK(fd::rel_error(vg.first, value(x, y)) < value_tol);
    CHECK(fd::rel_error(gx, fdg[0]) < fd_tol);
    CHECK(fd::rel_error(gy, fdg[1]) < fd_tol);
    CHECK(fd::rel_error(gx, ex) < exact_tol);
    CHECK(fd::rel_error(gy, ey) < exact_tol);
    const auto vx = tl::value_and_grad([y, op](auto a) { return op(a, y); })(x);  // expression, double
    const auto vy = tl::value_and_grad([x, op](auto b) { return op(x, b); })(y);  // double, expression
    CHECK(fd::rel_error(vx.first, value(x, y)) < value_tol);
    CHECK(fd::rel_error(vy.first, value(x, y)) < value_tol);
    CHECK(fd::rel_error(vx.second, ex) < exact_tol);
    CHECK(fd::rel_error(vy.second, ey) < exact_tol);
  }
}

/// Value and gradient of f at x, for the special points.
template <class F>
std::pair<double, double> at(F f, double x) {
  return tl::value_and_grad(f)(x);
}

}  // namespace

TEST_CASE("pow by an integer: x^n") {
  const auto away = [](fd::rng& r) { return r.uniform_away(-3, 3, {0.0}, 0.2); };
  SUBCASE("n = -3") {
    check_unary(
        "pow(x, -3)", [](auto&& x) { return tl::pow(x, -3); }, [](double x) { return std::pow(x, -3.0); },
        [](double x) { return -3.0 * std::pow(x, -4.0); }, away, 201, pow_tolerances);
  }
  SUBCASE("n = -1") {
    check_unary(
        "pow(x, -1)", [](auto&& x) { return tl::pow(x, -1); }, [](double x) { return 1.0 / x; },
        [](double x) { return -1.0 / (x * x); }, away, 202, pow_tolerances);
  }
  SUBCASE("n = 0") {
    check_unary(
        "pow(x, 0)", [](auto&& x) { return tl::pow(x, 0); }, [](double) { return 1.0; }, [](double) { return 0.0; },
        away, 203, pow_tolerances);
  }
  SUBCASE("n = 1") {
    check_unary(
        "pow(x, 1)", [](auto&& x) { return tl::pow(x, 1); }, [](double x) { return x; }, [](double) { return 1.0; },
        away, 204, pow_tolerances);
  }
  SUBCASE("n = 2") {
    check_unary(
        "pow(x, 2)", [](auto&& x) { return tl::pow(x, 2); }, [](double x) { return x * x; },
        [](double x) { return 2.0 * x; }, away, 205, pow_tolerances);
  }
  SUBCASE("n = 3") {
    check_unary(
        "pow(x, 3)", [](auto&& x) { return tl::pow(x, 3); }, [](double x) { return std::pow(x, 3.0); },
        [](double x) { return 3.0 * x * x; }, away, 206, pow_tolerances);
  }
  SUBCASE("n = 7, unsigned and long") {
    check_unary(
        "pow(x, 7u)", [](auto&& x) { return tl::pow(x, 7u); }, [](double x) { return std::pow(x, 7.0); },
        [](double x) { return 7.0 * std::pow(x, 6.0); }, away, 207, pow_tolerances);
    check_unary(
        "pow(x, 4L)", [](auto&& x) { return tl::pow(x, 4L); }, [](double x) { return std::pow(x, 4.0); },
        [](double x) { return 4.0 * std::pow(x, 3.0); }, away, 208, pow_tolerances);
  }
  SUBCASE("an integer exponent is exact: pow(x, 2) is x * x") {
    fd::rng r{209};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-1e3, 1e3);
      CAPTURE(x);
      const auto vg = at([](auto a) { return tl::pow(a, 2); }, x);
      CHECK(vg.first == x * x);
      CHECK(vg.second == 2.0 * x);
    }
  }
}

TEST_CASE("pow by a number: x^p") {
  const auto positive = [](fd::rng& r) { return r.uniform(0.1, 5); };
  SUBCASE("random points, p in {0.5, -1.5, 2, 3.7, -0.3, 1, 0}") {
    for (const double p : {0.5, -1.5, 2.0, 3.7, -0.3, 1.0, 0.0}) {
      CAPTURE(p);
      check_unary(
          "pow(x, p)", [p](auto&& x) { return tl::pow(x, p); }, [p](double x) { return std::pow(x, p); },
          [p](double x) { return p * std::pow(x, p - 1.0); }, positive, 210, pow_tolerances);
    }
  }
  SUBCASE("a negative base with an integral exponent") {
    const auto negative = [](fd::rng& r) { return r.uniform(-5, -0.1); };
    check_unary(
        "pow(x, 3.0)", [](auto&& x) { return tl::pow(x, 3.0); }, [](double x) { return std::pow(x, 3.0); },
        [](double x) { return 3.0 * x * x; }, negative, 211, pow_tolerances);
    check_unary(
        "pow(x, -2.0)", [](auto&& x) { return tl::pow(x, -2.0); }, [](double x) { return std::pow(x, -2.0); },
        [](double x) { return -2.0 * std::pow(x, -3.0); }, negative, 212, pow_tolerances);
  }
  SUBCASE("a float exponent beside a double base") {
    check_unary(
        "pow(x, 0.25f)", [](auto&& x) { return tl::pow(x, 0.25f); }, [](double x) { return std::pow(x, 0.25); },
        [](double x) { return 0.25 * std::pow(x, -0.75); }, positive, 213, pow_tolerances);
  }
}

TEST_CASE("pow by a number that is a small integer: repeated squaring, as pow by an integer") {
  SUBCASE("random points, p in {-3, -1, 0, 1, 2, 5, 64, -64} on either side of 0, against std::pow") {
    for (const double p : {-3.0, -1.0, 0.0, 1.0, 2.0, 5.0, 64.0, -64.0}) {
      CAPTURE(p);
      const double reach = std::abs(p) > 8 ? 1.5 : 3.0, gap = std::abs(p) > 8 ? 0.7 : 0.2;  // x^64 stays finite
      const auto sample = [reach, gap](fd::rng& r) { return r.uniform_away(-reach, reach, {0.0}, gap); };
      check_unary(
          "pow(x, p)", [p](auto&& x) { return tl::pow(x, p); }, [p](double x) { return std::pow(x, p); },
          [p](double x) { return p == 0.0 ? 0.0 : p * std::pow(x, p - 1.0); }, sample, 214, pow_tolerances);
    }
  }
  SUBCASE("the values of pow by an int bit for bit, its derivatives to rounding; at 0, inf and NaN both") {
    fd::rng r{215};
    for (const int n : {-3, -1, 0, 1, 2, 3, 7, 64, -64}) {
      CAPTURE(n);
      for (int i = 0; i < points; ++i) {
        const double x = r.uniform(-3, 3);
        CAPTURE(x);
        const auto real = at([n](auto a) { return tl::pow(a, double(n)); }, x);
        const auto integer = at([n](auto a) { return tl::pow(a, n); }, x);
        CHECK(real.first == integer.first);
        CHECK(fd::rel_error(real.second, integer.second) < 1e-14);
      }
      for (const double x : {0.0, -0.0, infinity, -infinity}) {
        CAPTURE(x);
        const auto real = at([n](auto a) { return tl::pow(a, double(n)); }, x);
        CHECK(real.first == std::pow(x, double(n)));
        CHECK(std::signbit(real.first) == std::signbit(std::pow(x, double(n))));
        CHECK(real == at([n](auto a) { return tl::pow(a, n); }, x));
      }
      const auto nan = at([n](auto a) { return tl::pow(a, double(n)); }, qnan);
      if (n == 0) {
        CHECK(nan.first == std::pow(qnan, 0.0));  // 1, as std::pow gives
      } else {
        CHECK(std::isnan(nan.first));
        CHECK(std::isnan(nan.second));
      }
    }
  }
  SUBCASE("past 64, and not integers (0.5, 2.5, -1.5, 64.5): std::pow, against finite differences") {
    for (const double p : {65.0, 0.5, 2.5, -1.5, 64.5}) {
      CAPTURE(p);
      const double low = p > 8 ? 0.3 : 0.1, high = p > 8 ? 1.5 : 3.0;
      const auto sample = [low, high](fd::rng& r) { return r.uniform(low, high); };
      check_unary(
          "pow(x, p)", [p](auto&& x) { return tl::pow(x, p); }, [p](double x) { return std::pow(x, p); },
          [p](double x) { return p * std::pow(x, p - 1.0); }, sample, 216, pow_tolerances);
      CHECK(at([p](auto a) { return tl::pow(a, p); }, 1.7).first == std::pow(1.7, p));
    }
  }
  SUBCASE("at 0 for each kind of exponent: the value of std::pow, the derivative p 0^(p-1) (0 for p = 0)") {
    CHECK(at([](auto a) { return tl::pow(a, -3.0); }, 0.0) == std::pair{infinity, -infinity});
    CHECK(at([](auto a) { return tl::pow(a, -3.0); }, -0.0) == std::pair{-infinity, -infinity});
    CHECK(at([](auto a) { return tl::pow(a, -2.0); }, -0.0) == std::pair{infinity, infinity});
    CHECK(at([](auto a) { return tl::pow(a, 0.0); }, 0.0) == std::pair{1.0, 0.0});
    CHECK(at([](auto a) { return tl::pow(a, 0.5); }, 0.0) == std::pair{0.0, infinity});
    CHECK(at([](auto a) { return tl::pow(a, 2.5); }, 0.0) == std::pair{0.0, 0.0});
    CHECK(at([](auto a) { return tl::pow(a, -1.5); }, 0.0) == std::pair{infinity, -infinity});
  }
  SUBCASE("an exponent known at run time only takes the same path") {
    volatile double runtime_p = -3.0;
    const double p = runtime_p;
    fd::rng r{217};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform_away(-3, 3, {0.0}, 0.2);
      CAPTURE(x);
      CHECK(at([p](auto a) { return tl::pow(a, p); }, x) == at([](auto a) { return tl::pow(a, -3.0); }, x));
    }
  }
  SUBCASE("through tl::hessian, whose tangents make a plain exponent a dual number: std::pow's path") {
    const auto f = [](const auto& x, const auto& p) { return tl::pow(x, p); };
    for (const double p : {3.0, -2.0, 2.5}) {
      CAPTURE(p);
      CHECK(fd::rel_error(tl::hessian<0>(f)(1.5, p), p * (p - 1.0) * std::pow(1.5, p - 2.0)) < 1e-14);
    }
  }
  SUBCASE("in a constant expression") {
    constexpr auto g = tl::grad([](auto a) { return tl::pow(a, -2.0); })(2.0);
    static_assert(g == -0.25);
    CHECK(g == -0.25);
  }
}

TEST_CASE("pow of a number: c^y") {
  const auto anywhere = [](fd::rng& r) { return r.uniform(-5, 5); };
  SUBCASE("random points, c in {0.5, 2, e, 10, 1}") {
    for (const double c : {0.5, 2.0, std::numbers::e, 10.0, 1.0}) {
      CAPTURE(c);
      check_unary(
          "pow(c, y)", [c](auto&& y) { return tl::pow(c, y); }, [c](double y) { return std::pow(c, y); },
          [c](double y) { return std::pow(c, y) * std::log(c); }, anywhere, 220, pow_tolerances);
    }
  }
  SUBCASE("an int base") {
    check_unary(
        "pow(3, y)", [](auto&& y) { return tl::pow(3, y); }, [](double y) { return std::pow(3.0, y); },
        [](double y) { return std::pow(3.0, y) * std::log(3.0); }, anywhere, 221, pow_tolerances);
  }
}

TEST_CASE("pow of two expressions: x^y") {
  const auto op = [](auto a, auto b) { return tl::pow(a, b); };
  const auto value = [](double x, double y) { return std::pow(x, y); };
  const auto dx = [](double x, double y) { return y * std::pow(x, y - 1.0); };
  const auto dy = [](double x, double y) { return std::pow(x, y) * std::log(x); };
  SUBCASE("random points, expression and number on either side") {
    check_binary(
        "pow", op, value, dx, dy,
        [](fd::rng& r) {
          return std::tuple{r.uniform(0.1, 5), r.uniform(-3, 3)};
        },
        230);
  }
  SUBCASE("the same variable twice: x^x") {
    check_fan_out(
        "pow", op, dx, dy, [](fd::rng& r) { return r.uniform(0.1, 3); }, 231);
  }
  SUBCASE("int constants on either side") {
    fd::rng r{232};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(0.1, 5);
      CAPTURE(x);
      CHECK(fd::rel_error(tl::grad([](auto a) { return tl::pow(a, 3); })(x), 3 * x * x) < exact_tol);
      CHECK(fd::rel_error(tl::grad([](auto a) { return tl::pow(2, a); })(x), std::pow(2.0, x) * std::numbers::ln2) <
            exact_tol);
    }
  }
  SUBCASE("three forms agree where they overlap") {
    // pow(x, y) at y = 2.5 against pow(x, 2.5); at x = 2 against pow(2.0, y)
    fd::rng r{233};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(0.1, 5), y = r.uniform(-3, 3);
      CAPTURE(x);
      CAPTURE(y);
      const auto both = tl::grad(op)(x, y);
      CHECK(fd::rel_error(std::get<0>(both), tl::grad([y](auto a) { return tl::pow(a, y); })(x)) < 1e-15);
      CHECK(fd::rel_error(std::get<1>(both), tl::grad([x](auto b) { return tl::pow(x, b); })(y)) < 1e-15);
    }
  }
}

TEST_CASE("pow: the rules at 0 and for negative bases") {
  const auto xy = [](double x, double y) {
    const auto vg = tl::value_and_grad([](auto a, auto b) { return tl::pow(a, b); })(x, y);
    return std::tuple{vg.first, std::get<0>(vg.second), std::get<1>(vg.second)};
  };
  SUBCASE("x^0 is 1 for every x, so its derivative is 0, at x = 0 too") {
    for (const double x : {0.0, -0.0, 2.0, -3.0}) {
      CAPTURE(x);
      CHECK(at([](auto a) { return tl::pow(a, 0); }, x) == std::pair{1.0, 0.0});
      CHECK(at([](auto a) { return tl::pow(a, 0.0); }, x) == std::pair{1.0, 0.0});
      // pow(x, y) at y = 0: d/dx = 0 as well
      CHECK(std::get<0>(xy(x, 0.0)) == 1.0);
      CHECK(std::get<1>(xy(x, 0.0)) == 0.0);
    }
  }
  SUBCASE("x^p at x = 0: the one-sided limits of p x^(p-1)") {
    CHECK(at([](auto a) { return tl::pow(a, 2); }, 0.0) == std::pair{0.0, 0.0});
    CHECK(at([](auto a) { return tl::pow(a, 2.0); }, 0.0) == std::pair{0.0, 0.0});
    CHECK(at([](auto a) { return tl::pow(a, 3.0); }, 0.0) == std::pair{0.0, 0.0});
    CHECK(at([](auto a) { return tl::pow(a, 1); }, 0.0) == std::pair{0.0, 1.0});
    CHECK(at([](auto a) { return tl::pow(a, 1.0); }, 0.0) == std::pair{0.0, 1.0});
    CHECK(at([](auto a) { return tl::pow(a, 0.5); }, 0.0) == std::pair{0.0, infinity});
    CHECK(at([](auto a) { return tl::pow(a, -1); }, 0.0) == std::pair{infinity, -infinity});
    CHECK(at([](auto a) { return tl::pow(a, -1.0); }, 0.0) == std::pair{infinity, -infinity});
  }
  SUBCASE("0^y for y > 0 is 0 on a neighbourhood: d/dy is taken as 0, not 0 * log 0 = NaN") {
    for (const double y : {0.5, 1.0, 2.0, 3.5}) {
      CAPTURE(y);
      CHECK(at([](auto b) { return tl::pow(0.0, b); }, y) == std::pair{0.0, 0.0});
      CHECK(at([](auto b) { return tl::pow(0, b); }, y) == std::pair{0.0, 0.0});
      const auto [v, gx, gy] = xy(0.0, y);
      CHECK(v == 0.0);
      CHECK(gy == 0.0);
      CHECK(gx == (y == 1.0 ? 1.0 : y < 1.0 ? infinity : 0.0));
    }
  }
  SUBCASE("0^0: value 1, d/dy the limit from the right, log 0 = -infinity, as implemented") {
    CHECK(at([](auto b) { return tl::pow(0.0, b); }, 0.0) == std::pair{1.0, -infinity});
    CHECK(std::get<2>(xy(0.0, 0.0)) == -infinity);
  }
  SUBCASE("1^y is 1: d/dy is 0; x^y at x = 1: d/dx = y") {
    CHECK(at([](auto b) { return tl::pow(1.0, b); }, 2.5) == std::pair{1.0, 0.0});
    CHECK(xy(1.0, 2.5) == std::tuple{1.0, 2.5, 0.0});
  }
  SUBCASE("a negative base: an integral exponent has d/dx, d/dy is NaN (log of a negative number)") {
    const auto [v, gx, gy] = xy(-2.0, 3.0);
    CHECK(v == -8.0);
    CHECK(gx == 12.0);
    CHECK(std::isnan(gy));
    CHECK(at([](auto a) { return tl::pow(a, 3); }, -2.0) == std::pair{-8.0, 12.0});
    CHECK(at([](auto a) { return tl::pow(a, 3.0); }, -2.0) == std::pair{-8.0, 12.0});
  }
  SUBCASE("a negative base with a non-integral exponent: NaN value, NaN gradient, no exception") {
    CHECK_NOTHROW(static_cast<void>(xy(-2.0, 0.5)));
    const auto [v, gx, gy] = xy(-2.0, 0.5);
    CHECK(std::isnan(v));
    CHECK(std::isnan(gx));
    CHECK(std::isnan(gy));
    const auto vg = at([](auto a) { return tl::pow(a, 0.5); }, -2.0);
    CHECK(std::isnan(vg.first));
    CHECK(std::isnan(vg.second));
    const auto vb = at([](auto b) { return tl::pow(-2.0, b); }, 0.5);
    CHECK(std::isnan(vb.first));
    CHECK(std::isnan(vb.second));
  }
}

TEST_CASE("sqrt") {
  SUBCASE("random points") {
    check_unary(
        "sqrt", [](auto&& x) { return tl::sqrt(x); }, [](double x) { return std::sqrt(x); },
        [](double x) { return 0.5 / std::sqrt(x); }, [](fd::rng& r) { return r.uniform(0.05, 50); }, 240,
        pow_tolerances);
  }
  SUBCASE("sqrt(x) against pow(x, 0.5)") {
    fd::rng r{241};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(1e-3, 1e3);
      CAPTURE(x);
      CHECK(fd::rel_error(tl::grad([](auto a) { return tl::sqrt(a); })(x),
                          tl::grad([](auto a) { return tl::pow(a, 0.5); })(x)) < 1e-14);
    }
  }
  SUBCASE("at 0 the derivative is +infinity; below 0 value and gradient are NaN") {
    CHECK(at([](auto a) { return tl::sqrt(a); }, 0.0) == std::pair{0.0, infinity});
    CHECK_NOTHROW(static_cast<void>(at([](auto a) { return tl::sqrt(a); }, -1.0)));
    const auto vg = at([](auto a) { return tl::sqrt(a); }, -1.0);
    CHECK(std::isnan(vg.first));
    CHECK(std::isnan(vg.second));
  }
}

TEST_CASE("cbrt") {
  SUBCASE("random points, both signs") {
    check_unary(
        "cbrt", [](auto&& x) { return tl::cbrt(x); }, [](double x) { return std::cbrt(x); },
        [](double x) { return 1.0 / (3.0 * std::cbrt(x) * std::cbrt(x)); },
        [](fd::rng& r) { return r.uniform_away(-50, 50, {0.0}, 0.05); }, 250, pow_tolerances);
  }
  SUBCASE("exact points, and +infinity at 0") {
    CHECK(at([](auto a) { return tl::cbrt(a); }, -8.0) == std::pair{-2.0, 1.0 / 12.0});
    const auto vg = at([](auto a) { return tl::cbrt(a); }, 27.0);
    CHECK(fd::rel_error(vg.first, 3.0) < 1e-15);  // glibc's cbrt(27) is not exactly 3
    CHECK(fd::rel_error(vg.second, 1.0 / 27.0) < 1e-15);
    CHECK(at([](auto a) { return tl::cbrt(a); }, 0.0) == std::pair{0.0, infinity});
  }
}

TEST_CASE("square") {
  SUBCASE("random points") {
    check_unary(
        "square", [](auto&& x) { return tl::square(x); }, [](double x) { return x * x; },
        [](double x) { return 2.0 * x; }, [](fd::rng& r) { return r.uniform(-10, 10); }, 260, pow_tolerances);
  }
  SUBCASE("against x * x and pow(x, 2), exactly") {
    fd::rng r{261};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-100, 100);
      CAPTURE(x);
      const auto sq = at([](auto a) { return tl::square(a); }, x);
      CHECK(sq == at([](auto a) { return a * a; }, x));
      CHECK(sq == at([](auto a) { return tl::pow(a, 2); }, x));
    }
    CHECK(at([](auto a) { return tl::square(a); }, 0.0) == std::pair{0.0, 0.0});
  }
}

TEST_CASE("hypot") {
  const auto op = [](auto a, auto b) { return tl::hypot(a, b); };
  const auto value = [](double x, double y) { return std::hypot(x, y); };
  const auto dx = [](double x, double y) { return x / std::hypot(x, y); };
  const auto dy = [](double x, double y) { return y / std::hypot(x, y); };
  SUBCASE("random points, expression and number on either side") {
    const auto sample = [](fd::rng& r) {
      for (;;) {
        const double x = r.uniform(-10, 10), y = r.uniform(-10, 10);
        if (std::hypot(x, y) > 0.1) return std::tuple{x, y};
      }
    };
    check_binary("hypot", op, value, dx, dy, sample, 270);
  }
  SUBCASE("the same variable twice: hypot(x, x) = sqrt(2) |x|") {
    check_fan_out(
        "hypot", op, dx, dy, [](fd::rng& r) { return r.uniform_away(-10, 10, {0.0}, 0.05); }, 271);
    CHECK(fd::rel_error(tl::grad([](auto a) { return tl::hypot(a, a); })(-3.0), -std::numbers::sqrt2) < 1e-15);
  }
  SUBCASE("int constants on either side") {
    const auto va = tl::value_and_grad([](auto a) { return tl::hypot(a, 4); })(3.0);
    const auto vb = tl::value_and_grad([](auto b) { return tl::hypot(3, b); })(4.0);
    CHECK(va.first == 5.0);
    CHECK(vb.first == 5.0);
    CHECK(fd::rel_error(va.second, 0.6) < 1e-15);
    CHECK(fd::rel_error(vb.second, 0.8) < 1e-15);
  }
  SUBCASE("at the kink (0, 0) the gradient is (0, 0)") {
    const auto vg = tl::value_and_grad(op)(0.0, 0.0);
    CHECK(vg.first == 0.0);
    CHECK(vg.second == std::tuple{0.0, 0.0});
    CHECK(tl::grad([](auto a) { return tl::hypot(a, a); })(0.0) == 0.0);
  }
  SUBCASE("no overflow or underflow in the intermediate x^2 + y^2") {
    for (const double s : {1e-200, 1e200}) {
      CAPTURE(s);
      const auto g = tl::grad(op)(3.0 * s, 4.0 * s);
      CHECK(fd::rel_error(std::get<0>(g), 0.6) < 1e-15);
      CHECK(fd::rel_error(std::get<1>(g), 0.8) < 1e-15);
    }
  }
}

TEST_CASE("power: NaN propagates to the value and the gradient") {
  const auto check = [](const std::string& name, auto f) {
    const auto vg = at(f, qnan);
    INFO(name << ": value " << fd::str(vg.first) << ", gradient " << fd::str(vg.second));
    CHECK(std::isnan(vg.first));
    CHECK(std::isnan(vg.second));
  };
  check("pow(x, 2)", [](auto a) { return tl::pow(a, 2); });
  check("pow(x, 2.5)", [](auto a) { return tl::pow(a, 2.5); });
  check("pow(2.0, y)", [](auto b) { return tl::pow(2.0, b); });
  check("pow(x, x)", [](auto a) { return tl::pow(a, a); });
  check("sqrt", [](auto a) { return tl::sqrt(a); });
  check("cbrt", [](auto a) { return tl::cbrt(a); });
  check("square", [](auto a) { return tl::square(a); });
  check("hypot(x, 1)", [](auto a) { return tl::hypot(a, 1.0); });
}

TEST_CASE("power: plain numbers through tl:: functions are plain numbers") {
  volatile double input = 1.7;  // not a constant: the run-time path, which is std::
  const double x = input;
  static_assert(std::is_same_v<decltype(tl::pow(2.0, 3)), double>);
  static_assert(std::is_same_v<decltype(tl::pow(2, 3)), double>);
  static_assert(std::is_same_v<decltype(tl::pow(2.0f, 3)), float>);
  static_assert(std::is_same_v<decltype(tl::pow(2.0f, 0.5f)), float>);
  static_assert(std::is_same_v<decltype(tl::pow(2.0f, 0.5)), double>);
  static_assert(std::is_same_v<decltype(tl::sqrt(2.0f)), float>);
  static_assert(std::is_same_v<decltype(tl::hypot(3, 4)), double>);
  CHECK(tl::pow(x, 3) == x * x * x);
  CHECK(tl::pow(2, 10) == 1024.0);
  CHECK(tl::pow(2.0, -2) == 0.25);
  CHECK(tl::pow(x, 0.3) == std::pow(x, 0.3));
  CHECK(tl::sqrt(x) == std::sqrt(x));
  CHECK(tl::cbrt(x) == std::cbrt(x));
  CHECK(tl::square(x) == x * x);
  CHECK(tl::hypot(x, 2.5) == std::hypot(x, 2.5));
  CHECK(tl::sqrt(4) == 2.0);
}
