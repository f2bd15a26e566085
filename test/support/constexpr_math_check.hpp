// SPDX-License-Identifier: BSL-1.0
// test/support/constexpr_math_check.hpp: what the tests of tapeless::math::cx (test/unit/math/cx/)
// share: the IEEE classification of results, near() for reference values in constant expressions,
// the edge inputs every function is evaluated on in constant expressions, and the run-time sweeps
// against std::.
//
// Accuracy rule: a point passes when |cx::f - std::f| <= 1e-14 * max(|std::f|, DBL_MIN), that is
// 1e-14 relative everywhere, with an absolute floor of 1e-14 * DBL_MIN (about 45 units of the
// smallest subnormal) for subnormal results. This is stricter than the issue asks (it allows an
// absolute 1e-14 near zeros of the function): the argument reductions keep relative accuracy even
// there, so no point needs the absolute rule. Infinite and NaN results must match exactly.
//
// The sweeps call cx at run time; it is the same code that constant evaluation runs (the dispatch
// test of tapeless/math/functions.hpp checks the two agree bit for bit). Set the environment
// variable TAPELESS_CX_REPORT to print the largest difference from std:: for each function. std::
// is not always the more accurate of the two: glibc's cbrt is off by up to 3 ulp, and its cos and
// tan by 8 and 14 ulp at the hardest argument to reduce, 0x1.6ac5b262ca1ffp+849, where cx is
// correctly rounded.
#pragma once

#include <tapeless/math/cx/common.hpp>

#include <doctest/doctest.h>

#include <finite_difference.hpp>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace constexpr_math_check {

namespace cx = tapeless::math::cx;

inline constexpr double inf = std::numeric_limits<double>::infinity();
inline constexpr double qnan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double dbl_min = std::numeric_limits<double>::min();
inline constexpr double dbl_max = std::numeric_limits<double>::max();
inline constexpr double denorm_min = std::numeric_limits<double>::denorm_min();
inline constexpr double pi = 3.141592653589793;

// ---------------------------------------------------------------------------------------------
// Compile-time helpers

constexpr bool is_nan(double x) { return x != x; }
constexpr bool is_neg(double x) { return (std::bit_cast<std::uint64_t>(x) >> 63) != 0; }
constexpr bool is_pos_zero(double x) { return x == 0 && !is_neg(x); }
constexpr bool is_neg_zero(double x) { return x == 0 && is_neg(x); }
// Within 4e-16 relative (about two ulps) of a reference value.
constexpr bool near(double got, double want) {
  const double d = got - want;
  const double a = want < 0 ? -want : want;
  return (d < 0 ? -d : d) <= 4e-16 * a;
}

// A list of special cases, LIST(CHECK_), is checked in constant expressions,
// LIST(TAPELESS_CX_STATIC_CHECK) at namespace scope, and again at run time,
// LIST(TAPELESS_CX_RUNTIME_CHECK) in a test case. No case may reach NaN-producing or overflowing
// arithmetic, which constant evaluation rejects.
#define TAPELESS_CX_STATIC_CHECK(...) static_assert(__VA_ARGS__)
#define TAPELESS_CX_RUNTIME_CHECK(...) CHECK((__VA_ARGS__))

// Every function on edge inputs (zeros, subnormals, branch and overflow thresholds, huge values,
// infinities, NaN) inside constant expressions: none may reach an operation that constant
// evaluation rejects (overflow to infinity on g++, a NaN result on clang, division by zero).
inline constexpr double edge_inputs[] = {
    0.0,     -0.0,     denorm_min, -denorm_min, 1e-310, -1e-310, dbl_min, -dbl_min, 1e-300, -1e-300, 0x1p-54, -0x1p-54,
    0x1p-28, -0x1p-28, 0.25,       -0.25,       0.5,    -0.5,    0.84375, -0.84375, 1.0,    -1.0,    1.25,    -1.25,
    2.0,     -2.0,     6.0,        -6.0,        22.0,   -22.0,   27.3,    -27.3,    28.0,   -28.0,   40.0,    -40.0,
    709.8,   -709.8,   710.5,      -710.5,      745.2,  -745.2,  1024.0,  -1024.0,  1075.0, -1075.0, 1.6e6,   -1.6e6,
    0x1p53,  -0x1p53,  0x1p66,     -0x1p66,     1e300,  -1e300,  dbl_max, -dbl_max, inf,    -inf,    qnan};
inline constexpr double edge_pairs[] = {0.0, -0.0, denorm_min, -1e-310, 0.5,   -0.5,   1.0,     -1.0, 2.0,  -2.0,
                                        3.0, -3.0, 0.5e3,      -745.0,  1e300, -1e300, dbl_max, inf,  -inf, qnan};
