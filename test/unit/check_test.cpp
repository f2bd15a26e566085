// SPDX-License-Identifier: BSL-1.0
// tl::check_gradient, tl::compare_gradient and tl::finite_difference_gradient: correct gradients pass
// (numbers and matrices, float to long double, large and tiny scales, zero components), wrong and
// non-finite ones fail and the report names the argument and element, the FD gradient is typed like
// grad's and agrees with it, options, constant evaluation, and no heap allocation.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

constexpr int points = 50;

const auto f2 = [](auto x, auto y) { return x * tl::sin(x * y) + y * y / x; };
const auto rosenbrock2 = [](auto x, auto y) { return tl::square(1.0 - x) + 100.0 * tl::square(y - x * x); };
const auto mixed = [](auto x, auto y, auto z) {
  return tl::exp(-x * x) * tl::log1p(y * y) + tl::atan2(y, z) + tl::hypot(x, z) + tl::sigmoid(x - z);
};

template <std::size_t N>
constexpr auto rosenbrock = [](const auto& x) {
  auto head = tl::slice<0, N - 1>(x);
  auto tail = tl::slice<1, N - 1>(x);
  return tl::sum(100.0 * tl::square(tail - tl::square(head)) + tl::square(1.0 - head));
};

const auto matmul_sum = [](const auto& M) { return tl::sum(tl::matmul(M, M)); };

// A matrix, a vector and a number together.
const auto quadratic_form = [](const auto& A, const auto& v, auto s) {
  return s * tl::dot(v, tl::matmul(A, v)) + tl::log_sum_exp(v) + tl::sum(tl::sin(A)) / s;
};

template <class M>
M random_matrix(fd::rng& r, double lo, double hi) {
  M m;
  for (auto& e : m) e = static_cast<typename M::value_type>(r.uniform(lo, hi));
  return m;
}

/// The report, as streamed.
std::string report(const tl::gradient_check& c) {
  std::ostringstream os;
  os << c;
  return os.str();
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("check_gradient: the doctest one-liner") {
  const auto f = [](const auto& x) { return tl::sum(tl::square(x)) + tl::prod(x); };
  const tl::vector<double, 3> x{0.5, -1.25, 2.0};
  CHECK(tl::check_gradient(f, x));
  CHECK(tl::check_gradient(f2, 1.0, 2.0));
}

TEST_CASE("check_gradient: correct gradients of scalar functions pass") {
  fd::rng r{101};
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform_away(-3.0, 3.0, {0.0}, 0.2), y = r.uniform(-3.0, 3.0), z = r.uniform(-3.0, 3.0);
    const auto c = tl::check_gradient(f2, x, y);
    INFO(report(c));
    CHECK(c);
    CHECK(c.components == 2);
    CHECK(c.failures == 0);
    CHECK(tl::check_gradient(rosenbrock2, x, y));
    CHECK(tl::check_gradient(mixed, x, y, z));
    // float and long double, and both mixed with double: each has its own step and tolerance.
    CHECK(tl::check_gradient(f2, static_cast<float>(x), static_cast<float>(y)));
    CHECK(tl::check_gradient(f2, static_cast<long double>(x), static_cast<long double>(y)));
    CHECK(tl::check_gradient(mixed, static_cast<float>(x), y, static_cast<long double>(z)));
  }
}

