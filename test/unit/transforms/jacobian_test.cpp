// SPDX-License-Identifier: BSL-1.0
// tl::jacobian (transforms/jacobian.hpp): the contract's example and result types, forward and reverse
// Jacobians against each other and against central differences at seeded random points, selected
// arguments, the products vjp and jvp with the same Jacobian, constant evaluation; outputs of run-time
// extents (jacobian forward, vjp and jvp).
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <higher_order_check.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

TEST_CASE("the contract: the Jacobian of M v + sin(v0)") {
  const tl::matrix<double, 3, 4> J = tl::jacobian(ho::contract_f)(ho::contract_x);
  CHECK(ho::max_rel_error(J, ho::contract_jacobian(ho::contract_x)) < ho::exact_tol);
}

TEST_CASE("jacobian: result types, a number or a matrix of one row per output element") {
  const auto s = [](auto a) { return a * tl::exp(a); };
  const auto m = [](const auto& A) { return tl::sum(tl::exp(A)) * tl::sum(A * A); };
  const auto mixed = [](const auto& A, auto b, const auto& c) { return tl::sum(A) * b * tl::sum(c); };
  const auto vec = [](const auto& x) { return tl::exp(x) * 2.0; };
  using M23 = tl::matrix<double, 2, 3>;
  static_assert(std::is_same_v<decltype(tl::jacobian(vec)(tl::vector<double, 3>{})), tl::matrix<double, 3, 3>>);
  static_assert(std::is_same_v<decltype(tl::jacobian(s)(1.0)), double>);
  static_assert(std::is_same_v<decltype(tl::jacobian(m)(M23{})), tl::matrix<double, 1, 6>>);
  static_assert(std::is_same_v<decltype(tl::jacobian<1>(mixed)(M23{}, 1.0, tl::vector<double, 2>{})), double>);
}

TEST_CASE("jacobian: forward and reverse against differences, selected arguments") {
  fd::rng r{7005};
  const tl::matrix<double, 3, 4> M{{1, -2, 0.5, 1}, {0.25, 1, -1, 2}, {3, 0, 1, -0.5}};
  const auto wide = [&](const auto& x) { return tl::tanh(tl::matmul(M, x)) * x[1]; };                // 4 -> 3: reverse
  const auto tall = [&](const auto& z) { return tl::exp(tl::matmul(tl::transpose(M), z)) + z[0]; };  // 3 -> 4: forward
  const auto pair = [](const auto& x, auto s) { return tl::sin(x) * s + s * s; };                    // (2, 1) -> 2
  for (int i = 0; i < 20; ++i) {
    const auto x = ho::random_vector<4>(r, -1, 1);
    const auto z = ho::random_vector<3>(r, -1, 1);
    CHECK(ho::max_rel_error(tl::jacobian(wide)(x), ho::fd_jacobian<3, 4>(wide, x)) < ho::second_fd_tol);
    CHECK(ho::max_rel_error(tl::jacobian(tall)(z), ho::fd_jacobian<4, 3>(tall, z)) < ho::second_fd_tol);
    const auto v = ho::random_vector<2>(r, -1, 1);
    const double s = r.uniform(-1, 1);
    const auto [Jx, Js] = tl::jacobian(pair)(v, s);
    const auto fd_x = ho::fd_jacobian<2, 2>([&](const auto& t) { return pair(t, s); }, v);
    const auto fd_s = ho::fd_slope([&](double t) { return pair(v, t); }, s);
    CHECK(ho::max_rel_error(Jx, fd_x) < ho::second_fd_tol);
    CHECK(ho::max_rel_error(Js, fd_s) < ho::second_fd_tol);
    // Forward mode (two inputs, dual numbers) against reverse mode, whose matrix loops run SIMD batches.
    CHECK(ho::max_ulps(tl::jacobian<0>(pair)(v, s), Jx) <= 4);
    CHECK(ho::max_rel_error(tl::jacobian<1>(pair)(v, s), fd_s) < ho::second_fd_tol);
    // vjp and jvp are the two products with the same Jacobian.
    const auto u = ho::random_vector<3>(r, -1, 1);
    const auto w = ho::random_vector<4>(r, -1, 1);
    const auto J = tl::jacobian(wide)(x);
    CHECK(ho::max_rel_error(tl::vjp(wide, x).second(u), tl::matmul(tl::transpose(J), u)) < 1e-13);
    CHECK(ho::max_rel_error(tl::jvp(wide, std::tuple{x}, std::tuple{w}).second, tl::matmul(J, w)) < 1e-13);
    const auto [gx, gs] = tl::vjp(pair, v, s).second(tl::vector<double, 2>{1.0, 1.0});
    CHECK(ho::max_rel_error(gx, tl::grad<0>([&](const auto& t, auto q) { return tl::sum(pair(t, q)); })(v, s)) < 1e-14);
    CHECK(fd::rel_error(gs, Js[0] + Js[1]) < 1e-14);
  }
}

