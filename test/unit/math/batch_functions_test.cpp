// SPDX-License-Identifier: BSL-1.0
// The elementary functions of SIMD batches (tapeless/math/batch_functions.hpp) against the standard library's:
// within 2 ulp at seeded random points over each function's domain, dense around the ranges where the
// batch form hands over to std (exp, expm1, exp2, log, log2, log10, sinh, cosh, acosh), and equal on
// NaN, infinities, zeros and subnormals.
// Each batch holds different points, so the lanes of one batch take different paths.
#include <doctest/doctest.h>
#include <tapeless/math/functions.hpp>

#include <finite_difference.hpp>
#include <sanitizers.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#if TAPELESS_SIMD

namespace {

namespace math = tapeless::math;
using batch = tapeless::detail::simd::batch<double>;
constexpr std::size_t width = batch::size;

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double dbl_min = std::numeric_limits<double>::min();
constexpr double denorm = std::numeric_limits<double>::denorm_min();

constexpr std::size_t sweep_points = test_support::points_to_run(100000);  // a tenth under ASan

/// Seeded points: uniform in [lo, hi], or with a uniform logarithm in [lo, hi] (lo > 0) and a random sign.
std::vector<double> points(std::uint64_t seed, double lo, double hi, bool log_scale, std::size_t n = sweep_points) {
  fd::rng r{seed};
  std::vector<double> xs(n);
  for (auto& x : xs) {
    if (log_scale) {
      x = std::exp(r.uniform(std::log(lo), std::log(hi)));
      if (r.uniform(0.0, 1.0) < 0.5) x = -x;
    } else {
      x = r.uniform(lo, hi);
    }
  }
  return xs;
}

const std::vector<double> specials{0.0,     -0.0,   inf,     -inf,    std::nan(""), denorm, -denorm, 1e-310, -1e-310,
                                   dbl_min, 1e-300, -1e-300, 1.0,     -1.0,         0.5,    700.0,   -700.0, 708.39,
                                   709.43,  709.78, 710.0,   -708.39, -708.4,       -745.1, -746.0,  1e308,  -1e308};

/// The largest ulp distance of f on batches of xs from g on each x; the first x at it.
template <class F, class G>
std::pair<double, double> worst(const F& f, const G& g, const std::vector<double>& xs) {
  std::pair<double, double> w{0.0, 0.0};
  for (std::size_t i = 0; i + width <= xs.size(); i += width) {
    alignas(64) std::array<double, width> out;
    f(batch::load_unaligned(xs.data() + i)).store_aligned(out.data());
    for (std::size_t k = 0; k < width; ++k) {
      const double d = fd::ulp_distance(out[k], g(xs[i + k]));
      if (d > w.first) w = {d, xs[i + k]};
    }
  }
  return w;
}

/// f against g: within 2 ulp over every range given, and on the special values (each in every lane
/// position beside the others).
template <class F, class G>
void check(const std::string& name, const F& f, const G& g, std::initializer_list<std::vector<double>> ranges) {
  std::uint64_t n = 0;
  for (const auto& xs : ranges) {
    const std::pair<double, double> w = worst(f, g, xs);  // not bound by name: INFO cannot capture bindings
    INFO(name << ", range " << n++ << ": " << w.first << " ulp at x = " << fd::str(w.second));
    CHECK(w.first <= 2);
  }
  std::vector<double> rotated = specials;
  for (std::size_t shift = 0; shift < width; ++shift) {
    std::rotate(rotated.begin(), rotated.begin() + 1, rotated.end());
    const std::pair<double, double> w = worst(f, g, rotated);
    INFO(name << " at special values: " << w.first << " ulp at x = " << fd::str(w.second));
    CHECK(w.first <= 2);
  }
}

}  // namespace

TEST_CASE("exp of a batch: within 2 ulp of std::exp, subnormal results and overflow included") {
  check(
      "exp", [](const batch& x) { return math::exp(x); }, [](double x) { return std::exp(x); },
      {points(1, -746, 710, false), points(2, 1e-300, 700, true), points(3, -709.5, -707.5, false),
       points(4, 709.0, 709.9, false)});
}

