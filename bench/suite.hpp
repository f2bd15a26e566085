// SPDX-License-Identifier: BSL-1.0
// bench/suite.hpp: the inputs and the agreement check of the benchmark suite (the suite's own specification).
//
// Every case draws its inputs from a fresh input_stream, in the order the suite lists them,
// row-major for matrices. Before timing, the harness checks every library's gradient against the
// hand-written one (check_gradient): to 1e-12 relative, or, for central differences, to 1e-6 of the
// largest component, which also checks the hand-written gradient itself.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

// Every kernel is inlined into the loop that times it, as a gradient written in a caller's code would
// be: the timing is then that of the gradient's code, not of the call into a wrapper of the bench file
// (whether a compiler inlines a wrapper depends on its size before optimisation, which for tapeless
// is the unoptimised expression tree). The library's own functions are left to the compiler.
#define TAPELESS_BENCH_KERNEL [[gnu::always_inline]] inline

namespace tapeless_bench {

/// The deterministic stream u(0), u(1), ... that the suite specifies:
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
  /// The next number scaled to [lo, hi): lo + (hi - lo) u, the `a u + b` of the suite.
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

/// How close a library's gradient must come to the hand-written one: `rel` relative to each
/// component, or, when `of_largest`, to the gradient's largest component (finite differences, whose
/// error does not shrink with the component).
struct tolerance {
  double rel;
  bool of_largest = false;
};
/// What every library but finite differences meets: the same numbers up to rounding.
inline constexpr tolerance exact{1e-12};

/// True when `got` agrees with `want` to `rel` relative (exactly when both are 0).
inline bool agrees(double got, double want, double rel = 1e-12) {
  if (got == want) return true;
  if (!std::isfinite(got) || !std::isfinite(want)) return false;
  return std::abs(got - want) <= rel * std::max(std::abs(got), std::abs(want));
}

/// Compares the gradient `got` of benchmark `name` ("<case>/<library>") with the hand-written `want`;
/// prints every mismatch. Returns true when all components agree within `tol`.
inline bool check_gradient(const std::string& name, const std::vector<double>& got, const std::vector<double>& want,
                           tolerance tol) {
  if (got.size() != want.size()) {
    std::fprintf(stderr, "MISMATCH %s: %zu gradient components, hand-written %zu\n", name.c_str(), got.size(),
                 want.size());
    return false;
  }
  double largest = 0;
  if (tol.of_largest)
    for (double w : want) largest = std::max(largest, std::abs(w));
  bool ok = true;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (agrees(got[i], want[i], tol.rel) || std::abs(got[i] - want[i]) <= tol.rel * largest) continue;
    std::fprintf(stderr, "MISMATCH %s: d/dx[%zu] = %.17g, hand-written %.17g (relative error %.3g)\n", name.c_str(), i,
                 got[i], want[i], std::abs(got[i] - want[i]) / std::max(std::abs(got[i]), std::abs(want[i])));
    ok = false;
  }
  return ok;
}

/// Inputs (or a gradient) given as a list, std::array or std::tuple: a kernel receives the elements as
/// its parameters. Anything else (a case's input struct, a tl::matrix) is one value.
template <class In>
concept argument_list = requires {
  std::tuple_size<std::remove_cvref_t<In>>::value;
};

/// A result that is a list of parts (a std::tuple of gradients), not one array of numbers: a
/// std::array of numbers (a sparse Hessian's values) is kept and read whole, as a matrix is, not part
/// by part, which for hundreds of values would be a pack past clang's limit of 256.
template <class R>
inline constexpr bool number_array = false;
template <class T, std::size_t N>
inline constexpr bool number_array<std::array<T, N>> = std::is_arithmetic_v<T>;
template <class R>
concept result_parts = argument_list<R> && !number_array<std::remove_cvref_t<R>>;

/// Kernel called on a case's inputs: passed whole when it takes them so (an input struct, or a list
/// taken as one), else spread over its parameters. Forced inline, as the kernel itself is
/// (TAPELESS_BENCH_KERNEL): clang 14 left this wrapper a call wherever the kernel inlined into it was
/// long, the hand-written adjoints of S3, S4 and S6 to S9 and tapeless's S5 and S8 among them.
template <auto Kernel, class In>
[[gnu::always_inline]] constexpr decltype(auto) invoke_kernel(const In& in) {
  if constexpr (std::is_invocable_v<decltype(Kernel), const In&>)
    return std::invoke(Kernel, in);
  else
    return std::apply(Kernel, in);
}

/// Every number of a gradient in order: a number, a matrix (row-major), or a tuple of them.
template <class R>
void append_components(std::vector<double>& out, const R& r) {
  if constexpr (std::is_arithmetic_v<R>)
    out.push_back(static_cast<double>(r));
  else if constexpr (result_parts<R>)
    std::apply([&](const auto&... part) { (append_components(out, part), ...); }, r);
  else if constexpr (requires { r.values(); })
    for (const auto& e : r.values()) out.push_back(static_cast<double>(e));  // a sparse result: its values
  else
    for (const auto& e : r) out.push_back(static_cast<double>(e));
}
template <class R>
std::vector<double> components(const R& r) {
  std::vector<double> out;
  append_components(out, r);
  return out;
}

/// The gradient `Kernel` computes at what `Inputs()` returns, every component in order.
template <auto Kernel, auto Inputs>
std::vector<double> gradient_at_inputs() {
  return components(invoke_kernel<Kernel>(Inputs()));
}

}  // namespace tapeless_bench
