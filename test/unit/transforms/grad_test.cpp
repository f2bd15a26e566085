// SPDX-License-Identifier: BSL-1.0
// tl::grad and tl::value_and_grad: the contract. Result types, argument selection and order, float
// and long double, parameter styles, functions written with locals and helpers, captured data,
// constant functions, value_and_grad's value against f on plain numbers, and has_aux. (How the
// adjoints reaching an argument are summed: sweep/adjoints_test.cpp.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

constexpr int points = 200;

// f(x, y) = x sin(x y) + y^2 / x, written with plain operators so that the test states it once.
const auto f2 = [](auto x, auto y) { return x * tl::sin(x * y) + y * y / x; };
std::tuple<double, double> f2_gradient(double x, double y) {
  return {std::sin(x * y) + x * y * std::cos(x * y) - y * y / (x * x), x * x * std::cos(x * y) + 2 * y / x};
}

// Rosenbrock as a function object with a member template, not a lambda.
struct rosenbrock {
  template <class X, class Y>
  constexpr auto operator()(const X& x, const Y& y) const {
    return tl::square(1.0 - x) + 100.0 * tl::square(y - x * x);
  }
};
std::tuple<double, double> rosenbrock_gradient(double x, double y) {
  return {-2 * (1 - x) - 400 * x * (y - x * x), 200 * (y - x * x)};
}

// A chain of K levels built by a helper template, each level using the previous value twice.
template <int K, class X>
auto deep(const X& x) {
  if constexpr (K == 0) {
    return x * 1.0;
  } else {
    const auto y = deep<K - 1>(x);
    return 0.5 * y + 0.1 * tl::sin(y);
  }
}

}  // namespace

TEST_CASE("grad: result types") {
  const auto f1 = [](auto x) { return x * x; };
  const auto f3 = [](auto x, auto y, auto z) { return x * y * z; };
  static_assert(std::is_same_v<decltype(tl::grad(f1)(1.0)), double>);
  static_assert(std::is_same_v<decltype(tl::grad(f2)(1.0, 2.0)), std::tuple<double, double>>);
  static_assert(std::is_same_v<decltype(tl::grad(f3)(1.0, 2.0, 3.0)), std::tuple<double, double, double>>);
  static_assert(std::is_same_v<decltype(tl::value_and_grad(f1)(1.0)), std::pair<double, double>>);
  static_assert(
      std::is_same_v<decltype(tl::value_and_grad(f2)(1.0, 2.0)), std::pair<double, std::tuple<double, double>>>);
  static_assert(std::is_same_v<decltype(tl::grad<1>(f2)(1.0, 2.0)), double>);
  static_assert(std::is_same_v<decltype(tl::grad<0, 1>(f2)(1.0, 2.0)), std::tuple<double, double>>);
  static_assert(std::is_same_v<decltype(tl::value_and_grad<1>(f2)(1.0, 2.0)), std::pair<double, double>>);
  static_assert(std::is_same_v<decltype(tl::grad<2, 0>(f3)(1.0, 2.0, 3.0)), std::tuple<double, double>>);

  CHECK(tl::grad(f1)(3.0) == 6.0);
  CHECK(tl::grad(f3)(2.0, 3.0, 5.0) == std::tuple{15.0, 10.0, 6.0});
  CHECK(tl::value_and_grad(f1)(3.0) == std::pair{9.0, 6.0});
  CHECK(tl::value_and_grad(f3)(2.0, 3.0, 5.0) == std::pair{30.0, std::tuple{15.0, 10.0, 6.0}});
}

