// SPDX-License-Identifier: BSL-1.0
// test/support/run_time_twin.hpp: a function of a vector of run-time size against its fixed-shape twin
// at the same values (test/unit/transforms/, test/unit/expr/run_time_elementwise/): seeded vectors,
// their fixed copies, seeded fixed matrices and their copies of run-time extents, the sizes around a
// SIMD batch of 2, 4 or 8 doubles and 31, 32, 33, 256, and the comparison of value and gradients.
#pragma once

#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace run_time_twin {

namespace tl = tapeless;

using dynamic_vector = tl::vector<double, tl::dynamic>;

/// n values drawn from [lo, hi) with the seed given, in a vector of type V (of run-time size n, or
/// fixed of size n).
template <class V>
V seeded(std::size_t n, std::uint64_t seed, double lo = -1.5, double hi = 1.5) {
  // Made at its size, not assigned one: a bounded vector's elements are set below, never copied unset.
  V x = [&] {
    if constexpr (tl::RunTimeMatrix<V>)
      return V(n);
    else
      return V{};
  }();
  fd::rng u(seed);
  for (std::size_t k = 0; k < n; ++k) x[k] = u.uniform(lo, hi);
  return x;
}

/// The tl::vector<double, N> of x's values.
template <std::size_t N, class V>
tl::vector<double, N> fixed_copy(const V& x) {
  tl::vector<double, N> out;
  for (std::size_t k = 0; k < N; ++k) out[k] = x[k];
  return out;
}

/// A fixed matrix F of values drawn from [-1, 1) with the seed given.
template <class F>
F drawn(std::uint64_t seed) {
  F out;
  fd::rng u(seed);
  for (double& e : out) e = u.uniform(-1.0, 1.0);
  return out;
}

/// The fixed matrix F's values, element by element, in a matrix of type M (of run-time extents).
template <class M, class F>
M copy_of(const F& fixed) {
  M out(F::rows(), F::cols());
  for (std::size_t k = 0; k < F::size(); ++k) out.data()[k] = fixed.data()[k];
  return out;
}

/// A gradient g of run-time extents against its fixed twin's: F's extents, each element to `tolerance`
/// relative.
template <class M, class F>
void check_elements_against_twin(const M& g, const F& fixed_g, double tolerance = 1e-13) {
  REQUIRE(g.rows() == F::rows());
  REQUIRE(g.cols() == F::cols());
  for (std::size_t k = 0; k < F::size(); ++k) CHECK(fd::rel_error(g.data()[k], fixed_g.data()[k]) < tolerance);
}

/// check.template operator()<N>() at each N given, in order.
template <std::size_t... N, class Check>
void at_each(const Check& check) {
  (check.template operator()<N>(), ...);
}

/// check.template operator()<N>() at N = 2, 3, 4, 5, 7, 8, 9, 31, 32, 33 and 256.
template <class Check>
void at_sizes(const Check& check) {
  at_each<2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 256>(check);
}

/// f(x, a) against fixed(xf, a), xf x's values in a fixed vector: values and both gradients to 1e-13
/// relative, x's gradient a tl::vector<double, tl::dynamic>; and f of plain values, the same number.
template <class F, class Fixed, class XF>
void check_against_twin(const F& f, const Fixed& fixed, const dynamic_vector& x, const XF& xf, double a) {
  const auto [value, g] = tl::value_and_grad(f)(x, a);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(fixed)(xf, a);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(g))>, dynamic_vector>);
  CHECK(fd::rel_error(value, fixed_value) < 1e-13);
  CHECK(fd::rel_error(std::get<1>(g), std::get<1>(fixed_g)) < 1e-13);
  REQUIRE(std::get<0>(g).size() == x.size());
  for (std::size_t k = 0; k < x.size(); ++k) CHECK(fd::rel_error(std::get<0>(g)[k], std::get<0>(fixed_g)[k]) < 1e-13);
  CHECK(fd::rel_error(f(x, a), value) < 1e-13);
}

}  // namespace run_time_twin
