// SPDX-License-Identifier: BSL-1.0
// sin, cos, tan, asin, acos, atan, atan2: gradients against finite differences and the closed forms,
// every operand combination of atan2, domain errors, NaN, and plain numbers.
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

using fd::check_unary;
using fd::uniform_in;

constexpr int points = 200;
constexpr double fd_tol = 1e-6;      // AD against central differences
constexpr double exact_tol = 1e-12;  // AD against the closed form

const double qnan = std::numeric_limits<double>::quiet_NaN();
const double infinity = std::numeric_limits<double>::infinity();

const auto sin_ = [](auto&& x) { return tl::sin(x); };
const auto cos_ = [](auto&& x) { return tl::cos(x); };
const auto tan_ = [](auto&& x) { return tl::tan(x); };
const auto asin_ = [](auto&& x) { return tl::asin(x); };
const auto acos_ = [](auto&& x) { return tl::acos(x); };
const auto atan_ = [](auto&& x) { return tl::atan(x); };
const auto atan2_ = [](auto&& y, auto&& x) { return tl::atan2(y, x); };

}  // namespace

TEST_CASE("sin") {
  check_unary(
      "sin", sin_, [](double x) { return std::sin(x); }, [](double x) { return std::cos(x); }, uniform_in(-10, 10),
      301);
}

TEST_CASE("cos") {
  check_unary(
      "cos", cos_, [](double x) { return std::cos(x); }, [](double x) { return -std::sin(x); }, uniform_in(-10, 10),
      302);
}

TEST_CASE("tan") {
  const auto value = [](double x) { return std::tan(x); };
  const auto derivative = [](double x) { return 1.0 / (std::cos(x) * std::cos(x)); };
  SUBCASE("on (-1.4, 1.4)") { check_unary("tan", tan_, value, derivative, uniform_in(-1.4, 1.4), 303); }
  SUBCASE("on the next branch, (pi - 1.4, pi + 1.4)") {
    check_unary("tan", tan_, value, derivative, uniform_in(std::numbers::pi - 1.4, std::numbers::pi + 1.4), 304);
  }
}

TEST_CASE("asin") {
  SUBCASE("random points") {
    check_unary(
        "asin", asin_, [](double x) { return std::asin(x); }, [](double x) { return 1.0 / std::sqrt(1.0 - x * x); },
        uniform_in(-0.95, 0.95), 305);
  }
  SUBCASE("at +-1 the derivative is +infinity") {
    CHECK(tl::value_and_grad(asin_)(1.0) == std::pair{std::numbers::pi / 2, infinity});
    CHECK(tl::value_and_grad(asin_)(-1.0) == std::pair{-std::numbers::pi / 2, infinity});
  }
}

TEST_CASE("acos") {
  SUBCASE("random points") {
    check_unary(
        "acos", acos_, [](double x) { return std::acos(x); }, [](double x) { return -1.0 / std::sqrt(1.0 - x * x); },
        uniform_in(-0.95, 0.95), 306);
  }
  SUBCASE("asin + acos = pi / 2: their gradients cancel") {
    fd::rng r{307};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-0.999, 0.999);
      CAPTURE(x);
      CHECK(std::abs(tl::grad([](auto a) { return tl::asin(a) + tl::acos(a); })(x)) < 1e-12);
    }
  }
  SUBCASE("at +-1 the derivative is -infinity") {
    CHECK(tl::value_and_grad(acos_)(1.0) == std::pair{0.0, -infinity});
    CHECK(tl::value_and_grad(acos_)(-1.0).second == -infinity);
  }
}

TEST_CASE("atan") {
  SUBCASE("random points") {
    check_unary(
        "atan", atan_, [](double x) { return std::atan(x); }, [](double x) { return 1.0 / (1.0 + x * x); },
        uniform_in(-10, 10), 308);
  }
  SUBCASE("far out") {
    for (const double x : {1e5, -1e5, 1e150}) {
      CAPTURE(x);
      CHECK(fd::strict_rel_error(tl::grad(atan_)(x), 1.0 / (1.0 + x * x)) < 1e-15);
    }
  }
}