TEST_CASE("grad: selecting arguments, and the order of the result") {
  const auto f3 = [](auto x, auto y, auto z) { return x * y * y * z * z * z; };  // (y^2 z^3, 2xyz^3, 3xy^2z^2)
  const double x = 2.0, y = 3.0, z = 5.0;
  const auto all = tl::grad(f3)(x, y, z);
  const double gx = std::get<0>(all), gy = std::get<1>(all), gz = std::get<2>(all);
  CHECK(all == std::tuple{9.0 * 125.0, 2 * 2 * 3 * 125.0, 3 * 2 * 9 * 25.0});
  CHECK(tl::grad<0>(f3)(x, y, z) == gx);
  CHECK(tl::grad<1>(f3)(x, y, z) == gy);
  CHECK(tl::grad<2>(f3)(x, y, z) == gz);
  CHECK(tl::grad<0, 1>(f3)(x, y, z) == std::tuple{gx, gy});
  CHECK(tl::grad<1, 0>(f3)(x, y, z) == std::tuple{gy, gx});
  CHECK(tl::grad<2, 0>(f3)(x, y, z) == std::tuple{gz, gx});
  CHECK(tl::grad<2, 1, 0>(f3)(x, y, z) == std::tuple{gz, gy, gx});
  CHECK(tl::grad<0, 1, 2>(f3)(x, y, z) == all);
  CHECK(tl::value_and_grad<1>(f3)(x, y, z) == std::pair{2.0 * 9.0 * 125.0, gy});
  CHECK(tl::value_and_grad<2, 1>(f3)(x, y, z) == std::pair{2.0 * 9.0 * 125.0, std::tuple{gz, gy}});

  SUBCASE("arguments not selected are passed to f as plain numbers") {
    const auto g = [](auto a, auto b) {
      static_assert(std::is_same_v<decltype(b), double>, "b is not differentiated: a double");
      static_assert(tl::Expression<decltype(a)>, "a is differentiated: an expression leaf");
      return a * b;
    };
    CHECK(tl::grad<0>(g)(2.0, 7.0) == 7.0);
    const auto h = [](auto a, auto b) {
      static_assert(std::is_same_v<decltype(a), float>);
      return a * b;
    };
    CHECK(tl::grad<1>(h)(2.0f, 7.0) == 2.0);
  }
  SUBCASE("at many points, selections agree with the full gradient") {
    fd::rng r{801};
    for (int i = 0; i < points; ++i) {
      const double a = r.uniform(0.5, 3), b = r.uniform(-3, 3);
      CAPTURE(a);
      CAPTURE(b);
      const auto full = tl::grad(f2)(a, b);
      CHECK(tl::grad<0>(f2)(a, b) == std::get<0>(full));
      CHECK(tl::grad<1>(f2)(a, b) == std::get<1>(full));
      CHECK(tl::grad<1, 0>(f2)(a, b) == std::tuple{std::get<1>(full), std::get<0>(full)});
      const auto e = f2_gradient(a, b);
      CHECK(fd::rel_error(std::get<0>(full), std::get<0>(e)) < 1e-13);
      CHECK(fd::rel_error(std::get<1>(full), std::get<1>(e)) < 1e-13);
    }
  }
}

TEST_CASE("grad: float and long double arguments give gradients of their own type") {
  const auto f = [](auto x) { return tl::sin(x) * x * 2.0; };  // a double constant beside a float expression
  static_assert(std::is_same_v<decltype(tl::grad(f)(1.0f)), float>);
  static_assert(std::is_same_v<decltype(tl::grad(f)(1.0L)), long double>);
  static_assert(std::is_same_v<decltype(tl::value_and_grad(f)(1.0f)), std::pair<float, float>>);
  static_assert(std::is_same_v<decltype(tl::grad(f2)(1.0f, 2.0)), std::tuple<float, double>>);
  static_assert(std::is_same_v<decltype(tl::grad(f2)(1.0f, 2.0f)), std::tuple<float, float>>);

  fd::rng r{802};
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform(-3, 3);
    CAPTURE(x);
    const double exact = 2.0 * (std::cos(x) * x + std::sin(x));
    const float gf = tl::grad(f)(static_cast<float>(x));
    const double xf = static_cast<float>(x);  // the float argument, exactly
    CHECK(std::abs(gf - 2.0 * (std::cos(xf) * xf + std::sin(xf))) < 1e-5);
    const long double gl = tl::grad(f)(static_cast<long double>(x));
    CHECK(fd::rel_error(static_cast<double>(gl), exact) < 1e-15);
    const auto mixed = tl::grad(f2)(static_cast<float>(x) + 4.0f, 1.5);
    const auto e = f2_gradient(static_cast<float>(x) + 4.0f, 1.5);
    CHECK(std::abs(std::get<0>(mixed) - std::get<0>(e)) < 1e-5 * std::max(1.0, std::abs(std::get<0>(e))));
    CHECK(fd::rel_error(std::get<1>(mixed), std::get<1>(e)) < 1e-13);
  }
}

TEST_CASE("grad: parameters by value, by const reference and by forwarding reference") {
  const auto by_value = [](auto x, auto y) { return x * tl::sin(x * y) + y * y / x; };
  const auto by_cref = [](const auto& x, const auto& y) { return x * tl::sin(x * y) + y * y / x; };
  const auto by_fwd = [](auto&& x, auto&& y) { return x * tl::sin(x * y) + y * y / x; };
  fd::rng r{803};
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform(0.5, 3), y = r.uniform(-3, 3);
    CAPTURE(x);
    CAPTURE(y);
    const auto a = tl::value_and_grad(by_value)(x, y);
    CHECK(tl::value_and_grad(by_cref)(x, y) == a);
    CHECK(tl::value_and_grad(by_fwd)(x, y) == a);
    CHECK(tl::grad<1>(by_cref)(x, y) == std::get<1>(a.second));
    CHECK(a.first == by_cref(x, y));
  }
  CHECK(tl::grad(rosenbrock{})(1.0, 1.0) == std::tuple{0.0, 0.0});
  CHECK(tl::grad(rosenbrock{})(-1.0, 2.0) == rosenbrock_gradient(-1.0, 2.0));
}

