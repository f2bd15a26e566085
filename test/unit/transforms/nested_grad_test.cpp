// SPDX-License-Identifier: BSL-1.0
// grad of grad (transforms/nested_grad.hpp): the contract's example and result types, mixed partials,
// every scalar operation's second derivative against central differences of the (separately tested)
// gradient at seeded random points, third derivatives, bad input, constant evaluation, a gradient inside f
// at arguments of run-time extents against the fixed twin. (The dual numbers the sweeps run on:
// math/dual_test.cpp.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <higher_order_check.hpp>
#include <run_time_twin.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

TEST_CASE("the contract: grad of grad of x^3") {
  const auto f = [](auto x) { return x * x * x; };
  CHECK(tl::grad(tl::grad(f))(2.0) == 12.0);
  CHECK(tl::grad(tl::grad(tl::grad(f)))(2.0) == 6.0);
  CHECK(tl::grad(tl::grad(tl::grad(tl::grad(f))))(2.0) == 0.0);
  constexpr double c2 = tl::grad(tl::grad(f))(2.0);
  static_assert(c2 == 12.0);
  static_assert(tl::grad(tl::grad(tl::grad(f)))(2.0) == 6.0);
  static_assert(tl::grad(tl::grad([](auto t) { return tl::exp(t); }))(0.0) == 1.0);
}

TEST_CASE("grad of grad: result types are the argument types at every nesting") {
  const auto s = [](auto a) { return a * tl::exp(a); };
  static_assert(std::is_same_v<decltype(tl::grad(tl::grad(s))(1.0)), double>);
  static_assert(std::is_same_v<decltype(tl::grad(tl::grad(tl::grad(s)))(1.0)), double>);
  static_assert(std::is_same_v<decltype(tl::grad(tl::grad(s))(1.0f)), float>);
  // grad of (a function of) a gradient keeps the argument's type.
  using M23 = tl::matrix<double, 2, 3>;
  const auto m = [](const auto& A) { return tl::sum(tl::exp(A)) * tl::sum(A * A); };
  const auto through = [&](const auto& A) { return tl::sum(tl::grad(m)(A) * A); };
  static_assert(std::is_same_v<decltype(tl::grad(through)(M23{})), M23>);
}

TEST_CASE("grad of grad: selected arguments, mixed partials, and gradients used inside a function") {
  fd::rng r{7001};
  const auto g = [](auto a, auto b) { return tl::sin(a * b) + a * a * tl::exp(b) / b; };
  for (int i = 0; i < 100; ++i) {
    const double a = r.uniform(-2, 2), b = r.uniform(0.5, 2);
    INFO("a = " << fd::str(a) << ", b = " << fd::str(b));
    const double gaa = -b * b * std::sin(a * b) + 2 * std::exp(b) / b;
    const double gab = std::cos(a * b) - a * b * std::sin(a * b) + 2 * a * std::exp(b) * (b - 1) / (b * b);
    const double gbb = -a * a * std::sin(a * b) + a * a * std::exp(b) * (b * b - 2 * b + 2) / (b * b * b);
    CHECK(fd::rel_error(tl::grad<0>(tl::grad<0>(g))(a, b), gaa) < ho::exact_tol);
    CHECK(fd::rel_error(tl::grad<1>(tl::grad<0>(g))(a, b), gab) < ho::exact_tol);
    CHECK(fd::rel_error(tl::grad<0>(tl::grad<1>(g))(a, b), gab) < ho::exact_tol);
    CHECK(fd::rel_error(tl::grad<1>(tl::grad<1>(g))(a, b), gbb) < ho::exact_tol);
    const auto [d0, d1] = tl::grad(tl::grad<0>(g))(a, b);  // both arguments nodes of the inner gradient
    CHECK(fd::rel_error(d0, gaa) < ho::exact_tol);
    CHECK(fd::rel_error(d1, gab) < ho::exact_tol);
    const auto [hab, hbb] = std::get<1>(tl::hessian(g)(a, b));
    CHECK(fd::rel_error(hab, gab) < ho::exact_tol);
    CHECK(fd::rel_error(hbb, gbb) < ho::exact_tol);
    // value_and_grad inside: f's own expression beside its gradient.
    const auto both = [&](auto t) {
      auto [value, slope] = tl::value_and_grad<0>(g)(t, b);
      return value * slope;
    };
    const double ga = std::cos(a * b) * b + 2 * a * std::exp(b) / b;
    const double value = std::sin(a * b) + a * a * std::exp(b) / b;
    CHECK(fd::rel_error(tl::grad(both)(a), ga * ga + value * gaa) < ho::exact_tol);
  }
  // A gradient inside a loss over matrices: d/dA sum(grad(m)(A) * A) by differences.
  const auto m = [](const auto& A) { return tl::log_sum_exp(A * A) + tl::squared_norm(tl::sin(A)); };
  const auto through = [&](const auto& A) { return tl::sum(tl::grad(m)(A) * A); };
  for (int i = 0; i < 20; ++i) {
    const auto x = ho::random_vector<4>(r, -1.5, 1.5);
    const auto fd_g = ho::fd_jacobian<1, 4>([&](const auto& y) { return through(y); }, x);
    CHECK(ho::max_rel_error(tl::grad(through)(x), tl::transpose(fd_g)) < ho::second_fd_tol);
  }
}

