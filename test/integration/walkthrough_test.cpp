// SPDX-License-Identifier: BSL-1.0
// The walkthroughs: the worked examples of reverse mode, checked against their closed forms, and a
// gradient descent that has to go downhill.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <cmath>
#include <numbers>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

// Walkthrough 1: f(x1, x2) = (x1 - x2)^2 + cos(x1 + x2), written the ways a user would write it.
const auto f_pow = [](auto x1, auto x2) { return tl::pow(x1 - x2, 2) + tl::cos(x1 + x2); };
const auto f_square = [](auto x1, auto x2) { return tl::square(x1 - x2) + tl::cos(x1 + x2); };
const auto f_product = [](auto x1, auto x2) { return (x1 - x2) * (x1 - x2) + tl::cos(x1 + x2); };
const auto f_let = [](auto x1, auto x2) { return tl::let(x1 - x2, [](auto d) { return d * d; }) + tl::cos(x1 + x2); };
const auto f_locals = [](auto x1, auto x2) {
  const auto d = x1 - x2;
  const auto s = x1 + x2;
  return d * d + tl::cos(s);
};

/// x, hidden from the optimiser: std::sin(opaque(3.0)) calls the library at run time, as tapeless
/// does, instead of being folded at compile time with a possibly different last bit.
double opaque(double x) {
  volatile double v = x;
  return v;
}

std::tuple<double, double> f_gradient(double x1, double x2) {
  return {2 * (x1 - x2) - std::sin(x1 + x2), -2 * (x1 - x2) - std::sin(x1 + x2)};
}

}  // namespace

TEST_CASE("walkthrough 1: (x1 - x2)^2 + cos(x1 + x2) at (1, 2)") {
  const double one = opaque(1.0), two = opaque(2.0), three = opaque(3.0);
  const auto expected = f_gradient(one, two);  // (-2 - sin 3, 2 - sin 3)
  CHECK(std::get<0>(expected) == doctest::Approx(-2.14112000805987).epsilon(1e-14));
  CHECK(std::get<1>(expected) == doctest::Approx(1.85887999194013).epsilon(1e-14));

  SUBCASE("with pow: exactly the closed form") {
    const auto vg = tl::value_and_grad(f_pow)(one, two);
    CHECK(vg.first == 1.0 + std::cos(three));
    CHECK(vg.second == expected);
    CHECK(tl::grad(f_pow)(one, two) == expected);
  }
  SUBCASE("with square, a product, let and locals: the same") {
    CHECK(tl::grad(f_square)(one, two) == expected);
    CHECK(tl::grad(f_product)(one, two) == expected);
    CHECK(tl::grad(f_let)(one, two) == expected);
    CHECK(tl::grad(f_locals)(one, two) == expected);
  }
  SUBCASE("selected arguments, as in the README") {
    CHECK(tl::grad<1>(f_pow)(one, two) == std::get<1>(expected));
    CHECK(tl::grad<0>(f_pow)(one, two) == std::get<0>(expected));
    CHECK(tl::grad<0, 1>(f_pow)(one, two) == expected);
    CHECK(tl::grad<1, 0>(f_pow)(one, two) == std::tuple{std::get<1>(expected), std::get<0>(expected)});
  }
  SUBCASE("many other points, against the closed form and finite differences") {
    fd::rng r{701};
    for (int i = 0; i < 200; ++i) {
      const double x1 = r.uniform(-5, 5), x2 = r.uniform(-5, 5);
      const auto g = tl::grad(f_pow)(x1, x2);
      const auto e = f_gradient(x1, x2);
      const auto fdg = fd::gradient(f_pow, x1, x2);
      INFO("at (" << fd::str(x1) << ", " << fd::str(x2) << "): AD " << doctest::toString(g) << ", exact "
                  << doctest::toString(e));
      CHECK(fd::rel_error(std::get<0>(g), std::get<0>(e)) < 1e-14);
      CHECK(fd::rel_error(std::get<1>(g), std::get<1>(e)) < 1e-14);
      CHECK(fd::rel_error(std::get<0>(g), fdg[0]) < 1e-6);
      CHECK(fd::rel_error(std::get<1>(g), fdg[1]) < 1e-6);
    }
  }
}

