// SPDX-License-Identifier: BSL-1.0
// Sums over tl::indices in SIMD batches (sweep/index_batches.hpp): which terms stack over lanes; a term
// that computes with its index as a std::size_t (x[i / 2] and x[0], read by several lanes of a batch,
// static_cast<double>(i), a captured std::vector indexed by i, a data column zipped with the indices,
// a number parameter) at every count around a batch and a block, against its gradient by hand in long
// double, against the same term run a row at a time, and against central finite differences at seeded
// random points; an index past the extent in the last lane of a batch and in a row after the batches.
// The window that holds the adjoints of consecutive reads (simd/window.hpp): a batch at every offset,
// the elements past the vector's end, -0 where nothing was added, inf and NaN; a term reading x[i + d]
// at every offset d in the window and past it, and x in reverse, around a batch and a block.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <row_sum_check.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
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

#if TAPELESS_SIMD
TEST_CASE("a window adds a batch at every offset to its elements, once, and -0 where nothing was added") {
  using window = tl::detail::simd::window<batch>;
  constexpr std::size_t size = 3 * lanes + 1;
  for (std::size_t d = 0; d <= lanes + 1; ++d) {
    CAPTURE(d);
    // Element base + d + l receives 10 (l + 1), from base = lanes on, over a vector whose last element
    // is size - 1: the window's upper batch reaches past it where d > 0.
    std::array<double, lanes> g{};
    for (std::size_t l = 0; l < lanes; ++l) g[l] = 10.0 * static_cast<double>(l + 1);
    std::array<double, size> v;
    v.fill(-0.0);
    window w;
    const bool added = w.add(batch::load_unaligned(g.data()), d);
    CHECK(added == (d <= lanes));  // past W the window takes nothing
    w.advance(v.data(), lanes, size);
    w.advance(v.data(), 2 * lanes, size);
    for (std::size_t k = 0; k < size; ++k) {
      CAPTURE(k);
      const bool written = added && k >= lanes + d && k < 2 * lanes + d;
      if (written) {
        CHECK(v[k] == g[k - lanes - d]);
      } else {
        CHECK(v[k] == 0.0);
        CHECK(std::signbit(v[k]));  // -0 + -0: untouched
      }
    }
  }
  // Two batches at offsets 0 and 1 add up; inf and NaN propagate.
  std::array<double, 2 * lanes> v;
  v.fill(1.0);
  window w;
  const double inf = std::numeric_limits<double>::infinity();
  std::array<double, lanes> first{}, second{};
  first.fill(2.0);
  second.fill(3.0);
  first[0] = inf;
  second[lanes - 1] = std::numeric_limits<double>::quiet_NaN();
  CHECK(w.add(batch::load_unaligned(first.data()), 0));
  CHECK(w.add(batch::load_unaligned(second.data()), 1));
  w.advance(v.data(), 0, v.size());
  w.advance(v.data(), lanes, v.size());
  CHECK(v[0] == inf);
  for (std::size_t k = 1; k < lanes; ++k) CHECK(v[k] == 6.0);
  CHECK(std::isnan(v[lanes]));
  for (std::size_t k = lanes + 1; k < v.size(); ++k) CHECK(v[k] == 1.0);
}
#endif

/// Reads x[i + D] for every D, each squared and weighted by D + 1, and x[last - i], the indices in
/// reverse; ByRows puts the term in a let, which runs a row at a time.
template <bool ByRows, std::size_t... D>
struct offsets_term {
  std::size_t last;
  template <class X>
  auto operator()(std::size_t i, const X& x) const {
    auto t = ((static_cast<double>(D + 1) * tl::square(x[i + D])) + ...) + tl::exp(0.5 * x[last - i]);
    if constexpr (ByRows)
      return tl::let(t, [](const auto& s) { return s; });
    else
      return t;
  }
};

template <bool ByRows, std::size_t... D>
void check_offsets(std::index_sequence<D...>) {
  constexpr std::size_t reach = sizeof...(D) - 1;  // the largest offset
  constexpr std::size_t size = block + reach + 1;
  row_sums::uniform u(73);
  tl::vector<double, size> x{};
  for (auto& e : x) e = u(-1.0, 1.0);
  for (const std::size_t n :
       row_sums::distinct({0, 1, 2, lanes - 1, lanes, lanes + 1, 2 * lanes + 1, block - 1, block, block + 1})) {
    CAPTURE(n);
    const std::size_t last = n + reach - 1;  // x[last - i] runs from there down to x[reach]
    const auto f = [&](const auto& v) { return tl::sum_over(tl::indices(n), offsets_term<ByRows, D...>{last}, v); };
    std::vector<long double> want(size, 0.0L);
    for (std::size_t i = 0; i < n; ++i) {
      ((want[i + D] += 2.0L * static_cast<long double>(D + 1) * x[i + D]), ...);
      want[last - i] += 0.5L * std::exp(0.5L * x[last - i]);
    }
    const auto g = tl::grad(f)(x);
    for (std::size_t k = 0; k < size; ++k) {
      CAPTURE(k);
      check_near(g[k], want[k], 10.0L * static_cast<long double>(reach + 1));
      if (want[k] == 0.0L) CHECK(g[k] == 0.0);
    }
  }
}

TEST_CASE("reads at every offset of a batch's window, past it and in reverse, around a batch and a block") {
  // Offsets 0 .. lanes fall in the window; lanes + 1 and the reverse read go lane by lane.
  check_offsets<false>(std::make_index_sequence<row_sums::lanes + 2>{});
  check_offsets<true>(std::make_index_sequence<row_sums::lanes + 2>{});
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