TEST_CASE("second derivatives of every scalar operation, by grad of grad against differences of the gradient") {
  fd::rng r{7002};
  // Each operation inside a + 0.3 x^2, so that a rule whose second derivative is 0 is still exercised.
  auto check = [&](std::string name, auto op, double lo, double hi) {
    const auto f = [op](auto x) { return op(x) + 0.3 * x * x; };
    const auto first = [&](double x) { return tl::grad(f)(x); };
    for (int i = 0; i < 50; ++i) {
      const double x = r.uniform(lo, hi);
      INFO(name << " at x = " << fd::str(x));
      const double d2 = tl::grad(tl::grad(f))(x);
      CHECK(fd::rel_error(d2, fd::derivative(first, x)) < ho::second_fd_tol);
      CHECK(tl::hessian(f)(x) == d2);
      CHECK(tl::jacobian(tl::grad(f))(x) == doctest::Approx(d2).epsilon(1e-13));  // forward over reverse, as a Jacobian
      CHECK(tl::jvp(f, std::tuple{x}, std::tuple{1.0}).second == doctest::Approx(tl::grad(f)(x)).epsilon(1e-13));
    }
  };
  check(
      "exp", [](auto x) { return tl::exp(x); }, -5, 5);
  check(
      "exp2", [](auto x) { return tl::exp2(x); }, -5, 5);
  check(
      "expm1", [](auto x) { return tl::expm1(x); }, -5, 5);
  check(
      "log", [](auto x) { return tl::log(x); }, 0.1, 10);
  check(
      "log2", [](auto x) { return tl::log2(x); }, 0.1, 10);
  check(
      "log10", [](auto x) { return tl::log10(x); }, 0.1, 10);
  check(
      "log1p", [](auto x) { return tl::log1p(x); }, -0.9, 10);
  check(
      "sqrt", [](auto x) { return tl::sqrt(x); }, 0.1, 10);
  check(
      "cbrt", [](auto x) { return tl::cbrt(x); }, 0.1, 10);
  check(
      "square", [](auto x) { return tl::square(x); }, -3, 3);
  check(
      "pow(x, 3)", [](auto x) { return tl::pow(x, 3); }, -3, 3);
  check(
      "pow(x, -2)", [](auto x) { return tl::pow(x, -2); }, 0.2, 3);
  check(
      "pow(x, 2.5)", [](auto x) { return tl::pow(x, 2.5); }, 0.2, 3);
  check(
      "pow(1.7, x)", [](auto x) { return tl::pow(1.7, x); }, -3, 3);
  check(
      "sin", [](auto x) { return tl::sin(x); }, -5, 5);
  check(
      "cos", [](auto x) { return tl::cos(x); }, -5, 5);
  check(
      "tan", [](auto x) { return tl::tan(x); }, -1.3, 1.3);
  check(
      "asin", [](auto x) { return tl::asin(x); }, -0.9, 0.9);
  check(
      "acos", [](auto x) { return tl::acos(x); }, -0.9, 0.9);
  check(
      "atan", [](auto x) { return tl::atan(x); }, -5, 5);
  check(
      "sinh", [](auto x) { return tl::sinh(x); }, -3, 3);
  check(
      "cosh", [](auto x) { return tl::cosh(x); }, -3, 3);
  check(
      "tanh", [](auto x) { return tl::tanh(x); }, -3, 3);
  check(
      "asinh", [](auto x) { return tl::asinh(x); }, -5, 5);
  check(
      "acosh", [](auto x) { return tl::acosh(x); }, 1.1, 5);
  check(
      "atanh", [](auto x) { return tl::atanh(x); }, -0.9, 0.9);
  check(
      "erf", [](auto x) { return tl::erf(x); }, -3, 3);
  check(
      "erfc", [](auto x) { return tl::erfc(x); }, -3, 3);
  check(
      "sigmoid", [](auto x) { return tl::sigmoid(x); }, -8, 8);
  check(
      "softplus", [](auto x) { return tl::softplus(x); }, -8, 8);
  check(
      "abs", [](auto x) { return tl::abs(x) * x; }, -3, 3);
  check(
      "relu", [](auto x) { return tl::relu(x) * x; }, -3, 3);
  check(
      "x + y", [](auto x) { return x * (x + 2.0); }, -3, 3);
  check(
      "x / y", [](auto x) { return (x * x + 1.0) / (x + 4.0); }, -3, 3);
  check(
      "-x", [](auto x) { return -x * tl::sin(x); }, -3, 3);
}