TEST_CASE("exp_unguarded: within 1 ulp of std::exp where that is normal; elsewhere a value its callers reject") {
  // What exp_scaled (ops/reduction.hpp) relies on: each lane is std::exp's within 1 ulp, or a value
  // that fails its test (at least the smallest normal number and at most 2^64), and never the first
  // where e^x is a normal number below 2^1023.
  const auto rejected = [](double y) { return !(y >= dbl_min && y <= 0x1p64); };
  std::vector<double> xs = specials;
  for (const auto& more : {points(23, -800, 800, false), points(24, 1e-300, 1e308, true), points(25, -709, -708, false),
                           points(26, 709, 710, false), points(27, -1, 1, false)})
    xs.insert(xs.end(), more.begin(), more.end());
  std::size_t exact = 0, refused = 0;
  for (std::size_t i = 0; i + width <= xs.size(); i += width) {
    alignas(64) std::array<double, width> out;
    math::exp_unguarded(batch::load_unaligned(xs.data() + i)).store_aligned(out.data());
    for (std::size_t k = 0; k < width; ++k) {
      const double x = xs[i + k], y = out[k], d = fd::ulp_distance(y, std::exp(x));
      INFO("x = " << fd::str(x) << ": " << fd::str(y) << ", " << d << " ulp from std::exp");
      if (x >= -708.39 && x <= 709.43) {
        CHECK(d <= 1);
      } else {
        CHECK((d <= 1 || rejected(y)));
      }
      (d <= 1 ? exact : refused) += 1;
    }
  }
  CHECK(refused > 1000);  // the ranges reach the rejected lanes, above and below
  CHECK(exact > sweep_points);
}

TEST_CASE("expm1 of a batch: within 2 ulp of std::expm1") {
  check(
      "expm1", [](const batch& x) { return math::expm1(x); }, [](double x) { return std::expm1(x); },
      {points(5, -800, 710, false), points(6, 1e-300, 1, true), points(7, 708.5, 709.9, false)});
}

TEST_CASE("log of a batch: within 2 ulp of std::log, subnormal arguments included; NaN below 0") {
  check(
      "log", [](const batch& x) { return math::log(x); }, [](double x) { return std::log(x); },
      {points(8, 1e-320, 1e308, true), points(9, 0.5, 2, false), points(10, denorm, 1e-300, true)});
}

TEST_CASE("log1p of a batch: within 2 ulp of std::log1p") {
  check(
      "log1p", [](const batch& x) { return math::log1p(x); }, [](double x) { return std::log1p(x); },
      {points(11, -1, 1e308, false), points(12, 1e-300, 1e300, true), points(13, -1, -0.5, false)});
}

TEST_CASE("sqrt, sin, cos, tanh, abs of a batch: within 2 ulp of std") {
  check(
      "sqrt", [](const batch& x) { return math::sqrt(x); }, [](double x) { return std::sqrt(x); },
      {points(14, denorm, 1e308, true)});
  check(
      "sin", [](const batch& x) { return math::sin(x); }, [](double x) { return std::sin(x); },
      {points(15, -100, 100, false), points(16, 1e-300, 1e308, true)});
  check(
      "cos", [](const batch& x) { return math::cos(x); }, [](double x) { return std::cos(x); },
      {points(17, -100, 100, false), points(18, 1e-300, 1e308, true)});
  check(
      "tanh", [](const batch& x) { return math::tanh(x); }, [](double x) { return std::tanh(x); },
      {points(19, -30, 30, false), points(20, 1e-300, 1e300, true)});
  check(
      "abs", [](const batch& x) { return math::abs(x); }, [](double x) { return std::abs(x); },
      {points(21, 1e-300, 1e300, true)});
}

