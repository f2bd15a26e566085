// SPDX-License-Identifier: BSL-1.0
// Linear algebra computed by the compiler: values and gradients of outer, trace, det, inverse, log_det,
// solve and cholesky in constant expressions. This file passes by compiling.
//
// The matrices are chosen so that the LU and Cholesky factorisations are exact in binary (pivots and
// multipliers powers of two), and the results are compared exactly; where a square root or a
// logarithm enters, to 1e-15.
#include <tapeless/tapeless.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

template <std::size_t R, std::size_t C = R>
using mat = tl::matrix<double, R, C>;
template <std::size_t N>
using vec = tl::vector<double, N>;

constexpr double abs_(double x) { return x < 0 ? -x : x; }
/// |a - b| <= tol * max(1, |b|), element by element
constexpr bool close(double a, double b, double tol = 1e-15) {
  return abs_(a - b) <= tol * (abs_(b) > 1 ? abs_(b) : 1.0);
}
template <std::size_t R, std::size_t C>
constexpr bool close(const mat<R, C>& a, const mat<R, C>& b, double tol = 1e-15) {
  for (std::size_t i = 0; i < R * C; ++i)
    if (!close(a[i], b[i], tol)) return false;
  return true;
}
template <std::size_t R, std::size_t C>
constexpr bool all_nan(const mat<R, C>& m) {
  for (const double e : m)
    if (e == e) return false;
  return true;
}

constexpr auto det_ = [](const auto& a) { return tl::det(a); };
constexpr auto grad_det = [](const auto& a) { return tl::grad(det_)(a); };

// ---- det: the gradient is the cofactor matrix [d, -c; -b, a] of [a, b; c, d] -------------------------
static_assert(tl::det(mat<2>{{4, 1}, {2, 3}}) == 10.0);
static_assert(grad_det(mat<2>{{4, 1}, {2, 3}}) == mat<2>{{3, -2}, {-1, 4}});
static_assert(grad_det(mat<2>{{1, 3}, {2, 4}}) == mat<2>{{4, -2}, {-3, 1}});  // rows swapped by the pivoting
static_assert(tl::det(mat<2>{{1, 3}, {2, 4}}) == -2.0);
static_assert(grad_det(mat<1>{{5}}) == mat<1>{{1}});
// 3 x 3: det 4 and its cofactors (the matrix is symmetric: cofactors = adjugate = 4 A^-1)
constexpr mat<3> second_difference{{2, -1, 0}, {-1, 2, -1}, {0, -1, 2}};
static_assert(close(tl::det(second_difference), 4.0));
static_assert(close(grad_det(second_difference), mat<3>{{3, 2, 1}, {2, 4, 2}, {1, 2, 3}}));
// At a singular matrix the value is 0 and the gradient the exact cofactors: no division by a zero pivot.
static_assert(tl::det(mat<2>{{1, 2}, {2, 4}}) == 0.0);
static_assert(grad_det(mat<2>{{1, 2}, {2, 4}}) == mat<2>{{4, -2}, {-2, 1}});
static_assert(grad_det(mat<3>{}) == mat<3>{});
// float computes in float
static_assert(std::is_same_v<decltype(grad_det(tl::matrix<float, 2, 2>{{4, 1}, {2, 3}})), tl::matrix<float, 2, 2>>);
static_assert(grad_det(tl::matrix<float, 2, 2>{{4, 1}, {2, 3}}) == tl::matrix<float, 2, 2>{{3, -2}, {-1, 4}});