TEST_CASE("walkthrough 2: ln(x1) + x1 x2 - sin(x2) at (2, 3)") {
  const auto f = [](auto x1, auto x2) { return tl::log(x1) + x1 * x2 - tl::sin(x2); };
  SUBCASE("at (2, 3): exactly (1/x1 + x2, x1 - cos x2)") {
    const double two = opaque(2.0), three = opaque(3.0);
    const auto vg = tl::value_and_grad(f)(two, three);
    CHECK(vg.first == std::log(two) + 6.0 - std::sin(three));
    CHECK(vg.second == std::tuple{0.5 + 3.0, 2.0 - std::cos(three)});
    CHECK(std::get<0>(vg.second) == 3.5);
    CHECK(std::get<1>(vg.second) == doctest::Approx(2.98999249660045).epsilon(1e-14));
  }
  SUBCASE("many other points") {
    fd::rng r{702};
    for (int i = 0; i < 200; ++i) {
      const double x1 = r.uniform(0.1, 10), x2 = r.uniform(-10, 10);
      CAPTURE(x1);
      CAPTURE(x2);
      const auto g = tl::grad(f)(x1, x2);
      CHECK(fd::rel_error(std::get<0>(g), 1.0 / x1 + x2) < 1e-14);
      CHECK(fd::rel_error(std::get<1>(g), x1 - std::cos(x2)) < 1e-14);
    }
  }
}

TEST_CASE("walkthrough 3: z = x x + x y with tl::var at (3, 10)") {
  tl::var<double> x{3.0}, y{10.0};
  auto z = x * x + x * y;
  CHECK(z.value() == 39.0);
  z.backward();
  CHECK(x.grad() == 16.0);  // 2x + y
  CHECK(y.grad() == 3.0);   // x
  // the functional form agrees
  CHECK(tl::value_and_grad([](auto a, auto b) { return a * a + a * b; })(3.0, 10.0) ==
        std::pair{39.0, std::tuple{16.0, 3.0}});
}

TEST_CASE("walkthrough: sigmoid written out as 1 / (1 + exp(-x)) against tl::sigmoid") {
  const auto by_hand = [](auto x) { return 1.0 / (1.0 + tl::exp(-x)); };
  const auto library = [](auto x) { return tl::sigmoid(x); };
  SUBCASE("values and gradients at many points") {
    fd::rng r{703};
    for (int i = 0; i < 400; ++i) {
      const double x = r.uniform(-30, 30);
      const auto a = tl::value_and_grad(by_hand)(x);
      const auto b = tl::value_and_grad(library)(x);
      INFO("at x = " << fd::str(x) << ": by hand " << doctest::toString(a) << ", tl::sigmoid " << doctest::toString(b));
      CHECK(fd::rel_error(a.first, b.first) < 1e-15);
      CHECK(fd::rel_error(a.second, b.second) < 1e-15);
      // the derivative of the written-out form is e^-x / (1 + e^-x)^2
      const double e = std::exp(-x);
      CHECK(fd::rel_error(a.second, e / ((1 + e) * (1 + e))) < 1e-14);
    }
  }
  SUBCASE("where the written-out form overflows, tl::sigmoid does not") {
    // exp(800) = inf: 1 / (1 + inf) = 0 is still right, but its derivative is inf / inf^2 = NaN
    const auto a = tl::value_and_grad(by_hand)(-800.0);
    const auto b = tl::value_and_grad(library)(-800.0);
    CHECK(a.first == 0.0);
    CHECK(std::isnan(a.second));
    CHECK(b.first == 0.0);
    CHECK(b.second == 0.0);
  }
}

TEST_CASE("walkthrough: gradient descent on walkthrough 1 goes downhill") {
  // x <- x - 0.1 grad f(x), 100 steps from (1, 2). The minimum value is -1 (x1 = x2, x1 + x2 = pi);
  // in u = x1 - x2, v = x1 + x2 the step is u <- 0.6 u, v <- v + 0.2 sin v: both converge monotonically.
  double x1 = 1.0, x2 = 2.0;
  double c1 = 1.0, c2 = 2.0;  // the same descent with the closed-form gradient
  double loss = f_pow(x1, x2);
  const double start = loss;
  CHECK(start == doctest::Approx(1.0 + std::cos(3.0)));
  for (int step = 0; step < 100; ++step) {
    const auto vg = tl::value_and_grad(f_pow)(x1, x2);
    CHECK(vg.first == loss);  // value_and_grad's value is f at the current point
    x1 -= 0.1 * std::get<0>(vg.second);
    x2 -= 0.1 * std::get<1>(vg.second);
    const auto e = f_gradient(c1, c2);
    c1 -= 0.1 * std::get<0>(e);
    c2 -= 0.1 * std::get<1>(e);
    const double next = f_pow(x1, x2);
    INFO("step " << step << ": loss " << fd::str(loss) << " -> " << fd::str(next));
    // strictly downhill until the loss is within rounding of the minimum -1 (about step 70), then flat
    if (loss > -1.0 + 1e-12)
      CHECK(next < loss);
    else
      CHECK(next <= loss + 1e-16);
    loss = next;
  }
  CHECK(fd::rel_error(x1, c1) < 1e-12);
  CHECK(fd::rel_error(x2, c2) < 1e-12);
  CHECK(loss < -0.999);
  CHECK(loss < start - 1.0);
  CHECK(std::abs(x1 - x2) < 1e-6);
  CHECK(std::abs(x1 + x2 - std::numbers::pi) < 1e-6);
}