TEST_CASE("exp2, log2, log10 of a batch: within 2 ulp of std, subnormal results and arguments included") {
  check(
      "exp2", [](const batch& x) { return math::exp2(x); }, [](double x) { return std::exp2(x); },
      {points(28, -1080, 1030, false), points(29, 1e-300, 1000, true), points(30, -1023, -1021, false),
       points(31, 1022.5, 1024.5, false)});
  check(
      "log2", [](const batch& x) { return math::log2(x); }, [](double x) { return std::log2(x); },
      {points(32, 1e-320, 1e308, true), points(33, 0.5, 2, false), points(34, denorm, 1e-300, true)});
  check(
      "log10", [](const batch& x) { return math::log10(x); }, [](double x) { return std::log10(x); },
      {points(35, 1e-320, 1e308, true), points(36, 0.5, 2, false), points(37, denorm, 1e-300, true)});
}

TEST_CASE("sinh, cosh, asinh, acosh, atanh of a batch: within 2 ulp of std, overflow and NaN outside the domain") {
  check(
      "sinh", [](const batch& x) { return math::sinh(x); }, [](double x) { return std::sinh(x); },
      {points(38, -720, 720, false), points(39, 1e-300, 700, true), points(40, 708, 711, false)});
  check(
      "cosh", [](const batch& x) { return math::cosh(x); }, [](double x) { return std::cosh(x); },
      {points(41, -720, 720, false), points(42, 1e-300, 700, true), points(43, -711, -708, false)});
  check(
      "asinh", [](const batch& x) { return math::asinh(x); }, [](double x) { return std::asinh(x); },
      {points(44, -100, 100, false), points(45, 1e-300, 1e308, true)});
  check(
      "acosh", [](const batch& x) { return math::acosh(x); }, [](double x) { return std::acosh(x); },
      {points(46, 1, 1e308, true), points(47, 0.5, 1.5, false), points(48, 1, 1.001, false)});
  check(
      "atanh", [](const batch& x) { return math::atanh(x); }, [](double x) { return std::atanh(x); },
      {points(49, -1.5, 1.5, false), points(50, 1e-300, 1, true), points(51, 0.999, 1, false)});
}

TEST_CASE("asin, acos, atan of a batch: within 2 ulp of std, NaN outside the domain") {
  check(
      "asin", [](const batch& x) { return math::asin(x); }, [](double x) { return std::asin(x); },
      {points(52, -1.5, 1.5, false), points(53, 1e-300, 1, true), points(54, 0.999, 1, false)});
  check(
      "acos", [](const batch& x) { return math::acos(x); }, [](double x) { return std::acos(x); },
      {points(55, -1.5, 1.5, false), points(56, 1e-300, 1, true), points(57, -1, -0.999, false)});
  check(
      "atan", [](const batch& x) { return math::atan(x); }, [](double x) { return std::atan(x); },
      {points(58, -100, 100, false), points(59, 1e-300, 1e308, true)});
}

TEST_CASE("math::lazy_select: the side each lane takes, as ?: does for one number") {
  const batch x = batch::load_unaligned(points(22, -2, 2, false, width).data());
  alignas(64) std::array<double, width> xs, out;
  x.store_aligned(xs.data());
  math::lazy_select(
      x < batch(0.0), [&] { return -x; }, [&] { return x * 2.0; })
      .store_aligned(out.data());
  for (std::size_t k = 0; k < width; ++k) CHECK(out[k] == (xs[k] < 0 ? -xs[k] : xs[k] * 2.0));
  int calls = 0;
  const auto counted = [&] {
    ++calls;
    return x;
  };
  (void)math::lazy_select(x == x, counted, counted);  // every lane true: one side computed
  CHECK(calls == 1);
  CHECK(math::lazy_select(
            true, [] { return 1.0; }, [] { return 2.0; }) == 1.0);
}

#else

TEST_CASE("SIMD batches: this build has none (no xsimd, or TAPELESS_NO_SIMD); the scalar loops are the ones tested") {
  CHECK(!tapeless::detail::simd::available<double>);
}

#endif
