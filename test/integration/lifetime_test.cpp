// SPDX-License-Identifier: BSL-1.0
// Functions written the way users write them (intermediates in locals, helpers returning expressions,
// arguments by value and by reference) give correct gradients, and AddressSanitizer finds nothing
// when the suite runs in its sanitizer build: nodes hold their operands by value. A sum over rows
// holds its view, its body (with what the body captures by value) and its parameters by value, and
// reads the columns, which are the caller's, in place. (A body that captures f's own expressions does
// not compile: compile_fail/sum_over_captured_expression.cpp.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <tuple>
#include <type_traits>
#include <vector>

namespace tl = tapeless;

namespace {

// A helper that builds an expression from its own locals and returns it.
template <class X>
auto helper(const X& x) {
  auto a = x * x;
  auto b = tl::sin(a);
  return b + a;  // a and b die here; the result must not refer to them
}

auto make_expression(double scale) {
  tl::var<double>* none = nullptr;
  (void)none;
  return [scale](auto x) {
    auto local = scale * x;
    auto other = local + 1.0;
    return other * local;
  };
}

}  // namespace

TEST_CASE("expressions returned from locals, by value and by const reference") {
  auto by_value = [](auto x1, auto x2) {
    auto t = x1 - x2;
    auto u = t * t;
    return u + tl::cos(x1 + x2);
  };
  auto by_ref = [](const auto& x1, const auto& x2) {
    auto t = x1 - x2;
    auto u = t * t;
    return u + tl::cos(x1 + x2);
  };
  const auto [a1, a2] = tl::grad(by_value)(1.0, 2.0);
  const auto [b1, b2] = tl::grad(by_ref)(1.0, 2.0);
  const double e1 = 2 * (1.0 - 2.0) - std::sin(3.0);
  const double e2 = -2 * (1.0 - 2.0) - std::sin(3.0);
  CHECK(a1 == doctest::Approx(e1).epsilon(1e-15));
  CHECK(a2 == doctest::Approx(e2).epsilon(1e-15));
  CHECK(b1 == a1);
  CHECK(b2 == a2);
}

TEST_CASE("helpers returning expressions built from their locals") {
  auto f = [](auto x) { return helper(helper(x)); };
  // d/dx of h(h(x)) with h(a) = sin(a^2) + a^2: h'(a) = 2a (cos(a^2) + 1).
  const double x = 0.7;
  const double h1 = std::sin(x * x) + x * x;
  const double expected = 2 * h1 * (std::cos(h1 * h1) + 1) * 2 * x * (std::cos(x * x) + 1);
  CHECK(tl::grad(f)(x) == doctest::Approx(expected).epsilon(1e-14));
}

TEST_CASE("a function object returned from a function, capturing by value") {
  auto f = make_expression(3.0);
  // f(x) = (3x + 1) 3x: f'(x) = 18x + 3.
  CHECK(tl::grad(f)(2.0) == doctest::Approx(39.0).epsilon(1e-15));
}

TEST_CASE("an expression kept beyond the scope of the values it was built from") {
  auto build = [] {
    tl::argument<0, double> x(1.5);
    auto y = tl::exp(x) * x;
    return y;  // x is gone; y holds its own copy
  };
  const auto y = build();
  CHECK(y.value() == doctest::Approx(std::exp(1.5) * 1.5).epsilon(1e-15));
  tl::detail::argument_adjoints<double> store;
  const tl::detail::evaluated<std::remove_cvref_t<decltype(y)>> values(y);
  tl::detail::backward_sweep(y, values, 1.0, store);
  CHECK(store.gradient() == doctest::Approx(std::exp(1.5) * 2.5).epsilon(1e-15));
}

TEST_CASE("tl::var expressions built in a helper and swept later") {
  tl::var<double> x{3.0}, y{10.0};
  auto build = [](auto& a, auto& b) {
    auto p = a * a;
    auto q = a * b;
    return p + q;
  };
  auto z = build(x, y);
  z.backward();
  CHECK(x.grad() == 16.0);
  CHECK(y.grad() == 3.0);
}

