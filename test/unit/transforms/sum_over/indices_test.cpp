// SPDX-License-Identifier: BSL-1.0
// tl::sum_over and tl::mean_over over tl::indices and tl::pairs: Rosenbrock over indices, a sum of
// (x_i - x_j)^2 over pairs, Lennard-Jones over the pairs of rows of a positions matrix (tl::row), and
// A(i, j) over pairs, each against its gradient by hand (long double) at index counts around a SIMD
// batch and a block; an element read by every term (x[0]); indices zipped with data; indices past the
// parameter's extent, which throw std::out_of_range naming both before anything is added; finite
// differences; second order through the sum (hessian, jvp, grad of grad); a constant expression; and
// the sum over threads, which gives the sequential bits.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <row_sum_check.hpp>

#include <cmath>
#include <cstddef>
#include <execution>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace tl = tapeless;

namespace index_sums {

using row_sums::block;
using row_sums::lanes;

/// Index counts around a batch and a block: no repeats.
inline std::vector<std::size_t> index_counts() {
  return row_sums::distinct({0, 1, 2, lanes - 1, lanes, lanes + 1, block - 1, block, block + 1});
}

/// |got - want| within a few roundings of the sum's size.
inline void check_near(double got, long double want, long double scale) {
  CHECK(std::abs(static_cast<long double>(got) - want) <= 1e-13L * (scale + std::abs(want)));
}

constexpr std::size_t extent = block + 2;  // x[i + 1] of the largest count is in range
using long_vector = tl::vector<double, extent>;

inline long_vector rosenbrock_point() {
  long_vector x{};
  row_sums::uniform u(40);
  for (std::size_t k = 0; k < extent; ++k) x[k] = u(-1.5, 1.5);
  return x;
}

constexpr auto rosenbrock_term = [](std::size_t i, const auto& x) {
  return 100.0 * tl::square(x[i + 1] - tl::square(x[i])) + tl::square(1.0 - x[i]);
};

/// Rosenbrock over the first n + 1 elements of x: the sum over tl::indices(n).
constexpr auto rosenbrock(std::size_t n) {
  return [n](const auto& x) { return tl::sum_over(tl::indices(n), rosenbrock_term, x); };
}

/// Rosenbrock's value and gradient by hand, in long double.
template <class V>
std::pair<long double, std::vector<long double>> rosenbrock_by_hand(const V& x, std::size_t n) {
  std::vector<long double> g(x.size(), 0.0L);
  long double value = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const long double xi = x[i], a = x[i + 1] - xi * xi, b = 1 - xi;
    value += 100 * a * a + b * b;
    g[i] += -400 * a * xi - 2 * b;
    g[i + 1] += 200 * a;
  }
  return {value, g};
}

TEST_CASE("Rosenbrock over tl::indices(n): the gradient by hand at every count around a batch and a block") {
  const long_vector x = rosenbrock_point();
  for (const std::size_t n : index_counts()) {
    CAPTURE(n);
    const auto [value, gradient] = tl::value_and_grad(rosenbrock(n))(x);
    const auto [want, want_gradient] = rosenbrock_by_hand(x, n);
    check_near(value, want, 100.0L * static_cast<long double>(n));
    for (std::size_t k = 0; k < extent; ++k) check_near(gradient[k], want_gradient[k], 1000.0L);
    for (std::size_t k = n + 1; k < extent; ++k) CHECK(gradient[k] == 0.0);    // nothing past the last read
    check_near(rosenbrock(n)(x), want, 100.0L * static_cast<long double>(n));  // on plain numbers
    // mean_over divides by the count.
    if (n > 0) {
      const auto mean = [n](const auto& v) { return tl::mean_over(tl::indices(n), rosenbrock_term, v); };
      const auto mean_gradient = tl::grad(mean)(x);
      for (std::size_t k = 0; k < extent; ++k)
        check_near(mean_gradient[k], want_gradient[k] / static_cast<long double>(n), 1000.0L);
    }
  }
}