TEST_CASE("jacobian in a constant expression") {
  constexpr auto F = [](const auto& x) { return x * x; };
  constexpr tl::vector<double, 2> x{1.0, 3.0};
  constexpr auto J = tl::jacobian(F)(x);
  static_assert(J(0, 0) == 2.0 && J(1, 1) == 6.0 && J(0, 1) == 0.0);
}

TEST_CASE("jacobian at arguments of run-time extents: m x n of run-time n, forward and reverse, the fixed twin's") {
  // Two outputs of a run-time x of 3 and a fixed w of 2: reverse (5 inputs, 2 outputs).
  const auto two = [](const auto& x, const auto& w) { return w * tl::norm(x) + tl::max_element(x) * tl::square(w); };
  const tl::vector<double, 2> w{0.5, -1.0};
  const tl::vector<double, tl::dynamic> x{0.5, -2.0, 1.5};
  const tl::vector<double, 3> xf{0.5, -2.0, 1.5};
  const auto [Jx, Jw] = tl::jacobian(two)(x, w);
  const auto [Jxf, Jwf] = tl::jacobian(two)(xf, w);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(Jx)>, tl::matrix<double, 2, tl::dynamic>>);
  REQUIRE(Jx.cols() == 3);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j) CHECK(fd::rel_error(Jx(i, j), Jxf(i, j)) < 1e-15);
  CHECK(Jw == Jwf);
  // Forward: four outputs of a vector of two elements, the only selected argument.
  const auto four = [](const auto& x, const auto& e) { return e * tl::log_sum_exp(x) + tl::square(e) * x[1]; };
  const tl::vector<double, 4> e{1.0, 2.0, -1.0, 0.5};
  const tl::vector<double, tl::dynamic> y{0.25, -0.75};
  const auto J4 = tl::jacobian<0>(four)(y, e);
  const auto J4f = tl::jacobian<0>(four)(tl::vector<double, 2>{0.25, -0.75}, e);
  REQUIRE(J4.cols() == 2);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 2; ++j) CHECK(fd::rel_error(J4(i, j), J4f(i, j)) < 1e-15);
  // A number: one row, the gradient.
  const auto J1 = tl::jacobian([](const auto& v) { return tl::log_sum_exp(v); })(x);
  const auto g = tl::grad([](const auto& v) { return tl::log_sum_exp(v); })(x);
  REQUIRE(J1.rows() == 1);
  for (std::size_t j = 0; j < 3; ++j) CHECK(J1(0, j) == g[j]);
  // A bounded vector: in a constant expression.
  constexpr auto Jb = tl::jacobian<0>([](const auto& v, const auto& c) { return c * tl::sum(tl::square(v)); })(
      tl::vector<double, tl::bounded<4>>{1.0, 2.0}, tl::vector<double, 2>{1.0, 3.0});
  static_assert(Jb(0, 0) == 2.0 && Jb(0, 1) == 4.0 && Jb(1, 0) == 6.0 && Jb(1, 1) == 12.0);
}

