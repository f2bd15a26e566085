// SPDX-License-Identifier: BSL-1.0
// check_unary: one unary operation at seeded random points of an interval, checked four ways.
#pragma once

#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace fd {

inline constexpr int unary_points = 200;
inline constexpr double unary_fd_tol = 1e-6;      // AD against central differences
inline constexpr double unary_exact_tol = 1e-12;  // AD against the closed form
inline constexpr double unary_value_tol = 1e-15;  // the node's value against the reference

/// f at `unary_points` random x in [lo, hi]: value against a reference, gradient against finite
/// differences and the closed form, and tl::var's backward() against tl::grad.
template <class F, class V, class D>
void check_unary(const std::string& name, F f, V value, D derivative, double lo, double hi, std::uint64_t seed) {
  namespace tl = tapeless;
  rng r{seed};
  for (int i = 0; i < unary_points; ++i) {
    const double x = r.uniform(lo, hi);
    const auto vg = tl::value_and_grad(f)(x);
    const double fdg = fd::derivative(f, x);
    const double exact = derivative(x);
    INFO(name << " at x = " << str(x) << ": AD " << str(vg.second) << ", FD " << str(fdg) << ", exact " << str(exact));
    CHECK(rel_error(vg.first, value(x)) < unary_value_tol);
    CHECK(rel_error(vg.second, fdg) < unary_fd_tol);
    CHECK(rel_error(vg.second, exact) < unary_exact_tol);
    tl::var<double> v{x};
    const auto e = f(v);
    e.backward();
    CHECK(e.value() == vg.first);
    CHECK(v.grad() == vg.second);
  }
}

}  // namespace fd
