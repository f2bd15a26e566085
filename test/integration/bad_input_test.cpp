// SPDX-License-Identifier: BSL-1.0
// Bad input, the rules of the guide's section of that name (doc/guide.md) that the tests of each operation leave
// out: ±infinity through every unary operation (the value is the std:: function's, the derivative the
// IEEE value of the rule in the guide's table), and the functions built to stay finite far out
// (softplus, sigmoid, log_sum_exp, softmax, log1p, expm1) at ±700 and ±1e-300. NaN, domain errors,
// overflow in exp, singular matrices and var.grad() before backward() are tested beside their operations.
// NaN and infinities in the data of a sum over rows run through it like any other value: no throw, and
// each component of the value and gradient is what the sum by hand gives (NaN, ±inf or finite).
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <row_sum_check.hpp>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <tuple>
#include <vector>

namespace tl = tapeless;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double qnan = std::numeric_limits<double>::quiet_NaN();
constexpr double ln2 = std::numbers::ln2;

/// Equal, or both NaN.
bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

/// value_and_grad(f)(x) against the expected value and derivative, NaN matching NaN.
template <class F>
void check_at(const std::string& name, F f, double x, double value, double derivative) {
  const auto vg = tl::value_and_grad(f)(x);
  INFO(name << "(" << fd::str(x) << "): value " << fd::str(vg.first) << " (expected " << fd::str(value)
            << "), derivative " << fd::str(vg.second) << " (expected " << fd::str(derivative) << ")");
  CHECK(same(vg.first, value));
  CHECK(same(vg.second, derivative));
}

}  // namespace

TEST_CASE("bad input: at ±infinity, the std:: value and the IEEE value of the derivative rule") {
  for (const double x : {inf, -inf}) {
    const auto sign = [](double t) { return t > 0 ? 1.0 : -1.0; };
    check_at(
        "exp", [](auto a) { return tl::exp(a); }, x, std::exp(x), std::exp(x));
    check_at(
        "exp2", [](auto a) { return tl::exp2(a); }, x, std::exp2(x), std::exp2(x) * ln2);
    check_at(
        "expm1", [](auto a) { return tl::expm1(a); }, x, std::expm1(x), std::expm1(x) + 1);
    check_at(
        "log", [](auto a) { return tl::log(a); }, x, std::log(x), x >= 0 ? 1 / x : qnan);
    check_at(
        "log1p", [](auto a) { return tl::log1p(a); }, x, std::log1p(x), x >= -1 ? 1 / (1 + x) : qnan);
    check_at(
        "sqrt", [](auto a) { return tl::sqrt(a); }, x, std::sqrt(x), 1 / (2 * std::sqrt(x)));
    check_at(
        "cbrt", [](auto a) { return tl::cbrt(a); }, x, std::cbrt(x), 1 / (3 * std::cbrt(x) * std::cbrt(x)));
    check_at(
        "square", [](auto a) { return tl::square(a); }, x, x * x, 2 * x);
    check_at(
        "pow(x, 3)", [](auto a) { return tl::pow(a, 3); }, x, x * x * x, 3 * x * x);
    check_at(
        "pow(2, x)", [](auto a) { return tl::pow(2.0, a); }, x, std::exp2(x), std::exp2(x) * ln2);
    check_at(
        "sin", [](auto a) { return tl::sin(a); }, x, std::sin(x), std::cos(x));
    check_at(
        "atan", [](auto a) { return tl::atan(a); }, x, std::atan(x), 1 / (1 + x * x));
    check_at(
        "sinh", [](auto a) { return tl::sinh(a); }, x, std::sinh(x), std::cosh(x));
    check_at(
        "cosh", [](auto a) { return tl::cosh(a); }, x, std::cosh(x), std::sinh(x));
    check_at(
        "tanh", [](auto a) { return tl::tanh(a); }, x, std::tanh(x), 1 - std::tanh(x) * std::tanh(x));
    check_at(
        "asinh", [](auto a) { return tl::asinh(a); }, x, std::asinh(x), 1 / std::sqrt(x * x + 1));
    check_at(
        "acosh", [](auto a) { return tl::acosh(a); }, x, std::acosh(x), 1 / (std::sqrt(x - 1) * std::sqrt(x + 1)));
    check_at(
        "atanh", [](auto a) { return tl::atanh(a); }, x, std::atanh(x), qnan);  // |x| > 1: outside
    check_at(
        "erf", [](auto a) { return tl::erf(a); }, x, std::erf(x), 0.0);
    check_at(
        "erfc", [](auto a) { return tl::erfc(a); }, x, std::erfc(x), 0.0);
    check_at(
        "sigmoid", [](auto a) { return tl::sigmoid(a); }, x, x > 0 ? 1.0 : 0.0, 0.0);
    check_at(
        "softplus", [](auto a) { return tl::softplus(a); }, x, x > 0 ? x : 0.0, x > 0 ? 1.0 : 0.0);
    check_at(
        "abs", [](auto a) { return tl::abs(a); }, x, inf, sign(x));
    check_at(
        "relu", [](auto a) { return tl::relu(a); }, x, x > 0 ? x : 0.0, x > 0 ? 1.0 : 0.0);
    check_at(
        "max(x, 0)", [](auto a) { return tl::max(a, 0.0); }, x, std::max(x, 0.0), x > 0 ? 1.0 : 0.0);
    check_at(
        "2 x", [](auto a) { return 2.0 * a; }, x, 2 * x, 2.0);
    check_at(
        "1 / x", [](auto a) { return 1.0 / a; }, x, 1 / x, -(1 / x) / x);
    // The chain rule in IEEE arithmetic: exp(-x x) is 0, and its adjoint 0 meets x = inf in x x.
    check_at(
        "exp(-x x)", [](auto a) { return tl::exp(-a * a); }, x, 0.0, qnan);
  }
}

