// SPDX-License-Identifier: BSL-1.0
// The checks of one scalar operation: check_unary (a unary operation at seeded random points, checked
// four ways), check_fan_out (a binary one with the same variable on both sides) and check_domain_error.
#pragma once

#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <cmath>
#include <concepts>
#include <cstdint>
#include <string>

namespace fd {

inline constexpr int unary_points = 200;

/// How close check_unary's comparisons must be: relative errors, where 0 asks for equality (an operation
/// whose value and derivative are exact, such as abs).
struct unary_tolerances {
  double value = 1e-15;  // the node's value against the reference
  double fd = 1e-6;      // AD against central differences
  double exact = 1e-12;  // AD against the closed form
};

/// a against b within the relative error tol, or equal when tol is 0.
inline bool within(double a, double b, double tol) { return tol == 0 ? a == b : rel_error(a, b) < tol; }

/// The points of check_unary: uniform in [lo, hi].
inline auto uniform_in(double lo, double hi) {
  return [lo, hi](rng& r) { return r.uniform(lo, hi); };
}

/// f at `unary_points` random x drawn by `sample`: value against a reference, gradient against finite
/// differences and the closed form, and tl::var's backward() against tl::grad.
template <class F, class V, class D, std::invocable<rng&> Sample>
void check_unary(const std::string& name, F f, V value, D derivative, Sample sample, std::uint64_t seed,
                 unary_tolerances tol = {}) {
  namespace tl = tapeless;
  rng r{seed};
  for (int i = 0; i < unary_points; ++i) {
    const double x = sample(r);
    const auto vg = tl::value_and_grad(f)(x);
    const double fdg = fd::derivative(f, x);
    const double exact = derivative(x);
    INFO(name << " at x = " << str(x) << ": AD " << str(vg.second) << ", FD " << str(fdg) << ", exact " << str(exact));
    CHECK(within(vg.first, value(x), tol.value));
    CHECK(rel_error(vg.second, fdg) < tol.fd);
    CHECK(within(vg.second, exact, tol.exact));
    tl::var<double> v{x};
    const auto e = f(v);
    e.backward();
    CHECK(e.value() == vg.first);
    CHECK(v.grad() == vg.second);
  }
}

/// The same at points uniform in [lo, hi].
template <class F, class V, class D>
void check_unary(const std::string& name, F f, V value, D derivative, double lo, double hi, std::uint64_t seed,
                 unary_tolerances tol = {}) {
  check_unary(name, f, value, derivative, uniform_in(lo, hi), seed, tol);
}

/// d/dx op(x, x) at `unary_points` random x drawn by `sample`: the same variable on both sides, whose
/// adjoints must add up, against finite differences and dx(x, x) + dy(x, x).
template <class Op, class Dx, class Dy, std::invocable<rng&> Sample>
void check_fan_out(const std::string& name, Op op, Dx dx, Dy dy, Sample sample, std::uint64_t seed,
                   unary_tolerances tol = {}) {
  namespace tl = tapeless;
  rng r{seed};
  const auto same = [op](auto a) { return op(a, a); };
  for (int i = 0; i < unary_points; ++i) {
    const double x = sample(r);
    const double g = tl::grad(same)(x);
    const double fdg = fd::derivative(same, x);
    const double exact = dx(x, x) + dy(x, x);
    INFO(name << "(x, x) at x = " << str(x) << ": AD " << str(g) << ", FD " << str(fdg) << ", exact " << str(exact));
    CHECK(rel_error(g, fdg) < tol.fd);
    CHECK(rel_error(g, exact) < tol.exact);
  }
}

/// f at x outside its domain: a NaN value and a NaN gradient, and no exception. A function has no
/// derivative there, so that a NaN loss cannot come with a finite, misleading gradient.
template <class F>
void check_domain_error(const std::string& name, F f, double x) {
  namespace tl = tapeless;
  CHECK_NOTHROW(static_cast<void>(tl::value_and_grad(f)(x)));
  const auto vg = tl::value_and_grad(f)(x);
  INFO(name << " at x = " << str(x) << ": value " << str(vg.first) << ", gradient " << str(vg.second));
  CHECK(std::isnan(vg.first));
  CHECK(std::isnan(vg.second));
}

}  // namespace fd
