// SPDX-License-Identifier: BSL-1.0
// bench/suite.hpp: the inputs and the agreement check of the benchmark suite (doc: /work/shared/benchmarks.md).
//
// Every case draws its inputs from a fresh input_stream, in the order benchmarks.md lists them,
// row-major for matrices, and checks once, before timing, that its hand-written gradient agrees with
// central differences (check_differences) and that each library's gradient agrees with the
// hand-written one to 1e-12 relative (check_case).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

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

/// Inputs (or a gradient) given as a list, std::array or std::tuple: a kernel receives the elements as
/// its parameters. Anything else (a case's input struct, a tl::matrix) is one value.
template <class In>
concept argument_list = requires { std::tuple_size<std::remove_cvref_t<In>>::value; };

/// Kernel called on a case's inputs: spread over its parameters if they are a list, else passed whole.
template <auto Kernel, class In>
constexpr decltype(auto) invoke_kernel(const In& in) {
  if constexpr (argument_list<In>)
    return std::apply(Kernel, in);
  else
    return std::invoke(Kernel, in);
}

/// Every number of a gradient in order: a number, a matrix (row-major), or a tuple of them.
template <class R>
void append_components(std::vector<double>& out, const R& r) {
  if constexpr (std::is_arithmetic_v<R>)
    out.push_back(static_cast<double>(r));
  else if constexpr (argument_list<R>)
    std::apply([&](const auto&... part) { (append_components(out, part), ...); }, r);
  else
    for (const auto& e : r) out.push_back(static_cast<double>(e));
}
template <class R>
std::vector<double> components(const R& r) {
  std::vector<double> out;
  append_components(out, r);
  return out;
}

/// Checks `Library` against `Reference` (the hand-written kernel) on the inputs `Inputs()` returns:
/// every component to 1e-12 relative. Prints each mismatch.
template <auto Reference, auto Library, auto Inputs>
bool check_case(std::string_view case_name, std::string_view library = "tapeless") {
  const auto in = Inputs();
  const std::vector<double> want = components(invoke_kernel<Reference>(in));
  const std::vector<double> got = components(invoke_kernel<Library>(in));
  if (got.size() != want.size()) {
    std::fprintf(stderr, "MISMATCH %.*s/%.*s: %zu gradient components, hand-written %zu\n",
                 static_cast<int>(case_name.size()), case_name.data(), static_cast<int>(library.size()),
                 library.data(), got.size(), want.size());
    return false;
  }
  return check_gradient(case_name, library, got.data(), want.data(), got.size());
}

/// Pointers to every number of the given inputs, in order (numbers, and matrices row-major): the
/// differentiated inputs of a case, in the order of its gradient's components.
template <class... P>
std::vector<double*> parameters(P&... p) {
  std::vector<double*> out;
  auto add = [&](auto& x) {
    if constexpr (std::is_arithmetic_v<std::remove_cvref_t<decltype(x)>>)
      out.push_back(&x);
    else
      for (auto& e : x) out.push_back(&e);
  };
  (add(p), ...);
  return out;
}

/// Checks the hand-written gradient `Reference` against central differences of `value` (the function
/// in plain doubles, of the inputs) with respect to the numbers `select(in)` points to (see
/// parameters()). Loose: each component within `tolerance` times the largest component.
template <auto Reference, auto Inputs, class Value, class Select>
bool check_differences(std::string_view case_name, Value value, Select select, double tolerance = 1e-6) {
  auto in = Inputs();
  const std::vector<double> g = components(invoke_kernel<Reference>(in));
  const std::vector<double*> x = select(in);
  if (g.size() != x.size()) {
    std::fprintf(stderr, "MISMATCH %.*s/handwritten: %zu gradient components for %zu inputs\n",
                 static_cast<int>(case_name.size()), case_name.data(), g.size(), x.size());
    return false;
  }
  double scale = 0;
  for (double c : g) scale = std::max(scale, std::abs(c));
  bool ok = true;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double x0 = *x[i], h = 1e-6 * std::max(1.0, std::abs(x0));
    *x[i] = x0 + h;
    const double up = value(in);
    *x[i] = x0 - h;
    const double down = value(in);
    *x[i] = x0;
    const double fd = (up - down) / (2 * h);
    if (!(std::abs(fd - g[i]) <= tolerance * scale)) {
      std::fprintf(stderr, "MISMATCH %.*s/handwritten: d/dx[%zu] = %.17g, central difference %.17g\n",
                   static_cast<int>(case_name.size()), case_name.data(), i, g[i], fd);
      ok = false;
    }
  }
  return ok;
}

}  // namespace tapeless_bench
