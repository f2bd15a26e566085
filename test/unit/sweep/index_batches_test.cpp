// SPDX-License-Identifier: BSL-1.0
// Sums over tl::indices in SIMD batches (sweep/index_batches.hpp): which terms stack over lanes; a term
// that computes with its index as a std::size_t (x[i / 2] and x[0], read by several lanes of a batch,
// static_cast<double>(i), a captured std::vector indexed by i, a data column zipped with the indices,
// a number parameter) at every count around a batch and a block, against its gradient by hand in long
// double, against the same term run a row at a time, and against central finite differences at seeded
// random points; an index past the extent in the last lane of a batch and in a row after the batches.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <row_sum_check.hpp>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace tl = tapeless;

namespace index_batches {

using row_sums::block;
using row_sums::lanes;

constexpr std::size_t extent = block + 2;
using long_vector = tl::vector<double, extent>;

/// The term: a number parameter a, elements read by two lanes (x[i / 2]) and by all (x[0]), the index
/// as a number, a captured vector indexed by i, and a data column zipped with the indices.
struct mixed_term {
  const std::vector<double>* weights;
  template <class Y, class A, class X>
  auto operator()(std::size_t i, const Y& yi, const A& a, const X& x) const {
    return a * tl::square(x[i / 2]) + static_cast<double>(i) * x[0] + (*weights)[i] * tl::exp(0.1 * x[i + 1]) +
           tl::square(x[i] - yi);
  }
};

/// The same term in a let, which no batch stacks: the sum runs it a row at a time.
struct mixed_term_by_rows {
  mixed_term term;
  template <class Y, class A, class X>
  auto operator()(std::size_t i, const Y& yi, const A& a, const X& x) const {
    return tl::let(term(i, yi, a, x), [](const auto& t) { return t; });
  }
};

template <class Term>
struct mixed_sum {
  std::size_t n;
  const std::vector<double>* y;
  Term term;
  template <class A, class X>
  auto operator()(const A& a, const X& x) const {
    return tl::sum_over(tl::rows(tl::indices(n), *y), term, a, x);
  }
};

/// The sum's value and gradient (a first, then x) by hand, in long double.
std::pair<long double, std::vector<long double>> mixed_by_hand(double a, const long_vector& x,
                                                               const std::vector<double>& y,
                                                               const std::vector<double>& w, std::size_t n) {
  std::vector<long double> g(extent + 1, 0.0L);
  long double value = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const long double h = x[i / 2], e = std::exp(0.1L * x[i + 1]), d = static_cast<long double>(x[i]) - y[i];
    value += a * h * h + static_cast<long double>(i) * x[0] + w[i] * e + d * d;
    g[0] += h * h;
    g[1 + i / 2] += 2 * a * h;
    g[1] += static_cast<long double>(i);
    g[1 + i + 1] += 0.1L * w[i] * e;
    g[1 + i] += 2 * d;
  }
  return {value, g};
}

inline void check_near(double got, long double want, long double scale) {
  CHECK(std::abs(static_cast<long double>(got) - want) <= 1e-13L * (scale + std::abs(want)));
}

#if TAPELESS_SIMD
using batch = tl::detail::simd::batch<double>;
using index_rows = tl::rows_view<tl::detail::index_column>;
using zipped_rows = tl::rows_view<tl::detail::index_column, double>;
using tl::detail::index_rows_batch;
using tl::detail::wanted;
constexpr auto rosenbrock_term = [](std::size_t i, const auto& x) {
  return 100.0 * tl::square(x[i + 1] - tl::square(x[i])) + tl::square(1.0 - x[i]);
};
constexpr auto row_term = [](std::size_t i, const auto& x) { return tl::sum(tl::row(x, i)); };
// pow of two expressions and cbrt have no batch form: their terms run a row at a time.
constexpr auto pow_term = [](std::size_t i, const auto& x) { return tl::pow(x[i], x[i + 1]) + tl::cbrt(x[i]); };
// Terms of numbers and elements stack, for a value, partials or both; a let or a row does not.
static_assert(index_rows_batch<batch, decltype(rosenbrock_term), double, wanted::both, index_rows, long_vector>());
static_assert(index_rows_batch<batch, decltype(rosenbrock_term), double, wanted::value, index_rows, long_vector>());
static_assert(
    index_rows_batch<batch, mixed_term, double, wanted::partials, zipped_rows, double, tl::vector<double, extent>>());
