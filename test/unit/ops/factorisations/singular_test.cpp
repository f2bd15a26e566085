// SPDX-License-Identifier: BSL-1.0
// The conventions of the factorisations (ops/factorisations.hpp) at singular, nearly singular and
// indefinite matrices: det 0 with its cofactor gradient, NaN from inverse and solve, never an infinity
// or a crash, large but accurate results near singularity, NaN from log_det and cholesky.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <linear_algebra_check.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace tl = tapeless;
using namespace la;  // the checks and long double references of test/support

TEST_CASE("det at singular matrices: 0, and the cofactor gradient, finite and exact") {
  const auto gdet = [](const auto& m) { return tl::grad([](const auto& x) { return tl::det(x); })(m); };
  SUBCASE("rank 1, 2 x 2") {
    const mat<2> a{{1, 2}, {2, 4}};
    CHECK(tl::det(a) == 0.0);
    CHECK(gdet(a) == mat<2>{{4, -2}, {-2, 1}});
  }
  SUBCASE("rank 2, 3 x 3 with an exactly zero pivot") {
    const mat<3> a{{1, 2, 3}, {2, 4, 6}, {1, 0, 1}};  // row 2 = 2 row 1
    CHECK(tl::det(a) == 0.0);
    const mat<3> g = gdet(a);
    CHECK(all_finite(g));
    CHECK(max_rel_error(g, to_mat<3, 3>(ld_cofactors(to_ld(a)))) < 1e-14);
  }
  SUBCASE("rank 2, 3 x 3 where rounding leaves a tiny pivot") {
    const mat<3> a{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    CHECK(std::abs(tl::det(a)) < 1e-14);
    CHECK(max_rel_error(gdet(a), mat<3>{{-3, 6, -3}, {6, -12, 6}, {-3, 6, -3}}) < 1e-13);
  }
  SUBCASE("rank 1 and 0: the cofactors vanish") {
    const mat<3> ones = mat<3>::filled(1.0);
    CHECK(tl::det(ones) == 0.0);
    CHECK(gdet(ones) == mat<3>{});
    CHECK(tl::det(mat<3>{}) == 0.0);
    CHECK(gdet(mat<3>{}) == mat<3>{});
    CHECK(gdet(mat<1>{}) == mat<1>{{1}});  // d det / dA of a 1 x 1 is 1, also at 0
  }
  SUBCASE("a column of zeros, a 4 x 4") {
    const mat<4> a{{1, 0, 2, 3}, {4, 0, 5, 6}, {7, 0, 8, 10}, {1, 0, 1, 1}};
    CHECK(tl::det(a) == 0.0);
    const mat<4> g = gdet(a);
    CHECK(max_rel_error(g, to_mat<4, 4>(ld_cofactors(to_ld(a)))) < 1e-14);
    for (std::size_t i = 0; i < 4; ++i) CHECK(g(i, 0) == 0.0);  // every other cofactor has the zero column
  }
  SUBCASE("NaN in, NaN out, no crash") {
    mat<3> a = identity<3>();
    a(1, 2) = std::numeric_limits<double>::quiet_NaN();
    CHECK(std::isnan(tl::det(a)));
    CHECK(finite_or_nan(gdet(a)));
  }
}

TEST_CASE("inverse and solve at singular matrices: NaN, never an infinity or a crash") {
  const mat<2> a{{1, 2}, {2, 4}};
  CHECK(all_nan(tl::inverse(a)));
  CHECK(all_nan(tl::grad([](const auto& x) { return tl::sum(tl::inverse(x)); })(a)));
  CHECK(all_nan(tl::solve(a, vec<2>{1.0, 1.0})));
  const auto [ga, gb] =
      tl::grad([](const auto& m, const auto& v) { return tl::sum(tl::solve(m, v)); })(a, vec<2>{1.0, 1.0});
  CHECK(all_nan(ga));
  CHECK(all_nan(gb));
  CHECK(all_nan(tl::inverse(mat<3>{})));
  CHECK(all_nan(tl::inverse(mat<1>{})));
  // rounding may leave a tiny pivot instead of 0: huge but finite, or NaN; never infinite
  const mat<3> b{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  CHECK(finite_or_nan(tl::inverse(b)));
  CHECK(finite_or_nan(tl::grad([](const auto& x) { return tl::sum(tl::inverse(x)); })(b)));
  CHECK(finite_or_nan(tl::solve(b, vec<3>{1.0, 2.0, 3.0})));
}

TEST_CASE("nearly singular matrices: large, finite, and still accurate") {
  for (const double eps : {1e-6, 1e-9, 1e-12}) {
    CAPTURE(eps);
    const mat<2> a{{1, 2}, {2, 4 + eps}};  // det = eps, A^-1 = [4 + eps, -2; -2, 1] / eps
    const double d = tl::det(a);
    CHECK(fd::rel_error(d / eps, 1.0) < 1e-15 / eps);  // eps is rounded on entry: 4 + eps has 2^-50 steps
    const mat<2> y = tl::inverse(a);
    CHECK(all_finite(y));
    // A A^-1 = I up to the conditioning
    CHECK(max_rel_error(tl::matmul(a, y), identity<2>()) < 1e-15 / eps);
    CHECK(tl::grad([](const auto& x) { return tl::det(x); })(a) == mat<2>{{4 + eps, -2}, {-2, 1}});
    CHECK(all_finite(tl::grad([](const auto& x) { return tl::sum(tl::inverse(x)); })(a)));
    CHECK(all_finite(tl::solve(a, vec<2>{1.0, 0.0})));
  }
}

namespace {

/// A random N x N matrix whose last row is a random combination of the others plus eps times a random
/// row: nearly singular (det of the order of eps), and singular up to rounding at eps = 0.
template <std::size_t N>
mat<N> random_near_singular(fd::rng& r, double eps) {
  mat<N> a = random_matrix<N, N>(r);
  const auto c = random_matrix<N, 1>(r);
  const auto e = random_matrix<1, N>(r);
  for (std::size_t j = 0; j < N; ++j) {
    double s = eps * e[j];
    for (std::size_t k = 0; k + 1 < N; ++k) s += c[k] * a(k, j);
    a(N - 1, j) = s;
  }
  return a;
}

/// det, inverse and solve at random nearly singular N x N matrices: det and its cofactor gradient
/// finite and accurate; inverse, solve and their gradients finite or NaN (finite while a pivot is
/// left), never an infinity or a crash.
template <std::size_t N>
void check_near_singular(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p)
    for (const double eps : {1e-3, 1e-6, 1e-9, 1e-12, 1e-15, 0.0}) {
      const mat<N> a = random_near_singular<N>(r, eps);
      const auto w = random_matrix<N, N>(r);
      const auto b = random_matrix<N, 1>(r);
      INFO("eps = " << eps << ", A = " << str(a));
      const double d = tl::det(a);
      CHECK(std::isfinite(d));
      CHECK(std::abs(d) < 100.0 * std::max(eps, 1e-13));  // of the order of eps (of rounding at 0)
      const auto [vd, gd] = tl::value_and_grad([](const auto& x) { return tl::det(x); })(a);
      CHECK(vd == d);
      CHECK(all_finite(gd));
      CHECK(max_rel_error(gd, to_mat<N, N>(ld_cofactors(to_ld(a)))) < 1e-12);
      const mat<N> y = tl::inverse(a);
      const auto inverse_loss = [&w](const auto& x) { return weighted(w, tl::inverse(x)); };
      const mat<N> gy = tl::grad(inverse_loss)(a);
      const vec<N> x = tl::solve(a, b);
      const auto [ga, gb] = tl::grad([](const auto& m, const auto& v) { return tl::sum(tl::solve(m, v)); })(a, b);
      CHECK(finite_or_nan(y));
      CHECK(finite_or_nan(gy));
      CHECK(finite_or_nan(x));
      CHECK(finite_or_nan(ga));
      CHECK(finite_or_nan(gb));
      if (eps >= 1e-12) {  // a pivot of the order of eps is left: large but finite, and A A^-1 = I
        CHECK(all_finite(y));
        CHECK(all_finite(gy));
        CHECK(all_finite(x));
        CHECK(max_rel_error(tl::matmul(a, y), identity<N>()) < 1e-12 / eps);  // the conditioning
      }
    }
}

}  // namespace

TEST_CASE("det, inverse and solve at random nearly singular matrices, 1 x 1 to 5 x 5") {
  check_near_singular<1>(821);
  check_near_singular<2>(822);
  check_near_singular<3>(823);
  check_near_singular<5>(825);
}

TEST_CASE("log_det and cholesky of matrices not positive definite: NaN") {
  const mat<2> indefinite{{1, 2}, {2, 1}};
  const mat<2> negative{{-1, 0}, {0, -2}};
  const mat<2> semidefinite{{1, 1}, {1, 1}};
  for (const mat<2>& a : {indefinite, negative, semidefinite, mat<2>{}}) {
    CAPTURE(str(a));
    CHECK(std::isnan(tl::log_det(a)));
    CHECK(all_nan(tl::grad([](const auto& x) { return tl::log_det(x); })(a)));
    CHECK(all_nan(tl::cholesky(a)));
    const mat<2> g = tl::grad([](const auto& x) { return tl::sum(tl::cholesky(x)); })(a);
    CHECK(std::isnan(g(0, 0)));
    CHECK(std::isnan(g(1, 0)));
    CHECK(std::isnan(g(1, 1)));
    CHECK(g(0, 1) == 0.0);  // the upper triangle is never read: its gradient is 0 whatever A is
  }
  CHECK(std::isnan(tl::log_det(mat<1>{{-3}})));
  // positive definite but for the sign of one off-diagonal entry's partner: log_det reads (A + A^T) / 2
  const mat<2> skew{{2, 3}, {-3, 2}};  // symmetric part 2 I
  CHECK(tl::log_det(skew) == doctest::Approx(std::log(4.0)).epsilon(1e-15));
}