TEST_CASE("atan2") {
  // atan2(y, x), the angle of (x, y): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
  const auto dy = [](double y, double x) { return x / (x * x + y * y); };
  const auto dx = [](double y, double x) { return -y / (x * x + y * y); };
  // away from the origin and from the branch cut on the negative x axis, where atan2 jumps by 2 pi
  const auto sample = [](fd::rng& r) {
    for (;;) {
      const double y = r.uniform(-10, 10), x = r.uniform(-10, 10);
      if (std::hypot(x, y) > 0.1 && !(x < 0 && std::abs(y) < 0.05)) return std::tuple{y, x};
    }
  };
  SUBCASE("random points: expression with expression, with a double, a double with an expression") {
    fd::rng r{309};
    for (int i = 0; i < points; ++i) {
      const auto p = sample(r);
      const double y = std::get<0>(p), x = std::get<1>(p);
      const auto vg = tl::value_and_grad(atan2_)(y, x);
      const double gy = std::get<0>(vg.second), gx = std::get<1>(vg.second);
      const auto fdg = fd::gradient(atan2_, y, x);
      INFO("atan2(" << fd::str(y) << ", " << fd::str(x) << "): AD (" << fd::str(gy) << ", " << fd::str(gx) << "), FD ("
                    << fd::str(fdg[0]) << ", " << fd::str(fdg[1]) << "), exact (" << fd::str(dy(y, x)) << ", "
                    << fd::str(dx(y, x)) << ")");
      CHECK(vg.first == std::atan2(y, x));
      CHECK(fd::rel_error(gy, fdg[0]) < fd_tol);
      CHECK(fd::rel_error(gx, fdg[1]) < fd_tol);
      CHECK(fd::rel_error(gy, dy(y, x)) < exact_tol);
      CHECK(fd::rel_error(gx, dx(y, x)) < exact_tol);
      CHECK(fd::rel_error(tl::grad([x](auto a) { return tl::atan2(a, x); })(y), dy(y, x)) < exact_tol);
      CHECK(fd::rel_error(tl::grad([y](auto b) { return tl::atan2(y, b); })(x), dx(y, x)) < exact_tol);
      tl::var<double> vy{y}, vx{x};
      tl::atan2(vy, vx).backward();
      CHECK(vy.grad() == gy);
      CHECK(vx.grad() == gx);
    }
  }
  SUBCASE("the same variable twice: atan2(x, x) is constant on each half line") {
    fd::rng r{310};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform_away(-10, 10, {0.0}, 0.05);
      CAPTURE(x);
      const auto vg = tl::value_and_grad([](auto a) { return tl::atan2(a, a); })(x);
      CHECK(fd::rel_error(vg.first, x > 0 ? std::numbers::pi / 4 : -3 * std::numbers::pi / 4) < 1e-15);
      CHECK(std::abs(vg.second) < 1e-15);
    }
  }
  SUBCASE("int constants on either side") {
    CHECK(fd::rel_error(tl::grad([](auto a) { return tl::atan2(a, 1); })(1.0), 0.5) < 1e-15);
    CHECK(fd::rel_error(tl::grad([](auto b) { return tl::atan2(1, b); })(1.0), -0.5) < 1e-15);
    CHECK(fd::rel_error(tl::grad([](auto b) { return tl::atan2(2, b); })(0.0), -0.5) < 1e-15);
  }
  SUBCASE("on the axes") {
    CHECK(tl::grad(atan2_)(0.0, 2.0) == std::tuple{0.5, 0.0});
    CHECK(tl::grad(atan2_)(2.0, 0.0) == std::tuple{0.0, -0.5});
  }
  SUBCASE("no overflow or underflow in the intermediate x^2 + y^2") {
    // At (s, s) the partials are +-1 / (2 s): finite for every s here, and representable.
    for (const double s : {1e-170, 1e-160, 1e160, 1e200}) {
      const auto g = tl::grad(atan2_)(s, s);
      INFO("atan2(s, s) at s = " << fd::str(s) << ": AD (" << fd::str(std::get<0>(g)) << ", " << fd::str(std::get<1>(g))
                                 << "), exact (" << fd::str(0.5 / s) << ", " << fd::str(-0.5 / s) << ")");
      CHECK(fd::strict_rel_error(std::get<0>(g), 0.5 / s) < 1e-15);
      CHECK(fd::strict_rel_error(std::get<1>(g), -0.5 / s) < 1e-15);
    }
  }
}