static_assert(!index_rows_batch<batch, mixed_term_by_rows, double, wanted::partials, zipped_rows, double,
                                tl::vector<double, extent>>());
static_assert(
    !index_rows_batch<batch, decltype(row_term), double, wanted::both, index_rows, tl::matrix<double, 4, 3>>());
static_assert(!index_rows_batch<batch, decltype(pow_term), double, wanted::both, index_rows, long_vector>());
#endif

TEST_CASE("a term that computes with its index, in batches, at every count around a batch and a block") {
  row_sums::uniform u(71);
  long_vector x{};
  for (auto& e : x) e = u(-1.0, 1.0);
  std::vector<double> y(extent), w(extent);
  for (std::size_t k = 0; k < extent; ++k) {
    y[k] = u(-1.0, 1.0);
    w[k] = u(0.5, 1.5);
  }
  const double a = 0.8;
  for (const std::size_t n : row_sums::distinct({0, 1, 2, lanes - 1, lanes, lanes + 1, block - 1, block, block + 1})) {
    CAPTURE(n);
    const std::vector<double> y_n(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(n));
    const mixed_sum<mixed_term> f{n, &y_n, {&w}};
    const mixed_sum<mixed_term_by_rows> by_rows{n, &y_n, {{&w}}};
    const auto [value, gradient] = tl::value_and_grad(f)(a, x);
    const auto [ga, gx] = gradient;
    const auto [want, want_gradient] = mixed_by_hand(a, x, y_n, w, n);
    const auto scale = 10.0L * static_cast<long double>(n);
    check_near(value, want, scale);
    check_near(ga, want_gradient[0], scale);
    for (std::size_t k = 0; k < extent; ++k) check_near(gx[k], want_gradient[1 + k], scale);
    check_near(f(a, x), want, scale);  // on plain numbers
    // A row at a time: the same sums in another order.
    const auto [row_a, row_x] = tl::grad(by_rows)(a, x);
    check_near(ga, row_a, scale);
    for (std::size_t k = 0; k < extent; ++k) check_near(gx[k], row_x[k], scale);
  }
}

TEST_CASE("a term in batches against central finite differences at seeded random points") {
  row_sums::uniform u(72);
  std::vector<double> y(13), w(13);
  for (std::size_t k = 0; k < 13; ++k) {
    y[k] = u(-1.0, 1.0);
    w[k] = u(0.5, 1.5);
  }
  const std::size_t n = 2 * lanes + 1;
  const std::vector<double> y_n(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(n));
  const auto f = [&](const auto& a, const auto& x) {
    return tl::sum_over(tl::rows(tl::indices(n), y_n), mixed_term{&w}, a, x);
  };
  for (int point = 0; point < 5; ++point) {
    tl::vector<double, 12> x{};
    for (auto& e : x) e = u(-1.0, 1.0);
    CHECK(tl::check_gradient(f, u(-1.0, 1.0), x));
  }
}

TEST_CASE("an index past the extent in a batch's last lane, or in a row after the batches, throws first") {
  // lanes rows read v[1] .. v[lanes]: the batch's last lane is past the extent lanes; with lanes + 1
  // elements the row after the batch is.
  const auto check = [](auto x, std::size_t n) {
    tl::var<double> s{2.0};
    const auto sum = tl::sum_over(
        tl::indices(n), [](std::size_t i, const auto& c, const auto& v) { return c * v[i + 1]; }, s, x);
    const std::string past = std::to_string(x.size());
    const std::string message = "tl: index " + past + " is past the extent " + past + " of v[i]";
    CHECK_THROWS_WITH_AS(sum.backward(), message.c_str(), std::out_of_range);
    CHECK(s.grad() == 0.0);
  };
  check(tl::vector<double, lanes>{}, lanes);
  check(tl::vector<double, lanes + 1>{}, lanes + 1);
}

}  // namespace index_batches