TEST_CASE("bad input: log1p, expm1, sigmoid, softplus, log_sum_exp and softmax stay finite at ±700 and ±1e-300") {
  const auto log1p_ = [](auto a) { return tl::log1p(a); };
  const auto expm1_ = [](auto a) { return tl::expm1(a); };
  const auto sigmoid_ = [](auto a) { return tl::sigmoid(a); };
  const auto softplus_ = [](auto a) { return tl::softplus(a); };
  SUBCASE("log1p and expm1") {
    const auto [v, d] = tl::value_and_grad(log1p_)(700.0);
    CHECK(fd::strict_rel_error(v, std::log(701.0)) < 1e-15);
    CHECK(fd::strict_rel_error(d, 1.0 / 701.0) < 1e-15);
    check_at("log1p", log1p_, -700.0, qnan, qnan);  // below -1: a domain error
    const auto [w, e] = tl::value_and_grad(expm1_)(700.0);
    CHECK(std::isfinite(w));
    CHECK(fd::strict_rel_error(w, std::exp(700.0)) < 1e-15);
    CHECK(fd::strict_rel_error(e, std::exp(700.0)) < 1e-15);
    CHECK(tl::value_and_grad(expm1_)(-700.0).first == -1.0);
    for (const double x : {1e-300, -1e-300}) {
      check_at("log1p", log1p_, x, x, 1.0);  // exact: log1p(x) = x - x^2 / 2 ... rounds to x
      check_at("expm1", expm1_, x, x, 1.0);
    }
  }
  SUBCASE("sigmoid and softplus near 0 (at ±700: ops/special_test.cpp)") {
    for (const double x : {1e-300, -1e-300}) {
      check_at("sigmoid", sigmoid_, x, 0.5, 0.25);
      check_at("softplus", softplus_, x, ln2, 0.5);
    }
  }
  SUBCASE("log_sum_exp and softmax") {
    using V = tl::vector<double, 2>;
    const auto lse = [](const auto& v) { return tl::log_sum_exp(v); };
    const struct {
      V x;
      double value;
      V gradient;
    } cases[] = {{V{700, 700}, 700 + ln2, V{0.5, 0.5}},
                 {V{-700, -700}, -700 + ln2, V{0.5, 0.5}},
                 {V{700, -700}, 700, V{1, 0}},  // e^-1400 underflows: the exact softmax, rounded
                 {V{1e-300, -1e-300}, ln2, V{0.5, 0.5}}};
    for (const auto& c : cases) {
      const auto vg = tl::value_and_grad(lse)(c.x);
      INFO("log_sum_exp(" << fd::str(c.x[0]) << ", " << fd::str(c.x[1]) << "): " << fd::str(vg.first) << ", gradient "
                          << fd::str(vg.second[0]) << ", " << fd::str(vg.second[1]));
      CHECK(fd::strict_rel_error(vg.first, c.value) < 1e-15);
      CHECK(vg.second == c.gradient);
      CHECK(tl::softmax(c.x) == c.gradient);
    }
  }
}

