// SPDX-License-Identifier: BSL-1.0
// tl::hessian (transforms/hessian.hpp): the contract's examples and result types, the Hessians of the
// binary and matrix operations against central differences of the (separately tested) gradient at
// seeded random points, closed forms (log-sum-exp, the logistic-regression loss), constant evaluation.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <higher_order_check.hpp>

#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

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

}  // namespace

TEST_CASE("the contract: the Hessian of Rosenbrock's function, and of a function of two numbers") {
  const tl::vector<double, 4> x{-1.2, 1.0, 0.5, 2.0};
  const tl::matrix<double, 4, 4> H = tl::hessian(rosenbrock)(x);
  CHECK(ho::max_rel_error(H, rosenbrock_hessian(x)) < ho::exact_tol);

  const auto g = [](auto a, auto b) { return a * a * b + tl::sin(b); };
  const auto Hs = tl::hessian(g)(1.0, 2.0);
  static_assert(std::is_same_v<decltype(Hs), const std::tuple<std::tuple<double, double>, std::tuple<double, double>>>);
  CHECK(std::get<0>(std::get<0>(Hs)) == 4.0);  // 2b
  CHECK(std::get<1>(std::get<0>(Hs)) == 2.0);  // 2a
  CHECK(std::get<0>(std::get<1>(Hs)) == 2.0);
  CHECK(std::get<1>(std::get<1>(Hs)) == doctest::Approx(-std::sin(2.0)).epsilon(1e-15));
}

TEST_CASE("hessian: result types, a block per pair of arguments") {
  const auto s = [](auto a) { return a * tl::exp(a); };
  static_assert(std::is_same_v<decltype(tl::hessian(s)(1.0)), double>);
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
      CHECK(fd::rel_error(std::get<0>(std::get<0>(H)), haa) < ho::second_fd_tol);
      CHECK(fd::rel_error(std::get<1>(std::get<0>(H)), hab) < ho::second_fd_tol);
      CHECK(fd::rel_error(std::get<0>(std::get<1>(H)), hba) < ho::second_fd_tol);
      CHECK(fd::rel_error(std::get<1>(std::get<1>(H)), hbb) < ho::second_fd_tol);
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
      const auto x = ho::random_vector<4>(r, lo, hi);
      INFO(name << " at " << fd::str(x[0]) << ", " << fd::str(x[1]) << ", " << fd::str(x[2]) << ", " << fd::str(x[3]));
      const tl::matrix<double, 4, 4> H = tl::hessian(f)(x);
      CHECK(ho::max_rel_error(H, ho::fd_jacobian<4, 4>(gradient, x)) < ho::second_fd_tol);
      CHECK(ho::max_rel_error(H, tl::transpose(H)) < 1e-12);
      CHECK(ho::max_rel_error(H, tl::jacobian(gradient)(x)) < 1e-12);  // forward over reverse, both ways
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

TEST_CASE("Hessians of log-sum-exp and the logistic-regression loss against their closed forms") {
  fd::rng r{7008};
  for (int i = 0; i < 20; ++i) {
    // log_sum_exp: H = diag(p) - p p^T, p = softmax(x).
    const auto x = ho::random_vector<5>(r, -3, 3);
    const auto H = tl::hessian([](const auto& v) { return tl::log_sum_exp(v); })(x);
    const auto p = tl::softmax(x);
    tl::matrix<double, 5, 5> exact = -tl::matmul(p, tl::transpose(p));
    for (std::size_t k = 0; k < 5; ++k) exact(k, k) += p[k];
    CHECK(ho::max_rel_error(H, exact) < ho::exact_tol);
    // softmax: J = diag(p) - p p^T as well, forward (5 -> 5).
    CHECK(ho::max_rel_error(tl::jacobian([](const auto& v) { return tl::softmax(v); })(x), exact) < ho::exact_tol);
    // logistic regression: H = X^T diag(p (1 - p)) X / n.
    const tl::matrix<double, 3, 4> X{{1, 0.5, -1, 2}, {0.3, -0.2, 1, 1}, {-1, 1, 0.5, 0.1}};
    const tl::vector<double, 3> y{1, 0, 1};
    const auto beta = ho::random_vector<4>(r, -1, 1);
    const auto loss = [&](const auto& b) {
      const auto q = tl::sigmoid(tl::matmul(X, b));
      return -tl::mean(y * tl::log(q) + (1.0 - y) * tl::log(1.0 - q));
    };
    const auto q = tl::sigmoid(tl::matmul(X, beta));
    tl::matrix<double, 4, 4> logistic{};
    for (std::size_t a = 0; a < 4; ++a)
      for (std::size_t b = 0; b < 4; ++b)
        for (std::size_t n = 0; n < 3; ++n) logistic(a, b) += X(n, a) * q[n] * (1 - q[n]) * X(n, b) / 3;
    CHECK(ho::max_rel_error(tl::hessian(loss)(beta), logistic) < ho::exact_tol);
    // matmul: the Jacobian of x -> M x is M, by reverse sweeps (4 -> 3).
    const auto J = tl::jacobian([&](const auto& v) { return tl::matmul(X, v); })(beta);
    CHECK(J == X);
  }
}

TEST_CASE("hessian in a constant expression") {
  constexpr auto g = [](auto a, auto b) { return a * a * b + b * b; };
  constexpr auto H = tl::hessian(g)(1.0, 2.0);
  static_assert(std::get<0>(std::get<0>(H)) == 4.0 && std::get<1>(std::get<0>(H)) == 2.0 &&
                std::get<1>(std::get<1>(H)) == 2.0);
  constexpr tl::matrix<double, 2, 2> A{{2, 1}, {1, 3}};
  constexpr auto Hd = tl::hessian([](const auto& m) { return tl::det(m); })(A);
  static_assert(Hd(0, 3) == 1.0 && Hd(1, 2) == -1.0 && Hd(0, 0) == 0.0);
}

namespace {

/// A function of a vector of run-time size (read by index and whole) and a number.
const auto run_time_model = [](const auto& x, const auto& a) {
  return a * tl::log_sum_exp(x) + tl::norm(x) * a +
         tl::sum_over(
             tl::indices(x.size() - 1),
             [](std::size_t i, const auto& x) { return 100.0 * tl::square(x[i + 1] - tl::square(x[i])); }, x);
};

/// Its Hessian at a tl::dynamic vector of N elements against the same at a tl::vector<double, N>.
template <std::size_t N>
void check_run_time_hessian() {
  CAPTURE(N);
  tl::vector<double, tl::dynamic> x(N);
  tl::vector<double, N> xf;
  fd::rng u(40 + N);
  for (std::size_t k = 0; k < N; ++k) xf[k] = x[k] = u.uniform(-1.5, 1.5);
  const auto H = tl::hessian(run_time_model)(x, 0.75);
  const auto Hf = tl::hessian(run_time_model)(xf, 0.75);
  const auto& [Hxx, Hxa] = std::get<0>(H);
  const auto& [Hax, Haa] = std::get<1>(H);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(Hxx)>, tl::matrix<double, tl::dynamic, tl::dynamic>>);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(Hxa)>, tl::matrix<double, tl::dynamic, 1>>);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(Hax)>, tl::matrix<double, 1, tl::dynamic>>);
  REQUIRE(Hxx.rows() == N);
  REQUIRE(Hxx.cols() == N);
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = 0; j < N; ++j) CHECK(fd::rel_error(Hxx(i, j), std::get<0>(std::get<0>(Hf))(i, j)) < 1e-13);
    CHECK(fd::rel_error(Hxa(i, 0), std::get<1>(std::get<0>(Hf))(i, 0)) < 1e-13);
    CHECK(fd::rel_error(Hax(0, i), std::get<0>(std::get<1>(Hf))(0, i)) < 1e-13);
  }
  CHECK(Haa == std::get<1>(std::get<1>(Hf)));
}

}  // namespace

