// SPDX-License-Identifier: BSL-1.0
// Second order through tl::sum_over and tl::mean_over: tl::hessian against the closed form summed by
// hand, tl::jvp against the gradient by hand along a direction, grad of grad, at row counts on both
// sides of a batch and of a block; and the same in a constant expression, over std::array data.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <row_sum_check.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <tuple>
#include <vector>

namespace tl = tapeless;
using namespace row_sums;

namespace {

/// The Hessian of S10's sum in (a, b, c) by hand, in long double: with e = exp(-b t), r = a e + c - y,
/// H = sum 2 (dr dr^T + r d2r), where dr = (e, -a t e, 1) and d2r has -t e at (a, b) and a t^2 e at (b, b).
struct decay_hessian {
  std::array<std::array<long double, 3>, 3> h{};
  std::array<std::array<long double, 3>, 3> magnitude{};
  decay_hessian(const decay_columns<double>& d, double a, double b, double c) {
    for (std::size_t i = 0; i < d.t.size(); ++i) {
      const long double t = d.t[i], e = std::exp(-b * t), r = a * e + c - d.y[i];
      const std::array<long double, 3> dr{e, -a * t * e, 1};
      const std::array<std::array<long double, 3>, 3> d2r{{{0, -t * e, 0}, {-t * e, a * t * t * e, 0}, {0, 0, 0}}};
      for (std::size_t j = 0; j < 3; ++j)
        for (std::size_t k = 0; k < 3; ++k) {
          const long double term = 2 * (dr[j] * dr[k] + r * d2r[j][k]);
          h[j][k] += term;
          magnitude[j][k] += std::abs(term);
        }
    }
  }
  [[nodiscard]] double allowed(std::size_t j, std::size_t k) const {
    return 4 * sum_tolerance * double(magnitude[j][k]);
  }
};

/// H(j, k) of a tuple of tuples as tl::hessian returns for number arguments.
template <class H>
std::array<std::array<double, 3>, 3> as_array(const H& H3) {
  std::array<std::array<double, 3>, 3> out{};
  const auto row = [](const auto& r) { return std::array<double, 3>{std::get<0>(r), std::get<1>(r), std::get<2>(r)}; };
  out[0] = row(std::get<0>(H3));
  out[1] = row(std::get<1>(H3));
  out[2] = row(std::get<2>(H3));
  return out;
}

}  // namespace

TEST_CASE("tl::hessian through sum_over and mean_over: S10's decay against its closed form") {
  for (const std::size_t n : some_row_counts()) {
    CAPTURE(n);
    const auto d = decay_data(n);
    const auto sum = decay_sum(d.t, d.y);
    const auto mean = decay_mean(d.t, d.y);
    const decay_hessian by_hand{d, decay_a, decay_b, decay_c};
    const auto H = as_array(tl::hessian(sum)(decay_a, decay_b, decay_c));
    const auto Hm = as_array(tl::hessian(mean)(decay_a, decay_b, decay_c));
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t k = 0; k < 3; ++k) {
        CAPTURE(j);
        CAPTURE(k);
        CHECK(std::abs(H[j][k] - double(by_hand.h[j][k])) <= by_hand.allowed(j, k));
        CHECK(std::abs(Hm[j][k] - double(by_hand.h[j][k]) / double(n)) <= by_hand.allowed(j, k) / double(n));
      }
  }
}

