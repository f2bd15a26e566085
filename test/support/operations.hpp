// SPDX-License-Identifier: BSL-1.0
// test/support/operations.hpp: the registry of elementwise operations, the one list the tests read.
//
//   registry::for_each_unary([](const auto& op) { op.apply(x); op.info.reference(1.0); });
//   registry::unary_table[i].name, .reference, .derivative, .defined, .points, .batched
//
// Each entry is an operation as users call it (`apply`, generic: numbers, vars, expressions, matrices,
// dual numbers) beside what the tests check it with: the same function on doubles from the standard
// library, its exact derivative (partials of a binary one), where it is defined (outside: a NaN value
// and a NaN gradient), where the tests draw random points (inside that, and where the value stays
// moderate), a point where the derivative jumps or is infinite, how the value's extremes over an
// interval are found, and whether it runs in SIMD batches (checked against the operation's traits).
//
// The unit tests of elementwise operations (test/unit/ops/elementwise/), the static test
// (test/static/ops_static.cpp), the randomized compositions (test/random/) and the fuzzer
// (test/fuzz/gradient_fuzz.cpp) read this list: an operation added here is tested by all of them.
#pragma once

#include <tapeless/tapeless.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace registry {

namespace tl = tapeless;

inline constexpr double inf = std::numeric_limits<double>::infinity();

struct interval {
  double lo = -inf, hi = inf;
};
inline constexpr interval everywhere{};

/// How the extremes of the value over an interval of operands are found.
enum class extremes : std::uint8_t {
  monotone,  // at the interval's ends (for a binary operation: at the corners, monotone in each operand)
  even,      // at the ends of the interval of magnitudes: f(|x|) monotone (square, cosh, abs; hypot)
  bounded,   // within `bound` (sin, cos, atan2)
};

/// Where one operand is tested.
struct operand_domain {
  interval defined = everywhere;  // outside, the value and the gradient are NaN (bad input; of a binary
                                  // operation, for some values of the other operand)
  interval points = everywhere;   // random points: inside `defined`, where the value stays moderate
  std::optional<double> kink{};   // the derivative jumps (abs, relu) or is infinite (cbrt) there
  double margin = 0;              // random points keep this far from the kink; 0: they may cross it
  bool pole = false;              // the value is infinite at the kink too (a divisor at 0)
};

struct unary_info {
  std::string_view name;
  double (*reference)(double);   // the function on doubles, from the standard library
  double (*derivative)(double);  // its exact derivative
  operand_domain domain{};
  extremes range = extremes::monotone;
  interval bound{};
  bool batched = false;               // runs in SIMD batches: must equal the operation's traits.batched
  double (*value)(double) = nullptr;  // the operation on doubles, usable in constant expressions
};

struct binary_info {
  std::string_view name;
  double (*reference)(double, double);
  std::array<double, 2> (*partials)(double, double);  // the exact derivatives in x and in y
  std::array<operand_domain, 2> domain{};
  extremes range = extremes::monotone;
  interval bound{};
  bool batched = false;
  double (*value)(double, double) = nullptr;
};

/// An entry: the operation as users call it, and what the tests check it with.
template <class Apply, class Info>
struct entry {
  [[no_unique_address]] Apply apply;
  Info info;
};

/// An entry of a unary operation (`apply`: a captureless generic lambda); `info.value` is filled in.
template <class Apply>
constexpr entry<Apply, unary_info> unary(Apply apply, unary_info info) {
  info.value = [](double x) -> double { return Apply{}(x); };
  return {apply, info};
}
template <class Apply>
constexpr entry<Apply, binary_info> binary(Apply apply, binary_info info) {
  info.value = [](double x, double y) -> double { return Apply{}(x, y); };
  return {apply, info};
}

namespace detail {
inline double sigmoid(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }
inline double sign(double x) { return x < 0 ? -1.0 : x > 0 ? 1.0 : 0.0; }
inline constexpr double ln2 = std::numbers::ln2, ln10 = std::numbers::ln10;
}  // namespace detail

