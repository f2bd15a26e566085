// SPDX-License-Identifier: BSL-1.0
// exp, exp2, expm1, log, log2, log10, log1p: gradients against finite differences and the closed
// forms, through tl::grad and through tl::var; domain errors; plain numbers stay plain.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <unary_check.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <type_traits>

namespace tl = tapeless;

namespace {

constexpr int points = 200;

const double qnan = std::numeric_limits<double>::quiet_NaN();
const double infinity = std::numeric_limits<double>::infinity();

using fd::check_unary;

// The operations, as functions that take expressions, vars (by reference) and plain numbers.
const auto exp_ = [](auto&& x) { return tl::exp(x); };
const auto exp2_ = [](auto&& x) { return tl::exp2(x); };
const auto expm1_ = [](auto&& x) { return tl::expm1(x); };
const auto log_ = [](auto&& x) { return tl::log(x); };
const auto log2_ = [](auto&& x) { return tl::log2(x); };
const auto log10_ = [](auto&& x) { return tl::log10(x); };
const auto log1p_ = [](auto&& x) { return tl::log1p(x); };

}  // namespace

TEST_CASE("exp") {
  check_unary(
      "exp", exp_, [](double x) { return std::exp(x); }, [](double x) { return std::exp(x); }, -20, 20, 101);
  CHECK(tl::value_and_grad(exp_)(0.0) == std::pair{1.0, 1.0});
}

TEST_CASE("exp2") {
  check_unary(
      "exp2", exp2_, [](double x) { return std::exp2(x); }, [](double x) { return std::exp2(x) * std::log(2.0); }, -20,
      20, 102);
  CHECK(tl::grad(exp2_)(3.0) == 8.0 * std::numbers::ln2);
}

TEST_CASE("expm1") {
  SUBCASE("random points") {
    check_unary(
        "expm1", expm1_, [](double x) { return std::expm1(x); }, [](double x) { return std::exp(x); }, -10, 10, 103);
  }
  SUBCASE("near 0 the value keeps its digits and the derivative is 1 + x") {
    for (const double x : {1e-12, -1e-12, 1e-300, 0.0}) {
      CAPTURE(x);
      const auto vg = tl::value_and_grad(expm1_)(x);
      CHECK(vg.first == std::expm1(x));
      CHECK(fd::rel_error(vg.second, std::exp(x)) < 1e-16);
    }
  }
}

TEST_CASE("log") {
  SUBCASE("random points") {
    check_unary(
        "log", log_, [](double x) { return std::log(x); }, [](double x) { return 1.0 / x; }, 0.05, 50, 104);
    CHECK(tl::value_and_grad(log_)(1.0) == std::pair{0.0, 1.0});
  }
  SUBCASE("tiny and huge arguments") {
    for (const double x : {1e-300, 1e-5, 1e5, 1e300}) {
      CAPTURE(x);
      CHECK(fd::strict_rel_error(tl::grad(log_)(x), 1.0 / x) < 1e-15);
    }
  }
}

TEST_CASE("log2") {
  check_unary(
      "log2", log2_, [](double x) { return std::log2(x); }, [](double x) { return 1.0 / (x * std::log(2.0)); }, 0.05,
      50, 105);
  CHECK(tl::value_and_grad(log2_)(8.0).first == 3.0);
}

TEST_CASE("log10") {
  check_unary(
      "log10", log10_, [](double x) { return std::log10(x); }, [](double x) { return 1.0 / (x * std::log(10.0)); },
      0.05, 50, 106);
  CHECK(tl::value_and_grad(log10_)(100.0).first == 2.0);
}

TEST_CASE("log1p") {
  SUBCASE("random points") {
    check_unary(
        "log1p", log1p_, [](double x) { return std::log1p(x); }, [](double x) { return 1.0 / (1.0 + x); }, -0.95, 50,
        107);
  }
  SUBCASE("near 0") {
    for (const double x : {1e-12, -1e-12, 0.0}) {
      CAPTURE(x);
      const auto vg = tl::value_and_grad(log1p_)(x);
      CHECK(vg.first == std::log1p(x));
      CHECK(fd::rel_error(vg.second, 1.0 / (1.0 + x)) < 1e-16);
    }
  }
}

