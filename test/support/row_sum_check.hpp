// SPDX-License-Identifier: BSL-1.0
// test/support/row_sum_check.hpp: what the tests of tl::sum_over and tl::mean_over share: the row
// counts worth testing, seeded data of exactly n rows, the per-row terms, their sums written by hand
// (closed-form gradients added in a plain loop, in long double), and the comparison of a result with
// them within the rounding the library's grouping of the sum allows.
//
//   row_sums::row_counts()               0, 1, lanes ± 1, block boundaries, many_blocks: no repeats
//   row_sums::some_row_counts()          fewer of them, for the slower checks
//   row_sums::decay_data<T>(n)           S10's points t[i] = 5 i / n, y[i] = 2 exp(-0.7 t) + 0.3 + noise
//   row_sums::logistic_data(n)           rows x[i] of 8 numbers in [-1, 1), labels y[i] in {0, 1}
//   row_sums::matrix_data(n)             rows A[i] of 2 x 3 numbers in [-1, 1), targets y[i]
//   row_sums::decay_term, ...            the bodies: row values first, then the parameters
//   row_sums::decay_expected(...), ...   the value and gradient by hand: expected<K>
//   row_sums::flatten(value, gradient)   a result as the K numbers expected<K> holds
//   row_sums::check_close(e, got, n)     every component within the tolerance below
#pragma once

#include <doctest/doctest.h>
#include <tapeless/parallel.hpp>

#include <sanitizers.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <execution>
#include <iomanip>
#include <limits>
#include <random>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace row_sums {

namespace tl = tapeless;

/// Rows in one SIMD batch of doubles (1 in a build without SIMD), and of floats.
#if TAPELESS_SIMD
inline constexpr std::size_t lanes = tl::detail::simd::width<double>;
inline constexpr std::size_t float_lanes = tl::detail::simd::width<float>;
#else
inline constexpr std::size_t lanes = 1;
inline constexpr std::size_t float_lanes = 1;
#endif
/// The rows of one block of the fixed partition (the sequential sum groups its terms the same way).
inline constexpr std::size_t block = tl::detail::rows_block;

/// n sorted, each value once.
inline std::vector<std::size_t> distinct(std::vector<std::size_t> n) {
  std::sort(n.begin(), n.end());
  std::vector<std::size_t> out;
  for (const std::size_t k : n)
    if (out.empty() || out.back() != k) out.push_back(k);
  return out;
}

/// Many blocks, the last part full and ending in a part-full batch: 100000 rows (24 blocks and 1696
/// rows); under the sanitizers (test/run.sh's clang++ part, at -O0, where these rows are most of its test
/// time) 9 blocks and 3 rows, a block for each of 8 threads and one more, through the same paths at a
/// third of the rows.
inline constexpr std::size_t many_blocks = test_support::address_sanitizer ? 9 * block + 3 : 100000;

/// The row counts the issue names: empty, one row, around one batch (of doubles and of floats), around
/// one and two blocks, and many blocks. Sorted, without repeats. Under the sanitizers without many
/// blocks, half of these tests' rows there: a sequential sum takes the same paths at two blocks and a
/// part-full batch, and the parallel tests still run many_blocks.
inline std::vector<std::size_t> row_counts() {
  std::vector<std::size_t> n{
      0,         1,     lanes - 1, lanes,         lanes + 1, float_lanes - 1,      float_lanes, float_lanes + 1,
      block - 1, block, block + 1, 2 * block - 1, 2 * block, 2 * block + lanes + 1};
  if (!test_support::address_sanitizer) n.push_back(many_blocks);
  return distinct(std::move(n));
}

/// Seeded uniform numbers: the same data on every build. (Not fd::rng: finite_difference.hpp's printing
/// of tuples would take over from the one of the tests that include this.)
class uniform {
 public:
  explicit uniform(std::uint64_t seed) : engine_(seed) {}
  double operator()(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(engine_); }

 private:
  std::mt19937_64 engine_;
};