TEST_CASE("an index sum against finite differences, and through hessian, jvp and grad of grad") {
  tl::vector<double, 9> x{};
  for (std::size_t k = 0; k < 9; ++k) x[k] = 0.3 + 0.11 * static_cast<double>(k) * (k % 2 == 0 ? 1.0 : -1.0);
  const auto f = rosenbrock(8);
  CHECK(tl::check_gradient(f, x));
  // Rosenbrock's Hessian is tridiagonal: by hand.
  const auto h = tl::hessian(f)(x);
  tl::matrix<long double, 9, 9> want{};
  for (std::size_t i = 0; i < 8; ++i) {
    const long double xi = x[i];
    want(i, i) += 1200 * xi * xi - 400 * static_cast<long double>(x[i + 1]) + 2;
    want(i, i + 1) += -400 * xi;
    want(i + 1, i) += -400 * xi;
    want(i + 1, i + 1) += 200;
  }
  for (std::size_t r = 0; r < 9; ++r)
    for (std::size_t c = 0; c < 9; ++c) check_near(h(r, c), want(r, c), 1000.0L);
  // The directional derivative along v is the gradient dotted with v.
  tl::vector<double, 9> v{};
  for (std::size_t k = 0; k < 9; ++k) v[k] = 1.0 / static_cast<double>(k + 1);
  const auto [value, slope] = tl::jvp(f, std::tuple{x}, std::tuple{v});
  const auto [want_value, want_gradient] = rosenbrock_by_hand(x, 8);
  long double want_slope = 0;
  for (std::size_t k = 0; k < 9; ++k) want_slope += want_gradient[k] * v[k];
  check_near(value, want_value, 100.0L);
  check_near(slope, want_slope, 1000.0L);
  // d2/da2 of the sum over i of (a x[i] - 1)^2 is 2 sum x[i]^2, with x plain data passed as a parameter.
  const auto of_a = [&](const auto& a) {
    return tl::sum_over(
        tl::indices(9), [](std::size_t i, const auto& s, const auto& data) { return tl::square(s * data[i] - 1.0); }, a,
        x);
  };
  long double squares = 0;
  for (std::size_t k = 0; k < 9; ++k) squares += static_cast<long double>(x[k]) * x[k];
  check_near(tl::grad(tl::grad(of_a))(0.7), 2 * squares, 10.0L);
}

/// Rosenbrock of 4 elements in a constant expression: its gradient at (1, 1, 1, 1), the minimum, is 0,
/// and at (0, 0, 0, 0) it is (-2, -2, -2, 0).
constexpr bool rosenbrock_in_a_constant_expression() {
  const tl::vector<double, 4> ones{1.0, 1.0, 1.0, 1.0}, zeros{0.0, 0.0, 0.0, 0.0};
  const auto at_ones = tl::grad(rosenbrock(3))(ones);
  const auto at_zeros = tl::grad(rosenbrock(3))(zeros);
  return at_ones[0] == 0.0 && at_ones[3] == 0.0 && at_zeros[0] == -2.0 && at_zeros[2] == -2.0 && at_zeros[3] == 0.0 &&
         rosenbrock(3)(zeros) == 3.0;
}
static_assert(rosenbrock_in_a_constant_expression());

/// The sum over pairs i < j of (x_i - x_j)^2: the gradient of x_k is 2 sum over j != k of (x_k - x_j).
constexpr auto spread(std::size_t n) {
  return [n](const auto& x) {
    return tl::sum_over(
        tl::pairs(n), [](std::size_t i, std::size_t j, const auto& v) { return tl::square(v[i] - v[j]); }, x);
  };
}

/// The sum over the pairs of (0, 1, 3) in a constant expression: 1 + 9 + 4, with gradient (-8, -2, 10).
constexpr bool pairs_in_a_constant_expression() {
  const tl::vector<double, 3> x{0.0, 1.0, 3.0};
  const auto g = tl::grad(spread(3))(x);
  return spread(3)(x) == 14.0 && g[0] == -8.0 && g[1] == -2.0 && g[2] == 10.0;
}
static_assert(pairs_in_a_constant_expression());

TEST_CASE("tl::pairs(n): a sum over pairs, by hand, where the pairs fill a batch, a block and several") {
  // 91 indices have 4095 pairs, 92 have 4186: a block ends inside a row of pairs, as do several of 200.
  constexpr std::size_t most = 200;
  tl::vector<double, most> x{};
  row_sums::uniform u(41);
  for (std::size_t k = 0; k < most; ++k) x[k] = u(-2.0, 2.0);
  for (const std::size_t n : row_sums::distinct({0, 1, 2, lanes - 1, lanes, lanes + 1, 90, 91, 92, most})) {
    CAPTURE(n);
    const auto [value, gradient] = tl::value_and_grad(spread(n))(x);
    long double want = 0;
    std::vector<long double> want_gradient(most, 0.0L);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) {
        const long double d = static_cast<long double>(x[i]) - x[j];
        want += d * d;
        want_gradient[i] += 2 * d;
        want_gradient[j] -= 2 * d;
      }
    check_near(value, want, static_cast<long double>(n * n));
    for (std::size_t k = 0; k < most; ++k) check_near(gradient[k], want_gradient[k], static_cast<long double>(n));
  }
}

