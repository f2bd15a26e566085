// SPDX-License-Identifier: BSL-1.0
// tl::var, the imperative leaf: value and gradient, accumulation across backward() calls, zero_grad,
// var.backward(), reusing an expression, set_value, agreement with tl::grad, and its identity
// (neither copied nor moved; generic code takes it as const auto&).
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <cmath>
#include <limits>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

TEST_CASE("var: value, and a gradient of 0 before any backward()") {
  tl::var<double> x{2.5};
  CHECK(x.value() == 2.5);
  CHECK(x.grad() == 0.0);
  const auto e = x * 3.0;  // building an expression does not touch the gradient
  CHECK(e.value() == 7.5);
  CHECK(x.grad() == 0.0);
  static_assert(std::is_same_v<decltype(x.value()), double>);
  static_assert(std::is_same_v<decltype(x.grad()), double>);
  static_assert(std::is_same_v<tl::var<float>::value_type, float>);
}

TEST_CASE("var: backward() on the var itself adds 1") {
  tl::var<double> x{-4.0};
  x.backward();
  CHECK(x.grad() == 1.0);
  x.backward();
  CHECK(x.grad() == 2.0);
  x.zero_grad();
  CHECK(x.grad() == 0.0);
  CHECK(x.value() == -4.0);
}

TEST_CASE("var: gradients accumulate across backward() calls until zero_grad()") {
  tl::var<double> x{3.0}, y{10.0};
  const auto z = x * x + x * y;
  CHECK(z.value() == 39.0);
  z.backward();
  CHECK(x.grad() == 16.0);
  CHECK(y.grad() == 3.0);
  SUBCASE("the same expression swept twice doubles the gradients") {
    z.backward();
    CHECK(x.grad() == 32.0);
    CHECK(y.grad() == 6.0);
    z.backward();
    CHECK(x.grad() == 48.0);
    CHECK(y.grad() == 9.0);
  }
  SUBCASE("another expression adds its own gradient") {
    const auto w = tl::sin(x) * y;
    w.backward();
    CHECK(fd::rel_error(x.grad(), 16.0 + std::cos(3.0) * 10.0) < 1e-15);
    CHECK(fd::rel_error(y.grad(), 3.0 + std::sin(3.0)) < 1e-15);
  }
  SUBCASE("zero_grad() resets one var and leaves the others") {
    x.zero_grad();
    CHECK(x.grad() == 0.0);
    CHECK(y.grad() == 3.0);
    z.backward();
    CHECK(x.grad() == 16.0);
    CHECK(y.grad() == 6.0);
  }
}

TEST_CASE("var: set_value") {
  tl::var<double> x{3.0}, y{10.0};
  const auto z = x * x + x * y;
  z.backward();
  x.set_value(5.0);
  CHECK(x.value() == 5.0);
  CHECK(x.grad() == 16.0);  // gradients so far are kept
  SUBCASE("an expression built before keeps the values it was built with") {
    CHECK(z.value() == 39.0);
    z.backward();
    CHECK(x.grad() == 32.0);
    CHECK(y.grad() == 6.0);
  }
  SUBCASE("an expression built after sees the new value") {
    x.zero_grad();
    y.zero_grad();
    const auto z2 = x * x + x * y;
    CHECK(z2.value() == 75.0);
    z2.backward();
    CHECK(x.grad() == 20.0);
    CHECK(y.grad() == 5.0);
  }
  SUBCASE("a training-loop step: read the gradient, move the value, reset") {
    // minimise (x - 1)^2 from x = 5 with step 0.25: x <- x - 0.25 * 2 (x - 1) halves the distance
    tl::var<double> w{5.0};
    for (int step = 0; step < 10; ++step) {
      w.zero_grad();
      const auto loss = (w - 1.0) * (w - 1.0);
      loss.backward();
      w.set_value(w.value() - 0.25 * w.grad());
    }
    CHECK(w.value() == 1.0 + 4.0 / 1024.0);
  }
}