TEST_CASE("grad: intermediates in locals and helper lambdas returning expressions") {
  SUBCASE("locals, several in a row") {
    const auto f = [](auto x, auto y) {
      const auto a = x * y;
      const auto b = tl::sin(a);
      auto c = b * x + 2.0;
      auto d = c / y;
      return d - a;
    };
    // (x sin(xy) + 2) / y - xy
    fd::rng r{804};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-3, 3), y = r.uniform_away(-3, 3, {0.0}, 0.2);
      CAPTURE(x);
      CAPTURE(y);
      const auto g = tl::grad(f)(x, y);
      const double s = std::sin(x * y), c = std::cos(x * y);
      CHECK(fd::rel_error(std::get<0>(g), (s + x * y * c) / y - y) < 1e-13);
      CHECK(fd::rel_error(std::get<1>(g), (x * x * c * y - (x * s + 2)) / (y * y) - x) < 1e-13);
    }
  }
  SUBCASE("helper lambdas returning expressions, used inside other helpers") {
    const auto sq = [](auto v) { return v * v; };
    const auto norm2 = [sq](auto u, auto v) { return sq(u) + sq(v); };
    const auto f = [norm2](auto x, auto y) {
      const auto n = norm2(x, y);
      return tl::sqrt(n) * tl::exp(-n);
    };
    // r e^{-r^2}: d/dx = x e^{-n} (1/r - 2r)
    fd::rng r{805};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-2, 2), y = r.uniform(-2, 2);
      if (std::hypot(x, y) < 0.1) continue;
      CAPTURE(x);
      CAPTURE(y);
      const auto g = tl::grad(f)(x, y);
      const double n = x * x + y * y, rr = std::sqrt(n), k = std::exp(-n) * (1 / rr - 2 * rr);
      CHECK(fd::rel_error(std::get<0>(g), x * k) < 1e-13);
      CHECK(fd::rel_error(std::get<1>(g), y * k) < 1e-13);
    }
  }
  SUBCASE("ten levels deep through a helper template, each level using its input twice") {
    const auto f = [](auto x) { return deep<10>(x); };
    fd::rng r{806};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-5, 5);
      CAPTURE(x);
      double y = x, dy = 1.0;
      for (int k = 0; k < 10; ++k) {
        dy *= 0.5 + 0.1 * std::cos(y);
        y = 0.5 * y + 0.1 * std::sin(y);
      }
      const auto vg = tl::value_and_grad(f)(x);
      CHECK(fd::rel_error(vg.first, y) < 1e-14);
      CHECK(fd::rel_error(vg.second, dy) < 1e-14);
      CHECK(fd::rel_error(vg.second, fd::derivative(f, x)) < 1e-6);
    }
  }
}

TEST_CASE("grad: captured data, by reference and by value") {
  double c = 3.0;
  const std::array<double, 3> w{0.5, -2.0, 4.0};
  const auto f = [&c, w](auto x) { return 2.0 * x + x * c - c / x + w[0] * x * w[1] + tl::pow(x, w[2]); };
  const auto df = [&c, &w](double x) { return 2.0 + c + c / (x * x) + w[0] * w[1] + w[2] * std::pow(x, w[2] - 1); };
  fd::rng r{807};
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform(0.2, 3);
    CAPTURE(x);
    CHECK(fd::rel_error(tl::grad(f)(x), df(x)) < 1e-13);
  }
  c = -7.5;  // captured by reference: the next gradient sees it
  CHECK(fd::rel_error(tl::grad(f)(1.5), df(1.5)) < 1e-13);
  CHECK(tl::grad([c](auto x) { return x + c; })(1.0) == 1.0);
  CHECK(tl::grad([&c](auto x) { return c / x; })(2.0) == 7.5 / 4.0);
  // data as the non-selected argument rather than a capture
  CHECK(tl::grad<0>([](auto x, auto k) { return k * x * x; })(3.0, 5.0) == 30.0);
}