TEST_CASE("tl::hessian through mean_over: logistic regression over rows of 8, X^T diag(p (1 - p)) X / n") {
  for (const std::size_t n : some_row_counts()) {
    CAPTURE(n);
    const auto l = logistic_data(n);
    const auto loss = [&](const auto& beta) { return tl::mean_over(tl::rows(l.x, l.y), logistic_term, beta); };
    tl::matrix<long double, 8, 8> by_hand{}, magnitude{};
    for (std::size_t i = 0; i < n; ++i) {
      long double z = 0;
      for (std::size_t j = 0; j < 8; ++j) z += static_cast<long double>(l.x[i][j]) * logistic_beta[j];
      const long double p = 1 / (1 + std::exp(-z));
      for (std::size_t j = 0; j < 8; ++j)
        for (std::size_t k = 0; k < 8; ++k) {
          const long double term = p * (1 - p) * l.x[i][j] * l.x[i][k];
          by_hand(j, k) += term;
          magnitude(j, k) += std::abs(term);
        }
    }
    const tl::matrix<double, 8, 8> H = tl::hessian(loss)(logistic_beta);
    for (std::size_t j = 0; j < 8; ++j)
      for (std::size_t k = 0; k < 8; ++k) {
        CAPTURE(j);
        CAPTURE(k);
        CHECK(std::abs(H(j, k) - double(by_hand(j, k)) / double(n)) <=
              4 * sum_tolerance * double(magnitude(j, k)) / double(n));
      }
  }
}

TEST_CASE("tl::jvp through sum_over: the value and the gradient by hand along a direction") {
  for (const std::size_t n : some_row_counts()) {
    CAPTURE(n);
    const auto d = decay_data(n);
    const auto sum = decay_sum(d.t, d.y);
    const auto e = decay_expected(d, decay_a, decay_b, decay_c);
    const std::array<double, 3> v{0.25, -1.5, 2.0};
    const auto [value, slope] = tl::jvp(sum, std::tuple{decay_a, decay_b, decay_c}, std::tuple{v[0], v[1], v[2]});
    long double want = 0, magnitude = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      want += e.sum[1 + k] * v[k];
      magnitude += e.magnitude[1 + k] * std::abs(v[k]);
    }
    CHECK(std::abs(value - double(e.sum[0])) <= 4 * sum_tolerance * double(e.magnitude[0]));
    CHECK(std::abs(slope - double(want)) <= 4 * sum_tolerance * double(magnitude));
    // The matrix parameter too: the derivative along V is <gradient, V>.
    const auto m = matrix_data(n);
    const auto matrix_sum = [&](const auto& M) { return tl::sum_over(tl::rows(m.A, m.y), matrix_term, M); };
    const m23 V{{1.0, -0.5, 0.25}, {0.0, 2.0, -1.0}};
    const auto em = matrix_expected(m, matrix_M);
    long double matrix_want = 0, matrix_magnitude = 0;
    for (std::size_t k = 0; k < 6; ++k) {
      matrix_want += em.sum[1 + k] * V.begin()[k];
      matrix_magnitude += em.magnitude[1 + k] * std::abs(V.begin()[k]);
    }
    const auto [matrix_value, matrix_slope] = tl::jvp(matrix_sum, std::tuple{matrix_M}, std::tuple{V});
    CHECK(std::abs(matrix_value - double(em.sum[0])) <= 4 * sum_tolerance * double(em.magnitude[0]));
    CHECK(std::abs(matrix_slope - double(matrix_want)) <= 4 * sum_tolerance * double(matrix_magnitude));
  }
}

TEST_CASE("grad of grad through sum_over: d2/da2, d2/db2 and a row of the Hessian") {
  for (const std::size_t n : some_row_counts()) {
    CAPTURE(n);
    const auto d = decay_data(n);
    const auto sum = decay_sum(d.t, d.y);
    const decay_hessian by_hand{d, decay_a, decay_b, decay_c};
    // A function of a alone, with the other parameters plain numbers.
    const auto of_a = [&](const auto& a) { return tl::sum_over(tl::rows(d.t, d.y), decay_term, a, decay_b, decay_c); };
    CHECK(std::abs(tl::grad(tl::grad(of_a))(decay_a) - double(by_hand.h[0][0])) <= by_hand.allowed(0, 0));
    CHECK(std::abs(tl::grad<1>(tl::grad<1>(sum))(decay_a, decay_b, decay_c) - double(by_hand.h[1][1])) <=
          by_hand.allowed(1, 1));
    // grad of grad<1> takes two arguments that depend on the outer one (grad's limit): c a plain number.
    const auto of_ab = [&](const auto& a, const auto& b) {
      return tl::sum_over(tl::rows(d.t, d.y), decay_term, a, b, decay_c);
    };
    const auto [hba, hbb] = tl::grad(tl::grad<1>(of_ab))(decay_a, decay_b);
    CHECK(std::abs(hba - double(by_hand.h[1][0])) <= by_hand.allowed(1, 0));
    CHECK(std::abs(hbb - double(by_hand.h[1][1])) <= by_hand.allowed(1, 1));
  }
}