namespace {
/// The residuals of an exponential fit over data of N points of run-time length, p fixed: the
/// Jacobian (N x 2, forward), the value and pullback of vjp and the tangent of jvp against the fixed
/// twin's (data of N fixed) and against central differences.
template <std::size_t N>
void check_residuals_of_run_time_length() {
  CAPTURE(N);
  fd::rng u(N);
  tl::vector<double, tl::dynamic> t(N), y(N), w(N);
  tl::vector<double, N> tf, yf, wf;
  for (std::size_t k = 0; k < N; ++k) {
    tf[k] = t[k] = 0.1 * static_cast<double>(k);
    yf[k] = y[k] = u.uniform(0.5, 1.5);
    wf[k] = w[k] = u.uniform(-1.0, 1.0);
  }
  const auto residuals = [](const auto& times, const auto& values) {
    return [&times, &values](const auto& p) { return p[1] * tl::exp(-p[0] * tl::cref(times)) - tl::cref(values); };
  };
  const auto r = residuals(t, y);
  const auto rf = residuals(tf, yf);
  const tl::vector<double, 2> p{0.7, 1.1};
  const auto J = tl::jacobian(r)(p);
  const auto Jf = tl::jacobian(rf)(p);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(J)>, tl::matrix<double, tl::dynamic, 2>>);
  REQUIRE(J.rows() == N);
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < 2; ++j) {
      CHECK(fd::rel_error(J(i, j), Jf(i, j)) < 1e-15);
      CHECK(fd::rel_error(J(i, j), fd::partial([&](const auto& q) { return rf(q).value()[i]; }, p, j)) < 1e-7);
    }
  // vjp: the value as a run-time vector, and u^T J from one sum over the residuals.
  const auto [value, pullback] = tl::vjp(r, p);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(value)>, tl::vector<double, tl::dynamic>>);
  const auto [fixed_value, fixed_pullback] = tl::vjp(rf, p);
  const auto uJ = pullback(w), fixed_uJ = fixed_pullback(wf);
  REQUIRE(value.size() == N);
  for (std::size_t i = 0; i < N; ++i) CHECK(fd::rel_error(value[i], fixed_value[i]) < 1e-15);
  for (std::size_t j = 0; j < 2; ++j) CHECK(fd::rel_error(uJ[j], fixed_uJ[j]) < 1e-14);
  // jvp: J v in one forward pass.
  const tl::vector<double, 2> v{0.25, -2.0};
  const auto [jvp_value, Jv] = tl::jvp(r, std::tuple{p}, std::tuple{v});
  REQUIRE(Jv.size() == N);
  for (std::size_t i = 0; i < N; ++i) {
    CHECK(fd::rel_error(jvp_value[i], fixed_value[i]) < 1e-15);
    CHECK(fd::rel_error(Jv[i], J(i, 0) * v[0] + J(i, 1) * v[1]) < 1e-14);
  }
}
}  // namespace

TEST_CASE("outputs of run-time extents: jacobian (forward), vjp and jvp of residuals and an elementwise map") {
  check_residuals_of_run_time_length<1>();
  check_residuals_of_run_time_length<5>();
  check_residuals_of_run_time_length<33>();
  // An elementwise map of a run-time vector: its Jacobian is diagonal.
  const auto map = [](const auto& x) { return 2.0 * tl::exp(x) + tl::square(x); };
  const tl::vector<double, tl::dynamic> x{0.5, -1.0, 2.0};
  const auto J = tl::jacobian(map)(x);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(J)>, tl::matrix<double, tl::dynamic, tl::dynamic>>);
  REQUIRE(J.rows() == 3);
  REQUIRE(J.cols() == 3);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      CHECK(fd::rel_error(J(i, j), i == j ? 2.0 * std::exp(x[i]) + 2.0 * x[i] : 0.0) < 1e-15);
  // A cotangent of another size: std::invalid_argument naming both shapes.
  const auto pullback = tl::vjp(map, x).second;
  CHECK_THROWS_WITH_AS(pullback(tl::vector<double, tl::dynamic>{1.0, 2.0}),
                       "tl: tl::dot of a 3 x 1 and a 2 x 1 array; elementwise operands have one shape",
                       std::invalid_argument);
}