// expm1' = e^x, a normal number down to x = -708, must stay accurate to the last digits there: the rule
// y + 1 would cancel where y rounds to -1 (x < -37) and give 0, so below x = -1 the rule computes e^x.
// -1.5 is just past the switch; -40 and -700 are past the cancellation. Forward mode (jvp: the dual
// overload, which hessian and grad of grad use too) takes the same slope.
TEST_CASE("bad input: expm1' = e^x keeps its relative accuracy far below 0") {
  for (const double x : {-1.5, -40.0, -700.0}) {
    const double d = tl::grad([](auto a) { return tl::expm1(a); })(x);
    INFO("expm1'(" << x << "): " << fd::str(d) << ", e^x " << fd::str(std::exp(x)));
    CHECK(fd::strict_rel_error(d, std::exp(x)) < 1e-15);
    const double jv = tl::jvp([](auto a) { return tl::expm1(a); }, std::tuple{x}, std::tuple{1.0}).second;
    CHECK(fd::strict_rel_error(jv, std::exp(x)) < 1e-15);
    const double dd = tl::grad(tl::grad([](auto a) { return tl::expm1(a); }))(x);
    CHECK(fd::strict_rel_error(dd, std::exp(x)) < 1e-15);
  }
  // In a constant expression too (math::exp's constexpr path): e^-40 = 4.25e-18, not 0.
  static_assert(tl::grad([](auto a) { return tl::expm1(a); })(-40.0) > 4.24e-18);
  static_assert(tl::grad([](auto a) { return tl::expm1(a); })(-40.0) < 4.26e-18);
}

// Where a rule's formula meets inf / inf or inf * 0 at an infinite input but its limit is a number, the
// derivative is that limit, not NaN (the guide's table states each): a NaN there would poison every
// gradient it reaches although nothing about the point is undefined. atan2's rule (x, -y) / (x² + y²)
// tends to 0 as either coordinate grows (also where both are infinite); hypot's x / z tends to the sign
// of an infinite x and to 0 for a finite one; pow(x, p)'s p x^(p-1) is inf at x = inf for p > 1; det's
// gradient, the cofactor matrix, has every cofactor whose minor leaves out the infinite entry finite.
// A NaN input still gives NaN.
TEST_CASE("bad input: no NaN in derivatives whose rule is finite at an infinite input") {
  const auto atan2_ = [](auto y, auto x) { return tl::atan2(y, x); };
  CHECK(std::get<0>(tl::grad(atan2_)(inf, 1.0)) == 0.0);  // d/dy = x / (x² + y²) = 1 / inf
  CHECK(std::get<1>(tl::grad(atan2_)(1.0, inf)) == 0.0);  // d/dx = -y / (x² + y²) = -1 / inf
  for (const double y : {inf, -inf, 2.0, -2.0})
    for (const double x : {inf, -inf}) {
      INFO("atan2 at (" << y << ", " << x << ")");
      CHECK(tl::grad(atan2_)(y, x) == std::tuple{0.0, 0.0});
      CHECK(tl::grad(atan2_)(x, y) == std::tuple{0.0, 0.0});
    }
  for (const auto& [y, x] : {std::pair{inf, qnan}, std::pair{qnan, inf}, std::pair{qnan, 1.0}}) {
    const auto [dy, dx] = tl::grad(atan2_)(y, x);
    CHECK(std::isnan(dy));
    CHECK(std::isnan(dx));
  }

  const auto hypot_ = [](auto x, auto y) { return tl::hypot(x, y); };
  CHECK(tl::value_and_grad(hypot_)(inf, 2.0) == std::pair{inf, std::tuple{1.0, 0.0}});
  CHECK(tl::value_and_grad(hypot_)(-inf, 2.0) == std::pair{inf, std::tuple{-1.0, 0.0}});
  CHECK(tl::value_and_grad(hypot_)(3.0, -inf) == std::pair{inf, std::tuple{0.0, -1.0}});
  const auto [hx, hy] = tl::grad(hypot_)(inf, -inf);  // along the diagonal: (1, -1) / √2
  CHECK(fd::strict_rel_error(hx, std::sqrt(0.5)) < 1e-15);
  CHECK(fd::strict_rel_error(hy, -std::sqrt(0.5)) < 1e-15);
  const auto [ox, oy] = tl::grad(hypot_)(1.5e308, 1.5e308);  // z overflows: the direction's partials
  CHECK(fd::strict_rel_error(ox, std::sqrt(0.5)) < 1e-15);
  CHECK(fd::strict_rel_error(oy, std::sqrt(0.5)) < 1e-15);
  for (const auto& [x, y] : {std::pair{inf, qnan}, std::pair{qnan, 1.0}}) {
    const auto [dx, dy] = tl::grad(hypot_)(x, y);
    CHECK(std::isnan(dx));
    CHECK(std::isnan(dy));
  }

  check_at(
      "pow(x, 2.5)", [](auto a) { return tl::pow(a, 2.5); }, inf, inf, inf);
  check_at(
      "pow(x, 0.5)", [](auto a) { return tl::pow(a, 0.5); }, inf, inf, 0.0);
  check_at(
      "pow(x, -1.5)", [](auto a) { return tl::pow(a, -1.5); }, inf, 0.0, -0.0);
  check_at(
      "pow(x, 0.0)", [](auto a) { return tl::pow(a, 0.0); }, inf, 1.0, 0.0);
  check_at(
      "pow(x, 2.5)", [](auto a) { return tl::pow(a, 2.5); }, qnan, qnan, qnan);
  CHECK(tl::value_and_grad([](auto a, auto b) { return tl::pow(a, b); })(inf, 2.5) ==
        std::pair{inf, std::tuple{inf, inf}});  // d/dy = z ln x = inf
  // Forward mode (hessian, grad of grad) takes the same limits.
  CHECK(tl::grad(tl::grad([](auto a) { return tl::hypot(a, 2.0); }))(inf) == 0.0);
  CHECK(tl::grad(tl::grad([](auto a) { return tl::atan2(a, 1.0); }))(inf) == 0.0);

  using M = tl::matrix<double, 2, 2>;
  const M a{{inf, 1}, {2, 3}};
  const M g = tl::grad([](const auto& m) { return tl::det(m); })(a);
  CHECK(g == M{{3, -2}, {-1, inf}});
  static_assert(tl::grad([](const auto& m) { return tl::det(m); })(M{{inf, 1}, {2, 3}}) == M{{3, -2}, {-1, inf}});
  static_assert(std::get<0>(tl::grad([](auto y, auto x) { return tl::atan2(y, x); })(inf, 1.0)) == 0.0);
  static_assert(std::get<0>(tl::grad([](auto x, auto y) { return tl::hypot(x, y); })(inf, 2.0)) == 1.0);
  static_assert(tl::grad([](auto x) { return tl::pow(x, 2.5); })(inf) == inf);
  using M3 = tl::matrix<double, 3, 3>;  // the four minors without the infinite entry stay finite
  const M3 b{{1, 2, 3}, {4, inf, 5}, {6, 7, 8}};
  CHECK(tl::grad([](const auto& m) { return tl::det(m); })(b) == M3{{inf, -2, -inf}, {5, -10, 5}, {-inf, 7, inf}});
}