TEST_CASE("check_gradient: correct gradients of matrix functions pass") {
  fd::rng r{202};
  for (int i = 0; i < points; ++i) {
    const auto A = random_matrix<tl::matrix<double, 3, 3>>(r, -2.0, 2.0);
    const auto v = random_matrix<tl::vector<double, 3>>(r, -2.0, 2.0);
    const double s = r.uniform_away(-2.0, 2.0, {0.0}, 0.3);
    CHECK(tl::check_gradient(matmul_sum, A));
    CHECK(tl::check_gradient(rosenbrock<5>, random_matrix<tl::vector<double, 5>>(r, -2.0, 2.0)));
    const auto c = tl::check_gradient(quadratic_form, A, v, s);
    INFO(report(c));
    CHECK(c);
    CHECK(c.components == 9 + 3 + 1);
    // A symmetric positive definite matrix: log det, inverse, solve.
    const auto spd = tl::matmul(A, tl::transpose(A)) + tl::matrix<double, 3, 3>{{3, 0, 0}, {0, 3, 0}, {0, 0, 3}};
    CHECK(tl::check_gradient([](const auto& M) { return tl::log_det(M); }, spd));
    CHECK(tl::check_gradient([](const auto& M, const auto& b) { return tl::sum(tl::solve(M, b)); }, spd, v));
    CHECK(tl::check_gradient([](const auto& M) { return tl::sum(tl::inverse(M)) + tl::det(M); }, spd));
    CHECK(tl::check_gradient(matmul_sum, random_matrix<tl::matrix<float, 2, 2>>(r, -2.0, 2.0)));
  }
}

TEST_CASE("check_gradient: large and tiny scales") {
  fd::rng r{303};
  const auto big = [](const auto& x) { return 1e6 * tl::sum(tl::square(x)); };
  const auto tiny = [](auto x) { return 1e-6 * tl::sin(x); };
  const auto tinier = [](auto x, auto y) { return 1e-30 * tl::exp(x) * y; };
  const auto huge = [](auto x, auto y) { return 1e30 * x * tl::cos(y); };
  for (int i = 0; i < points; ++i) {
    CHECK(tl::check_gradient(big, random_matrix<tl::vector<double, 4>>(r, -1e3, 1e3)));
    CHECK(tl::check_gradient(big, random_matrix<tl::vector<double, 4>>(r, -1e-3, 1e-3)));
    CHECK(tl::check_gradient(tiny, r.uniform(-10.0, 10.0)));
    CHECK(tl::check_gradient(tiny, r.uniform(-1e6, 1e6)));
    CHECK(tl::check_gradient(tinier, r.uniform(-5.0, 5.0), r.uniform(-5.0, 5.0)));
    CHECK(tl::check_gradient(huge, r.uniform(-5.0, 5.0), r.uniform(-5.0, 5.0)));
    // Arguments of very different sizes: f = x y at (1e6, 1e-6).
    CHECK(tl::check_gradient([](auto x, auto y) { return x * y; }, r.uniform(1e5, 1e7), r.uniform(1e-7, 1e-5)));
  }
}

TEST_CASE("check_gradient: zero components pass") {
  CHECK(tl::check_gradient([](auto x) { return x * x * x; }, 0.0));
  CHECK(tl::check_gradient([](auto x) { return tl::pow(x, 5); }, 0.0));
  CHECK(tl::check_gradient([](auto x) { return tl::cos(x); }, 0.0));
  CHECK(tl::check_gradient([](auto x, auto) { return tl::exp(x); }, 1.0, 2.0));  // y is ignored
  CHECK(tl::check_gradient([](auto, auto) { return 2.0; }, 1.0, 2.0));           // a constant
  CHECK(tl::check_gradient([](const auto& x) { return tl::sum(tl::square(x)); }, tl::vector<double, 3>{}));
  // At a minimum of a function of scale 1e6, sitting beside a non-zero component.
  CHECK(tl::check_gradient([](auto x, auto y) { return 1e6 * (tl::square(x) + y); }, 0.0, 1.0));
}

