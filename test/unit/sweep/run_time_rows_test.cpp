// SPDX-License-Identifier: BSL-1.0
// Arguments of run-time extents differentiated through sums over indices and pairs (the loop of
// sweep/run_time_rows.hpp): Rosenbrock over a tl::vector<double, tl::dynamic> and a tl::bounded one at
// sizes around a batch and a block, against the adjoint by hand (long double), the fixed-shape twin
// and central differences; the Lennard-Jones energy over the pairs of rows of an N x 3 positions
// matrix with N at run time; A(i, j) and tl::col over a matrix of run-time rows and columns; a run-time
// argument beside a number; a run-time parameter of a sum beside a number and a fixed vector, in any
// place among them; the sum over threads, bit for bit the sequential one; indices past the extent; a
// constant expression; the allocations, none for bounded extents.
#include <doctest/doctest.h>
#include <tapeless/parallel.hpp>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <row_sum_check.hpp>
#include <sanitizers.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <execution>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace tl = tapeless;

namespace run_time_rows {

using dynamic_vector = tl::vector<double, tl::dynamic>;
using positions = tl::matrix<double, tl::dynamic, 3>;
using row_sums::block;
using row_sums::lanes;

/// Sizes 0, 1, lanes ± 1, 31, 32, 33, 256 and around a block of rows.
inline std::vector<std::size_t> sizes() {
  return row_sums::distinct({0, 1, 2, lanes - 1, lanes, lanes + 1, 31, 32, 33, 256, block, block + 1, block + 2});
}

constexpr auto rosenbrock_term = [](std::size_t i, const auto& x) {
  return 100.0 * tl::square(x[i + 1] - tl::square(x[i])) + tl::square(1.0 - x[i]);
};

/// Rosenbrock over all of x, its length read from x: one function for every size.
constexpr auto rosenbrock = [](const auto& x) {
  return tl::sum_over(tl::indices(x.size() < 2 ? 0 : x.size() - 1), rosenbrock_term, x);
};

template <class V>
V rosenbrock_point(std::size_t n, std::uint64_t seed) {
  V x(n);
  fd::rng u(seed);
  for (std::size_t k = 0; k < n; ++k) x[k] = u.uniform(-1.5, 1.5);
  return x;
}

/// Rosenbrock's value and gradient by hand, in long double.
template <class V>
std::pair<long double, std::vector<long double>> rosenbrock_by_hand(const V& x) {
  const std::size_t n = x.size();
  long double value = 0;
  std::vector<long double> g(n, 0.0L);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const long double xi = x[i], a = static_cast<long double>(x[i + 1]) - xi * xi;
    value += 100 * a * a + (1 - xi) * (1 - xi);
    g[i] += -400 * a * xi - 2 * (1 - xi);
    g[i + 1] += 200 * a;
  }
  return {value, g};
}

inline void check_near(double got, long double want, long double scale) {
  CHECK(std::abs(static_cast<long double>(got) - want) <= 1e-13L * (scale + std::abs(want)));
}

TEST_CASE("Rosenbrock of a tl::vector<double, tl::dynamic>: the gradient by hand at every size, of x's type") {
  for (const std::size_t n : sizes()) {
    CAPTURE(n);
    const auto x = rosenbrock_point<dynamic_vector>(n, 7 + n);
    const auto [value, g] = tl::value_and_grad(rosenbrock)(x);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(g)>, dynamic_vector>);
    REQUIRE(g.size() == n);
    const auto [want_value, want] = rosenbrock_by_hand(x);
    long double scale = 0;
    for (const long double w : want) scale = std::max(scale, std::abs(w));
    check_near(value, want_value, 1);
    for (std::size_t k = 0; k < n; ++k) check_near(g[k], want[k], scale);
    // No row: the value and every element of the gradient are +0.
    if (n < 2) {
      CHECK(value == 0.0);
      CHECK(!std::signbit(value));
      for (const double e : g) CHECK((e == 0.0 && !std::signbit(e)));
    }
  }
}