TEST_CASE("bad input follows IEEE arithmetic in the higher-order transforms") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto f = [](auto x) { return tl::log(x) * x; };
  CHECK(std::isnan(tl::grad(tl::grad(f))(nan)));
  CHECK(std::isnan(tl::grad(tl::grad(f))(-1.0)));  // outside the domain: NaN, as the gradient
  CHECK(std::isnan(tl::hessian(f)(-1.0)));
  CHECK(tl::grad(tl::grad(f))(0.5) == doctest::Approx(2.0).epsilon(1e-15));
}

TEST_CASE("third derivatives, against differences of the (checked) second derivative") {
  fd::rng r{7007};
  auto check = [&](std::string name, auto f, double lo, double hi) {
    const auto second = [&](double x) { return tl::grad(tl::grad(f))(x); };
    for (int i = 0; i < 30; ++i) {
      const double x = r.uniform(lo, hi);
      INFO(name << " at x = " << fd::str(x));
      CHECK(fd::rel_error(tl::grad(tl::grad(tl::grad(f)))(x), fd::derivative(second, x)) < ho::second_fd_tol);
    }
  };
  check(
      "exp", [](auto x) { return tl::exp(x * x); }, -1.5, 1.5);
  check(
      "tanh", [](auto x) { return tl::tanh(x); }, -3, 3);
  check(
      "sigmoid", [](auto x) { return tl::sigmoid(x * x); }, -3, 3);
  check(
      "log", [](auto x) { return tl::log(x) * x; }, 0.2, 5);
  check(
      "sin, pow", [](auto x) { return tl::sin(x) * tl::pow(x, 4); }, -3, 3);
  const tl::matrix<double, 3, 3> A{{2, 0.5, -0.3}, {0.1, 1.5, 0.4}, {-0.2, 0.3, 1.8}};
  check(
      "det", [&](auto s) { return tl::det(A * s + tl::exp(A * s)); }, -1, 1);
  check(
      "inverse", [&](auto s) { return tl::sum(tl::inverse(A + tl::sin(A * s))); }, -0.5, 0.5);
  check(
      "log_det",
      [&](auto s) { return tl::log_det(tl::matmul(A * s, tl::transpose(A)) + 3.0 * tl::matmul(A, tl::transpose(A))); },
      0.1, 1);
}

TEST_CASE("a grad inside f beside an argument of run-time extents, held still or differentiated") {
  // The inner grad runs f on dual numbers: the argument that does not move gets tangent 0 at its own
  // extents (it read past the end of an empty matrix), the one that does, its direction.
  const tl::vector<double, tl::dynamic> d{1.0, 2.0, 3.0};
  const auto cubic = [](const auto& w, const auto& x) { return w * w * w * tl::sum(tl::square(x)); };
  const auto slope = [&](const auto& w) { return tl::grad<0>(cubic)(w, d); };  // 3 w^2 |d|^2
  CHECK(tl::grad(slope)(1.5) == doctest::Approx(6.0 * 1.5 * 14.0).epsilon(1e-15));
  const auto scaled = [](const auto& x, const auto& w) { return w * tl::sum(tl::square(x)); };
  const auto total = [&](const auto& w) { return tl::sum(tl::grad<0>(scaled)(d, w)); };  // 2 w (1 + 2 + 3)
  CHECK(tl::grad(total)(1.5) == doctest::Approx(12.0).epsilon(1e-15));
  CHECK(fd::rel_error(tl::grad(total)(1.5), fd::derivative([&](double w) { return total(w); }, 1.5)) < 1e-8);
}