/// Lennard-Jones over the pairs of the first n rows of positions p (n x 3), with epsilon = sigma = 1.
constexpr auto lennard_jones(std::size_t n) {
  return [n](const auto& p) {
    return tl::sum_over(
        tl::pairs(n),
        [](std::size_t i, std::size_t j, const auto& q) {
          const auto s6 = tl::pow(tl::squared_norm(tl::row(q, i) - tl::row(q, j)), -3.0);
          return 4.0 * (tl::square(s6) - s6);
        },
        p);
  };
}

TEST_CASE("Lennard-Jones over tl::pairs of tl::row(p, i): the forces by hand") {
  constexpr std::size_t most = 40;
  using positions = tl::matrix<double, most, 3>;
  positions p{};
  row_sums::uniform u(42);
  for (std::size_t k = 0; k < most; ++k) {  // a lattice with 1.2 between neighbours, jittered
    p(k, 0) = 1.2 * static_cast<double>(k % 4) + u(-0.1, 0.1);
    p(k, 1) = 1.2 * static_cast<double>((k / 4) % 4) + u(-0.1, 0.1);
    p(k, 2) = 1.2 * static_cast<double>(k / 16) + u(-0.1, 0.1);
  }
  for (const std::size_t n : row_sums::distinct({0, 1, 2, lanes - 1, lanes, lanes + 1, 17, most})) {
    CAPTURE(n);
    const auto [value, gradient] = tl::value_and_grad(lennard_jones(n))(p);
    const auto [want, want_gradient] = row_sums::lennard_jones_by_hand(p, n);
    check_near(value, want, 10.0L * static_cast<long double>(n * n));
    for (std::size_t k = 0; k < most * 3; ++k) check_near(gradient[k], want_gradient[k], 100.0L);
  }
  CHECK(tl::check_gradient(lennard_jones(6), p));
}

TEST_CASE("A(i, j) over tl::pairs, and an element every term reads (x[0])") {
  tl::matrix<double, 5, 5> A{};
  for (std::size_t k = 0; k < 25; ++k) A[k] = 0.1 * static_cast<double>(k) - 1.0;
  const auto upper = [](const auto& M) {
    return tl::sum_over(
        tl::pairs(5), [](std::size_t i, std::size_t j, const auto& B) { return tl::square(B(i, j)); }, M);
  };
  const auto g = tl::grad(upper)(A);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 5; ++j) CHECK(g(i, j) == (i < j ? 2.0 * A(i, j) : 0.0));
  // tl::col(B, j) over indices: each column's elements get the weight j + 1 (the index as a number).
  const auto weighted_columns = [](const auto& M) {
    return tl::sum_over(
        tl::indices(5),
        [](std::size_t j, const auto& B) { return static_cast<double>(j + 1) * tl::sum(tl::col(B, j)); }, M);
  };
  const auto gc = tl::grad(weighted_columns)(A);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 5; ++j) CHECK(gc(i, j) == static_cast<double>(j + 1));
  // Every term reads x[0]: its adjoint is the sum of all the terms' (x[0] x[i])' = x[i].
  tl::vector<double, 64> x{};
  for (std::size_t k = 0; k < 64; ++k) x[k] = 1.0 + static_cast<double>(k);
  for (const std::size_t n : row_sums::distinct({1, lanes - 1, lanes, lanes + 1, 64})) {
    const auto f = [n](const auto& v) {
      return tl::sum_over(
          tl::indices(n), [](std::size_t i, const auto& w) { return w[0] * w[i]; }, v);
    };
    const auto gx = tl::grad(f)(x);
    double first = n > 0 ? 2.0 * x[0] : 0.0;  // the term of i = 0 is x[0]^2
    for (std::size_t i = 1; i < n; ++i) first += x[i];
    CHECK(gx[0] == first);
    for (std::size_t i = 1; i < 64; ++i) CHECK(gx[i] == (i < n ? x[0] : 0.0));
  }
}

TEST_CASE("a body computes with its index: x[i / 2] reads each element twice, and i is a number too") {
  tl::vector<double, 8> x{};
  for (std::size_t k = 0; k < 8; ++k) x[k] = 0.25 * static_cast<double>(k) - 0.5;
  const auto f = [](const auto& v) {
    return tl::sum_over(
        tl::indices(16), [](std::size_t i, const auto& w) { return static_cast<double>(i) * tl::square(w[i / 2]); }, v);
  };
  const auto g = tl::grad(f)(x);
  // Element k is read by the terms 2k and 2k + 1: (2k + 2k + 1) 2 x[k].
  for (std::size_t k = 0; k < 8; ++k) CHECK(g[k] == static_cast<double>(4 * k + 1) * 2.0 * x[k]);
}