/// Rosenbrock of x of fixed size N, of a tl::dynamic copy and of a tl::bounded one at the same values:
/// the first block of rows runs in the fixed parameter's SIMD batches, so value and gradient agree with
/// the fixed twin's bit for bit, not merely to rounding (12 of these assertions fail where the run-time
/// block runs a row at a time, with SSE2's two lanes).
template <std::size_t N>
void check_fixed_twin_bits() {
  CAPTURE(N);
  const auto x = rosenbrock_point<dynamic_vector>(N, 99 + N);
  tl::vector<double, N> fixed;
  for (std::size_t k = 0; k < N; ++k) fixed[k] = x[k];
  const auto fixed_result = tl::value_and_grad(rosenbrock)(fixed);
  const double fixed_value = std::get<0>(fixed_result);
  const auto& fixed_g = std::get<1>(fixed_result);
  const auto same_bits = [&](const auto& at) {
    const auto [value, g] = tl::value_and_grad(rosenbrock)(at);
    CHECK(value == fixed_value);
    CHECK(rosenbrock(at) == fixed_value);  // plain numbers: the same batches
    REQUIRE(g.size() == N);
    for (std::size_t k = 0; k < N; ++k) CHECK(g[k] == fixed_g[k]);
  };
  same_bits(x);
  same_bits(tl::vector<double, tl::bounded<256>>(fixed));
}

TEST_CASE("Rosenbrock at run-time size against its fixed-shape twin at the same values: the same bits") {
  check_fixed_twin_bits<1>();
  check_fixed_twin_bits<2>();
  check_fixed_twin_bits<3>();
  if constexpr (lanes > 1) check_fixed_twin_bits<lanes - 1>();
  check_fixed_twin_bits<lanes>();
  check_fixed_twin_bits<lanes + 1>();
  check_fixed_twin_bits<2 * lanes + 1>();
  check_fixed_twin_bits<31>();
  check_fixed_twin_bits<32>();
  check_fixed_twin_bits<33>();
  check_fixed_twin_bits<256>();
}

TEST_CASE("Rosenbrock of a dynamic vector against central differences at seeded points") {
  for (const std::size_t n : {2u, 5u, 33u}) {
    auto x = rosenbrock_point<dynamic_vector>(n, 300 + n);
    const auto g = tl::grad(rosenbrock)(x);
    for (std::size_t k = 0; k < n; ++k) {
      CAPTURE(k);
      const double x0 = x[k];
      // f of plain numbers: the same sum, evaluated without a sweep.
      const double fd = fd::derivative(
          [&](double xk) {
            auto moved = x;
            moved[k] = xk;
            return rosenbrock(moved);
          },
          x0);
      CHECK(fd::rel_error(g[k], fd) < 1e-7);
    }
  }
}

TEST_CASE("a bounded vector: the same gradient, and in a constant expression") {
  using bounded_vector = tl::vector<double, tl::bounded<64>>;
  for (const std::size_t n : {0u, 1u, 2u, 31u, 64u}) {
    CAPTURE(n);
    const auto x = rosenbrock_point<dynamic_vector>(n, 11 + n);
    const bounded_vector b(x);
    const auto g = tl::grad(rosenbrock)(b);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(g)>, bounded_vector>);
    const auto want = tl::grad(rosenbrock)(x);
    REQUIRE(g.size() == n);
    for (std::size_t k = 0; k < n; ++k) CHECK(g[k] == want[k]);
  }
  // The sum over i < 3 of x_i^2 + x_0 x_1 at (1, 2, 3): its gradient is (2 + 3 x_1, 4 + 3 x_0, 6).
  constexpr auto g = tl::grad([](const auto& x) {
    return tl::sum_over(
        tl::indices(x.size()), [](std::size_t i, const auto& x) { return tl::square(x[i]) + x[0] * x[1]; }, x);
  })(tl::vector<double, tl::bounded<4>>{1.0, 2.0, 3.0});
  static_assert(g.size() == 3 && g[0] == 8.0 && g[1] == 7.0 && g[2] == 6.0);
}

