// SPDX-License-Identifier: BSL-1.0
// test/support/finite_difference.hpp: reference derivatives for the tests, independent of tapeless.
//
//   fd::derivative(f, x)        d f / d x of a scalar function of one double
//   fd::derivative_and_error(f, x)  the same with an estimate of its error: {value, error}
//   fd::gradient(f, x1, ..., xN) the N partial derivatives of a scalar function of N doubles
//   fd::partial(f, x, k)        d f / d x[k] of a scalar function of a point x that has x[k] (a matrix)
//   fd::rel_error(a, b)         |a - b| / max(1, |a|, |b|): relative for large values, absolute below 1
//   fd::strict_rel_error(a, b)  |a - b| / max(|a|, |b|): purely relative, for the tails of functions
//   fd::ulp_distance(a, b)      how many doubles apart a and b are (0 for both NaN), for SIMD against std
//   fd::rng{seed}               std::mt19937_64 with a fixed seed; uniform(lo, hi), uniform_away(...)
//   fd::str(x)                  a double printed with all 17 significant digits, for failure messages
//
// Included after <doctest/doctest.h>, it also teaches doctest to print std::pair and std::tuple of
// numbers (with 17 digits) in failed checks such as CHECK(value_and_grad(f)(x) == std::pair{1.0, 2.0}).
//
// The derivatives are central differences refined by two Richardson extrapolations (error O(h^6)),
// with h = 1e-3 * max(1, |x|) and the steps h, h/2, h/4: about 1e-11 relative accuracy for smooth
// functions, and only f(x +- h) is evaluated, so stay h (<= 1e-3 * max(1, |x|)) inside the domain.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

namespace fd {

/// The error between a and b when either is not finite (and they differ): NaN if either is NaN, else +infinity.
inline double unequal_non_finite(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN()
                                        : std::numeric_limits<double>::infinity();
}

/// |a - b| / max(1, |a|, |b|). Equal values (infinities included) give 0, an infinity against anything
/// else +infinity, and a NaN on either side NaN: both fail every `< tolerance` check.
inline double rel_error(double a, double b) {
  if (a == b) return 0.0;
  if (std::isinf(a) || std::isinf(b) || std::isnan(a) || std::isnan(b)) return unequal_non_finite(a, b);
  return std::abs(a - b) / std::max({1.0, std::abs(a), std::abs(b)});
}

/// |a - b| / max(|a|, |b|), with no absolute floor: for values far below 1 (e^-700, say).
inline double strict_rel_error(double a, double b) {
  if (a == b) return 0.0;
  if (std::isinf(a) || std::isinf(b) || std::isnan(a) || std::isnan(b)) return unequal_non_finite(a, b);
  return std::abs(a - b) / std::max({std::abs(a), std::abs(b), std::numeric_limits<double>::min()});
}

/// The number of doubles between a and b: 0 when they are equal (0 and -0 too) or both NaN, the largest
/// double for a NaN against a number.
inline double ulp_distance(double a, double b) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return 0;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::max();
  const auto ordered = [](double x) {  // the bit patterns, in the order of the doubles
    std::int64_t i = 0;
    std::memcpy(&i, &x, sizeof x);
    return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
  };
  const std::int64_t i = ordered(a), j = ordered(b);  // subtracted as unsigned: no overflow, no rounding
  return static_cast<double>(i > j ? static_cast<std::uint64_t>(i) - static_cast<std::uint64_t>(j)
                                   : static_cast<std::uint64_t>(j) - static_cast<std::uint64_t>(i));
}

/// The default step at x: 1e-3 * max(1, |x|).
inline double step_at(double x) { return 1e-3 * std::max(1.0, std::abs(x)); }

/// d f / d x by central differences at h, h/2, h/4 combined by Richardson extrapolation.
template <class F>
double derivative(F&& f, double x, double h) {
  const auto central = [&](double s) {
    return (static_cast<double>(f(x + s)) - static_cast<double>(f(x - s))) / (2.0 * s);
  };
  const double d1 = central(h), d2 = central(h / 2), d4 = central(h / 4);
  const double r1 = (4.0 * d2 - d1) / 3.0;  // error O(h^4)
  const double r2 = (4.0 * d4 - d2) / 3.0;
  return (16.0 * r2 - r1) / 15.0;  // error O(h^6)
}

