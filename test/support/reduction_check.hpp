// SPDX-License-Identifier: BSL-1.0
// test/support/reduction_check.hpp: the checks of the reduction tests (test/unit/ops/reduction/):
// their tolerances, inputs whose arg-max a finite-difference step cannot change, the long double
// softmax, and every reduction at one shape against the closed forms and finite differences.
#pragma once

#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <matrix_check.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace reduction_check {

namespace tl = tapeless;

inline constexpr double fd_tol = 1e-6;      // AD against central differences
inline constexpr double exact_tol = 1e-13;  // AD against the closed form

inline constexpr double qnan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double inf = std::numeric_limits<double>::infinity();

/// Random elements at least `gap` apart, so that a finite-difference step never changes the arg-max.
template <class M>
M random_distinct(fd::rng& r, double lo, double hi, double gap) {
  for (;;) {
    M m = mx::random<M>(r, lo, hi);
    M sorted = m;
    std::sort(sorted.begin(), sorted.end());
    bool ok = true;
    for (std::size_t i = 1; i < M::size(); ++i) ok = ok && sorted[i] - sorted[i - 1] >= gap;
    if (ok) return m;
  }
}

template <class M>
std::size_t index_of_max(const M& x) {
  return static_cast<std::size_t>(std::max_element(x.begin(), x.end()) - x.begin());
}
template <class M>
std::size_t index_of_min(const M& x) {
  return static_cast<std::size_t>(std::min_element(x.begin(), x.end()) - x.begin());
}

/// The reference softmax, in long double.
template <class M>
M softmax_reference(const M& x) {
  const long double m = *std::max_element(x.begin(), x.end());
  long double s = 0;
  for (const double e : x) s += std::exp(static_cast<long double>(e) - m);
  M y;
  for (std::size_t i = 0; i < M::size(); ++i)
    y[i] = static_cast<double>(std::exp(static_cast<long double>(x[i]) - m) / s);
  return y;
}

/// Every reduction at shape M: value against a direct computation, gradient against the closed form and FD.
template <class M>
void check_reductions_at(std::uint64_t seed) {
  fd::rng r{seed};
  const M x = random_distinct<M>(r, -3, 3, 0.01);
  const M w = mx::random<M>(r, 0.5, 1.5);
  const double n = static_cast<double>(M::size());
  const std::string at = " at " + mx::shape_name<M>() + ", x = " + mx::str(x);
  INFO(at);

  double sum = 0, prod = 1, sq = 0;
  for (const double e : x) {
    sum += e;
    prod *= e;
    sq += e * e;
  }
  const M sm = softmax_reference(x);

  {
    const auto f = [](const auto& X) { return tl::sum(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    CHECK(fd::rel_error(v, sum) < 1e-15);
    CHECK(g == M::filled(1.0));
    mx::check_fd("sum" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::mean(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    CHECK(fd::rel_error(v, sum / n) < 1e-15);
    mx::check_close("mean" + at, g, M::filled(1.0 / n), 1e-15);
    mx::check_fd("mean" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::prod(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    CHECK(fd::rel_error(v, prod) < 1e-15);
    M expected;
    for (std::size_t i = 0; i < M::size(); ++i) expected[i] = prod / x[i];
    mx::check_close("prod" + at, g, expected, exact_tol);
    mx::check_fd("prod" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::squared_norm(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    CHECK(fd::rel_error(v, sq) < 1e-15);
    CHECK(g == x * 2.0);
    mx::check_fd("squared_norm" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::norm(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    CHECK(fd::rel_error(v, std::sqrt(sq)) < 1e-15);
    mx::check_close("norm" + at, g, x / std::sqrt(sq), exact_tol);
    mx::check_fd("norm" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::max_element(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    const std::size_t k = index_of_max(x);
    CHECK(v == x[k]);
    M expected{};
    expected[k] = 1.0;
    CHECK(g == expected);
    mx::check_fd("max_element" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::min_element(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    const std::size_t k = index_of_min(x);
    CHECK(v == x[k]);
    M expected{};
    expected[k] = 1.0;
    CHECK(g == expected);
    mx::check_fd("min_element" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::log_sum_exp(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    long double s = 0;
    for (const double e : x) s += std::exp(static_cast<long double>(e));
    CHECK(fd::rel_error(v, static_cast<double>(std::log(s))) < 1e-15);
    mx::check_close("log_sum_exp: its gradient is softmax" + at, g, sm, exact_tol);
    mx::check_fd("log_sum_exp" + at, f, fd_tol, x);
  }
  {
    const auto f = [w](const auto& X) { return tl::sum(w * tl::softmax(X)); };
    const auto y = tl::softmax(tl::argument<0, M>(x)).value();
    mx::check_close("softmax value" + at, y, sm, 1e-15);
    double wy = 0;
    for (std::size_t i = 0; i < M::size(); ++i) wy += w[i] * sm[i];
    M expected;
    for (std::size_t i = 0; i < M::size(); ++i) expected[i] = sm[i] * (w[i] - wy);
    mx::check_close("softmax: y (g - sum(g y))" + at, tl::grad(f)(x), expected, exact_tol);
    mx::check_fd("softmax" + at, f, fd_tol, x);
  }
  {
    const auto f = [w](const auto& X) { return tl::sum(w * tl::log_softmax(X)); };
    const auto y = tl::log_softmax(tl::argument<0, M>(x)).value();
    M log_sm;
    for (std::size_t i = 0; i < M::size(); ++i) log_sm[i] = std::log(sm[i]);
    mx::check_close("log_softmax value" + at, y, log_sm, 1e-14);
    double ws = 0;
    for (const double e : w) ws += e;
    mx::check_close("log_softmax: g - softmax sum(g)" + at, tl::grad(f)(x), w - sm * ws, exact_tol);
    mx::check_fd("log_softmax" + at, f, fd_tol, x);
  }
}

}  // namespace reduction_check