/// The Lennard-Jones energy of the particles in the rows of p, their number read from p.
constexpr auto lennard_jones = [](const auto& p) {
  return tl::sum_over(
      tl::pairs(p.rows()),
      [](std::size_t i, std::size_t j, const auto& p) {
        const auto s6 = tl::pow(tl::squared_norm(tl::row(p, i) - tl::row(p, j)), -3.0);
        return 4.0 * (tl::square(s6) - s6);
      },
      p);
};

/// n particles on a jittered lattice of spacing 1.1.
inline positions lattice(std::size_t n) {
  positions p(n, 3);
  fd::rng u(n);
  for (std::size_t k = 0; k < n; ++k) {
    p(k, 0) = 1.1 * static_cast<double>(k % 4) + u.uniform(-0.05, 0.05);
    p(k, 1) = 1.1 * static_cast<double>((k / 4) % 4) + u.uniform(-0.05, 0.05);
    p(k, 2) = 1.1 * static_cast<double>(k / 16) + u.uniform(-0.05, 0.05);
  }
  return p;
}

TEST_CASE("the Lennard-Jones energy of N particles, N at run time: the gradient by hand") {
  for (const std::size_t n : {0u, 1u, 2u, 5u, 33u, 100u}) {
    CAPTURE(n);
    const positions p = lattice(n);
    const auto [energy, g] = tl::value_and_grad(lennard_jones)(p);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(g)>, positions>);
    REQUIRE(g.rows() == n);
    const auto [want_energy, want] = row_sums::lennard_jones_by_hand(p, n);
    long double scale = 1;
    for (const long double w : want) scale = std::max(scale, std::abs(w));
    check_near(energy, want_energy, 1);
    for (std::size_t k = 0; k < 3 * n; ++k) check_near(g[k], want[k], scale);
  }
}

TEST_CASE("A(i, j), tl::row and tl::col of a matrix of run-time rows and columns, against central differences") {
  using any_matrix = tl::matrix<double, tl::dynamic, tl::dynamic>;
  const auto f = [](const auto& A) {
    return tl::sum_over(
        tl::pairs(A.rows()),
        [](std::size_t i, std::size_t j, const auto& A) { return tl::sin(A(i, j)) * A(j, i) + tl::square(A(j, 0)); },
        A);
  };
  const auto cols = [](const auto& A) {  // A has 3 rows: its columns are 3-vectors
    return tl::sum_over(
        tl::indices(A.cols()), [](std::size_t j, const auto& A) { return tl::squared_norm(tl::exp(tl::col(A, j))); },
        A);
  };
  fd::rng u(5);
  any_matrix A(4, 4);
  tl::matrix<double, 3, tl::dynamic> B(3, 5);
  for (double& e : A) e = u.uniform(-1, 1);
  for (double& e : B) e = u.uniform(-1, 1);
  const auto check = [](const auto& fn, auto M) {
    const auto g = tl::grad(fn)(M);
    REQUIRE(g.rows() == M.rows());
    REQUIRE(g.cols() == M.cols());
    for (std::size_t k = 0; k < M.size(); ++k) {
      CAPTURE(k);
      CHECK(fd::rel_error(g[k], fd::partial(fn, M, k)) < 1e-7);
    }
  };
  check(f, A);
  check(cols, B);
}