/// Whether to check against finite differences at n rows: always, but under the sanitizers (test/run.sh's
/// clang++ part, at -O0) only around a batch and at one block and a row, as they run a tenth of other
/// tests' points: there they look for reads past a column's end, which every count shows through the
/// value on plain numbers and through the gradient, checked against the sums by hand at every count;
/// the differences cost several evaluations of f per parameter, most of the run time at a block's rows.
inline constexpr bool finite_differences_at(std::size_t n) {
  return !test_support::address_sanitizer || n <= float_lanes + 1 || n == block + 1;
}

/// The largest row count of the parallel tests: 10^6 + 3 (a part-full last block); under the
/// sanitizers, where the threads run at -O0, many_blocks.
inline constexpr std::size_t many_rows = test_support::address_sanitizer ? many_blocks : 1000003;

/// Fewer row counts, for the slower checks: one row, on both sides of a batch and of a block, and several
/// blocks with a part-full batch at the end (not under the sanitizers, where a block and a row pass the
/// same block boundary).
inline std::vector<std::size_t> some_row_counts() {
  std::vector<std::size_t> n{1, lanes, lanes + 1, block + 1};
  if (!test_support::address_sanitizer) n.push_back(2 * block + lanes + 1);
  return distinct(std::move(n));
}

// ---------------------------------------------------------------------------------------------
// Data: every column a std::vector of exactly n elements, so AddressSanitizer sees a read past row n.

template <class T>
struct decay_columns {
  std::vector<T> t, y;
};
/// S10's points, as the benchmark suite draws them, in T: t[i] = 5 i / n, y[i] = 2 exp(-0.7 t[i]) + 0.3 + 0.01 (2 u -
/// 1).
template <class T = double>
decay_columns<T> decay_data(std::size_t n, std::uint64_t seed = 34) {
  uniform r{seed};
  decay_columns<T> d{std::vector<T>(n), std::vector<T>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    const double t = 5.0 * static_cast<double>(i) / static_cast<double>(n);
    d.t[i] = static_cast<T>(t);
    d.y[i] = static_cast<T>(2 * std::exp(-0.7 * t) + 0.3 + 0.01 * r(-1, 1));
  }
  return d;
}

/// n rows of uniform elements in [-1, 1), each drawn before its label(r).
template <class Row, class Label>
void fill_rows(std::vector<Row>& rows, std::vector<double>& labels, std::uint64_t seed, Label label) {
  uniform r{seed};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (double& e : rows[i]) e = r(-1, 1);
    labels[i] = label(r);
  }
}

using row8 = tl::vector<double, 8>;
struct logistic_columns {
  std::vector<row8> x;
  std::vector<double> y;
};
inline logistic_columns logistic_data(std::size_t n, std::uint64_t seed = 35) {
  logistic_columns d{std::vector<row8>(n), std::vector<double>(n)};
  fill_rows(d.x, d.y, seed, [](uniform& r) { return r(0, 1) < 0.5 ? 0.0 : 1.0; });
  return d;
}

using m23 = tl::matrix<double, 2, 3>;
struct matrix_columns {
  std::vector<m23> A;
  std::vector<double> y;
};
inline matrix_columns matrix_data(std::size_t n, std::uint64_t seed = 36) {
  matrix_columns d{std::vector<m23>(n), std::vector<double>(n)};
  fill_rows(d.A, d.y, seed, [](uniform& r) { return r(-1, 1); });
  return d;
}

/// The parameters the tests differentiate at.
inline constexpr double decay_a = 1.5, decay_b = 0.5, decay_c = 0.1;
inline const row8 logistic_beta{0.08, -0.05, 0.1, -0.02, 0.03, 0.07, -0.09, 0.01};
inline const m23 matrix_M{{0.5, -0.25, 0.75}, {-0.5, 1.0, 0.125}};

// ---------------------------------------------------------------------------------------------
// The bodies, written with tl:: functions only, as the library may pass a batch of rows.

