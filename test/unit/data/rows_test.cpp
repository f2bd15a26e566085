// SPDX-License-Identifier: BSL-1.0
// tl::rows: every kind of column the contract names (std::vector, std::span and std::array of double
// and of float; Eigen::VectorXd and maps of it; contiguous ranges of tl::vector and tl::matrix rows),
// read in place: the view points at the caller's data, so a change to the data shows in the next sum.
// Columns of unequal length throw std::invalid_argument naming both lengths. Each view is summed over
// with tl::sum_over and checked against the sum by hand.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <Eigen/Core>

#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace tl = tapeless;

namespace {

/// A least-squares line, (a t + b - y)^2, and its sum with its gradient by hand.
constexpr auto line_term = [](const auto& t, const auto& y, const auto& a, const auto& b) {
  return tl::square(a * t + b - y);
};
constexpr double a0 = 0.75, b0 = -0.5;

template <class T, class Y>
void check_line(const T& t, const Y& y, std::size_t n) {
  long double value = 0, da = 0, db = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const long double r = a0 * static_cast<long double>(t[i]) + b0 - static_cast<long double>(y[i]);
    value += r * r;
    da += 2 * r * static_cast<long double>(t[i]);
    db += 2 * r;
  }
  const auto f = [&](const auto& a, const auto& b) { return tl::sum_over(tl::rows(t, y), line_term, a, b); };
  const auto [v, g] = tl::value_and_grad(f)(a0, b0);
  CHECK(v == doctest::Approx(double(value)).epsilon(1e-13));
  CHECK(std::get<0>(g) == doctest::Approx(double(da)).epsilon(1e-13));
  CHECK(std::get<1>(g) == doctest::Approx(double(db)).epsilon(1e-13));
  CHECK(f(a0, b0) == doctest::Approx(double(value)).epsilon(1e-13));
}

/// Column values with no pattern a wrong index would keep.
template <class T>
T at(std::size_t i) {
  return static_cast<T>(std::sin(1.0 + 0.7 * static_cast<double>(i)) * 3.0);
}
template <class T>
T target(std::size_t i) {
  return static_cast<T>(std::cos(0.3 * static_cast<double>(i)));
}

}  // namespace

TEST_CASE("std::vector, std::span and std::array columns of double and of float") {
  constexpr std::size_t n = 11;
  std::vector<double> t(n), y(n);
  std::vector<float> tf(n), yf(n);
  std::array<double, n> ta{};
  std::array<float, n> yaf{};
  for (std::size_t i = 0; i < n; ++i) {
    t[i] = ta[i] = at<double>(i);
    y[i] = target<double>(i);
    tf[i] = at<float>(i);
    yf[i] = yaf[i] = target<float>(i);
  }
  const auto r = tl::rows(t, y);
  CHECK(r.size() == n);
  CHECK(tl::rows(tf, yf).size() == n);
  check_line(t, y, n);
  check_line(std::span<const double>(t), std::span<double>(y), n);
  check_line(ta, y, n);
  check_line(tf, yf, n);
  check_line(std::span<const float>(tf), yaf, n);
  check_line(ta, yaf, n);
  check_line(std::span<const double, n>(ta), std::span<float>(yf), n);
  // A view of one column, and of three.
  CHECK(tl::rows(t).size() == n);
  CHECK(tl::rows(t, yf, ta).size() == n);
}

TEST_CASE("Eigen::VectorXd and Eigen::Map columns") {
  constexpr std::size_t n = 9;
  Eigen::VectorXd t(n), y(n);
  std::vector<double> raw(n);
  for (std::size_t i = 0; i < n; ++i) {
    t(Eigen::Index(i)) = at<double>(i);
    y(Eigen::Index(i)) = raw[i] = target<double>(i);
  }
  const Eigen::Map<Eigen::VectorXd> mapped(raw.data(), Eigen::Index(n));
  const Eigen::Map<const Eigen::VectorXd> read_only(raw.data(), Eigen::Index(n));
  CHECK(tl::rows(t, y).size() == n);
  check_line(t, y, n);
  check_line(t, mapped, n);
  check_line(t, read_only, n);
  check_line(t, raw, n);
  CHECK(tl::rows(t, y).column<0>() == t.data());
  CHECK(tl::rows(t, mapped).column<1>() == raw.data());
  // A strided map's elements are not adjacent: it is refused, not read wrongly.
  const Eigen::Map<const Eigen::VectorXd, 0, Eigen::InnerStride<2>> every_other(raw.data(), Eigen::Index(n / 2));
  CHECK_THROWS_AS((void)tl::rows(every_other), std::invalid_argument);
}