TEST_CASE("a run-time argument beside a number: a tuple of both gradients") {
  const auto f = [](const auto& scale, const auto& x) {
    return scale * tl::sum_over(
                       tl::indices(x.size()), [](std::size_t i, const auto& x) { return tl::square(x[i]); }, x);
  };
  const dynamic_vector x{1.0, -2.0, 3.0};
  const auto [ds, dx] = tl::grad(f)(0.5, x);
  CHECK(ds == 14.0);
  REQUIRE(dx.size() == 3);
  CHECK(dx[0] == 1.0);
  CHECK(dx[1] == -2.0);
  CHECK(dx[2] == 3.0);
  // The data of run-time extents captured by body, the number differentiated.
  const auto weighted = [&x](const auto& s) {
    return tl::sum_over(
        tl::indices(x.size()), [&x](std::size_t i, const auto& s) { return s * x[i] * x[i]; }, s);
  };
  CHECK(tl::grad(weighted)(2.0) == 14.0);
  // An argument that no term reads: +0 at each of its elements.
  const auto none = tl::grad([](const auto& x) { return tl::sum_over(tl::indices(0), rosenbrock_term, x); })(x);
  REQUIRE(none.size() == 3);
  for (const double e : none) CHECK((e == 0.0 && !std::signbit(e)));
}

/// A pair potential of positions p (n x 3, n at run time) with its strength `eps` and a fixed vector
/// s = (length, weight), each a parameter of the sum, in any order (Order: p's place among them).
template <int Order>
constexpr auto potential_beside = [](const auto&... args) {
  const auto term = [](std::size_t i, std::size_t j, const auto& p, const auto& eps, const auto& s) {
    const auto d = tl::row(p, i) - tl::row(p, j);
    const auto sr6 = tl::pow(s[0] * s[0] / tl::sum(d * d), 3.0);
    return 4.0 * eps * (sr6 * sr6 - sr6) * s[1] + 0.01 * s[1] * p(i, 0) * p(j, 2);
  };
  const auto in_order = [&](const auto& p, const auto& eps, const auto& s) {
    if constexpr (Order == 0)
      return tl::sum_over(tl::pairs(p.rows()), term, p, eps, s);
    else if constexpr (Order == 1)
      return tl::sum_over(
          tl::pairs(p.rows()),
          [&](std::size_t i, std::size_t j, const auto& e, const auto& q, const auto& t) {
            return term(i, j, q, e, t);
          },
          eps, p, s);
    else
      return tl::sum_over(
          tl::pairs(p.rows()),
          [&](std::size_t i, std::size_t j, const auto& e, const auto& t, const auto& q) {
            return term(i, j, q, e, t);
          },
          eps, s, p);
  };
  return in_order(args...);
};

TEST_CASE("a parameter of run-time extents beside a number and a fixed vector, in any place: every gradient") {
  const tl::vector<double, 2> s{0.9, 0.7};
  const double eps = 0.5;
  for (const std::size_t n : {0u, 1u, 2u, 5u, 33u}) {
    CAPTURE(n);
    const positions p = lattice(n);
    const auto check = [&](const auto& f) {
      const auto [value, g] = tl::value_and_grad(f)(p, eps, s);
      const auto& [gp, geps, gs] = g;
      static_assert(std::is_same_v<std::remove_cvref_t<decltype(gp)>, positions>);
      CHECK(value == f(p, eps, s));  // f of plain numbers
      const auto f_of = [&](const positions& q, double e, const tl::vector<double, 2>& t) { return f(q, e, t); };
      CHECK(fd::rel_error(geps, fd::derivative([&](double e) { return f_of(p, e, s); }, eps)) < 1e-7);
      for (std::size_t k = 0; k < 2; ++k)
        CHECK(fd::rel_error(gs[k], fd::partial([&](const auto& t) { return f_of(p, eps, t); }, s, k)) < 1e-7);
      REQUIRE(gp.rows() == n);
      // Every element against differences; under the sanitizers the first two particles' (their
      // differences take most of that build's run time, and the orders' agreement below covers the rest).
      const std::size_t differenced = test_support::address_sanitizer ? std::min<std::size_t>(p.size(), 6) : p.size();
      for (std::size_t k = 0; k < differenced; ++k) {
        CAPTURE(k);
        CHECK(fd::rel_error(gp[k], fd::partial([&](const auto& q) { return f_of(q, eps, s); }, p, k)) < 1e-6);
      }
      return std::tuple{value, gp, geps, gs};
    };
    // The same numbers whatever the parameters' order.
    const auto first = check(potential_beside<0>);
    const auto middle = check(potential_beside<1>);
    const auto last = check(potential_beside<2>);
    CHECK((first == middle));
    CHECK((first == last));
    // One of them differentiated, the others plain: the same parts.
    CHECK(tl::grad<1>(potential_beside<0>)(p, eps, s) == std::get<2>(first));
    CHECK((tl::grad<0>(potential_beside<2>)(p, eps, s) == std::get<1>(first)));
  }
}