template <class F>
double derivative(F&& f, double x) {
  return derivative(f, x, step_at(x));
}

/// A derivative and an estimate of its error.
struct estimate {
  double value;
  double error;
};

/// derivative(f, x) at the step h / 4 (h = step_at(x)), with an estimate of its error: the largest of
/// its change from the step h and its difference from a plain central difference at h / 100 (a kink or
/// a pole within the step shows in one or the other), and the rounding of f amplified by the steps,
/// 64 ε |f(x)| / h (it dominates where f is far larger than the part of it that x changes).
template <class F>
estimate derivative_and_error(F&& f, double x) {
  const double h = step_at(x);
  const double fine = derivative(f, x, h / 4), coarse = derivative(f, x, h);
  const double k = h / 100;
  const double near = (static_cast<double>(f(x + k)) - static_cast<double>(f(x - k))) / (2 * k);
  const double rounding = 64 * std::numeric_limits<double>::epsilon() * std::abs(static_cast<double>(f(x))) / h;
  return {fine, std::max({std::abs(fine - coarse), std::abs(fine - near), rounding})};
}

/// d f / d x[k] at the point x (a matrix, a vector: anything copyable with x[k]), by derivative() with
/// the other elements held fixed.
template <class F, class X>
double partial(F&& f, const X& x, std::size_t k) {
  return derivative(
      [&](double e) {
        X moved = x;
        moved[k] = e;
        return static_cast<double>(f(moved));
      },
      static_cast<double>(x[k]));
}

/// The N partial derivatives of f(x1, ..., xN), each by derivative() with the others held fixed.
template <class F, class... X>
std::array<double, sizeof...(X)> gradient(F&& f, X... xs) {
  constexpr std::size_t n = sizeof...(X);
  const std::array<double, n> at{static_cast<double>(xs)...};
  std::array<double, n> out{};
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = derivative(
        [&](double xi) {
          std::array<double, n> moved = at;
          moved[i] = xi;
          return std::apply([&](auto... a) { return static_cast<double>(f(a...)); }, moved);
        },
        at[i]);
  }
  return out;
}

/// Seeded random numbers: every run of a test sees the same points.
class rng {
 public:
  explicit rng(std::uint64_t seed) : engine_(seed) {}

  /// Uniform in [lo, hi].
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(engine_); }

  /// Uniform in [lo, hi], at least `margin` away from each of `avoid` (kinks, poles, branch cuts).
  double uniform_away(double lo, double hi, std::initializer_list<double> avoid, double margin) {
    for (;;) {
      const double x = uniform(lo, hi);
      if (std::none_of(avoid.begin(), avoid.end(), [&](double a) { return std::abs(x - a) < margin; })) return x;
    }
  }

  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

/// x with 17 significant digits, so that a failure message shows the exact number.
inline std::string str(double x) {
  std::ostringstream os;
  os.precision(17);
  os << x;
  return os.str();
}

namespace detail {
template <class A, class B>
std::string describe(const std::pair<A, B>& p);
template <class... T>
std::string describe(const std::tuple<T...>& t);

template <class T>
std::string describe(const T& x) {
  return str(static_cast<double>(x));
}
template <class A, class B>
std::string describe(const std::pair<A, B>& p) {
  return "(" + describe(p.first) + ", " + describe(p.second) + ")";
}
template <class... T>
std::string describe(const std::tuple<T...>& t) {
  std::string s;
  std::apply([&](const auto&... e) { ((s += (s.empty() ? "" : ", ") + describe(e)), ...); }, t);
  return "(" + s + ")";
}
}  // namespace detail

}  // namespace fd

#ifdef DOCTEST_LIBRARY_INCLUDED
namespace doctest {
template <class A, class B>
struct StringMaker<std::pair<A, B>> {
  static String convert(const std::pair<A, B>& p) { return fd::detail::describe(p).c_str(); }
};
template <class... T>
struct StringMaker<std::tuple<T...>> {
  static String convert(const std::tuple<T...>& t) { return fd::detail::describe(t).c_str(); }
};
}  // namespace doctest
#endif