TEST_CASE("rows of tl::vector<double, 8> and of tl::matrix<double, 2, 3>") {
  constexpr std::size_t n = 7;
  std::vector<tl::vector<double, 8>> x(n);
  std::vector<tl::matrix<double, 2, 3>> A(n);
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < 8; ++j) x[i][j] = at<double>(8 * i + j);
    for (std::size_t j = 0; j < 6; ++j) A[i].begin()[j] = target<double>(6 * i + j);
    y[i] = at<double>(100 + i);
  }
  const std::span<const tl::matrix<double, 2, 3>> As{A};
  const auto rx = tl::rows(x, y);
  const auto rA = tl::rows(As, y);
  CHECK(rx.size() == n);
  CHECK(rA.size() == n);
  CHECK(tl::rows(x, As, y).size() == n);

  // sum_i (w . x_i - y_i)^2 in w, and sum_i sum(A_i .* M)^2 in M.
  const tl::vector<double, 8> w{0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8};
  const tl::matrix<double, 2, 3> M{{1.0, 0.5, -0.5}, {0.25, -1.0, 2.0}};
  const auto fx = [&](const auto& v) {
    return tl::sum_over(
        rx, [](const auto& xi, const auto& yi, const auto& p) { return tl::square(tl::dot(xi, p) - yi); }, v);
  };
  const auto fA = [&](const auto& P) {
    return tl::sum_over(
        rA, [](const auto& Ai, const auto&, const auto& Q) { return tl::square(tl::sum(Ai * Q)); }, P);
  };
  long double vx = 0, vA = 0;
  std::array<long double, 8> gx{};
  std::array<long double, 6> gA{};
  for (std::size_t i = 0; i < n; ++i) {
    long double r = -y[i], s = 0;
    for (std::size_t j = 0; j < 8; ++j) r += static_cast<long double>(x[i][j]) * w[j];
    for (std::size_t j = 0; j < 6; ++j) s += static_cast<long double>(A[i].begin()[j]) * M.begin()[j];
    vx += r * r;
    vA += s * s;
    for (std::size_t j = 0; j < 8; ++j) gx[j] += 2 * r * x[i][j];
    for (std::size_t j = 0; j < 6; ++j) gA[j] += 2 * s * A[i].begin()[j];
  }
  const auto [value_x, grad_x] = tl::value_and_grad(fx)(w);
  const auto [value_A, grad_A] = tl::value_and_grad(fA)(M);
  CHECK(value_x == doctest::Approx(double(vx)).epsilon(1e-13));
  CHECK(value_A == doctest::Approx(double(vA)).epsilon(1e-13));
  for (std::size_t j = 0; j < 8; ++j) CHECK(grad_x[j] == doctest::Approx(double(gx[j])).epsilon(1e-13));
  for (std::size_t j = 0; j < 6; ++j) CHECK(grad_A.begin()[j] == doctest::Approx(double(gA[j])).epsilon(1e-13));
}

TEST_CASE("nothing is copied: the view points at the caller's data, and a change shows in the next sum") {
  constexpr std::size_t n = 13;
  std::vector<double> t(n), y(n);
  std::vector<tl::vector<double, 8>> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    t[i] = at<double>(i);
    y[i] = target<double>(i);
  }
  const auto r = tl::rows(t, y, x);
  CHECK(r.column<0>() == t.data());
  CHECK(r.column<1>() == y.data());
  CHECK(r.column<2>() == x.data());
  std::array<float, 4> fixed{1, 2, 3, 4};
  CHECK(tl::rows(fixed).column<0>() == fixed.data());

  // One view, made before the data changes: sum_i (a t_i - y_i)^2 at a = 1, then with y_5 raised by 1.
  const auto view = tl::rows(t, y);
  const auto f = [&](const auto& a) {
    return tl::sum_over(
        view, [](const auto& ti, const auto& yi, const auto& p) { return tl::square(p * ti - yi); }, a);
  };
  const double before = f(1.0);
  const double grad_before = tl::grad(f)(1.0);
  y[5] += 1.0;
  const double r5 = t[5] - (y[5] - 1.0);
  CHECK(f(1.0) == doctest::Approx(before - 2 * r5 + 1).epsilon(1e-13));  // (r - 1)^2 = r^2 - 2 r + 1
  CHECK(tl::grad(f)(1.0) == doctest::Approx(grad_before - 2 * t[5]).epsilon(1e-13));
}

TEST_CASE("columns of unequal length throw std::invalid_argument naming both lengths") {
  const std::vector<double> t(12345), y(678);
  const std::vector<tl::vector<double, 8>> x(91);
  const auto message = [](const auto&... c) -> std::string {
    try {
      (void)tl::rows(c...);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no exception";
  };
  for (const std::string& what : {message(t, y), message(y, t)}) {
    CAPTURE(what);
    CHECK(what.find("12345") != std::string::npos);
    CHECK(what.find("678") != std::string::npos);
  }
  const std::string third = message(y, y, x);
  CAPTURE(third);
  CHECK(third.find("678") != std::string::npos);
  CHECK(third.find("91") != std::string::npos);
  CHECK_THROWS_AS((void)tl::rows(t, std::span<const double>(t).first(12344)), std::invalid_argument);
  CHECK_NOTHROW((void)tl::rows(t, t, std::span<const double>(t)));
  // Empty columns of equal length are a view of no rows.
  const std::vector<double> none;
  CHECK(tl::rows(none, none).size() == 0);
}