TEST_CASE("matrix data inside f: captured, copied into a local, built in f, in a helper, used twice") {
  // Each form returns an expression whose constant leaves read data that is captured (read in place)
  // or that dies when f returns (copied into the leaf); AddressSanitizer checks that no leaf reads a
  // local that is gone.
  using vec = tl::vector<double, 16>;
  vec data;
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = 0.25 * static_cast<double>(i) - 1.0;
  double expected = 0;  // d/dmu of sum(square(y - mu)) at mu = 0.5, twice for the forms using y twice
  for (double v : data) expected -= 2 * (v - 0.5);
  const auto density = [](const auto& y, const auto& mu) { return tl::sum(tl::square(y - mu)); };
  const auto captured = [data, density](const auto& mu) { return density(data, mu); };
  const auto by_reference = [&data, density](const auto& mu) { return density(data, mu); };
  const auto local_copy = [data, density](const auto& mu) {
    const vec y = data;
    auto d = density(y, mu);
    return d;  // refers to y, which dies here
  };
  const auto built_in_f = [density](const auto& mu) {
    vec y;
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = 0.25 * static_cast<double>(i) - 1.0;
    return density(y, mu);
  };
  const auto in_a_helper = [data](const auto& mu) {
    auto helper = [](const vec& y, const auto& m) {
      const vec twice = y + y;  // a local of the helper, gone when it returns
      return tl::sum(tl::square(0.5 * twice - m));
    };
    return helper(data, mu);
  };
  const auto used_twice = [data](const auto& mu) {
    const vec y = data;
    const auto a = tl::square(y - mu);
    const auto b = tl::square(data - mu);
    return tl::sum(a) + tl::sum(b);
  };
  CHECK(tl::grad(captured)(0.5) == doctest::Approx(expected).epsilon(1e-14));
  CHECK(tl::grad(by_reference)(0.5) == doctest::Approx(expected).epsilon(1e-14));
  CHECK(tl::grad(local_copy)(0.5) == doctest::Approx(expected).epsilon(1e-14));
  CHECK(tl::grad(built_in_f)(0.5) == doctest::Approx(expected).epsilon(1e-14));
  CHECK(tl::grad(in_a_helper)(0.5) == doctest::Approx(expected).epsilon(1e-14));
  CHECK(tl::grad(used_twice)(0.5) == doctest::Approx(2 * expected).epsilon(1e-14));
  CHECK(std::get<0>(tl::value_and_grad(local_copy)(0.5)) == doctest::Approx(tl::sum(tl::square(data - 0.5))));
}

namespace {

// A sum over rows built in a helper from its locals: a view, a body capturing a local by value, and a
// parameter expression; all of them gone when the helper returns, the columns not.
template <class A>
auto weighted_sum_in_a_helper(const std::vector<double>& t, const std::vector<double>& y, const A& a) {
  const tl::vector<double, 2> weights{0.5, 3.0};
  const auto view = tl::rows(t, y);
  auto twice = a * 2.0;
  return tl::sum_over(
             view,
             [weights](const auto& ti, const auto& yi, const auto& p) { return weights[0] * tl::square(p * ti - yi); },
             twice) *
         weights[1];
}

}  // namespace

TEST_CASE("a sum over rows returned from a helper whose view, captures and parameter expression are gone") {
  std::vector<double> t(37), y(37);  // not a whole number of batches
  for (std::size_t i = 0; i < t.size(); ++i) {
    t[i] = 0.125 * static_cast<double>(i);
    y[i] = 1.0 - 0.0625 * static_cast<double>(i);
  }
  // f = 1.5 sum (2 a t - y)^2, df/da = 1.5 sum 2 (2 a t - y) 2 t
  const auto f = [&](const auto& a) { return weighted_sum_in_a_helper(t, y, a); };
  long double value = 0, slope = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const long double r = 2 * 0.75 * t[i] - y[i];
    value += 1.5L * r * r;
    slope += 1.5L * 4 * r * t[i];
  }
  const auto [v, g] = tl::value_and_grad(f)(0.75);
  CHECK(v == doctest::Approx(double(value)).epsilon(1e-14));
  CHECK(g == doctest::Approx(double(slope)).epsilon(1e-14));
  CHECK(f(0.75) == doctest::Approx(double(value)).epsilon(1e-14));
  // The expression itself kept past the helper, and swept later.
  tl::var<double> a{0.75};
  auto kept = weighted_sum_in_a_helper(t, y, a);
  kept.backward();
  CHECK(a.grad() == doctest::Approx(double(slope)).epsilon(1e-14));
}

TEST_CASE("a body capturing f's arguments by reference where they are plain numbers: outside grad") {
  const std::vector<double> t{1.0, 2.0, 3.0}, y{1.0, 2.0, 2.0};
  // On plain numbers, f's argument is plain data, which a body may capture; sum (1.5 t - y)^2 = 7.5.
  const auto f = [&](const auto& a) {
    return tl::sum_over(tl::rows(t, y), [&](const auto& ti, const auto& yi) { return tl::square(a * ti - yi); });
  };
  CHECK(f(1.5) == 7.5);
}