TEST_CASE("indices zipped with data: tl::rows(tl::indices(n), y)") {
  tl::vector<double, 10> x{};
  std::vector<double> y(10);
  for (std::size_t k = 0; k < 10; ++k) {
    x[k] = 0.5 * static_cast<double>(k);
    y[k] = 1.0 - 0.25 * static_cast<double>(k);
  }
  const auto fit = [&](const auto& v) {
    return tl::sum_over(
        tl::rows(tl::indices(10), y),
        [](std::size_t i, const auto& yi, const auto& w) { return tl::square(w[i] - yi); }, v);
  };
  const auto g = tl::grad(fit)(x);
  for (std::size_t k = 0; k < 10; ++k) CHECK(g[k] == 2.0 * (x[k] - y[k]));
  CHECK_THROWS_AS(tl::rows(tl::indices(9), y), std::invalid_argument);
}

/// The message of the std::out_of_range that f's gradient throws, or "" where it throws none.
template <class F, class X>
std::string out_of_range_message(const F& f, const X& x) {
  try {
    (void)tl::grad(f)(x);
  } catch (const std::out_of_range& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("an index past the parameter's extent throws std::out_of_range naming both, and adds nothing") {
  tl::vector<double, 16> x{};
  CHECK(out_of_range_message(rosenbrock(16), x) == "tl: index 16 is past the extent 16 of v[i]");
  CHECK(out_of_range_message(rosenbrock(15), x).empty());
  tl::matrix<double, 4, 3> A{};
  const auto by_element = [](const auto& M) {
    return tl::sum_over(
        tl::pairs(5), [](std::size_t i, std::size_t j, const auto& B) { return B(i, j); }, M);
  };
  CHECK(out_of_range_message(by_element, A) == "tl: column index 3 is past the extent 3 of A(i, j)");
  const auto by_row = [](const auto& M) {
    return tl::sum_over(
        tl::indices(5), [](std::size_t i, const auto& B) { return tl::sum(tl::row(B, i)); }, M);
  };
  CHECK(out_of_range_message(by_row, A) == "tl: index 4 is past the extent 4 of tl::row(A, i)");
  const auto by_column = [](const auto& M) {
    return tl::sum_over(
        tl::indices(4), [](std::size_t j, const auto& B) { return tl::sum(tl::col(B, j)); }, M);
  };
  CHECK(out_of_range_message(by_column, A) == "tl: index 3 is past the extent 3 of tl::col(A, j)");
  // Nothing is added: a tl::var beside the parameter keeps its gradient of 0.
  tl::var<double> a{2.0};
  const auto sum = tl::sum_over(
      tl::indices(17), [](std::size_t i, const auto& s, const auto& v) { return s * v[i]; }, a, x);
  CHECK_THROWS_AS(sum.backward(), std::out_of_range);
  CHECK(a.grad() == 0.0);
}

TEST_CASE("the sum over indices and pairs over threads gives the sequential bits") {
  const long_vector x = rosenbrock_point();
  constexpr std::size_t n = 3 * block + lanes + 1;
  tl::vector<double, n + 1> y{};
  for (std::size_t k = 0; k <= n; ++k) y[k] = x[k % extent];
  const auto sequential = [](const auto& v) { return tl::sum_over(tl::indices(n), rosenbrock_term, v); };
  const auto threads = [](const auto& v) {
    return tl::sum_over(std::execution::par, tl::indices(n), rosenbrock_term, v);
  };
  const auto [value, gradient] = tl::value_and_grad(sequential)(y);
  const auto [threads_value, threads_gradient] = tl::value_and_grad(threads)(y);
  CHECK(value == threads_value);
  CHECK(gradient == threads_gradient);
  const auto pair_threads = [](const auto& v) {
    return tl::mean_over(
        std::execution::par, tl::pairs(130),
        [](std::size_t i, std::size_t j, const auto& w) { return tl::square(w[i] - w[j]); }, v);
  };
  const auto pair_sequence = [](const auto& v) {
    return tl::mean_over(
        tl::pairs(130), [](std::size_t i, std::size_t j, const auto& w) { return tl::square(w[i] - w[j]); }, v);
  };
  CHECK(tl::grad(pair_threads)(y) == tl::grad(pair_sequence)(y));
}

}  // namespace index_sums