TEST_CASE("compare_gradient: a wrong gradient fails, and the report names the argument and element") {
  const auto f = [](const auto& A, auto s, const auto& B) { return s * tl::sum(tl::matmul(A, B)); };
  const tl::matrix<double, 2, 3> A{{1, 2, 3}, {4, 5, 6}};
  const tl::matrix<double, 3, 2> B{{0.5, -1}, {2, 0.25}, {-3, 1}};
  const double s = 1.5;

  auto g = tl::grad(f)(A, s, B);
  REQUIRE(tl::compare_gradient(g, f, A, s, B));

  std::get<2>(g)(2, 1) *= 1.01;  // 1 % off in argument 2, element (2, 1)
  const auto c = tl::compare_gradient(g, f, A, s, B);
  const std::string text = report(c);
  INFO(text);
  CHECK_FALSE(c);
  CHECK_FALSE(c.passed());
  CHECK(c.failures == 1);
  CHECK(c.components == 6 + 1 + 6);
  CHECK(c.worst.argument == 2);
  CHECK(c.worst.in_matrix);
  CHECK(c.worst.row == 2);
  CHECK(c.worst.col == 1);
  CHECK_FALSE(c.worst.passed);
  CHECK(static_cast<double>(c.worst.ad) == std::get<2>(g)(2, 1));
  CHECK(fd::rel_error(static_cast<double>(c.worst.fd), std::get<2>(tl::grad(f)(A, s, B))(2, 1)) < 1e-9);
  CHECK(fd::rel_error(static_cast<double>(c.worst.relative_error), 0.01 / 1.01) < 1e-6);
  CHECK(contains(text, "FAILED"));
  CHECK(contains(text, "1 of 13"));
  CHECK(contains(text, "argument 2, element (2, 1)"));
  CHECK(contains(text, "AD "));
  CHECK(contains(text, "FD "));
  CHECK(contains(text, "relative error 0.0099"));

  // The scalar argument wrong in sign: named without an element.
  auto h = tl::grad(f)(A, s, B);
  std::get<1>(h) = -std::get<1>(h);
  const auto d = tl::compare_gradient(h, f, A, s, B);
  CHECK_FALSE(d);
  CHECK(d.worst.argument == 1);
  CHECK_FALSE(d.worst.in_matrix);
  CHECK(contains(report(d), "argument 1: AD "));
}

TEST_CASE("compare_gradient: small errors are caught at every scale") {
  const auto tiny = [](auto x) { return 1e-6 * tl::sin(x); };
  const auto big = [](const auto& x) { return 1e6 * tl::sum(tl::square(x)); };
  const double x = 0.7;
  CHECK(tl::compare_gradient(1e-6 * std::cos(x), tiny, x));
  CHECK_FALSE(tl::compare_gradient(1e-6 * std::cos(x) * (1 + 1e-4), tiny, x));
  CHECK_FALSE(tl::compare_gradient(1e-6 * std::cos(x) + 1e-9, tiny, x));

  // f = 1.5e8; its FD rounding error (about eps |f| / h) is about 0.005 for every component.
  const tl::vector<double, 3> v{10.0, -0.002, 7.0};
  auto g = tl::grad(big)(v);
  CHECK(tl::compare_gradient(g, big, v));
  g[1] *= 1.01;  // 1 % off in the smallest component, 5000 times smaller than the largest
  const auto c = tl::compare_gradient(g, big, v);
  CHECK_FALSE(c);
  CHECK(c.worst.row == 1);
  CHECK(contains(report(c), "argument 0, element (1, 0)"));

  // float: wrong by 5 % is caught, right within float's FD accuracy passes.
  const float xf = 0.7f;
  CHECK(tl::compare_gradient(
      std::cos(xf), [](auto t) { return tl::sin(t); }, xf));
  CHECK_FALSE(tl::compare_gradient(
      1.05f * std::cos(xf), [](auto t) { return tl::sin(t); }, xf));
}

TEST_CASE("check_gradient: a non-finite gradient fails") {
  const auto f = [](const auto& x) { return tl::sum(tl::square(x)); };
  const tl::vector<double, 3> x{1.0, 2.0, 3.0};
  auto g = tl::grad(f)(x);
  g[2] = std::numeric_limits<double>::quiet_NaN();
  const auto c = tl::compare_gradient(g, f, x);
  const std::string text = report(c);
  INFO(text);
  CHECK_FALSE(c);
  CHECK(c.failures == 1);
  CHECK(c.worst.row == 2);
  CHECK(contains(text, "argument 0, element (2, 0)"));
  CHECK(contains(text, "nan"));
  CHECK(contains(text, "AD is not finite"));

  g[2] = std::numeric_limits<double>::infinity();
  CHECK_FALSE(tl::compare_gradient(g, f, x));

  // tapeless's own: sqrt at 0 has an infinite derivative (and x - h is outside the domain);
  // sqrt at -1 gives NaN on both sides.
  const auto root = [](auto t) { return tl::sqrt(t); };
  CHECK_FALSE(tl::check_gradient(root, 0.0));
  const auto outside = tl::check_gradient(root, -1.0);
  CHECK_FALSE(outside);
  CHECK(contains(report(outside), "AD and FD are not finite"));
}