namespace {

/// f(x) = log_sum_exp(x) |x|^2 + sum sin(x), and g(x) = |d|^2 + 0.5 sum sin(d) with d = grad f(x),
/// whose gradient is H (2 d + 0.5 cos d): a Hessian-vector product through the inner gradient.
const auto inner = [](const auto& x) { return tl::log_sum_exp(x) * tl::sum(tl::square(x)) + tl::sum(tl::sin(x)); };
const auto outer = [](const auto& x) {
  const auto d = tl::grad(inner)(x);
  return tl::sum(tl::square(d)) + 0.5 * tl::sum(tl::sin(d));
};

/// grad(outer) at a vector X of N elements (tl::dynamic or tl::bounded) against the fixed twin, and
/// against central differences of outer.
template <class X, std::size_t N>
void check_nested_at_run_time_size() {
  CAPTURE(N);
  const auto x = run_time_twin::seeded<X>(N, 70 + N, -1.2, 1.2);
  const auto G = tl::grad(outer)(x);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(G)>, X>);
  run_time_twin::check_elements_against_twin(G, tl::grad(outer)(run_time_twin::fixed_copy<N>(x)));
  for (std::size_t k = 0; k < N; ++k) {
    CAPTURE(k);
    CHECK(fd::rel_error(G[k], fd::partial([&](const auto& v) { return outer(v); }, x, k)) < ho::second_fd_tol);
  }
}

}  // namespace

TEST_CASE("grad of a function of grad(f) at an argument of run-time extents: the fixed twin's values") {
  using dynamic = tl::vector<double, tl::dynamic>;
  using bounded = tl::vector<double, tl::bounded<40>>;
  check_nested_at_run_time_size<dynamic, 1>();
  check_nested_at_run_time_size<dynamic, 3>();
  check_nested_at_run_time_size<dynamic, 4>();
  check_nested_at_run_time_size<dynamic, 5>();
  check_nested_at_run_time_size<dynamic, 33>();
  check_nested_at_run_time_size<bounded, 5>();
  check_nested_at_run_time_size<bounded, 33>();
  // No elements: an empty gradient.
  CHECK(tl::grad([](const auto& x) { return tl::sum(tl::square(tl::grad(inner)(x))); })(dynamic(0)).size() == 0);
  // A matrix of run-time rows and columns beside a number, both differentiated, and the number held.
  const auto scaled = [](const auto& M, const auto& a) { return a * tl::sum(tl::exp(M)) + tl::sum(tl::square(M)); };
  const auto through = [&](const auto& M, const auto& a) { return tl::sum(tl::square(tl::grad<0>(scaled)(M, a))); };
  const auto held = [&](const auto& M) { return tl::sum(tl::exp(tl::grad<0>(scaled)(M, 0.5))); };
  const tl::matrix<double, 2, 3> Mf{{0.5, -1.0, 0.25}, {1.5, 0.75, -0.5}};
  const auto M = run_time_twin::copy_of<tl::matrix<double, tl::dynamic, tl::dynamic>>(Mf);
  const auto [GM, Ga] = tl::grad<0, 1>(through)(M, 0.5);
  const auto [GMf, Gaf] = tl::grad<0, 1>(through)(Mf, 0.5);
  const auto HM = tl::grad(held)(M);
  const auto HMf = tl::grad(held)(Mf);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(GM)>, tl::matrix<double, tl::dynamic, tl::dynamic>>);
  run_time_twin::check_elements_against_twin(GM, GMf);
  run_time_twin::check_elements_against_twin(HM, HMf);
  CHECK(fd::rel_error(Ga, Gaf) < 1e-13);
  CHECK(fd::rel_error(Ga, fd::derivative([&](double a) { return through(M, a); }, 0.5)) < ho::second_fd_tol);
}