// clang-format off
/// The unary elementwise operations.
inline constexpr auto unary_operations = std::tuple{
  unary([](const auto& x) { return -x; },
        {.name = "neg", .reference = [](double x) { return -x; }, .derivative = [](double) { return -1.0; },
         .batched = true}),
  unary([](const auto& x) { return tl::square(x); },
        {.name = "square", .reference = [](double x) { return x * x; }, .derivative = [](double x) { return 2 * x; },
         .range = extremes::even, .batched = true}),
  unary([](const auto& x) { return tl::pow(x, 3); },
        {.name = "cube", .reference = [](double x) { return x * x * x; },
         .derivative = [](double x) { return 3 * x * x; }}),
  unary([](const auto& x) { return tl::exp(x); },
        {.name = "exp", .reference = [](double x) { return std::exp(x); },
         .derivative = [](double x) { return std::exp(x); }, .domain = {.points = {-5, 5}}, .batched = true}),
  unary([](const auto& x) { return tl::exp2(x); },
        {.name = "exp2", .reference = [](double x) { return std::exp2(x); },
         .derivative = [](double x) { return std::exp2(x) * detail::ln2; }, .domain = {.points = {-7, 7}},
         .batched = true}),
  unary([](const auto& x) { return tl::expm1(x); },
        {.name = "expm1", .reference = [](double x) { return std::expm1(x); },
         .derivative = [](double x) { return std::exp(x); }, .domain = {.points = {-5, 5}}, .batched = true}),
  unary([](const auto& x) { return tl::log(x); },
        {.name = "log", .reference = [](double x) { return std::log(x); },
         .derivative = [](double x) { return 1 / x; }, .domain = {.defined = {0, inf}, .points = {0.25, inf}},
         .batched = true}),
  unary([](const auto& x) { return tl::log2(x); },
        {.name = "log2", .reference = [](double x) { return std::log2(x); },
         .derivative = [](double x) { return 1 / (x * detail::ln2); },
         .domain = {.defined = {0, inf}, .points = {0.25, inf}}, .batched = true}),
  unary([](const auto& x) { return tl::log10(x); },
        {.name = "log10", .reference = [](double x) { return std::log10(x); },
         .derivative = [](double x) { return 1 / (x * detail::ln10); },
         .domain = {.defined = {0, inf}, .points = {0.25, inf}}, .batched = true}),
  unary([](const auto& x) { return tl::log1p(x); },
        {.name = "log1p", .reference = [](double x) { return std::log1p(x); },
         .derivative = [](double x) { return 1 / (1 + x); },
         .domain = {.defined = {-1, inf}, .points = {-0.75, inf}}, .batched = true}),
  unary([](const auto& x) { return tl::sqrt(x); },
        {.name = "sqrt", .reference = [](double x) { return std::sqrt(x); },
         .derivative = [](double x) { return 0.5 / std::sqrt(x); },
         .domain = {.defined = {0, inf}, .points = {0.25, inf}}, .batched = true}),
  unary([](const auto& x) { return tl::cbrt(x); },
        {.name = "cbrt", .reference = [](double x) { return std::cbrt(x); },
         .derivative = [](double x) { return 1 / (3 * std::cbrt(x) * std::cbrt(x)); },
         .domain = {.kink = 0.0, .margin = 0.25}}),
  unary([](const auto& x) { return tl::sin(x); },
        {.name = "sin", .reference = [](double x) { return std::sin(x); },
         .derivative = [](double x) { return std::cos(x); }, .range = extremes::bounded, .bound = {-1, 1},
         .batched = true}),
  unary([](const auto& x) { return tl::cos(x); },
        {.name = "cos", .reference = [](double x) { return std::cos(x); },
         .derivative = [](double x) { return -std::sin(x); }, .range = extremes::bounded, .bound = {-1, 1},
         .batched = true}),
  unary([](const auto& x) { return tl::tan(x); },
        {.name = "tan", .reference = [](double x) { return std::tan(x); },
         .derivative = [](double x) { return 1 + std::tan(x) * std::tan(x); }, .domain = {.points = {-1.3, 1.3}}}),
  unary([](const auto& x) { return tl::asin(x); },
        {.name = "asin", .reference = [](double x) { return std::asin(x); },
         .derivative = [](double x) { return 1 / std::sqrt(1 - x * x); },
         .domain = {.defined = {-1, 1}, .points = {-0.9, 0.9}}, .batched = true}),
  unary([](const auto& x) { return tl::acos(x); },
        {.name = "acos", .reference = [](double x) { return std::acos(x); },
         .derivative = [](double x) { return -1 / std::sqrt(1 - x * x); },
         .domain = {.defined = {-1, 1}, .points = {-0.9, 0.9}}, .batched = true}),
  unary([](const auto& x) { return tl::atan(x); },
        {.name = "atan", .reference = [](double x) { return std::atan(x); },
         .derivative = [](double x) { return 1 / (1 + x * x); }, .batched = true}),
  unary([](const auto& x) { return tl::sinh(x); },
        {.name = "sinh", .reference = [](double x) { return std::sinh(x); },
         .derivative = [](double x) { return std::cosh(x); }, .domain = {.points = {-5, 5}}, .batched = true}),
  unary([](const auto& x) { return tl::cosh(x); },
        {.name = "cosh", .reference = [](double x) { return std::cosh(x); },
         .derivative = [](double x) { return std::sinh(x); }, .domain = {.points = {-5, 5}},
         .range = extremes::even, .batched = true}),
  unary([](const auto& x) { return tl::tanh(x); },
        {.name = "tanh", .reference = [](double x) { return std::tanh(x); },
         .derivative = [](double x) { return 1 - std::tanh(x) * std::tanh(x); }, .batched = true}),
  unary([](const auto& x) { return tl::asinh(x); },
        {.name = "asinh", .reference = [](double x) { return std::asinh(x); },
         .derivative = [](double x) { return 1 / std::sqrt(x * x + 1); }, .batched = true}),
  unary([](const auto& x) { return tl::acosh(x); },
        {.name = "acosh", .reference = [](double x) { return std::acosh(x); },
         .derivative = [](double x) { return 1 / std::sqrt(x * x - 1); },
         .domain = {.defined = {1, inf}, .points = {1.25, inf}}, .batched = true}),
  unary([](const auto& x) { return tl::atanh(x); },
        {.name = "atanh", .reference = [](double x) { return std::atanh(x); },
         .derivative = [](double x) { return 1 / (1 - x * x); },
         .domain = {.defined = {-1, 1}, .points = {-0.9, 0.9}}, .batched = true}),
  unary([](const auto& x) { return tl::erf(x); },
        {.name = "erf", .reference = [](double x) { return std::erf(x); },
         .derivative = [](double x) { return 2 / std::sqrt(std::numbers::pi) * std::exp(-x * x); },
         .domain = {.points = {-3, 3}}}),
  unary([](const auto& x) { return tl::erfc(x); },
        {.name = "erfc", .reference = [](double x) { return std::erfc(x); },
         .derivative = [](double x) { return -2 / std::sqrt(std::numbers::pi) * std::exp(-x * x); },
         .domain = {.points = {-3, 3}}}),
  unary([](const auto& x) { return tl::sigmoid(x); },
        {.name = "sigmoid", .reference = detail::sigmoid,
         .derivative = [](double x) { return detail::sigmoid(x) * detail::sigmoid(-x); }, .batched = true}),
  unary([](const auto& x) { return tl::softplus(x); },
        {.name = "softplus", .reference = [](double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); },
         .derivative = detail::sigmoid, .batched = true}),
  unary([](const auto& x) { return tl::abs(x); },
        {.name = "abs", .reference = [](double x) { return std::abs(x); }, .derivative = detail::sign,
         .domain = {.kink = 0.0}, .range = extremes::even, .batched = true}),
  unary([](const auto& x) { return tl::relu(x); },
        {.name = "relu", .reference = [](double x) { return x > 0 ? x : 0.0; },
         .derivative = [](double x) { return x > 0 ? 1.0 : 0.0; }, .domain = {.kink = 0.0}, .batched = true}),
};