TEST_CASE("check_gradient: a passing report, and the stream's format is left as it was") {
  std::ostringstream os;
  os.precision(4);
  os << std::fixed;
  const auto c = tl::check_gradient(f2, 1.0, 2.0);
  os << c;
  const std::string text = os.str();
  CHECK(contains(text, "gradient check passed: 2 components"));
  CHECK(contains(text, "argument "));
  CHECK(os.precision() == 4);
  CHECK((os.flags() & std::ios_base::floatfield) == std::ios_base::fixed);
  CHECK(c.worst.passed);
  CHECK(c.worst.badness < 1e-3);
}

TEST_CASE("check_gradient: options") {
  const auto f = [](auto x) { return tl::sin(x); };
  const double x = 0.7;
  // Off by 1e-4 relative: outside the default tolerance for double, inside rtol = 1e-3.
  CHECK_FALSE(tl::compare_gradient(std::cos(x) * (1 + 1e-4), f, x));
  CHECK(tl::compare_gradient(std::cos(x) * (1 + 1e-4), f, x, tl::check_options{.rtol = 1e-3}));
  CHECK(tl::check_gradient(f2, 1.0, 2.0, tl::check_options{.rtol = 1e-8, .atol = 1e-8}));

  // log near the edge of its domain: the first step (6e-6) reaches below 0 and is shrunk until it
  // does not; a first step given as an option is used.
  const auto lg = [](auto t) { return tl::log(t); };
  CHECK(tl::check_gradient(lg, 1e-6));
  CHECK(tl::check_gradient(lg, 1e-6, tl::check_options{.step = 1e-8}));
  CHECK(fd::rel_error(tl::finite_difference_gradient(lg, 1e-6), 1e6) < 1e-7);
  // A step below the spacing of numbers at x: x + h = x - h, no estimate, and the check fails.
  CHECK_FALSE(tl::check_gradient(f2, 1.0, 2.0, tl::check_options{.step = 1e-40}));
}

TEST_CASE("finite_difference_gradient: typed like grad, and agreeing with it") {
  const tl::matrix<double, 2, 3> A{{1, 2, 3}, {4, 5, 6}};
  const tl::vector<float, 2> vf{1.0f, 2.0f};
  const auto one = [](auto x) { return x * x; };
  const auto mat = [](const auto& M) { return tl::sum(tl::sin(M)); };
  const auto mix = [](const auto& M, auto s, const auto& v) { return s * tl::sum(M) + tl::sum(tl::square(v)); };
  static_assert(std::is_same_v<decltype(tl::finite_difference_gradient(one, 1.0)), double>);
  static_assert(std::is_same_v<decltype(tl::finite_difference_gradient(one, 1.0f)), float>);
  static_assert(std::is_same_v<decltype(tl::finite_difference_gradient(one, 1.0L)), long double>);
  static_assert(std::is_same_v<decltype(tl::finite_difference_gradient(mat, A)), tl::matrix<double, 2, 3>>);
  static_assert(std::is_same_v<decltype(tl::finite_difference_gradient(f2, 1.0, 2.0f)), std::tuple<double, float>>);
  static_assert(
      std::is_same_v<decltype(tl::finite_difference_gradient(mix, A, 1.0, vf)), decltype(tl::grad(mix)(A, 1.0, vf))>);
  static_assert(std::is_same_v<decltype(tl::finite_difference_gradient(mat, A)), decltype(tl::grad(mat)(A))>);
  static_assert(std::is_same_v<decltype(tl::finite_difference_gradient(f2, 1.0, 2.0, tl::check_options{})),
                               decltype(tl::grad(f2)(1.0, 2.0))>);

  fd::rng r{404};
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform_away(-3.0, 3.0, {0.0}, 0.2), y = r.uniform(-3.0, 3.0), z = r.uniform(-3.0, 3.0);
    const auto [fx, fy] = tl::finite_difference_gradient(f2, x, y);
    const auto [gx, gy] = tl::grad(f2)(x, y);
    CHECK(fd::rel_error(fx, gx) < 1e-7);
    CHECK(fd::rel_error(fy, gy) < 1e-7);
    const auto [mx, my, mz] = tl::finite_difference_gradient(mixed, x, y, z);
    const auto [ax, ay, az] = tl::grad(mixed)(x, y, z);
    CHECK(fd::rel_error(mx, ax) < 1e-7);
    CHECK(fd::rel_error(my, ay) < 1e-7);
    CHECK(fd::rel_error(mz, az) < 1e-7);

    const auto M = random_matrix<tl::matrix<double, 3, 3>>(r, -2.0, 2.0);
    const auto fm = tl::finite_difference_gradient(matmul_sum, M);
    const auto gm = tl::grad(matmul_sum)(M);
    for (std::size_t k = 0; k < M.size(); ++k) CHECK(fd::rel_error(fm[k], gm[k]) < 1e-7);
  }
}

