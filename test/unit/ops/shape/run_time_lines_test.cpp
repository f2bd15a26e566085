// SPDX-License-Identifier: BSL-1.0
// tl::row(A, i) and tl::col(A, j) of matrices whose lines have a run-time length (ops/shape.hpp,
// run_time_line): formulas of the line's elements, one row or one column by their type. Their gradients
// against the fixed-shape twin at the same values, a row repeated over a matrix, a line of a formula, by
// hand at sizes 1 to 256, rows of Eigen data read in a sum over tl::indices, an Eigen argument, plain
// values, indices past the extent, and bounded matrices in a constant expression and without allocation.
#include <doctest/doctest.h>
#include <tapeless/interop/eigen.hpp>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <run_time_twin.hpp>

#include <Eigen/Core>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

using dynamic_matrix = tl::matrix<double, tl::dynamic, tl::dynamic>;

/// An r x c matrix of M's type, values drawn from [-1.5, 1.5) with the seed given.
template <class M>
M seeded_matrix(std::size_t r, std::size_t c, std::uint64_t seed) {
  const auto v = run_time_twin::seeded<tl::vector<double, tl::dynamic>>(r * c, seed);
  M m(r, c);
  for (std::size_t k = 0; k < r * c; ++k) m.data()[k] = v[k];
  return m;
}

/// sum(square(row i)) + sum(exp(0.5 col j)) + sum(A - row(A, 0)) + sum(row(2 A, i) * row(A, 0)).
constexpr auto lines = [](std::size_t i, std::size_t j) {
  return [i, j](const auto& A) {
    return tl::sum(tl::square(tl::row(A, i))) + tl::sum(tl::exp(0.5 * tl::col(A, j))) + tl::sum(A - tl::row(A, 0)) +
           tl::sum(tl::row(2.0 * A, i) * tl::row(A, 0));
  };
};

TEST_CASE("tl::row and tl::col of run-time lines: the fixed-shape twin") {
  const auto at = [&]<std::size_t R, std::size_t C>() {
    CAPTURE(R);
    CAPTURE(C);
    const auto fixed = run_time_twin::drawn<tl::matrix<double, R, C>>(R * 100 + C);
    const auto a = run_time_twin::copy_of<dynamic_matrix>(fixed);
    for (std::size_t i : {std::size_t{0}, R - 1})
      for (std::size_t j : {std::size_t{0}, C - 1}) {
        const auto [value, g] = tl::value_and_grad(lines(i, j))(a);
        const auto [fixed_value, fixed_g] = tl::value_and_grad(lines(i, j))(fixed);
        CHECK(fd::rel_error(value, fixed_value) < 1e-13);
        run_time_twin::check_elements_against_twin(g, fixed_g);
      }
  };
  at.template operator()<1, 1>();
  at.template operator()<2, 3>();
  at.template operator()<5, 4>();
  at.template operator()<9, 33>();
  at.template operator()<33, 2>();
}

TEST_CASE("tl::row and tl::col of run-time lines: types, extents and plain values") {
  const dynamic_matrix a{{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}};
  const auto r = tl::row(a, 1);
  const auto c = tl::col(a, 2);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(r)>, tl::matrix<double, 1, tl::dynamic>>);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(c)>, tl::matrix<double, tl::dynamic, 1>>);
  CHECK(r == tl::matrix<double, 1, tl::dynamic>{4.0, 5.0, 6.0});
  CHECK(c == tl::vector<double, tl::dynamic>{3.0, 6.0});
  (void)tl::grad([](const auto& x) {
    const auto line = tl::row(x, 1);
    CHECK(line.rows() == 1);
    CHECK(line.cols() == 3);
    CHECK(tl::col(x, 0).rows() == 2);
    return tl::sum(line);
  })(a);
  CHECK_THROWS_WITH_AS(tl::grad([](const auto& x) { return tl::sum(tl::row(x, 2)); })(a),
                       "tl: index 2 is past the extent 2 of tl::row(A, i)", std::out_of_range);
  CHECK_THROWS_WITH_AS(tl::grad([](const auto& x) { return tl::sum(tl::col(x, 3)); })(a),
                       "tl: index 3 is past the extent 3 of tl::col(A, j)", std::out_of_range);
}

