// SPDX-License-Identifier: BSL-1.0
// The transforms that compose: grad of grad, hessian, jacobian, jvp, vjp, has_aux. The contract's
// examples and result types; every second derivative against central differences of the (separately
// tested) gradient at seeded random points; forward and reverse Jacobians against each other and against
// differences; constant evaluation. (The dual numbers they run on: math/dual_test.cpp.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <numbers>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

constexpr double second_fd_tol = 1e-6;  // a second derivative against differences of the gradient
constexpr double exact_tol = 1e-12;     // against a closed form

// The function of the contract, and its Hessian by hand.
const auto rosenbrock = [](const auto& x) {
  return 100.0 * tl::square(x[1] - x[0] * x[0]) + tl::square(1.0 - x[0]) + 100.0 * tl::square(x[3] - x[2] * x[2]) +
         tl::square(1.0 - x[2]);
};
tl::matrix<double, 4, 4> rosenbrock_hessian(const tl::vector<double, 4>& x) {
  tl::matrix<double, 4, 4> h;
  for (std::size_t k = 0; k < 4; k += 2) {
    h(k, k) = 1200 * x[k] * x[k] - 400 * x[k + 1] + 2;
    h(k, k + 1) = h(k + 1, k) = -400 * x[k];
    h(k + 1, k + 1) = 200;
  }
  return h;
}

/// d/dx of a function of one number returning a number or matrix, by Richardson-refined differences.
template <class G>
auto fd_slope(const G& g, double x) {
  using V = decltype(g(x));
  V d{};
  for (std::size_t r = 0; r < tl::detail::size_of<V>; ++r)
    tl::detail::element_at(d, r) = fd::derivative(
        [&](double t) {
          const V v = g(t);
          return double(tl::detail::element_at(v, r));
        },
        x);
  return d;
}

/// The m x n Jacobian of g (vector of m -> anything of m elements) at x (vector of n), by differences.
template <std::size_t M, std::size_t N, class G>
tl::matrix<double, M, N> fd_jacobian(const G& g, const tl::vector<double, N>& x) {
  tl::matrix<double, M, N> J;
  for (std::size_t j = 0; j < N; ++j) {
    const auto column = fd_slope(
        [&](double t) {
          auto moved = x;
          moved[j] = t;
          return g(moved);
        },
        x[j]);
    for (std::size_t i = 0; i < M; ++i) J(i, j) = tl::detail::element_at(column, i);
  }
  return J;
}

/// The largest distance(a_i, b_i) over the elements of a and b.
template <class A, class B, class Distance>
double worst_element(const A& a, const B& b, Distance distance) {
  double worst = 0;
  for (std::size_t i = 0; i < tl::detail::size_of<A>; ++i)
    worst = std::max(worst, distance(tl::detail::element_at(a, i), tl::detail::element_at(b, i)));
  return worst;
}

template <class A, class B>
double max_rel_error(const A& a, const B& b) {
  return worst_element(a, b, fd::rel_error);
}

/// The largest distance in ulp between the elements of a and b.
template <class A, class B>
double max_ulps(const A& a, const B& b) {
  return worst_element(a, b, fd::ulp_distance);
}

template <std::size_t N>
tl::vector<double, N> random_vector(fd::rng& r, double lo, double hi) {
  tl::vector<double, N> v;
  for (auto& e : v) e = r.uniform(lo, hi);
  return v;
}

}  // namespace