/// S10's exponential decay least squares: (a exp(-b t) + c - y)^2.
inline constexpr auto decay_term = [](const auto& t, const auto& y, const auto& a, const auto& b, const auto& c) {
  return tl::square(a * tl::exp(-b * t) + c - y);
};
/// S6's logistic regression, one row: -(y log p + (1 - y) log(1 - p)), p = sigmoid(x . beta).
inline constexpr auto logistic_term = [](const auto& x, const auto& y, const auto& beta) {
  return tl::let(tl::sigmoid(tl::dot(x, beta)),
                 [&](const auto& p) { return -(y * tl::log(p) + (1.0 - y) * tl::log(1.0 - p)); });
};
/// A matrix parameter: (sum(A .* M) - y)^2 + |A - M|^2 / 2.
inline constexpr auto matrix_term = [](const auto& A, const auto& y, const auto& M) {
  return tl::square(tl::sum(A * M) - y) + 0.5 * tl::squared_norm(A - M);
};
/// The parameters only, the same for every row: (a - b)^2 + a b.
inline constexpr auto parameters_term = [](const auto& /*row*/, const auto& a, const auto& b) {
  return tl::square(a - b) + a * b;
};

/// S10's sum and mean over the rows of columns t and y, as functions of (a, b, c); given a policy
/// first (std::execution::par), over threads. The columns are read where they are, as tl::rows reads them.
template <class T, class Y>
auto decay_sum(const T& t, const Y& y) {
  return [&t, &y](const auto& a, const auto& b, const auto& c) {
    return tl::sum_over(tl::rows(t, y), decay_term, a, b, c);
  };
}
template <class T, class Y>
auto decay_mean(const T& t, const Y& y) {
  return [&t, &y](const auto& a, const auto& b, const auto& c) {
    return tl::mean_over(tl::rows(t, y), decay_term, a, b, c);
  };
}
template <class Policy, class T, class Y>
  requires std::is_execution_policy_v<Policy>
auto decay_sum(Policy policy, const T& t, const Y& y) {
  return [policy, &t, &y](const auto& a, const auto& b, const auto& c) {
    return tl::sum_over(policy, tl::rows(t, y), decay_term, a, b, c);
  };
}
template <class Policy, class T, class Y>
  requires std::is_execution_policy_v<Policy>
auto decay_mean(Policy policy, const T& t, const Y& y) {
  return [policy, &t, &y](const auto& a, const auto& b, const auto& c) {
    return tl::mean_over(policy, tl::rows(t, y), decay_term, a, b, c);
  };
}

// ---------------------------------------------------------------------------------------------
// The sums by hand.

/// K numbers (the value, then every gradient component in the order of flatten), each a sum over the
/// rows, with the sum of the magnitudes of its addends for the tolerance.
template <std::size_t K>
struct expected {
  std::array<long double, K> sum{};
  std::array<long double, K> magnitude{};
  std::size_t rows = 0;
  constexpr void add(std::size_t k, long double term) {
    sum[k] += term;
    magnitude[k] += term < 0 ? -term : term;
  }
};

template <class T>
expected<4> decay_expected(const decay_columns<T>& d, double a, double b, double c) {
  expected<4> e;
  e.rows = d.t.size();
  for (std::size_t i = 0; i < d.t.size(); ++i) {
    const long double t = d.t[i], y = d.y[i];
    const long double decay = std::exp(-b * t), r = a * decay + c - y;
    e.add(0, r * r);
    e.add(1, 2 * r * decay);
    e.add(2, -2 * r * a * t * decay);
    e.add(3, 2 * r);
  }
  return e;
}

inline expected<9> logistic_expected(const logistic_columns& d, const row8& beta) {
  expected<9> e;
  e.rows = d.x.size();
  for (std::size_t i = 0; i < d.x.size(); ++i) {
    long double z = 0;
    for (std::size_t j = 0; j < 8; ++j) z += static_cast<long double>(d.x[i][j]) * beta[j];
    const long double p = 1 / (1 + std::exp(-z)), y = d.y[i];
    e.add(0, -(y * std::log(p) + (1 - y) * std::log(1 - p)));
    for (std::size_t j = 0; j < 8; ++j) e.add(1 + j, (p - y) * d.x[i][j]);
  }
  return e;
}

inline expected<7> matrix_expected(const matrix_columns& d, const m23& M) {
  expected<7> e;
  e.rows = d.A.size();
  for (std::size_t i = 0; i < d.A.size(); ++i) {
    long double s = -static_cast<long double>(d.y[i]), half_norm = 0;
    for (std::size_t k = 0; k < 6; ++k) {
      const long double a = d.A[i].begin()[k], m = M.begin()[k];
      s += a * m;
      half_norm += (a - m) * (a - m) / 2;
    }
    e.add(0, s * s + half_norm);
    for (std::size_t k = 0; k < 6; ++k) {
      const long double a = d.A[i].begin()[k], m = M.begin()[k];
      e.add(1 + k, 2 * s * a + (m - a));
    }
  }
  return e;
}