template <class F>
constexpr int evaluate_edges(F f) {
  int finite = 0;
  for (const double x : edge_inputs) finite += f(x) == f(x) ? 1 : 0;
  return finite;
}
template <class F>
constexpr int evaluate_edge_pairs(F f) {
  int finite = 0;
  for (const double x : edge_pairs) {
    for (const double y : edge_pairs) finite += f(x, y) == f(x, y) ? 1 : 0;
  }
  return finite;
}
#define TAPELESS_CX_EDGES(name) static_assert(evaluate_edges([](double x) { return cx::name(x); }) > 0)
#define TAPELESS_CX_EDGE_PAIRS(name) \
  static_assert(evaluate_edge_pairs([](double x, double y) { return cx::name(x, y); }) > 0)

// ---------------------------------------------------------------------------------------------
// Run-time sweeps

// Deterministic points: splitmix64 with a fixed seed per sweep, turned into doubles by hand
// (std::uniform_real_distribution differs between standard libraries).
class points {
 public:
  explicit points(std::uint64_t seed) : state_(seed) {}

  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)
  double uniform(double a, double b) { return a + (b - a) * unit(); }
  // Magnitude 10^u, u uniform in [lo, hi].
  double log_uniform(double lo, double hi) { return std::pow(10.0, uniform(lo, hi)); }
  double sign() { return (next() >> 63) != 0 ? -1.0 : 1.0; }

  std::vector<double> xs;
  void add(double x) { xs.push_back(x); }
  void add_uniform(double a, double b, int n) {
    for (int i = 0; i < n; ++i) add(uniform(a, b));
  }
  void add_grid(double a, double b, int n) {
    for (int i = 0; i <= n; ++i) add(a + (b - a) * i / n);
  }
  void add_log_uniform(double lo, double hi, int n, bool both_signs) {
    for (int i = 0; i < n; ++i) add((both_signs ? sign() : 1.0) * log_uniform(lo, hi));
  }
  // x and its neighbours up to k ulps away on each side.
  void add_around(double x, int k = 3) {
    add(x);
    double up = x, down = x;
    for (int i = 0; i < k; ++i) {
      up = std::nextafter(up, inf);
      down = std::nextafter(down, -inf);
      add(up);
      add(down);
    }
  }

 private:
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

class sweep {
 public:
  explicit sweep(std::string name) : name_(std::move(name)) {}
  ~sweep() {
    CHECK_MESSAGE(failures_ == 0, name_ << ": " << failures_ << " of " << count_ << " points out of tolerance");
    if (std::getenv("TAPELESS_CX_REPORT") != nullptr) {
      std::printf("%-6s %6ld points  max %5.2f ulp  max rel %.2e  at %s\n", name_.c_str(), count_, max_ulp_, max_rel_,
                  worst_.c_str());
    }
  }
  sweep(const sweep&) = delete;
  sweep& operator=(const sweep&) = delete;

  void check(const std::string& at, double got, double want) {
    ++count_;
    bool ok = false;
    double rel = 0;
    if (std::isnan(want)) {
      ok = std::isnan(got);
    } else if (std::isinf(want) || std::isinf(got)) {
      ok = got == want;
    } else {
      const double scale = std::fabs(want) > dbl_min ? std::fabs(want) : dbl_min;
      rel = std::fabs(got - want) / scale;
      ok = rel <= 1e-14;
      if (std::fabs(want) >= dbl_min) {
        const double ulp = fd::ulp_distance(got, want);
        if (ulp > max_ulp_) {
          max_ulp_ = ulp;
          worst_ = at;
        }
      }
      if (rel > max_rel_) max_rel_ = rel;
    }
    if (!ok) {
      ++failures_;
      if (failures_ <= 10) {
        FAIL_CHECK(name_ << at << ": cx " << fd::str(got) << ", std " << fd::str(want) << ", relative error " << rel);
      }
    }
  }

 private:
  std::string name_;
  long count_ = 0;
  long failures_ = 0;
  double max_ulp_ = 0;
  double max_rel_ = 0;
  std::string worst_;
};

template <class Cx, class Std>
void run1(const char* name, const std::vector<double>& xs, Cx cx_f, Std std_f) {
  sweep s(name);
  for (const double x : xs) s.check("(" + fd::str(x) + ")", cx_f(x), std_f(x));
}

template <class Cx, class Std>
void run2(const char* name, const std::vector<double>& xs, const std::vector<double>& ys, Cx cx_f, Std std_f) {
  sweep s(name);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    s.check("(" + fd::str(xs[i]) + ", " + fd::str(ys[i]) + ")", cx_f(xs[i], ys[i]), std_f(xs[i], ys[i]));
  }
}

#define TAPELESS_RUN1(name, xs) \
  run1(                         \
      #name, xs, [](double x) { return cx::name(x); }, [](double x) { return std::name(x); })
#define TAPELESS_RUN2(name, xs, ys)                                     \
  run2(                                                                 \
      #name, xs, ys, [](double x, double y) { return cx::name(x, y); }, \
      [](double x, double y) { return std::name(x, y); })

}  // namespace constexpr_math_check
