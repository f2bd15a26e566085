// SPDX-License-Identifier: BSL-1.0
// bench/suite.hpp: the inputs and the agreement check of the benchmark suite (doc: /work/shared/benchmarks.md).
//
// Every case draws its inputs from a fresh input_stream, in the order benchmarks.md lists them,
// row-major for matrices, and checks once, before timing, that each library's gradient agrees
// with the hand-written one to 1e-12 relative.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace tapeless_bench {

/// The deterministic stream u(0), u(1), ... of benchmarks.md:
///   s(0) = 42; s(k+1) = 6364136223846793005 s(k) + 1442695040888963407 mod 2^64;
///   u(k) = (s(k+1) >> 11) * 2^-53, uniform in [0, 1).
/// One stream per case: construct a new one for each case.
class input_stream {
 public:
  /// The next number u(k), in [0, 1).
  constexpr double next() noexcept {
    state_ = 6364136223846793005ULL * state_ + 1442695040888963407ULL;  // mod 2^64 by unsigned wrap-around
    return static_cast<double>(state_ >> 11) * 0x1.0p-53;
  }
  /// The next number scaled to [lo, hi): lo + (hi - lo) u, the `a u + b` of benchmarks.md.
  constexpr double uniform(double lo, double hi) noexcept { return lo + (hi - lo) * next(); }

 private:
  std::uint64_t state_ = 42;
};

// The stream is checked at compile time against its definition, so every bench file agrees on it.
static_assert([] {
  input_stream u;
  return u.next() == static_cast<double>((6364136223846793005ULL * 42ULL + 1442695040888963407ULL) >> 11) * 0x1.0p-53;
}());
static_assert([] {
  input_stream u;
  for (int k = 0; k < 1000; ++k) {
    const double v = u.next();
    if (!(v >= 0.0 && v < 1.0)) return false;
  }
  return true;
}());

/// True when `got` agrees with `want` to `rel` relative (exactly when both are 0).
inline bool agrees(double got, double want, double rel = 1e-12) {
  if (got == want) return true;
  if (!std::isfinite(got) || !std::isfinite(want)) return false;
  return std::abs(got - want) <= rel * std::max(std::abs(got), std::abs(want));
}

/// Compares `n` gradient components of `library` with the hand-written ones; prints every mismatch.
/// Returns true when all agree to 1e-12 relative.
inline bool check_gradient(std::string_view case_name, std::string_view library, const double* got,
                           const double* want, std::size_t n) {
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (!agrees(got[i], want[i])) {
      std::fprintf(stderr, "MISMATCH %.*s/%.*s: d/dx[%zu] = %.17g, hand-written %.17g (relative error %.3g)\n",
                   static_cast<int>(case_name.size()), case_name.data(), static_cast<int>(library.size()),
                   library.data(), i, got[i], want[i],
                   std::abs(got[i] - want[i]) / std::max(std::abs(got[i]), std::abs(want[i])));
      ok = false;
    }
  }
  return ok;
}

}  // namespace tapeless_bench