/// The binary elementwise operations (a number on either side is used for every element of a matrix).
inline constexpr auto binary_operations = std::tuple{
  binary([](const auto& x, const auto& y) { return x + y; },
         {.name = "add", .reference = [](double x, double y) { return x + y; },
          .partials = [](double, double) { return std::array{1.0, 1.0}; }, .batched = true}),
  binary([](const auto& x, const auto& y) { return x - y; },
         {.name = "sub", .reference = [](double x, double y) { return x - y; },
          .partials = [](double, double) { return std::array{1.0, -1.0}; }, .batched = true}),
  binary([](const auto& x, const auto& y) { return x * y; },
         {.name = "mul", .reference = [](double x, double y) { return x * y; },
          .partials = [](double x, double y) { return std::array{y, x}; }, .batched = true}),
  binary([](const auto& x, const auto& y) { return x / y; },
         {.name = "div", .reference = [](double x, double y) { return x / y; },
          .partials = [](double x, double y) { return std::array{1 / y, -x / (y * y)}; },
          .domain = {{{}, {.kink = 0.0, .margin = 0.25, .pole = true}}}, .batched = true}),
  binary([](const auto& x, const auto& y) { return tl::pow(x, y); },
         {.name = "pow", .reference = [](double x, double y) { return std::pow(x, y); },
          .partials = [](double x, double y) { return std::array{y * std::pow(x, y - 1), std::pow(x, y) * std::log(x)}; },
          .domain = {{{.defined = {0, inf}, .points = {0.25, inf}}, {.points = {-2, 2}}}}}),
  binary([](const auto& x, const auto& y) { return tl::atan2(x, y); },
         {.name = "atan2", .reference = [](double x, double y) { return std::atan2(x, y); },
          .partials = [](double x, double y) { return std::array{y / (x * x + y * y), -x / (x * x + y * y)}; },
          .range = extremes::bounded, .bound = {-std::numbers::pi, std::numbers::pi}}),
  binary([](const auto& x, const auto& y) { return tl::hypot(x, y); },
         {.name = "hypot", .reference = [](double x, double y) { return std::hypot(x, y); },
          .partials = [](double x, double y) { return std::array{x / std::hypot(x, y), y / std::hypot(x, y)}; },
          .range = extremes::even}),
  binary([](const auto& x, const auto& y) { return tl::min(x, y); },
         {.name = "min", .reference = [](double x, double y) { return std::min(x, y); },
          .partials = [](double x, double y) { return x <= y ? std::array{1.0, 0.0} : std::array{0.0, 1.0}; },
          .batched = true}),
  binary([](const auto& x, const auto& y) { return tl::max(x, y); },
         {.name = "max", .reference = [](double x, double y) { return x > y || std::isnan(x) ? x : y; },
          .partials = [](double x, double y) { return x >= y ? std::array{1.0, 0.0} : std::array{0.0, 1.0}; },
          .batched = true}),
};
// clang-format on