TEST_CASE("trigonometric: identities through the gradient") {
  fd::rng r{311};
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform(-10, 10);
    CAPTURE(x);
    // sin^2 + cos^2 = 1
    CHECK(std::abs(tl::grad([](auto a) { return tl::sin(a) * tl::sin(a) + tl::cos(a) * tl::cos(a); })(x)) < 1e-14);
    // atan(tan(x / 8)) = x / 8 on (-pi/2, pi/2)
    CHECK(fd::rel_error(tl::grad([](auto a) { return tl::atan(tl::tan(a / 8)); })(x), 0.125) < 1e-14);
    // sin(x) / cos(x) against tan(x), away from the poles
    if (std::abs(std::cos(x)) > 0.1)
      CHECK(fd::rel_error(tl::grad([](auto a) { return tl::sin(a) / tl::cos(a); })(x), tl::grad(tan_)(x)) < 1e-13);
  }
}

TEST_CASE("trigonometric: domain errors give NaN value and NaN gradient, and never throw") {
  fd::check_domain_error("acos", acos_, 2.0);
  fd::check_domain_error("acos", acos_, -2.0);
  fd::check_domain_error("asin", asin_, 2.0);
  fd::check_domain_error("asin", asin_, -1.5);
  fd::check_domain_error("sin", sin_, infinity);
  fd::check_domain_error("cos", cos_, -infinity);
  fd::check_domain_error("tan", tan_, infinity);
}

TEST_CASE("trigonometric: NaN propagates to the value and the gradient") {
  const auto check = [](const std::string& name, auto f) {
    const auto vg = tl::value_and_grad(f)(qnan);
    INFO(name << ": value " << fd::str(vg.first) << ", gradient " << fd::str(vg.second));
    CHECK(std::isnan(vg.first));
    CHECK(std::isnan(vg.second));
  };
  check("sin", sin_);
  check("cos", cos_);
  check("tan", tan_);
  check("asin", asin_);
  check("acos", acos_);
  check("atan", atan_);
  check("atan2(x, 1)", [](auto a) { return tl::atan2(a, 1.0); });
  check("atan2(1, x)", [](auto a) { return tl::atan2(1.0, a); });
}

TEST_CASE("trigonometric: plain numbers through tl:: functions are plain numbers") {
  volatile double input = 0.3;  // not a constant: the run-time path, which is std::
  const double x = input;
  static_assert(std::is_same_v<decltype(tl::sin(1.0)), double>);
  static_assert(std::is_same_v<decltype(tl::sin(1.0f)), float>);
  static_assert(std::is_same_v<decltype(tl::cos(1)), double>);
  static_assert(std::is_same_v<decltype(tl::atan2(1.0f, 2.0f)), float>);
  static_assert(std::is_same_v<decltype(tl::atan2(1, 2.0)), double>);
  CHECK(tl::sin(x) == std::sin(x));
  CHECK(tl::cos(x) == std::cos(x));
  CHECK(tl::tan(x) == std::tan(x));
  CHECK(tl::asin(x) == std::asin(x));
  CHECK(tl::acos(x) == std::acos(x));
  CHECK(tl::atan(x) == std::atan(x));
  CHECK(tl::atan2(x, 2.0) == std::atan2(x, 2.0));
  CHECK(fd::rel_error(tl::atan2(-1.0, -1.0), -3 * std::numbers::pi / 4) < 1e-15);
}
