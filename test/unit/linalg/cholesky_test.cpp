// SPDX-License-Identifier: BSL-1.0
// The Cholesky factor of linalg/cholesky.hpp on its own: L lower triangular with a positive diagonal
// and L L^T = S, the upper triangle never read, L^-1 and S^-1 against their definitions, NaN where S
// is not positive definite, the symmetric part, and constant evaluation. (log_det and cholesky as
// operations, with their gradients: ops/factorisations/.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <factor_check.hpp>
#include <finite_difference.hpp>

#include <cmath>
#include <cstddef>

namespace tl = tapeless;
namespace la = tapeless::detail::linalg;

namespace {

using factor_check::identity;
using factor_check::max_abs_difference;

constexpr double tol = 1e-12;

template <std::size_t N>
void check_size(fd::rng& r) {
  CAPTURE(N);
  for (int point = 0; point < 20; ++point) {
    tl::matrix<double, N, N> a;
    for (auto& e : a) e = r.uniform(-1, 1);
    const tl::matrix<double, N, N> s = tl::matmul(a, tl::transpose(a)) + identity<N>();
    const la::cholesky_factor<double, N> c(s);
    REQUIRE(c.positive_definite);
    for (std::size_t i = 0; i < N; ++i) {
      CHECK(c.l(i, i) > 0.0);
      for (std::size_t j = i + 1; j < N; ++j) CHECK(c.l(i, j) == 0.0);
    }
    CHECK(max_abs_difference(tl::matmul(c.l, tl::transpose(c.l)), s) < tol);
    CHECK(max_abs_difference(tl::matmul(c.inverse_factor(), c.l), identity<N>()) < tol);
    CHECK(max_abs_difference(tl::matmul(c.inverse(), s), identity<N>()) < tol);
    // Only the lower triangle is read: another upper one gives the same factor.
    tl::matrix<double, N, N> lower = s;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = i + 1; j < N; ++j) lower(i, j) = r.uniform(-9, 9);
    CHECK(la::cholesky_factor<double, N>(lower).l == c.l);
  }
}

}  // namespace

TEST_CASE("Cholesky: L L^T = S and the inverses, 1 x 1 to 5 x 5") {
  fd::rng r{3902};
  check_size<1>(r);
  check_size<2>(r);
  check_size<3>(r);
  check_size<4>(r);
  check_size<5>(r);
}

TEST_CASE("Cholesky: a matrix not positive definite gives NaN, not a square root of a negative") {
  for (const tl::matrix<double, 2, 2>& s : {tl::matrix<double, 2, 2>{{1, 2}, {2, 1}},  // eigenvalues 3 and -1
                                            tl::matrix<double, 2, 2>{{0, 0}, {0, 1}},  // a zero pivot
                                            tl::matrix<double, 2, 2>{{std::nan(""), 0}, {0, 1}}}) {
    const la::cholesky_factor<double, 2> c(s);
    CHECK(!c.positive_definite);
    for (const double e : c.l) CHECK(std::isnan(e));
    for (const double e : c.inverse()) CHECK(std::isnan(e));
  }
}

TEST_CASE("symmetric_part: (A + A^T) / 2") {
  const tl::matrix<double, 3, 3> a{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  CHECK(la::symmetric_part(a) == tl::matrix<double, 3, 3>{{1, 3, 5}, {3, 5, 7}, {5, 7, 9}});
}

TEST_CASE("Cholesky in a constant expression") {
  constexpr la::cholesky_factor<double, 2> c(tl::matrix<double, 2, 2>{{4, 2}, {2, 5}});
  static_assert(c.positive_definite && c.l == tl::matrix<double, 2, 2>{{2, 0}, {1, 2}});
  static_assert(c.inverse() == tl::matrix<double, 2, 2>{{0.3125, -0.125}, {-0.125, 0.25}});  // S^-1 = adj / 16
  CHECK(c.l(1, 1) == 2.0);
}
