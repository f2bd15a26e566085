// SPDX-License-Identifier: BSL-1.0
// An operation of one's own over whole matrices of fixed shape (doc/extending.md), which does not say it
// takes run-time extents (operation_traits::takes_run_time_extents): for the compile-fail tests of such
// an operation of an array of run-time extents. Included after <tapeless/tapeless.hpp>, not by itself:
// g++ reads the compile-fail tests' first include from a precompiled header, and a second #include of it
// would find no header beside the precompiled one.
#pragma once

#include <cstddef>

/// 2 x, an operation over whole fixed-shape matrices.
struct doubled : tapeless::detail::matrix_operation {
  static constexpr tapeless::operation_traits traits{.name = "doubled"};
  template <class T, std::size_t R, std::size_t C>
  static constexpr tapeless::matrix<T, R, C> value(const tapeless::matrix<T, R, C>& x) {
    return x * T(2);
  }
  template <class T, std::size_t R, std::size_t C>
  static constexpr tapeless::matrix<T, R, C> vjp(const tapeless::matrix<T, R, C>& g,
                                                 const tapeless::matrix<T, R, C>& /*x*/,
                                                 const tapeless::matrix<T, R, C>& /*y*/) {
    return g * T(2);
  }
};
