// SPDX-License-Identifier: BSL-1.0
// det, inverse, log_det, solve and cholesky at known matrices (ops/factorisations.hpp): permutations,
// triangular, diagonal, the second-difference and Hilbert matrices; float and long double; plain values.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <linear_algebra_check.hpp>

#include <cmath>
#include <type_traits>

namespace tl = tapeless;
using namespace la;  // the checks and long double references of test/support

TEST_CASE("exact values at known matrices") {
  SUBCASE("a permutation: det -1, its own inverse, exactly") {
    const mat<3> p{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}};  // a 3-cycle: det +1
    CHECK(tl::det(p) == 1.0);
    CHECK(tl::inverse(p) == tl::transpose(p));
    const mat<2> swap{{0, 1}, {1, 0}};
    CHECK(tl::det(swap) == -1.0);
    CHECK(tl::inverse(swap) == swap);
    CHECK(tl::grad([](const auto& x) { return tl::det(x); })(swap) == mat<2>{{0, -1}, {-1, 0}});
  }
  SUBCASE("triangular and diagonal matrices") {
    const mat<3> u{{2, 3, 5}, {0, 4, 7}, {0, 0, 0.5}};
    CHECK(tl::det(u) == 4.0);
    CHECK(tl::det(tl::transpose(u)) == 4.0);
    const mat<3> d{{2, 0, 0}, {0, 4, 0}, {0, 0, 8}};
    CHECK(tl::inverse(d) == mat<3>{{0.5, 0, 0}, {0, 0.25, 0}, {0, 0, 0.125}});
    CHECK(tl::log_det(d) == doctest::Approx(std::log(64.0)).epsilon(1e-15));
    CHECK(max_rel_error(tl::grad([](const auto& x) { return tl::log_det(x); })(d), tl::inverse(d)) < 1e-15);
    CHECK(tl::cholesky(mat<3>{{4, 0, 0}, {0, 9, 0}, {0, 0, 16}}) == mat<3>{{2, 0, 0}, {0, 3, 0}, {0, 0, 4}});
  }
  SUBCASE("a 2 x 2: det, inverse and the cofactor gradient") {
    const mat<2> a{{4, 1}, {2, 3}};
    CHECK(tl::det(a) == 10.0);
    CHECK(tl::grad([](const auto& x) { return tl::det(x); })(a) == mat<2>{{3, -2}, {-1, 4}});
    CHECK(max_rel_error(tl::inverse(a), mat<2>{{0.3, -0.1}, {-0.2, 0.4}}) < 1e-16);
    const mat<2> b{{1, 2}, {3, 4}};
    CHECK(tl::det(b) == doctest::Approx(-2.0).epsilon(1e-15));
    CHECK(max_rel_error(tl::inverse(b), mat<2>{{-2, 1}, {1.5, -0.5}}) < 1e-15);
  }
  SUBCASE("the 3 x 3 second-difference matrix") {
    const mat<3> t{{2, -1, 0}, {-1, 2, -1}, {0, -1, 2}};
    CHECK(tl::det(t) == doctest::Approx(4.0).epsilon(1e-15));
    CHECK(max_rel_error(tl::inverse(t), mat<3>{{0.75, 0.5, 0.25}, {0.5, 1, 0.5}, {0.25, 0.5, 0.75}}) < 1e-15);
    CHECK(tl::log_det(t) == doctest::Approx(std::log(4.0)).epsilon(1e-15));
    const mat<3> l = tl::cholesky(t);  // L = [sqrt 2; -1/sqrt 2, sqrt(3/2); 0, -sqrt(2/3), 2/sqrt 3]
    CHECK(max_rel_error(l, mat<3>{{std::sqrt(2.0), 0, 0},
                                  {-1 / std::sqrt(2.0), std::sqrt(1.5), 0},
                                  {0, -std::sqrt(2.0 / 3.0), 2 / std::sqrt(3.0)}}) < 1e-15);
    CHECK(max_rel_error(tl::solve(t, vec<3>{1.0, 0.0, 1.0}), vec<3>{1.0, 1.0, 1.0}) < 1e-15);
  }
  SUBCASE("the 3 x 3 Hilbert matrix: det 1/2160 and its integer inverse") {
    const mat<3> h{{1, 1 / 2.0, 1 / 3.0}, {1 / 2.0, 1 / 3.0, 1 / 4.0}, {1 / 3.0, 1 / 4.0, 1 / 5.0}};
    CHECK(tl::det(h) == doctest::Approx(1 / 2160.0).epsilon(1e-13));
    CHECK(max_rel_error(tl::inverse(h), mat<3>{{9, -36, 30}, {-36, 192, -180}, {30, -180, 180}}) < 1e-12);
    CHECK(tl::log_det(h) == doctest::Approx(-std::log(2160.0)).epsilon(1e-13));
  }
  SUBCASE("float and long double compute in their own type") {
    const tl::matrix<float, 2, 2> af{{4, 1}, {2, 3}};
    const auto gf = tl::grad([](const auto& x) { return tl::det(x); })(af);
    static_assert(std::is_same_v<decltype(gf), const tl::matrix<float, 2, 2>>);
    CHECK(gf == tl::matrix<float, 2, 2>{{3, -2}, {-1, 4}});
    const tl::matrix<long double, 2, 2> al{{4, 1}, {2, 3}};
    const auto gl = tl::grad([](const auto& x) { return tl::sum(tl::inverse(x)); })(al);
    static_assert(std::is_same_v<decltype(gl), const tl::matrix<long double, 2, 2>>);
    // -A^-T 1 1^T A^-T with A^-1 = [0.3 -0.1; -0.2 0.4]: column sums (0.1, 0.3), row sums (0.2, 0.2)
    CHECK(std::abs(gl(0, 0) + 0.1L * 0.2L) < 1e-18L);
    CHECK(std::abs(gl(1, 0) + 0.3L * 0.2L) < 1e-18L);
  }
  SUBCASE("plain matrices give plain values") {
    const mat<2> a{{4, 1}, {2, 3}};
    static_assert(std::is_same_v<decltype(tl::det(a)), double>);
    static_assert(std::is_same_v<decltype(tl::inverse(a)), mat<2>>);
    static_assert(std::is_same_v<decltype(tl::solve(a, vec<2>{1.0, 2.0})), vec<2>>);
    static_assert(std::is_same_v<decltype(tl::outer(vec<2>{1.0, 2.0}, vec<3>{1.0, 2.0, 3.0})), mat<2, 3>>);
    static_assert(std::is_same_v<decltype(tl::trace(a)), double>);
    static_assert(std::is_same_v<decltype(tl::log_det(a)), double>);
    static_assert(std::is_same_v<decltype(tl::cholesky(a)), mat<2>>);
  }
}