TEST_CASE("tl::row and tl::col of run-time lines: by hand at every size") {
  for (const auto& extents :
       {std::pair<std::size_t, std::size_t>{1, 1}, {1, 256}, {256, 1}, {3, 4}, {31, 33}, {32, 32}, {33, 31}})
    for (const std::size_t r = extents.first, c = extents.second;
         const auto& line : {std::pair<std::size_t, std::size_t>{0, 0}, {r - 1, c - 1}, {r / 2, c / 2}}) {
      const std::size_t i = line.first, j = line.second;
      CAPTURE(r);
      CAPTURE(c);
      CAPTURE(i);
      CAPTURE(j);
      const auto a = seeded_matrix<dynamic_matrix>(r, c, r * 7 + c);
      const auto [value, g] = tl::value_and_grad(
          [i, j](const auto& A) { return tl::sum(tl::square(tl::row(A, i))) + tl::sum(tl::exp(tl::col(A, j))); })(a);
      double expected = 0;
      for (std::size_t p = 0; p < r; ++p)
        for (std::size_t q = 0; q < c; ++q) {
          double d = 0;
          if (p == i) {
            expected += a(p, q) * a(p, q);
            d += 2 * a(p, q);
          }
          if (q == j) {
            expected += std::exp(a(p, q));
            d += std::exp(a(p, q));
          }
          CHECK(fd::rel_error(g(p, q), d) < 1e-14);
        }
      CHECK(fd::rel_error(value, expected) < 1e-13);
    }
}

TEST_CASE("a line of a formula of a sum's parameter, in the sum's term: a sum nested in the term") {
  // Each term sums a line of 2 A: partials of all of A per term, so a sum over the rows costs rows x
  // size (the guide says to read A(i, j) there); the gradient is exact.
  const auto a = seeded_matrix<dynamic_matrix>(7, 5, 61);
  const auto g = tl::grad([](const auto& A) {
    return tl::sum_over(
        tl::indices(A.rows()), [](std::size_t i, const auto& A) { return tl::sum(tl::square(tl::row(2.0 * A, i))); },
        A);
  })(a);
  for (std::size_t k = 0; k < a.size(); ++k) CHECK(fd::rel_error(g.data()[k], 8.0 * a.data()[k]) < 1e-14);
}

TEST_CASE("tl::row of Eigen data and of an Eigen argument, read in place") {
  const auto a = seeded_matrix<dynamic_matrix>(6, 4, 41);
  Eigen::MatrixXd x(6, 4);
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 4; ++j) x(Eigen::Index(i), Eigen::Index(j)) = a(i, j);
  // A linear model over the rows of Eigen data whose columns are known at run time.
  const tl::vector<double, 4> w{0.5, -1.0, 0.25, 2.0};
  const auto g = tl::grad([&](const auto& w) {
    return tl::sum_over(
        tl::indices(6),
        [&](std::size_t i, const auto& w) {
          const auto r = tl::row(tl::cref(x), i);
          return tl::square(r[0] * w[0] + r[1] * w[1] + r[2] * w[2] + r[3] * w[3] - 1.0);
        },
        w);
  })(w);
  for (std::size_t j = 0; j < 4; ++j) {
    double expected = 0;
    for (std::size_t i = 0; i < 6; ++i) {
      double z = -1.0;
      for (std::size_t k = 0; k < 4; ++k) z += a(i, k) * w[k];
      expected += 2 * z * a(i, j);
    }
    CHECK(fd::rel_error(g[j], expected) < 1e-13);
  }
  // An Eigen argument (column-major) against the tl::dynamic one: the same gradient.
  const auto ge = tl::grad(lines(3, 1))(x);
  const auto gd = tl::grad(lines(3, 1))(a);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(ge)>, Eigen::MatrixXd>);
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 4; ++j) CHECK(ge(Eigen::Index(i), Eigen::Index(j)) == gd(i, j));
}

TEST_CASE("tl::row and tl::col of bounded matrices: a constant expression, and no allocation") {
  using M = tl::matrix<double, tl::bounded<16>, tl::bounded<16>>;
  static constexpr auto g = [] {
    M a(2, 3);
    for (std::size_t k = 0; k < 6; ++k) a.data()[k] = double(k);
    return tl::grad([](const auto& x) { return tl::sum(tl::square(tl::row(x, 1))) + tl::sum(tl::col(x, 0)); })(a);
  }();
  static_assert(g(1, 2) == 10.0);
  static_assert(g(0, 0) == 1.0);
  static_assert(g(1, 0) == 7.0);
  const M a = seeded_matrix<M>(9, 16, 51);
  const long count = test_support::allocations_during([&] {
    const auto r = tl::grad(lines(8, 15))(a);
    CHECK(r.rows() == 9);
  });
  CHECK(count == 0);
}

}  // namespace
