// SPDX-License-Identifier: BSL-1.0
// tapeless/matrix/extent.hpp: an extent of a matrix, fixed, run-time (tl::dynamic) or run-time up to a
// bound held inline (tl::bounded<Max>).
//
// An extent is a std::size_t template argument, as Eigen's Dynamic is an int one: `tl::matrix<double,
// tl::dynamic, 3>`, `tl::vector<double, tl::bounded<16>>`. The two run-time kinds are values no fixed
// extent takes: the top bit set. So every template that names `matrix<T, R, C>` keeps its parameters,
// and the ones that mean fixed extents say so with `fixed_extent`.
// Tests: test/unit/matrix/run_time_matrix_test.cpp
#pragma once

#include <cstddef>
#include <limits>

namespace tapeless {

namespace detail {
/// The bit that marks an extent as known only at run time.
inline constexpr std::size_t run_time_extent_bit = std::size_t{1} << (std::numeric_limits<std::size_t>::digits - 1);
}  // namespace detail

/// An extent known only at run time, its elements on the heap: `tl::vector<double, tl::dynamic> x(n)`.
inline constexpr std::size_t dynamic = std::numeric_limits<std::size_t>::max();

/// An extent known only at run time and at most Max, its elements held inline: no heap, and usable in
/// constant expressions. A larger extent throws std::length_error where the matrix is made.
template <std::size_t Max>
  requires(Max > 0 && Max < detail::run_time_extent_bit - 1)
inline constexpr std::size_t bounded = detail::run_time_extent_bit | Max;

/// Whether an extent is a compile-time constant.
constexpr bool fixed_extent(std::size_t extent) noexcept { return (extent & detail::run_time_extent_bit) == 0; }

/// Whether an extent is tl::bounded<Max> for some Max.
constexpr bool bounded_extent(std::size_t extent) noexcept { return !fixed_extent(extent) && extent != dynamic; }

/// The largest value an extent can take: itself when fixed, Max for tl::bounded<Max>, and tl::dynamic
/// for tl::dynamic.
constexpr std::size_t max_extent(std::size_t extent) noexcept {
  return bounded_extent(extent) ? extent & ~detail::run_time_extent_bit : extent;
}

}  // namespace tapeless
