// SPDX-License-Identifier: BSL-1.0
// test/support/higher_order_check.hpp: what the tests of the higher-order transforms (nested grad,
// hessian, jacobian, jvp, vjp) share: their tolerances, Jacobians by finite differences, element-wise
// comparisons, and the contract's example of a function of a vector.
//
//   ho::fd_slope(g, x)             d/dx of g (number -> number or matrix), by fd::derivative per element
//   ho::fd_jacobian<M, N>(g, x)    the M x N Jacobian of g at the vector x, a column per element of x
//   ho::max_rel_error(a, b)        the largest fd::rel_error over the elements of a and b
//   ho::max_ulps(a, b)             the largest fd::ulp_distance over the elements of a and b
//   ho::random_vector<N>(r, lo, hi) a vector of N uniform elements
//   ho::contract_f, ho::contract_jacobian(x)  F(v) = M v + sin(v0) (4 -> 3), and its exact Jacobian
#pragma once

#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace ho {

namespace tl = tapeless;

inline constexpr double second_fd_tol = 1e-6;  // a second derivative against differences of the gradient
inline constexpr double exact_tol = 1e-12;     // against a closed form

/// d/dx of a function of one number returning a number or matrix, by Richardson-refined differences.
template <class G>
auto fd_slope(const G& g, double x) {
  using V = decltype(g(x));
  V d{};
  for (std::size_t r = 0; r < tl::detail::size_of<V>; ++r)
    tl::detail::element_at(d, r) = fd::derivative(
        [&](double t) {
          const V v = g(t);
          return double(tl::detail::element_at(v, r));
        },
        x);
  return d;
}

/// The m x n Jacobian of g (vector of m -> anything of m elements) at x (vector of n), by differences.
template <std::size_t M, std::size_t N, class G>
tl::matrix<double, M, N> fd_jacobian(const G& g, const tl::vector<double, N>& x) {
  tl::matrix<double, M, N> J;
  for (std::size_t j = 0; j < N; ++j) {
    const auto column = fd_slope(
        [&](double t) {
          auto moved = x;
          moved[j] = t;
          return g(moved);
        },
        x[j]);
    for (std::size_t i = 0; i < M; ++i) J(i, j) = tl::detail::element_at(column, i);
  }
  return J;
}

/// The largest distance(a_i, b_i) over the elements of a and b.
template <class A, class B, class Distance>
double worst_element(const A& a, const B& b, Distance distance) {
  double worst = 0;
  for (std::size_t i = 0; i < tl::detail::size_of<A>; ++i)
    worst = std::max(worst, distance(tl::detail::element_at(a, i), tl::detail::element_at(b, i)));
  return worst;
}

template <class A, class B>
double max_rel_error(const A& a, const B& b) {
  return worst_element(a, b, fd::rel_error);
}

/// The largest distance in ulp between the elements of a and b.
template <class A, class B>
double max_ulps(const A& a, const B& b) {
  return worst_element(a, b, fd::ulp_distance);
}

template <std::size_t N>
tl::vector<double, N> random_vector(fd::rng& r, double lo, double hi) {
  tl::vector<double, N> v;
  for (auto& e : v) e = r.uniform(lo, hi);
  return v;
}

/// The contract's function of a vector, F(v) = M v + sin(v0), 4 numbers to 3, at the contract's point.
inline constexpr tl::matrix<double, 3, 4> contract_m{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
inline constexpr auto contract_f = [](const auto& v) { return tl::matmul(contract_m, v) + tl::sin(v[0]); };
inline constexpr tl::vector<double, 4> contract_x{-1.2, 1.0, 0.5, 2.0};

/// F's Jacobian: M, with cos(x0) added to its first column.
inline tl::matrix<double, 3, 4> contract_jacobian(const tl::vector<double, 4>& x) {
  tl::matrix<double, 3, 4> J = contract_m;
  for (std::size_t i = 0; i < 3; ++i) J(i, 0) += std::cos(x[0]);
  return J;
}

}  // namespace ho
