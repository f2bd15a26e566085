// SPDX-License-Identifier: BSL-1.0
// The LU factorisation of linalg/lu.hpp on its own: P A = L U with every multiplier at most 1 in
// magnitude, the determinant, the solves with A and A^T and the inverse against their definitions at
// every size from 1 x 1 to 6 x 6 (SIMD rows and plain ones), a singular matrix (recorded, NaN solves,
// exact cofactors), and constant evaluation. (det, inverse and solve as operations, with their
// gradients: ops/factorisations/.)
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

/// The largest magnitude of an element: the residuals of a solve grow with the solution's.
template <std::size_t R, std::size_t C>
double largest(const tl::matrix<double, R, C>& a) {
  double m = 0;
  for (const double e : a) m = std::fmax(m, std::abs(e));
  return m;
}

/// L U from the factors, and P A from A: row k of P A is row perm[k] of A.
template <std::size_t N>
void check_factors(const tl::matrix<double, N, N>& a, const la::lu_factors<double, N>& f) {
  tl::matrix<double, N, N> l = identity<N>(), u{}, pa;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      (j < i ? l : u)(i, j) = f.lu(i, j);
      pa(i, j) = a(f.perm[i], j);
      if (j < i) CHECK(std::abs(l(i, j)) <= 1.0);  // partial pivoting: the largest pivot in its column
    }
  CHECK(max_abs_difference(tl::matmul(l, u), pa) < tol);
}

template <std::size_t N>
void check_size(fd::rng& r) {
  CAPTURE(N);
  for (int point = 0; point < 20; ++point) {
    tl::matrix<double, N, N> a;
    for (auto& e : a) e = r.uniform(-2, 2);
    const la::lu_factors<double, N> f(a);
    CHECK(!f.singular);
    check_factors(a, f);
    tl::matrix<double, N, 2> b;
    for (auto& e : b) e = r.uniform(-1, 1);
    // Backward stable: each residual within rounding of |A| |X|, which the largest elements bound.
    const auto x = f.solve(b);
    const auto xt = f.solve_transposed(b);
    const auto inv = f.inverse();
    CHECK(max_abs_difference(tl::matmul(a, x), b) < tol * largest(x));
    CHECK(max_abs_difference(tl::matmul(tl::transpose(a), xt), b) < tol * largest(xt));
    CHECK(max_abs_difference(tl::matmul(a, inv), identity<N>()) < tol * largest(inv));
    // The cofactor matrix is det(A) A^-T: within the inverse's error, its condition number times rounding.
    const auto cofactors = f.cofactors();
    CHECK(max_abs_difference(cofactors, f.det() * tl::transpose(inv)) < 1e-9 * largest(cofactors));
  }
}

}  // namespace

TEST_CASE("LU: a matrix that needs its rows exchanged") {
  const tl::matrix<double, 3, 3> a{{0, 2, 1}, {1, 1, 1}, {4, 1, 3}};
  const la::lu_factors<double, 3> f(a);
  CHECK(f.perm[0] == 2);  // the largest of the first column, 4, is the first pivot
  check_factors(a, f);
  CHECK(f.det() == doctest::Approx(-1.0).epsilon(1e-15));  // 0 (3 - 1) - 2 (3 - 4) + 1 (1 - 4)
  const tl::vector<double, 3> x{1, -2, 3};
  const tl::vector<double, 3> b = tl::matmul(a, x);
  CHECK(max_abs_difference(f.solve(b), x) < tol);
}

TEST_CASE("LU: solves and inverse against their definitions, 1 x 1 to 6 x 6") {
  fd::rng r{3901};
  check_size<1>(r);
  check_size<2>(r);
  check_size<3>(r);
  check_size<4>(r);
  check_size<5>(r);
  check_size<6>(r);
}

TEST_CASE("LU: a singular matrix is recorded; solves give NaN, the cofactors stay exact") {
  const tl::matrix<double, 2, 2> a{{1, 2}, {2, 4}};
  const la::lu_factors<double, 2> f(a);
  CHECK(f.singular);
  CHECK(f.det() == 0.0);
  for (const double e : f.solve(tl::vector<double, 2>{1, 1})) CHECK(std::isnan(e));
  for (const double e : f.inverse()) CHECK(std::isnan(e));
  CHECK(f.cofactors() == tl::matrix<double, 2, 2>{{4, -2}, {-2, 1}});
  // A zero column: its pivot is skipped, the columns after it still factorised.
  const tl::matrix<double, 3, 3> z{{0, 1, 2}, {0, 3, 1}, {0, 2, 5}};
  const la::lu_factors<double, 3> g(z);
  CHECK(g.singular);
  CHECK(g.det() == 0.0);
  CHECK(g.cofactors()(0, 0) == doctest::Approx(3 * 5 - 1 * 2).epsilon(1e-15));  // the only nonzero cofactors
}

TEST_CASE("LU in a constant expression") {
  constexpr tl::matrix<double, 3, 3> a{{2, 1, 0}, {1, 3, 1}, {0, 1, 4}};
  constexpr la::lu_factors<double, 3> f(a);
  static_assert(f.det() == 18.0);  // 2 (12 - 1) - 1 (4 - 0)
  constexpr tl::vector<double, 3> x = f.solve(tl::vector<double, 3>{3, 5, 5});
  static_assert(x[0] == 1.0 && x[1] == 1.0 && x[2] == 1.0);
  CHECK(f.perm[0] == 0);
}