inline expected<3> parameters_expected(std::size_t n, double a, double b) {
  expected<3> e;
  e.rows = n;
  const long double x = a, z = b;
  for (std::size_t i = 0; i < n; ++i) {
    e.add(0, (x - z) * (x - z) + x * z);
    e.add(1, 2 * (x - z) + z);
    e.add(2, -2 * (x - z) + x);
  }
  return e;
}

/// The Lennard-Jones energy of the particles in the first n rows of p (x, y, z each) and its gradient
/// in p's elements (row-major, of p's size), by hand in long double.
template <class P>
std::pair<long double, std::vector<long double>> lennard_jones_by_hand(const P& p, std::size_t n) {
  long double energy = 0;
  std::vector<long double> gradient(p.size(), 0.0L);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      long double r[3], r2 = 0;
      for (std::size_t c = 0; c < 3; ++c) {
        r[c] = static_cast<long double>(p(i, c)) - p(j, c);
        r2 += r[c] * r[c];
      }
      const long double s6 = 1 / (r2 * r2 * r2);
      energy += 4 * (s6 * s6 - s6);
      const long double d_r2 = 4 * (-3 * s6 / r2) * (2 * s6 - 1);
      for (std::size_t c = 0; c < 3; ++c) {
        gradient[3 * i + c] += 2 * d_r2 * r[c];
        gradient[3 * j + c] -= 2 * d_r2 * r[c];
      }
    }
  return {energy, gradient};
}

// ---------------------------------------------------------------------------------------------
// Comparison.

namespace detail {
template <class T>
void append(std::vector<double>& out, const T& x) {
  if constexpr (std::is_floating_point_v<T>)
    out.push_back(static_cast<double>(x));
  else
    for (const auto& e : x) out.push_back(static_cast<double>(e));
}
}  // namespace detail

/// The value and the gradient (a std::tuple, or one number or matrix) as one list of numbers, the
/// matrices' elements in their storage order.
template <class V, class G>
std::vector<double> flatten(const V& value, const G& gradient) {
  std::vector<double> out;
  detail::append(out, value);
  if constexpr (requires { std::tuple_size<G>::value; })
    std::apply([&](const auto&... g) { (detail::append(out, g), ...); }, gradient);
  else
    detail::append(out, gradient);
  return out;
}

/// tl::value_and_grad(f)(p...) as the list of numbers flatten makes.
template <class F, class... P>
std::vector<double> value_and_gradient(const F& f, const P&... p) {
  const auto [value, gradient] = tl::value_and_grad(f)(p...);
  return flatten(value, gradient);
}

/// The rounding a sum of n addends grouped as the library groups them may carry, relative to the sum
/// of the addends' magnitudes: each lane of a block adds its rows one after another (at most a block's
/// rows), then the lanes and blocks are combined; a few roundings more for each term's own evaluation
/// (tl::exp in batches is within a few ulps). A wrong gradient (a sign, a factor, a term missing) is
/// off by O(1) relative, far outside it.
inline constexpr double sum_tolerance = double(block + 64) * std::numeric_limits<double>::epsilon();

/// Each of got's numbers against e's, divided by `divisor` (1 for a sum, n for a mean).
template <std::size_t K>
void check_close(const expected<K>& e, const std::vector<double>& got, long double divisor = 1) {
  REQUIRE(got.size() == K);
  for (std::size_t k = 0; k < K; ++k) {
    const long double want = e.sum[k] / divisor;
    const long double allowed = sum_tolerance * e.magnitude[k] / divisor;
    INFO(std::setprecision(17) << "component " << k << " of " << K << " (0: the value), " << e.rows << " rows: got "
                               << got[k] << ", by hand " << double(want) << ", allowed difference " << double(allowed));
    CHECK(std::abs(got[k] - want) <= allowed);
  }
}

}  // namespace row_sums