TEST_CASE("grad: a function that returns a constant, or ignores an argument, has a zero gradient") {
  CHECK(tl::grad([](auto) { return 4.0; })(1.0) == 0.0);
  CHECK(tl::value_and_grad([](auto) { return 4.0; })(1.0) == std::pair{4.0, 0.0});
  CHECK(tl::grad([](auto, auto) { return 4.0; })(1.0, 2.0) == std::tuple{0.0, 0.0});
  CHECK(tl::grad([](auto x, auto) { return x * 3.0; })(1.0, 2.0) == std::tuple{3.0, 0.0});
  CHECK(tl::grad([](auto, auto y) { return y; })(1.0, 2.0) == std::tuple{0.0, 1.0});
  CHECK(tl::grad([](auto x) { return x; })(5.0) == 1.0);
  CHECK(tl::value_and_grad([](auto) { return 4; })(1.0).first == 4);
  CHECK(tl::value_and_grad([](auto) { return 4; })(1.0).second == 0.0);
  // a constant built from operations on the non-selected argument only
  const auto vg = tl::value_and_grad<0>([](auto, auto y) { return tl::sin(y) * 2.0; })(1.0, 0.5);
  CHECK(fd::rel_error(vg.first, std::sin(0.5) * 2.0) < 1e-15);
  CHECK(vg.second == 0.0);
  // a term multiplied by zero still counts
  CHECK(tl::grad([](auto x) { return x * 0.0 + 1.0; })(3.0) == 0.0);
}

TEST_CASE("grad: value_and_grad's value is f at plain numbers, from one call of f") {
  fd::rng r{808};
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform(0.5, 3), y = r.uniform(-3, 3);
    CAPTURE(x);
    CAPTURE(y);
    CHECK(tl::value_and_grad(f2)(x, y).first == f2(x, y));
    CHECK(tl::value_and_grad(rosenbrock{})(x, y).first == rosenbrock{}(x, y));
    CHECK(tl::value_and_grad([](auto a) { return deep<6>(a); })(x).first == deep<6>(x));
    CHECK(tl::value_and_grad<1>(f2)(x, y).first == f2(x, y));
    CHECK(tl::value_and_grad(f2)(x, y).second == tl::grad(f2)(x, y));
  }
  int calls = 0;
  const auto counted = [&calls](auto x) {
    ++calls;
    return x * x;
  };
  CHECK(tl::grad(counted)(2.0) == 4.0);
  CHECK(calls == 1);
  CHECK(tl::value_and_grad(counted)(2.0) == std::pair{4.0, 4.0});
  CHECK(calls == 2);
}

TEST_CASE("grad: the transform is a value, reusable and copyable") {
  const auto g = tl::grad(f2);
  const auto copy = g;
  CHECK(g(1.0, 2.0) == copy(1.0, 2.0));
  CHECK(g(1.0, 2.0) == g(1.0, 2.0));
  CHECK(g(2.0, 1.0) != g(1.0, 2.0));
  // a gradient of a gradient's component, by finite differences: d/dx (df/dx) of x^3 is 6x
  const auto dcube = [](double x) { return tl::grad([](auto a) { return a * a * a; })(x); };
  CHECK(fd::rel_error(fd::derivative(dcube, 2.0), 12.0) < 1e-9);
  // a sweep with many arguments
  const auto f6 = [](auto a, auto b, auto c, auto d, auto e, auto f) {
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
  };
  CHECK(tl::grad(f6)(1.0, 1.0, 1.0, 1.0, 1.0, 1.0) == std::tuple{1.0, 2.0, 3.0, 4.0, 5.0, 6.0});
  CHECK(tl::grad<5, 3, 1>(f6)(1.0, 1.0, 1.0, 1.0, 1.0, 1.0) == std::tuple{6.0, 4.0, 2.0});
}

TEST_CASE("grad: has_aux, the auxiliary output passes through untouched") {
  const auto f = [](const auto& x) {
    auto p = tl::exp(x);
    return std::pair{tl::sum(p * x), std::tuple{p, 42}};
  };
  const tl::vector<double, 2> x{0.5, -1.0};
  const auto [g, aux] = tl::grad(f, tl::has_aux)(x);
  static_assert(std::is_same_v<std::remove_const_t<decltype(aux)>, std::tuple<tl::vector<double, 2>, int>>);
  CHECK(std::get<1>(aux) == 42);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(std::get<0>(aux)[i] == std::exp(x[i]));
    CHECK(g[i] == doctest::Approx((1 + x[i]) * std::exp(x[i])).epsilon(1e-15));
  }
  const auto [value_aux, g2] = tl::value_and_grad(f, tl::has_aux)(x);
  CHECK(value_aux.first == doctest::Approx(0.5 * std::exp(0.5) - std::exp(-1.0)).epsilon(1e-15));
  CHECK(std::get<1>(value_aux.second) == 42);
  CHECK(g2 == g);
  const auto h = [](auto a, auto b) { return std::pair{a * b, a + b}; };
  const auto [gb, s] = tl::grad<1>(h, tl::has_aux)(2.0, 3.0);
  CHECK(gb == 2.0);
  CHECK(s == 5.0);
  constexpr auto cg = tl::grad([](auto a) { return std::pair{a * a, 1.5}; }, tl::has_aux)(3.0);
  static_assert(cg.first == 6.0 && cg.second == 1.5);
}