namespace {

// Five rows in std::arrays, whose sums of squares of a t + b - y are exact in binary: the gradient
// of a constant expression compares with ==.
constexpr std::array<double, 5> ct{0.0, 0.5, 1.0, 1.5, 2.0};
constexpr std::array<double, 5> cy{1.0, 0.5, 0.25, 0.125, 0.0625};
constexpr auto line_term = [](const auto& t, const auto& y, const auto& a, const auto& b) {
  return tl::square(a * t + b - y);
};
constexpr auto line_sum = [](const auto& a, const auto& b) { return tl::sum_over(tl::rows(ct, cy), line_term, a, b); };
constexpr auto line_mean = [](const auto& a, const auto& b) {
  return tl::mean_over(tl::rows(ct, cy), line_term, a, b);
};
// By hand at a = 0.5, b = 0.25: r = a t + b - y = (-0.75, 0, 0.5, 0.875, 1.1875).
constexpr double line_value = 0.5625 + 0.0 + 0.25 + 0.765625 + 1.41015625;      // sum r^2
constexpr double line_da = 2 * (0.0 + 0.0 + 0.5 + 1.5 * 0.875 + 2.0 * 1.1875);  // sum 2 r t
constexpr double line_db = 2 * (-0.75 + 0.0 + 0.5 + 0.875 + 1.1875);            // sum 2 r

/// Within a few roundings, where the order of the operations is the library's (a mean's division).
constexpr bool close(double x, double y) {
  return (x - y <= 1e-14 * (y < 0 ? -y : y)) && (y - x <= 1e-14 * (y < 0 ? -y : y));
}

}  // namespace

TEST_CASE("in a constant expression, over std::array data") {
  constexpr auto g = tl::grad(line_sum)(0.5, 0.25);
  static_assert(std::get<0>(g) == line_da);
  static_assert(std::get<1>(g) == line_db);
  static_assert(line_sum(0.5, 0.25) == line_value);
  static_assert(tl::value_and_grad(line_sum)(0.5, 0.25).first == line_value);
  constexpr auto gm = tl::grad(line_mean)(0.5, 0.25);
  static_assert(close(std::get<0>(gm), line_da / 5) && close(std::get<1>(gm), line_db / 5));
  // Second order: d2/da2 = sum 2 t^2 = 15, d2/db2 = 2 n = 10, d2/dadb = sum 2 t = 10.
  constexpr auto H = tl::hessian(line_sum)(0.5, 0.25);
  static_assert(std::get<0>(std::get<0>(H)) == 15.0 && std::get<1>(std::get<1>(H)) == 10.0);
  static_assert(std::get<1>(std::get<0>(H)) == 10.0 && std::get<0>(std::get<1>(H)) == 10.0);
  // S10's term, with tl::exp in a constant expression, against the same sum by hand.
  constexpr auto decay = [](const auto& a, const auto& b, const auto& c) {
    return tl::sum_over(tl::rows(ct, cy), decay_term, a, b, c);
  };
  constexpr auto gd = tl::grad(decay)(decay_a, decay_b, decay_c);
  constexpr double dc_by_hand = [] {
    double s = 0;
    for (std::size_t i = 0; i < 5; ++i) s += 2 * (decay_a * tl::exp(-decay_b * ct[i]) + decay_c - cy[i]);
    return s;
  }();
  static_assert(close(std::get<2>(gd), dc_by_hand));
  CHECK(std::get<2>(gd) == doctest::Approx(dc_by_hand).epsilon(1e-15));
}