// One expression, one gradient: t * t of a grad argument (or let name) becomes square(t), while t * t of
// a var stays a product, whose rule adds g t twice. square's rule is 2 (g t), equal to g t + g t bit for
// bit, so the two agree even where 2 t overflows (|t| > 2^1023): with g = 0 both give 0, where g (2 t)
// would give 0 * inf = NaN. (The fuzzer found it: test/fuzz/gradient_fuzz.cpp.)
TEST_CASE("bad input: t * t has one gradient, through grad and through var.backward()") {
  const auto f = [](const auto& t) { return 0.0 * (t * t); };
  const double t = -1.4606248719757107e308;
  tl::var<double> v{t};
  f(v).backward();
  CHECK(v.grad() == 0.0);
  CHECK(same(tl::grad(f)(t), v.grad()));
  // And bit for bit where nothing overflows.
  const auto h = [](const auto& u) { return 1.7 * (u * u); };
  for (const double u : {0.3, -7.1, 1e-300, 2.5e200}) {
    tl::var<double> w{u};
    h(w).backward();
    CHECK(tl::grad(h)(u) == w.grad());
  }
}

TEST_CASE("bad input: NaN and infinities in the rows of a sum propagate, in any batch and block") {
  using namespace row_sums;
  for (const std::size_t n : {lanes + 1, 2 * lanes + 1, block + 1}) {
    for (const std::size_t row : {std::size_t{1}, n / 2, n - 1}) {
      for (const double bad : {qnan, inf, -inf}) {
        for (const bool in_t : {false, true}) {
          CAPTURE(n);
          CAPTURE(row);
          CAPTURE(bad);
          CAPTURE(in_t);
          auto d = decay_data(n);
          (in_t ? d.t : d.y)[row] = bad;
          const auto sum = decay_sum(d.t, d.y);
          std::vector<double> got;
          CHECK_NOTHROW(got = value_and_gradient(sum, decay_a, decay_b, decay_c));
          const auto e = decay_expected(d, decay_a, decay_b, decay_c);
          REQUIRE(got.size() == 4);
          for (std::size_t k = 0; k < 4; ++k) {
            CAPTURE(k);
            const double want = double(e.sum[k]);
            if (std::isfinite(want))
              CHECK(std::abs(got[k] - want) <= sum_tolerance * double(e.magnitude[k]));
            else
              CHECK(same(got[k], want));
          }
          CHECK(same(sum(decay_a, decay_b, decay_c), got[0]));
        }
      }
    }
  }
}