TEST_CASE("hessian at arguments of run-time extents: blocks of run-time extents, the fixed-shape twin's values") {
  // Sizes around a chunk of 8 columns and a SIMD batch.
  check_run_time_hessian<1>();
  check_run_time_hessian<2>();
  check_run_time_hessian<3>();
  check_run_time_hessian<7>();
  check_run_time_hessian<8>();
  check_run_time_hessian<9>();
  check_run_time_hessian<17>();
  check_run_time_hessian<33>();
  // No elements: blocks of no rows or columns.
  const auto none = tl::hessian([](const auto& x, const auto& a) { return a * tl::sum(tl::square(x)); })(
      tl::vector<double, tl::dynamic>(0), 2.0);
  CHECK(std::get<0>(std::get<0>(none)).size() == 0);
  CHECK(std::get<1>(std::get<0>(none)).rows() == 0);
  // Against differences of the gradient, at a matrix of run-time rows and columns.
  const auto of_matrix = [](const auto& M) { return tl::log_sum_exp(tl::square(M)) + tl::norm(M) * M(0, 1); };
  tl::matrix<double, tl::dynamic, tl::dynamic> M{{0.5, -1.0, 0.25}, {1.5, 0.75, -0.5}};
  const auto HM = tl::hessian(of_matrix)(M);
  REQUIRE(HM.rows() == 6);
  for (std::size_t k = 0; k < 6; ++k) {
    auto up = M, down = M;
    const double h = 1e-5;
    up.data()[k] += h;
    down.data()[k] -= h;
    const auto g_up = tl::grad(of_matrix)(up), g_down = tl::grad(of_matrix)(down);
    for (std::size_t l = 0; l < 6; ++l) {
      CAPTURE(k);
      CAPTURE(l);
      CHECK(fd::rel_error(HM(l, k), (g_up.data()[l] - g_down.data()[l]) / (2 * h)) < 1e-6);
    }
  }
  // A bounded vector: in a constant expression.
  constexpr auto Hb = tl::hessian([](const auto& x) { return tl::sum(tl::square(x)) * x[0]; })(
      tl::vector<double, tl::bounded<4>>{1.0, 2.0});
  // f = x0 (x0^2 + x1^2): f_00 = 6 x0, f_01 = 2 x1, f_11 = 2 x0.
  static_assert(Hb(0, 0) == 6.0 && Hb(0, 1) == 4.0 && Hb(1, 0) == 4.0 && Hb(1, 1) == 2.0);
}