inline constexpr std::size_t unary_count = std::tuple_size_v<decltype(unary_operations)>;
inline constexpr std::size_t binary_count = std::tuple_size_v<decltype(binary_operations)>;

/// The entries' info, indexable at run time.
inline constexpr auto unary_table =
    std::apply([](const auto&... e) { return std::array<unary_info, unary_count>{e.info...}; }, unary_operations);
inline constexpr auto binary_table =
    std::apply([](const auto&... e) { return std::array<binary_info, binary_count>{e.info...}; }, binary_operations);

/// f(entry) for every entry, in order.
template <class F>
constexpr void for_each_unary(F&& f) {
  std::apply([&f](const auto&... e) { (f(e), ...); }, unary_operations);
}
template <class F>
constexpr void for_each_binary(F&& f) {
  std::apply([&f](const auto&... e) { (f(e), ...); }, binary_operations);
}

/// The operation (ops::exp, ...) in the node that `apply` makes of vars.
template <class Node>
using operation_of = std::remove_cvref_t<decltype(std::declval<const Node&>().op)>;

namespace detail {
/// Whether every entry's `batched` equals its operation's traits.batched: checked once, by
/// test/static/ops_static.cpp, rather than in every test that reads the registry.
template <class Entries, std::size_t... I>
constexpr bool batched_as_traits(const Entries& entries, std::index_sequence<I...>) {
  using V = tl::var<double>;
  if constexpr (std::tuple_size_v<Entries> != 0 && requires { std::get<0>(entries).info.partials; })
    return (
        (std::get<I>(entries).info.batched ==
         operation_of<decltype(std::get<I>(entries).apply(std::declval<const V&>(), std::declval<const V&>()))>::traits
             .batched) &&
        ...);
  else
    return ((std::get<I>(entries).info.batched ==
             operation_of<decltype(std::get<I>(entries).apply(std::declval<const V&>()))>::traits.batched) &&
            ...);
}

template <std::size_t N>
constexpr bool distinct(const std::array<std::string_view, N>& names) {
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (names[i] == names[j]) return false;
  return true;
}
}  // namespace detail

static_assert(detail::distinct(std::apply([](const auto&... e) { return std::array{e.info.name...}; },
                                          std::tuple_cat(unary_operations, binary_operations))),
              "two entries of the registry have one name");

/// Where the tests draw points of an operand: its `points`, unbounded ends cut at 4.
constexpr interval sampled(const operand_domain& d) {
  return {d.points.lo < -4 ? -4 : d.points.lo, d.points.hi > 4 ? 4 : d.points.hi};
}

/// A hash of a name (FNV-1a): what the tests seed choices among operations with, so that an entry added
/// to the registry leaves the others' choices as they are.
constexpr std::uint64_t name_hash(std::string_view name) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : name) h = (h ^ static_cast<std::uint8_t>(c)) * 1099511628211ULL;
  return h;
}

/// A 64-bit mix of two numbers (splitmix64's finaliser).
constexpr std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Of the candidates' name hashes, the position of the one that a draw chooses: the highest
/// mix(draw, hash) (rendezvous hashing). Each candidate is as likely; a candidate added to the list
/// takes the draws it wins and leaves every other draw's choice unchanged.
template <std::size_t N>
constexpr std::size_t choose(std::uint64_t draw, const std::array<std::uint64_t, N>& hashes) {
  std::size_t best = 0;
  std::uint64_t best_weight = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const std::uint64_t w = mix(draw, hashes[i]);
    if (i == 0 || w > best_weight) best = i, best_weight = w;
  }
  return best;
}

}  // namespace registry