TEST_CASE("exponential: compositions") {
  // exp(log(x)) = x and log(exp(x)) = x: gradient 1
  fd::rng r{108};
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform(0.05, 20);
    CAPTURE(x);
    CHECK(fd::rel_error(tl::grad([](auto a) { return tl::exp(tl::log(a)); })(x), 1.0) < 1e-14);
    CHECK(fd::rel_error(tl::grad([](auto a) { return tl::log(tl::exp(a)); })(x), 1.0) < 1e-14);
    // x^x = exp(x log x): d/dx = x^x (log x + 1)
    const double g = tl::grad([](auto a) { return tl::exp(a * tl::log(a)); })(x);
    CHECK(fd::rel_error(g, std::pow(x, x) * (std::log(x) + 1.0)) < 1e-12);
  }
}

TEST_CASE("exponential: domain errors give NaN value and NaN gradient, and never throw") {
  SUBCASE("outside the domain") {
    fd::check_domain_error("log", log_, -1.0);
    fd::check_domain_error("log", log_, -1e-300);
    fd::check_domain_error("log2", log2_, -1.0);
    fd::check_domain_error("log10", log10_, -1.0);
    fd::check_domain_error("log1p", log1p_, -2.0);
  }
  SUBCASE("at the boundary the limits are infinite") {
    const auto vg = tl::value_and_grad(log_)(0.0);
    CHECK(vg.first == -infinity);
    CHECK(vg.second == infinity);
    const auto vg1 = tl::value_and_grad(log1p_)(-1.0);
    CHECK(vg1.first == -infinity);
    CHECK(vg1.second == infinity);
  }
  SUBCASE("overflow") {
    const auto vg = tl::value_and_grad(exp_)(1000.0);
    CHECK(vg.first == infinity);
    CHECK(vg.second == infinity);
    CHECK(tl::value_and_grad(exp_)(-1000.0) == std::pair{0.0, 0.0});
  }
}

TEST_CASE("exponential: NaN propagates to the value and the gradient") {
  for (const auto& [name, f] : {std::pair{"exp", +[](double x) { return tl::value_and_grad(exp_)(x); }},
                                std::pair{"exp2", +[](double x) { return tl::value_and_grad(exp2_)(x); }},
                                std::pair{"expm1", +[](double x) { return tl::value_and_grad(expm1_)(x); }},
                                std::pair{"log", +[](double x) { return tl::value_and_grad(log_)(x); }},
                                std::pair{"log2", +[](double x) { return tl::value_and_grad(log2_)(x); }},
                                std::pair{"log10", +[](double x) { return tl::value_and_grad(log10_)(x); }},
                                std::pair{"log1p", +[](double x) { return tl::value_and_grad(log1p_)(x); }}}) {
    const std::string op = name;
    INFO(op);
    const auto vg = f(qnan);
    CHECK(std::isnan(vg.first));
    CHECK(std::isnan(vg.second));
  }
}

TEST_CASE("exponential: plain numbers through tl:: functions are plain numbers") {
  volatile double input = 0.7;  // not a constant: the run-time path, which is std::
  const double x = input;
  static_assert(std::is_same_v<decltype(tl::exp(x)), double>);
  static_assert(std::is_same_v<decltype(tl::log(1.0f)), float>);
  static_assert(std::is_same_v<decltype(tl::log(2)), double>);
  static_assert(std::is_same_v<decltype(tl::exp2(2.0L)), long double>);
  CHECK(tl::exp(x) == std::exp(x));
  CHECK(tl::exp2(x) == std::exp2(x));
  CHECK(tl::expm1(x) == std::expm1(x));
  CHECK(tl::log(x) == std::log(x));
  CHECK(tl::log2(x) == std::log2(x));
  CHECK(tl::log10(x) == std::log10(x));
  CHECK(tl::log1p(x) == std::log1p(x));
  volatile int two = 2;
  volatile float half = 0.5f;
  CHECK(tl::log(two) == std::log(static_cast<double>(two)));
  CHECK(tl::exp(half) == std::exp(static_cast<float>(half)));
}
