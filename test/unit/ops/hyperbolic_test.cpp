// SPDX-License-Identifier: BSL-1.0
// sinh, cosh, tanh, asinh, acosh, atanh: gradients against finite differences and the closed forms,
// domain errors, NaN, extreme arguments, and plain numbers.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <unary_check.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace tl = tapeless;

namespace {

constexpr int points = 200;

const double qnan = std::numeric_limits<double>::quiet_NaN();
const double infinity = std::numeric_limits<double>::infinity();

using fd::check_unary;

const auto sinh_ = [](auto&& x) { return tl::sinh(x); };
const auto cosh_ = [](auto&& x) { return tl::cosh(x); };
const auto tanh_ = [](auto&& x) { return tl::tanh(x); };
const auto asinh_ = [](auto&& x) { return tl::asinh(x); };
const auto acosh_ = [](auto&& x) { return tl::acosh(x); };
const auto atanh_ = [](auto&& x) { return tl::atanh(x); };

}  // namespace

TEST_CASE("sinh") {
  check_unary(
      "sinh", sinh_, [](double x) { return std::sinh(x); }, [](double x) { return std::cosh(x); }, -5, 5, 401);
}

TEST_CASE("cosh") {
  check_unary(
      "cosh", cosh_, [](double x) { return std::cosh(x); }, [](double x) { return std::sinh(x); }, -5, 5, 402);
}

TEST_CASE("tanh") {
  SUBCASE("random points") {
    check_unary(
        "tanh", tanh_, [](double x) { return std::tanh(x); },
        [](double x) { return 1.0 / (std::cosh(x) * std::cosh(x)); }, -5, 5, 403);
  }
  SUBCASE("saturated: finite, non-negative, and within an ulp of 1 / cosh^2 in absolute terms") {
    for (const double x : {20.0, -20.0, 40.0, -700.0}) {
      CAPTURE(x);
      const auto vg = tl::value_and_grad(tanh_)(x);
      CHECK(std::isfinite(vg.second));
      CHECK(vg.second >= 0.0);
      CHECK(std::abs(vg.second - 1.0 / (std::cosh(x) * std::cosh(x))) < 1e-16);
    }
  }
}

TEST_CASE("asinh") {
  SUBCASE("random points") {
    check_unary(
        "asinh", asinh_, [](double x) { return std::asinh(x); }, [](double x) { return 1.0 / std::sqrt(x * x + 1.0); },
        -10, 10, 404);
  }
  SUBCASE("huge arguments do not overflow x^2") {
    for (const double x : {1e200, -1e200, 1e300}) {
      CAPTURE(x);
      CHECK(fd::strict_rel_error(tl::grad(asinh_)(x), 1.0 / std::abs(x)) < 1e-15);
    }
  }
}

TEST_CASE("acosh") {
  SUBCASE("random points") {
    check_unary(
        "acosh", acosh_, [](double x) { return std::acosh(x); }, [](double x) { return 1.0 / std::sqrt(x * x - 1.0); },
        1.05, 20, 405);
  }
  SUBCASE("near 1 and huge") {
    // 1 / sqrt((x - 1)(x + 1)) with x - 1 exact near 1
    const double x = 1.0 + 1e-10;
    CHECK(fd::rel_error(tl::grad(acosh_)(x), 1.0 / std::sqrt((x - 1.0) * (x + 1.0))) < 1e-15);
    CHECK(fd::strict_rel_error(tl::grad(acosh_)(1e200), 1e-200) < 1e-15);
  }
  SUBCASE("at 1 the derivative is +infinity") { CHECK(tl::value_and_grad(acosh_)(1.0) == std::pair{0.0, infinity}); }
}

TEST_CASE("atanh") {
  SUBCASE("random points") {
    check_unary(
        "atanh", atanh_, [](double x) { return std::atanh(x); }, [](double x) { return 1.0 / (1.0 - x * x); }, -0.95,
        0.95, 406);
  }
  SUBCASE("at +-1 value and derivative are infinite") {
    CHECK(tl::value_and_grad(atanh_)(1.0) == std::pair{infinity, infinity});
    CHECK(tl::value_and_grad(atanh_)(-1.0) == std::pair{-infinity, infinity});
  }
}

TEST_CASE("hyperbolic: identities through the gradient") {
  fd::rng r{407};
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform(-3, 3);
    CAPTURE(x);
    // cosh^2 - sinh^2 = 1
    CHECK(std::abs(tl::grad([](auto a) { return tl::cosh(a) * tl::cosh(a) - tl::sinh(a) * tl::sinh(a); })(x)) < 1e-12);
    // the inverses undo the functions: d/dx asinh(sinh(x)) = 1, atanh(tanh(x / 4)) = x / 4
    CHECK(fd::rel_error(tl::grad([](auto a) { return tl::asinh(tl::sinh(a)); })(x), 1.0) < 1e-14);
    CHECK(fd::rel_error(tl::grad([](auto a) { return tl::atanh(tl::tanh(a / 4)); })(x), 0.25) < 1e-14);
    // acosh(cosh(x)) = |x|
    if (std::abs(x) > 0.1)
      CHECK(fd::rel_error(tl::grad([](auto a) { return tl::acosh(tl::cosh(a)); })(x), x > 0 ? 1.0 : -1.0) < 1e-12);
    // sinh / cosh against tanh
    CHECK(fd::rel_error(tl::grad([](auto a) { return tl::sinh(a) / tl::cosh(a); })(x), tl::grad(tanh_)(x)) < 1e-14);
  }
}

TEST_CASE("hyperbolic: domain errors give NaN value and NaN gradient, and never throw") {
  fd::check_domain_error("acosh", acosh_, 0.5);
  fd::check_domain_error("acosh", acosh_, -2.0);
  fd::check_domain_error("atanh", atanh_, 2.0);
  fd::check_domain_error("atanh", atanh_, -1.5);
}

TEST_CASE("hyperbolic: overflow follows the value") {
  const auto vs = tl::value_and_grad(sinh_)(1000.0);
  CHECK(vs == std::pair{infinity, infinity});
  const auto vc = tl::value_and_grad(cosh_)(-1000.0);
  CHECK(vc == std::pair{infinity, -infinity});
}

TEST_CASE("hyperbolic: NaN propagates to the value and the gradient") {
  const auto check = [](const std::string& name, auto f) {
    const auto vg = tl::value_and_grad(f)(qnan);
    INFO(name << ": value " << fd::str(vg.first) << ", gradient " << fd::str(vg.second));
    CHECK(std::isnan(vg.first));
    CHECK(std::isnan(vg.second));
  };
  check("sinh", sinh_);
  check("cosh", cosh_);
  check("tanh", tanh_);
  check("asinh", asinh_);
  check("acosh", acosh_);
  check("atanh", atanh_);
}

TEST_CASE("hyperbolic: plain numbers through tl:: functions are plain numbers") {
  volatile double input = 0.4;  // not a constant: the run-time path, which is std::
  const double x = input;
  static_assert(std::is_same_v<decltype(tl::sinh(1.0)), double>);
  static_assert(std::is_same_v<decltype(tl::tanh(1.0f)), float>);
  static_assert(std::is_same_v<decltype(tl::acosh(2)), double>);
  CHECK(tl::sinh(x) == std::sinh(x));
  CHECK(tl::cosh(x) == std::cosh(x));
  CHECK(tl::tanh(x) == std::tanh(x));
  CHECK(tl::asinh(x) == std::asinh(x));
  CHECK(tl::acosh(1.0 + x) == std::acosh(1.0 + x));
  CHECK(tl::atanh(x) == std::atanh(x));
}