TEST_CASE("a parameter of run-time extents beside others, over threads and past a block: the sequential bits") {
  const auto term = [](std::size_t i, const auto& a, const auto& x, const auto& w) {
    return a * tl::square(x[i] - w[0]) + w[1] * tl::sin(x[i]);
  };
  const auto sequential = [&](const auto& a, const auto& x, const auto& w) {
    return tl::sum_over(tl::indices(x.size()), term, a, x, w);
  };
  const auto threaded = [&](const auto& a, const auto& x, const auto& w) {
    return tl::sum_over(std::execution::par, tl::indices(x.size()), term, a, x, w);
  };
  const tl::vector<double, 2> w{0.25, -1.5};
  for (const std::size_t n : {std::size_t{3}, block + 1, 5 * block + 7}) {
    CAPTURE(n);
    const auto x = rosenbrock_point<dynamic_vector>(n, n + 1);
    const auto [v1, g1] = tl::value_and_grad(sequential)(2.0, x, w);
    const auto [v2, g2] = tl::value_and_grad(threaded)(2.0, x, w);
    CHECK(v1 == v2);
    CHECK(std::get<0>(g1) == std::get<0>(g2));
    CHECK((std::get<1>(g1) == std::get<1>(g2)));
    CHECK((std::get<2>(g1) == std::get<2>(g2)));
    // By hand, in long double.
    long double da = 0, dw0 = 0, dw1 = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const long double xi = x[i];
      da += (xi - 0.25L) * (xi - 0.25L);
      dw0 += -2.0L * 2.0L * (xi - 0.25L);
      dw1 += std::sin(xi);
      CHECK(fd::rel_error(std::get<1>(g1)[i], double(2.0L * 2.0L * (xi - 0.25L) - 1.5L * std::cos(xi))) < 1e-12);
    }
    CHECK(fd::rel_error(std::get<0>(g1), double(da)) < 1e-12);
    CHECK(fd::rel_error(std::get<2>(g1)[0], double(dw0)) < 1e-12);
    CHECK(fd::rel_error(std::get<2>(g1)[1], double(dw1)) < 1e-12);
  }
}

TEST_CASE("the sum over threads gives the sequential bits, whatever the blocks in flight") {
  const auto threaded = [](const auto& x) {
    return tl::sum_over(std::execution::par, tl::indices(x.size() < 2 ? 0 : x.size() - 1), rosenbrock_term, x);
  };
  const auto pairs_threaded = [](const auto& p) {
    return tl::sum_over(
        std::execution::par, tl::pairs(p.rows()),
        [](std::size_t i, std::size_t j, const auto& p) {
          return tl::exp(-tl::squared_norm(tl::row(p, i) - tl::row(p, j)));
        },
        p);
  };
  const auto pairs_sequential = [](const auto& p) {
    return tl::sum_over(
        tl::pairs(p.rows()),
        [](std::size_t i, std::size_t j, const auto& p) {
          return tl::exp(-tl::squared_norm(tl::row(p, i) - tl::row(p, j)));
        },
        p);
  };
  for (const std::size_t n : {std::size_t{0}, block - 1, 3 * block + 5, 20 * block + 1}) {
    CAPTURE(n);
    const auto x = rosenbrock_point<dynamic_vector>(n, n);
    const auto [v1, g1] = tl::value_and_grad(rosenbrock)(x);
    const auto [v2, g2] = tl::value_and_grad(threaded)(x);
    CHECK(v1 == v2);
    REQUIRE(g2.size() == n);
    for (std::size_t k = 0; k < n; ++k) CHECK(g1[k] == g2[k]);
    CHECK(threaded(x) == v1);  // plain numbers, over threads
  }
  const positions p = lattice(400);  // 79,800 pairs: 20 blocks
  const auto [e1, f1] = tl::value_and_grad(pairs_sequential)(p);
  const auto [e2, f2] = tl::value_and_grad(pairs_threaded)(p);
  CHECK(e1 == e2);
  for (std::size_t k = 0; k < p.size(); ++k) CHECK(f1[k] == f2[k]);
}