// ---- trace and outer ---------------------------------------------------------------------------------
static_assert(tl::trace(second_difference) == 6.0);
static_assert(tl::grad([](const auto& a) { return tl::trace(a); })(second_difference) ==
              mat<3>{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
static_assert(tl::outer(vec<2>{1.0, 2.0}, vec<3>{3.0, 4.0, 5.0}) == mat<2, 3>{{3, 4, 5}, {6, 8, 10}});
// d sum(a b^T) = (sum(b) 1, sum(a) 1)
constexpr auto outer_grad = tl::grad([](const auto& a, const auto& b) { return tl::sum(tl::outer(a, b)); })(
    vec<2>{1.0, 2.0}, vec<3>{3.0, 4.0, 5.0});
static_assert(std::get<0>(outer_grad) == vec<2>{12.0, 12.0});
static_assert(std::get<1>(outer_grad) == vec<3>{3.0, 3.0, 3.0});

// ---- inverse: -Y^T G Y^T ---------------------------------------------------------------------------
constexpr mat<2> a2{{2, 1}, {1, 1}};  // A^-1 = [1, -1; -1, 2]
static_assert(tl::inverse(a2) == mat<2>{{1, -1}, {-1, 2}});
static_assert(close(tl::inverse(second_difference), mat<3>{{0.75, 0.5, 0.25}, {0.5, 1, 0.5}, {0.25, 0.5, 0.75}}));
// d sum(A^-1) = -A^-T 1 1^T A^-T: column sums of A^-1 (0, 1) times row sums (0, 1)
static_assert(tl::grad([](const auto& a) { return tl::sum(tl::inverse(a)); })(a2) == mat<2>{{0, 0}, {0, -1}});
// d det(A^-1) = -A^-T / det(A)
static_assert(tl::grad([](const auto& a) { return tl::det(tl::inverse(a)); })(a2) == mat<2>{{-1, 1}, {1, -2}});
// A singular matrix has no inverse: NaN, also at compile time
static_assert(all_nan(tl::inverse(mat<2>{{1, 2}, {2, 4}})));

// ---- solve: x = A^-1 b, db = A^-T G, dA = -db x^T -----------------------------------------------------
static_assert(tl::solve(a2, vec<2>{1.0, 1.0}) == vec<2>{0.0, 1.0});
static_assert(tl::solve(a2, mat<2, 3>{{1, 0, 3}, {1, 1, 2}}) == mat<2, 3>{{0, -1, 1}, {1, 2, 1}});
constexpr auto solve_grad =
    tl::grad([](const auto& a, const auto& b) { return tl::sum(tl::solve(a, b)); })(a2, vec<2>{1.0, 1.0});
static_assert(std::get<1>(solve_grad) == vec<2>{0.0, 1.0});
static_assert(std::get<0>(solve_grad) == mat<2>{{0, 0}, {0, -1}});
static_assert(all_nan(tl::solve(mat<2>{{1, 2}, {2, 4}}, vec<2>{1.0, 1.0})));

// ---- cholesky and log_det ------------------------------------------------------------------------
constexpr mat<2> spd{{4, 2}, {2, 5}};  // L = [2, 0; 1, 2], det 16
static_assert(tl::cholesky(spd) == mat<2>{{2, 0}, {1, 2}});
static_assert(tl::cholesky(mat<2>{{4, 99}, {2, 5}}) == mat<2>{{2, 0}, {1, 2}});  // the upper triangle is not read
// d sum(L) by Murray's rule: lower triangular, the exact gradient of the function of A's lower triangle
// (sum L = sqrt(a00) + a10 / sqrt(a00) + sqrt(a11 - a10^2 / a00), differentiated by hand)
static_assert(tl::grad([](const auto& a) { return tl::sum(tl::cholesky(a)); })(spd) ==
              mat<2>{{0.1875, 0}, {0.25, 0.25}});
static_assert(close(tl::log_det(spd), 2.7725887222397812377));  // log 16
// d log det A = A^-1, symmetric: A^-1 = [5, -2; -2, 4] / 16
static_assert(close(tl::grad([](const auto& a) { return tl::log_det(a); })(spd),
                    mat<2>{{0.3125, -0.125}, {-0.125, 0.25}}));
static_assert(close(tl::grad([](const auto& a) { return tl::log_det(a); })(mat<2>{{2, 0}, {0, 4}}),
                    mat<2>{{0.5, 0}, {0, 0.25}}));
// not positive definite: NaN
constexpr double indefinite_log_det = tl::log_det(mat<2>{{1, 2}, {2, 1}});
static_assert(indefinite_log_det != indefinite_log_det);
static_assert(all_nan(tl::cholesky(mat<2>{{1, 2}, {2, 1}})));

// ---- compositions ----------------------------------------------------------------------------------
// det(A A^T) = det(A)^2: gradient 2 det(A) cof(A) = 2 det(A)^2 A^-T; at [2, 1; 1, 1] det 1, A^-T = A^-1
static_assert(tl::grad([](const auto& a) { return tl::det(tl::matmul(a, tl::transpose(a))); })(a2) ==
              mat<2>{{2, -2}, {-2, 4}});

// ---- nodes stay plain values: the factorisations kept for the backward pass are numbers too ----------
using leaf = tl::argument<0, mat<3>>;
template <class E>
constexpr bool plain_node =
    !std::is_polymorphic_v<E> && std::is_trivially_copyable_v<E> && std::is_trivially_destructible_v<E>;
static_assert(plain_node<decltype(tl::det(std::declval<const leaf&>()))>);
static_assert(plain_node<decltype(tl::log_det(std::declval<const leaf&>()))>);
static_assert(plain_node<decltype(tl::solve(std::declval<const leaf&>(), std::declval<const leaf&>()))>);
static_assert(plain_node<decltype(tl::cholesky(std::declval<const leaf&>()))>);

}  // namespace