TEST_CASE("var: the same var several times in one expression") {
  tl::var<double> x{1.5};
  (x * x * x).backward();
  CHECK(x.grad() == 3 * 1.5 * 1.5);
  x.zero_grad();
  (x - x).backward();
  CHECK(x.grad() == 0.0);
  x.zero_grad();
  (x / x).backward();
  CHECK(std::abs(x.grad()) < 1e-16);
  x.zero_grad();
  (x + x + 2 * x - 1).backward();
  CHECK(x.grad() == 4.0);
}

TEST_CASE("var: agrees with tl::grad") {
  const auto f = [](auto&& x, auto&& y) { return tl::exp(x * y) / (1.0 + y * y) - tl::log(x) * tl::sqrt(y); };
  fd::rng r{1001};
  for (int i = 0; i < 200; ++i) {
    const double a = r.uniform(0.1, 2), b = r.uniform(0.1, 2);
    CAPTURE(a);
    CAPTURE(b);
    tl::var<double> x{a}, y{b};
    const auto z = f(x, y);
    z.backward();
    const auto vg = tl::value_and_grad(f)(a, b);
    CHECK(z.value() == vg.first);
    // The same sum of contributions, but grad turns y * y into square(y): equal to rounding.
    CHECK(x.grad() == doctest::Approx(std::get<0>(vg.second)).epsilon(1e-14));
    CHECK(y.grad() == doctest::Approx(std::get<1>(vg.second)).epsilon(1e-14));
  }
}

TEST_CASE("var: float and long double") {
  tl::var<float> x{2.0f};
  const auto z = x * x * 3.0;  // a double constant beside a float var: float
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(z.value())>, float>);
  z.backward();
  CHECK(x.grad() == 12.0f);
  tl::var<long double> y{0.5L};
  tl::sin(y).backward();
  CHECK(std::abs(y.grad() - std::cos(0.5L)) < 1e-18L);
}

TEST_CASE("var: NaN reaches the gradient") {
  tl::var<double> x{std::numeric_limits<double>::quiet_NaN()};
  const auto z = x * x;
  z.backward();
  CHECK(std::isnan(z.value()));
  CHECK(std::isnan(x.grad()));
}

TEST_CASE("var: runs in a constant expression") {
  constexpr auto grads = [] {
    tl::var<double> x{3.0}, y{10.0};
    const auto z = x * x + x * y;
    z.backward();
    z.backward();
    x.backward();
    return std::tuple{x.grad(), y.grad(), z.value()};
  }();
  static_assert(grads == std::tuple{33.0, 6.0, 39.0});
  CHECK(std::get<0>(grads) == 33.0);
}

TEST_CASE("var: has identity, it can be neither copied nor moved") {
  // README and doc/design.md: a copy would receive the gradient meant for the original.
  CHECK(!std::is_copy_constructible_v<tl::var<double>>);
  CHECK(!std::is_move_constructible_v<tl::var<double>>);
  CHECK(!std::is_copy_assignable_v<tl::var<double>>);
  CHECK(!std::is_move_assignable_v<tl::var<double>>);
}

TEST_CASE("var: generic functions take vars as const auto&, and the gradient reaches the original") {
  // README: "generic functions take it as const auto&"; doc/design.md: "The gradient is written
  // through const var&"; test/compile_fail/var_copied.cpp compiles this form as its passing twin.
  const auto f = [](const auto& a, const auto& b) { return a * a + a * b; };
  tl::var<double> x{3.0}, y{10.0};
  const auto z = f(x, y);
  z.backward();
  CHECK(z.value() == 39.0);
  CHECK(x.grad() == 16.0);
  CHECK(y.grad() == 3.0);
  // the same function differentiates plain arguments with tl::grad
  CHECK(tl::grad(f)(3.0, 10.0) == std::tuple{16.0, 3.0});
}