TEST_CASE("the contract: grad of grad, hessian, jacobian, jvp, vjp") {
  const auto f = [](auto x) { return x * x * x; };
  CHECK(tl::grad(tl::grad(f))(2.0) == 12.0);
  CHECK(tl::grad(tl::grad(tl::grad(f)))(2.0) == 6.0);
  CHECK(tl::grad(tl::grad(tl::grad(tl::grad(f))))(2.0) == 0.0);
  constexpr double c2 = tl::grad(tl::grad(f))(2.0);
  static_assert(c2 == 12.0);
  static_assert(tl::grad(tl::grad(tl::grad(f)))(2.0) == 6.0);

  const tl::vector<double, 4> x{-1.2, 1.0, 0.5, 2.0};
  const tl::matrix<double, 4, 4> H = tl::hessian(rosenbrock)(x);
  CHECK(max_rel_error(H, rosenbrock_hessian(x)) < exact_tol);

  const auto g = [](auto a, auto b) { return a * a * b + tl::sin(b); };
  const auto Hs = tl::hessian(g)(1.0, 2.0);
  static_assert(std::is_same_v<decltype(Hs), const std::tuple<std::tuple<double, double>, std::tuple<double, double>>>);
  CHECK(std::get<0>(std::get<0>(Hs)) == 4.0);  // 2b
  CHECK(std::get<1>(std::get<0>(Hs)) == 2.0);  // 2a
  CHECK(std::get<0>(std::get<1>(Hs)) == 2.0);
  CHECK(std::get<1>(std::get<1>(Hs)) == doctest::Approx(-std::sin(2.0)).epsilon(1e-15));

  const tl::matrix<double, 3, 4> M{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
  const auto F = [&M](const auto& v) { return tl::matmul(M, v) + tl::sin(v[0]); };
  const tl::matrix<double, 3, 4> J = tl::jacobian(F)(x);
  tl::matrix<double, 3, 4> J_exact = M;
  for (std::size_t i = 0; i < 3; ++i) J_exact(i, 0) += std::cos(x[0]);
  CHECK(max_rel_error(J, J_exact) < exact_tol);

  const tl::vector<double, 4> v{0.5, -1.0, 2.0, 0.25};
  const auto [y, ydot] = tl::jvp(F, std::tuple{x}, std::tuple{v});
  static_assert(std::is_same_v<std::remove_const_t<decltype(y)>, tl::vector<double, 3>>);
  CHECK(max_rel_error(y, tl::matmul(M, x) + std::sin(x[0])) < exact_tol);
  CHECK(max_rel_error(ydot, tl::matmul(J_exact, v)) < exact_tol);

  const auto [y2, pullback] = tl::vjp(F, x);
  CHECK(y2 == y);
  const tl::vector<double, 3> u{1.0, -2.0, 0.5};
  const tl::vector<double, 4> w = pullback(u);
  CHECK(max_rel_error(w, tl::matmul(tl::transpose(J_exact), u)) < exact_tol);
}

TEST_CASE("result types are the argument types at every nesting") {
  const auto s = [](auto a) { return a * tl::exp(a); };
  static_assert(std::is_same_v<decltype(tl::grad(tl::grad(s))(1.0)), double>);
  static_assert(std::is_same_v<decltype(tl::grad(tl::grad(tl::grad(s)))(1.0)), double>);
  static_assert(std::is_same_v<decltype(tl::hessian(s)(1.0)), double>);
  static_assert(std::is_same_v<decltype(tl::grad(tl::grad(s))(1.0f)), float>);
  static_assert(std::is_same_v<decltype(tl::hessian(s)(1.0L)), long double>);
  const auto m = [](const auto& A) { return tl::sum(tl::exp(A)) * tl::sum(A * A); };
  using M23 = tl::matrix<double, 2, 3>;
  using M22 = tl::matrix<double, 2, 2>;
  static_assert(std::is_same_v<decltype(tl::hessian(m)(M22{})), tl::matrix<double, 4, 4>>);
  const auto mixed = [](const auto& A, auto b, const auto& c) { return tl::sum(A) * b * tl::sum(c); };
  using H = decltype(tl::hessian(mixed)(M23{}, 1.0, tl::vector<double, 2>{}));
  static_assert(std::is_same_v<std::tuple_element_t<0, std::tuple_element_t<0, H>>, tl::matrix<double, 6, 6>>);
  static_assert(std::is_same_v<std::tuple_element_t<1, std::tuple_element_t<0, H>>, tl::matrix<double, 6, 1>>);
  static_assert(std::is_same_v<std::tuple_element_t<2, std::tuple_element_t<0, H>>, tl::matrix<double, 6, 2>>);
  static_assert(std::is_same_v<std::tuple_element_t<0, std::tuple_element_t<1, H>>, tl::matrix<double, 1, 6>>);
  static_assert(std::is_same_v<std::tuple_element_t<1, std::tuple_element_t<1, H>>, double>);
  using H1 = decltype(tl::hessian<1, 2>(mixed)(M23{}, 1.0, tl::vector<double, 2>{}));
  static_assert(std::tuple_size_v<H1> == 2 && std::tuple_size_v<std::tuple_element_t<0, H1>> == 2);
  static_assert(std::is_same_v<std::tuple_element_t<1, std::tuple_element_t<1, H1>>, tl::matrix<double, 2, 2>>);
  // grad of (a function of) a gradient keeps the argument's type.
  const auto through = [&](const auto& A) { return tl::sum(tl::grad(m)(A) * A); };
  static_assert(std::is_same_v<decltype(tl::grad(through)(M23{})), M23>);
  const auto vec = [](const auto& x) { return tl::exp(x) * 2.0; };
  static_assert(std::is_same_v<decltype(tl::jacobian(vec)(tl::vector<double, 3>{})), tl::matrix<double, 3, 3>>);
  static_assert(std::is_same_v<decltype(tl::jacobian(s)(1.0)), double>);
  static_assert(std::is_same_v<decltype(tl::jacobian(m)(M23{})), tl::matrix<double, 1, 6>>);
  static_assert(std::is_same_v<decltype(tl::jacobian<1>(mixed)(M23{}, 1.0, tl::vector<double, 2>{})), double>);
  static_assert(std::is_same_v<decltype(tl::vjp(vec, tl::vector<double, 3>{}).second(tl::vector<double, 3>{})),
                               tl::vector<double, 3>>);
  static_assert(std::is_same_v<decltype(tl::vjp(mixed, M23{}, 1.0, tl::vector<double, 2>{}).second(1.0)),
                               std::tuple<M23, double, tl::vector<double, 2>>>);
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
    CHECK(fd::rel_error(tl::grad<0>(tl::grad<0>(g))(a, b), gaa) < exact_tol);
    CHECK(fd::rel_error(tl::grad<1>(tl::grad<0>(g))(a, b), gab) < exact_tol);
    CHECK(fd::rel_error(tl::grad<0>(tl::grad<1>(g))(a, b), gab) < exact_tol);
    CHECK(fd::rel_error(tl::grad<1>(tl::grad<1>(g))(a, b), gbb) < exact_tol);
    const auto [d0, d1] = tl::grad(tl::grad<0>(g))(a, b);  // both arguments nodes of the inner gradient
    CHECK(fd::rel_error(d0, gaa) < exact_tol);
    CHECK(fd::rel_error(d1, gab) < exact_tol);
    const auto [hab, hbb] = std::get<1>(tl::hessian(g)(a, b));
    CHECK(fd::rel_error(hab, gab) < exact_tol);
    CHECK(fd::rel_error(hbb, gbb) < exact_tol);
    // value_and_grad inside: f's own expression beside its gradient.
    const auto both = [&](auto t) {
      auto [value, slope] = tl::value_and_grad<0>(g)(t, b);
      return value * slope;
    };
    const double ga = std::cos(a * b) * b + 2 * a * std::exp(b) / b;
    const double value = std::sin(a * b) + a * a * std::exp(b) / b;
    CHECK(fd::rel_error(tl::grad(both)(a), ga * ga + value * gaa) < exact_tol);
  }
  // A gradient inside a loss over matrices: d/dA sum(grad(m)(A) * A) by differences.
  const auto m = [](const auto& A) { return tl::log_sum_exp(A * A) + tl::squared_norm(tl::sin(A)); };
  const auto through = [&](const auto& A) { return tl::sum(tl::grad(m)(A) * A); };
  for (int i = 0; i < 20; ++i) {
    const auto x = random_vector<4>(r, -1.5, 1.5);
    const auto fd_g = fd_jacobian<1, 4>([&](const auto& y) { return through(y); }, x);
    CHECK(max_rel_error(tl::grad(through)(x), tl::transpose(fd_g)) < second_fd_tol);
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
      CHECK(fd::rel_error(d2, fd::derivative(first, x)) < second_fd_tol);
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

TEST_CASE("Hessians of the binary operations, against differences of the gradient") {
  fd::rng r{7003};
  // `kink` gives the distance to a switch of branch: differences are taken only away from one.
  const auto smooth = [](double, double) { return 1.0; };
  auto check = [&](std::string name, auto op, double lo, double hi, auto kink) {
    const auto f = [op](auto a, auto b) { return op(a, b); };
    for (int i = 0; i < 50; ++i) {
      const double a = r.uniform(lo, hi), b = r.uniform(lo, hi);
      if (std::abs(kink(a, b)) < 0.01) continue;
      INFO(name << " at (" << fd::str(a) << ", " << fd::str(b) << ")");
      const auto H = tl::hessian(f)(a, b);
      // Row k of the Hessian: the derivative of the gradient along argument k.
      auto partial = [&]<std::size_t I>(std::integral_constant<std::size_t, I>, double t, bool along_a) {
        return fd::derivative([&](double u) { return std::get<I>(along_a ? tl::grad(f)(u, b) : tl::grad(f)(a, u)); },
                              t);
      };
      using first = std::integral_constant<std::size_t, 0>;
      using second = std::integral_constant<std::size_t, 1>;
      const double haa = partial(first{}, a, true), hab = partial(second{}, a, true);
      const double hba = partial(first{}, b, false), hbb = partial(second{}, b, false);
      CHECK(fd::rel_error(std::get<0>(std::get<0>(H)), haa) < second_fd_tol);
      CHECK(fd::rel_error(std::get<1>(std::get<0>(H)), hab) < second_fd_tol);
      CHECK(fd::rel_error(std::get<0>(std::get<1>(H)), hba) < second_fd_tol);
      CHECK(fd::rel_error(std::get<1>(std::get<1>(H)), hbb) < second_fd_tol);
      CHECK(std::get<1>(std::get<0>(H)) == doctest::Approx(std::get<0>(std::get<1>(H))).epsilon(1e-13));  // symmetric
    }
  };
  const auto tie = [](double a, double b) { return a * a - b * b * b; };
  check(
      "a * b", [](auto a, auto b) { return a * b * a; }, -3, 3, smooth);
  check(
      "a / b", [](auto a, auto b) { return a / b; }, 0.5, 3, smooth);
  check(
      "a - b", [](auto a, auto b) { return (a - b) * (a - 2.0 * b); }, -3, 3, smooth);
  check(
      "pow(a, b)", [](auto a, auto b) { return tl::pow(a, b); }, 0.5, 3, smooth);
  check(
      "atan2", [](auto a, auto b) { return tl::atan2(a, b); }, 0.5, 3, smooth);
  check(
      "hypot", [](auto a, auto b) { return tl::hypot(a, b); }, -3, 3, smooth);
  check(
      "min", [](auto a, auto b) { return tl::min(a * a, b * b * b); }, 0.5, 3, tie);
  check(
      "max", [](auto a, auto b) { return tl::max(a * a, b * b * b); }, 0.5, 3, tie);
  check(
      "if_else", [](auto a, auto b) { return tl::if_else(a > b, a * a * b, b * b * a); }, -3, 3, std::minus<>{});
}

TEST_CASE("Hessians of the matrix operations, against differences of the gradient") {
  fd::rng r{7004};
  auto check = [&](std::string name, auto f, double lo, double hi) {
    const auto gradient = [&](const auto& x) { return tl::grad(f)(x); };
    for (int i = 0; i < 20; ++i) {
      const auto x = random_vector<4>(r, lo, hi);
      INFO(name << " at " << fd::str(x[0]) << ", " << fd::str(x[1]) << ", " << fd::str(x[2]) << ", " << fd::str(x[3]));
      const tl::matrix<double, 4, 4> H = tl::hessian(f)(x);
      CHECK(max_rel_error(H, fd_jacobian<4, 4>(gradient, x)) < second_fd_tol);
      CHECK(max_rel_error(H, tl::transpose(H)) < 1e-12);
      CHECK(max_rel_error(H, tl::jacobian(gradient)(x)) < 1e-12);  // forward over reverse, both ways
    }
  };
  const auto square_of = [](const auto& x) { return tl::reshape<2, 2>(x); };
  const tl::matrix<double, 2, 2> C{{0.5, -0.25}, {1.0, 2.0}};
  const tl::vector<double, 2> b{1.0, -2.0};
  check(
      "sum, mean, prod", [](const auto& x) { return tl::sum(x * x * x) + tl::mean(tl::exp(x)) + tl::prod(x); }, -1.5,
      1.5);
  check(
      "dot, outer, trace", [](const auto& x) { return tl::dot(x, tl::sin(x)) + tl::trace(tl::outer(x, x * x)); }, -1.5,
      1.5);
  check(
      "matmul, transpose",
      [&](const auto& x) {
        const auto A = square_of(x);
        return tl::sum(tl::matmul(A, tl::matmul(tl::transpose(A), A)) * C);
      },
      -1.5, 1.5);
  check(
      "det", [&](const auto& x) { return tl::det(square_of(x) + C) * tl::sum(x); }, -1.5, 1.5);
  check(
      "inverse",
      [&](const auto& x) {
        return tl::sum(tl::inverse(square_of(x) + 3.0 * tl::matrix<double, 2, 2>{{1, 0}, {0, 1}}) * C);
      },
      -1.0, 1.0);
  check(
      "log_det, cholesky",
      [&](const auto& x) {
        const auto A = square_of(x);
        const auto spd = tl::matmul(A, tl::transpose(A)) + tl::matrix<double, 2, 2>{{1, 0}, {0, 1}};
        return tl::log_det(spd) + tl::sum(tl::cholesky(spd) * C);
      },
      -1.5, 1.5);
  check(
      "solve",
      [&](const auto& x) {
        return tl::sum(tl::solve(square_of(x) + 3.0 * tl::matrix<double, 2, 2>{{1, 0}, {0, 1}}, b) * b);
      },
      -1.0, 1.0);
  check(
      "norms", [](const auto& x) { return tl::norm(x) * tl::squared_norm(x); }, 0.5, 1.5);
  check(
      "log_sum_exp, softmax, log_softmax",
      [](const auto& x) {
        return tl::log_sum_exp(x * x) + tl::dot(tl::softmax(x), x) + tl::sum(tl::log_softmax(x) * tl::sin(x));
      },
      -2, 2);
  check(
      "max_element, min_element", [](const auto& x) { return tl::max_element(x * x) * tl::min_element(x); }, -2, 2);
  check(
      "row, col, slice, concat, diag",
      [&](const auto& x) {
        const auto A = square_of(tl::exp(x));
        return tl::sum(tl::row(A, 0) * tl::transpose(tl::col(A, 1))) +
               tl::sum(tl::slice<1, 2>(x) * tl::slice<0, 2>(x)) + tl::trace(tl::diag(x) * tl::diag(x)) +
               tl::sum(tl::concat(x, x * x) * tl::concat(x, x));
      },
      -1.5, 1.5);
  check(
      "let",
      [](const auto& x) {
        return tl::let(tl::sin(x) * x, [](const auto& s) { return tl::sum(s * s) + tl::log_sum_exp(s); });
      },
      -1.5, 1.5);
  check(
      "logistic regression",
      [&](const auto& beta) {
        const tl::matrix<double, 3, 4> X{{1, 0.5, -1, 2}, {0.3, -0.2, 1, 1}, {-1, 1, 0.5, 0.1}};
        const tl::vector<double, 3> y{1, 0, 1};
        const auto p = tl::sigmoid(tl::matmul(X, beta));
        return -tl::mean(y * tl::log(p) + (1.0 - y) * tl::log(1.0 - p));
      },
      -1, 1);
}

TEST_CASE("jacobian: forward and reverse against differences, selected arguments") {
  fd::rng r{7005};
  const tl::matrix<double, 3, 4> M{{1, -2, 0.5, 1}, {0.25, 1, -1, 2}, {3, 0, 1, -0.5}};
  const auto wide = [&](const auto& x) { return tl::tanh(tl::matmul(M, x)) * x[1]; };                // 4 -> 3: reverse
  const auto tall = [&](const auto& z) { return tl::exp(tl::matmul(tl::transpose(M), z)) + z[0]; };  // 3 -> 4: forward
  const auto pair = [](const auto& x, auto s) { return tl::sin(x) * s + s * s; };                    // (2, 1) -> 2
  for (int i = 0; i < 20; ++i) {
    const auto x = random_vector<4>(r, -1, 1);
    const auto z = random_vector<3>(r, -1, 1);
    CHECK(max_rel_error(tl::jacobian(wide)(x), fd_jacobian<3, 4>(wide, x)) < second_fd_tol);
    CHECK(max_rel_error(tl::jacobian(tall)(z), fd_jacobian<4, 3>(tall, z)) < second_fd_tol);
    const auto v = random_vector<2>(r, -1, 1);
    const double s = r.uniform(-1, 1);
    const auto [Jx, Js] = tl::jacobian(pair)(v, s);
    const auto fd_x = fd_jacobian<2, 2>([&](const auto& t) { return pair(t, s); }, v);
    const auto fd_s = fd_slope([&](double t) { return pair(v, t); }, s);
    CHECK(max_rel_error(Jx, fd_x) < second_fd_tol);
    CHECK(max_rel_error(Js, fd_s) < second_fd_tol);
    // Forward mode (two inputs, dual numbers) against reverse mode, whose matrix loops run SIMD batches.
    CHECK(max_ulps(tl::jacobian<0>(pair)(v, s), Jx) <= 4);
    CHECK(max_rel_error(tl::jacobian<1>(pair)(v, s), fd_s) < second_fd_tol);
    // vjp and jvp are the two products with the same Jacobian.
    const auto u = random_vector<3>(r, -1, 1);
    const auto w = random_vector<4>(r, -1, 1);
    const auto J = tl::jacobian(wide)(x);
    CHECK(max_rel_error(tl::vjp(wide, x).second(u), tl::matmul(tl::transpose(J), u)) < 1e-13);
    CHECK(max_rel_error(tl::jvp(wide, std::tuple{x}, std::tuple{w}).second, tl::matmul(J, w)) < 1e-13);
    const auto [gx, gs] = tl::vjp(pair, v, s).second(tl::vector<double, 2>{1.0, 1.0});
    CHECK(max_rel_error(gx, tl::grad<0>([&](const auto& t, auto q) { return tl::sum(pair(t, q)); })(v, s)) < 1e-14);
    CHECK(fd::rel_error(gs, Js[0] + Js[1]) < 1e-14);
  }
}

TEST_CASE("has_aux: the auxiliary output passes through untouched") {
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

TEST_CASE("constant evaluation of every transform") {
  constexpr auto g = [](auto a, auto b) { return a * a * b + b * b; };
  constexpr auto H = tl::hessian(g)(1.0, 2.0);
  static_assert(std::get<0>(std::get<0>(H)) == 4.0 && std::get<1>(std::get<0>(H)) == 2.0 &&
                std::get<1>(std::get<1>(H)) == 2.0);
  constexpr auto F = [](const auto& x) { return x * x; };
  constexpr tl::vector<double, 2> x{1.0, 3.0};
  constexpr auto J = tl::jacobian(F)(x);
  static_assert(J(0, 0) == 2.0 && J(1, 1) == 6.0 && J(0, 1) == 0.0);
  constexpr auto jv = tl::jvp(F, std::tuple{x}, std::tuple{tl::vector<double, 2>{1.0, 1.0}});
  static_assert(jv.second[1] == 6.0);
  constexpr auto pb = tl::vjp(F, x).second(tl::vector<double, 2>{1.0, 0.0});
  static_assert(pb[0] == 2.0 && pb[1] == 0.0);
  constexpr tl::matrix<double, 2, 2> A{{2, 1}, {1, 3}};
  constexpr auto Hd = tl::hessian([](const auto& m) { return tl::det(m); })(A);
  static_assert(Hd(0, 3) == 1.0 && Hd(1, 2) == -1.0 && Hd(0, 0) == 0.0);
  static_assert(tl::grad(tl::grad([](auto t) { return tl::exp(t); }))(0.0) == 1.0);
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
      CHECK(fd::rel_error(tl::grad(tl::grad(tl::grad(f)))(x), fd::derivative(second, x)) < second_fd_tol);
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

TEST_CASE("Hessians of log-sum-exp and the logistic-regression loss against their closed forms") {
  fd::rng r{7008};
  for (int i = 0; i < 20; ++i) {
    // log_sum_exp: H = diag(p) - p p^T, p = softmax(x).
    const auto x = random_vector<5>(r, -3, 3);
    const auto H = tl::hessian([](const auto& v) { return tl::log_sum_exp(v); })(x);
    const auto p = tl::softmax(x);
    tl::matrix<double, 5, 5> exact = -tl::matmul(p, tl::transpose(p));
    for (std::size_t k = 0; k < 5; ++k) exact(k, k) += p[k];
    CHECK(max_rel_error(H, exact) < exact_tol);
    // softmax: J = diag(p) - p p^T as well, forward (5 -> 5).
    CHECK(max_rel_error(tl::jacobian([](const auto& v) { return tl::softmax(v); })(x), exact) < exact_tol);
    // logistic regression: H = X^T diag(p (1 - p)) X / n.
    const tl::matrix<double, 3, 4> X{{1, 0.5, -1, 2}, {0.3, -0.2, 1, 1}, {-1, 1, 0.5, 0.1}};
    const tl::vector<double, 3> y{1, 0, 1};
    const auto beta = random_vector<4>(r, -1, 1);
    const auto loss = [&](const auto& b) {
      const auto q = tl::sigmoid(tl::matmul(X, b));
      return -tl::mean(y * tl::log(q) + (1.0 - y) * tl::log(1.0 - q));
    };
    const auto q = tl::sigmoid(tl::matmul(X, beta));
    tl::matrix<double, 4, 4> logistic{};
    for (std::size_t a = 0; a < 4; ++a)
      for (std::size_t b = 0; b < 4; ++b)
        for (std::size_t n = 0; n < 3; ++n) logistic(a, b) += X(n, a) * q[n] * (1 - q[n]) * X(n, b) / 3;
    CHECK(max_rel_error(tl::hessian(loss)(beta), logistic) < exact_tol);
    // matmul: the Jacobian of x -> M x is M, by reverse sweeps (4 -> 3).
    const auto J = tl::jacobian([&](const auto& v) { return tl::matmul(X, v); })(beta);
    CHECK(J == X);
  }
}