TEST_CASE("an index past the argument's extent throws std::out_of_range naming both") {
  const dynamic_vector x{1.0, 2.0, 3.0};
  const auto past = [](const auto& x) {
    return tl::sum_over(
        tl::indices(x.size()), [](std::size_t i, const auto& x) { return x[i + 1]; }, x);
  };
  CHECK_THROWS_WITH_AS(tl::grad(past)(x), "tl: index 3 is past the extent 3 of v[i]", std::out_of_range);
  const positions p = lattice(2);
  const auto row_past = [](const auto& p) {
    return tl::sum_over(
        tl::indices(3), [](std::size_t i, const auto& p) { return tl::sum(tl::row(p, i)); }, p);
  };
  CHECK_THROWS_WITH_AS(tl::grad(row_past)(p), "tl: index 2 is past the extent 2 of tl::row(A, i)", std::out_of_range);
  const auto element_past = [](const auto& p) {
    return tl::sum_over(
        tl::indices(1), [](std::size_t, const auto& p) { return p(0, 3); }, p);
  };
  CHECK_THROWS_WITH_AS(tl::grad(element_past)(p), "tl: column index 3 is past the extent 3 of A(i, j)",
                       std::out_of_range);
}

TEST_CASE("beside other parameters, a bounded one allocates nothing, and runs in a constant expression") {
  using bounded_vector = tl::vector<double, tl::bounded<64>>;
  const auto f = [](const auto& a, const auto& x) {
    return tl::sum_over(
        tl::indices(x.size()), [](std::size_t i, const auto& a, const auto& x) { return a * x[i] * x[i]; }, a, x);
  };
  const bounded_vector x{1.0, 2.0, 3.0};
  CHECK(test_support::allocations_during([&] { (void)tl::grad(f)(2.0, x); }) == 0);
  constexpr auto g = [] {
    const auto f = [](const auto& a, const auto& x) {
      return tl::sum_over(
          tl::indices(x.size()), [](std::size_t i, const auto& a, const auto& x) { return a * x[i] * x[i]; }, a, x);
    };
    return tl::grad(f)(2.0, tl::vector<double, tl::bounded<4>>{1.0, 2.0, 3.0});
  }();
  static_assert(std::get<0>(g) == 14.0);
  static_assert(std::get<1>(g)[2] == 12.0);
}

TEST_CASE("allocations: none for bounded extents; for a dynamic vector, one, and three more past a block of rows") {
  using bounded_vector = tl::vector<double, tl::bounded<256>>;
  for (const std::size_t n : {2u, 33u, 256u}) {
    CAPTURE(n);
    const bounded_vector b(rosenbrock_point<dynamic_vector>(n, n));
    CHECK(test_support::allocations_during([&] { (void)tl::grad(rosenbrock)(b); }) == 0);
  }
  // One allocation, the total of the partials, which the gradient takes (sweep/adjoints.hpp); past one
  // block of rows, three more for the later blocks' own sums.
  for (const std::size_t n : {2u, 33u, 256u, 4097u, 4098u, 10000u}) {
    CAPTURE(n);
    const auto x = rosenbrock_point<dynamic_vector>(n, n);
    const long count = test_support::allocations_during([&] { (void)tl::grad(rosenbrock)(x); });
    CHECK(count == (n - 1 <= block ? 1 : 4));
  }
}

}  // namespace run_time_rows