TEST_CASE("check_gradient: in a constant expression") {
  static_assert(tl::check_gradient(f2, 1.0, 2.0));
  static_assert(tl::check_gradient(matmul_sum, tl::matrix<double, 2, 2>{{1, 2}, {3, 4}}));
  static_assert(!tl::compare_gradient(std::tuple{1.0, 1.0}, f2, 1.0, 2.0));
  constexpr auto c = tl::compare_gradient(std::tuple{1.0, 1.0}, f2, 1.0, 2.0);
  static_assert(c.failures == 2 && c.components == 2);
  constexpr double g = tl::finite_difference_gradient([](auto x) { return x * x * x; }, 2.0);
  static_assert(g > 12.0 - 1e-9 && g < 12.0 + 1e-9);
  CHECK(c.worst.badness > 1);
}

TEST_CASE("check_gradient: no heap allocation") {
  const tl::matrix<double, 3, 3> A{{1, 2, 0}, {0, 1, 3}, {2, 0, 1}};
  tl::gradient_check c, d;
  CHECK(test_support::allocations_during([&] {
          c = tl::check_gradient(quadratic_form, A, tl::vector<double, 3>{1, 2, 3}, 0.5);
          const auto fdg = tl::finite_difference_gradient(matmul_sum, A);
          d = tl::compare_gradient(fdg, matmul_sum, A, tl::check_options{.rtol = 1e-4});
        }) == 0);
  CHECK(c);
  CHECK(d);
}

// f far smaller than the intermediates it is computed from: 1 - cos x near 0 is ~x²/2, computed from
// cos x ~ 1, whose rounding is ε absolute, not ε |f|. The checker must measure that noise rather than
// take ε |f| for it: counted as truncation error, it made the step shrink into the noise, and the FD
// kept (off by 1e-4 relative) came with an error estimate as small as the noise happened to be; about
// 3 % of points in [-0.01, 0.01] failed. The two points first seen failing, then a seeded sweep.
TEST_CASE("check_gradient: f far smaller than its intermediates, 1 - cos x near 0") {
  const auto f = [](auto x) { return 1.0 - tl::cos(x); };
  for (const double x : {0.00013376322418061186, 0.0015286106160194383}) {
    INFO("at x = " << fd::str(x) << ", d/dx = sin x = " << fd::str(std::sin(x)));
    CHECK(tl::check_gradient(f, x));
  }
  fd::rng r{1701};
  for (int i = 0; i < 200; ++i) {
    const double x = r.uniform(-0.01, 0.01);
    const auto c = tl::check_gradient(f, x);
    INFO("at x = " << fd::str(x) << ": " << report(c));
    CHECK(c);
  }
  // The noise allowed for is the FD's, not a blanket one: a gradient 1 % off still fails.
  for (const double x : {0.00013376322418061186, 0.0015286106160194383, -0.0071})
    CHECK_FALSE(tl::compare_gradient(std::sin(x) * 1.01, f, x));
}
