// SPDX-License-Identifier: BSL-1.0
// bench/adolc_peers.hpp: ADOL-C (Debian's libadolc-dev) as a peer in the gradient benchmarks.
//
// A bench file writes each case's function once with `adouble`, as a function of the array of its
// differentiated numbers (the case's constants captured), and its ADOL-C kernel as one call:
//
//   template <adolc::mode M>
//   TAPELESS_BENCH_KERNEL tl::vector<double, N> s3_adolc(const s3_in<N>& in) {
//     return adolc::gradient<tl::vector<double, N>, M>(case_id, adolc::numbers(in.x),
//                                                      [](const auto& x) { return ...; });
//   }
//
// in three modes:
//   mode::tape    the gradient from the case's tape, recorded once before timing: `<case>/adolc_tape`,
//                 gradient(tag, n, x, g) on each call (valid while the input takes the recorded branches).
//   mode::retape  the tape recorded again on each call, then the gradient from it: `<case>/adolc_retape`,
//                 what ADOL-C needs when the function may take other branches at another input.
//   mode::record  records the tape that mode::tape reads, then returns the gradient from it:
//                 called once per case before the checks and the timing (record_tape).
//
// ADOL-C keeps its tapes in global state, by tag: case c owns tag 2c (the tape reused by mode::tape)
// and 2c + 1 (the one mode::retape records again), so re-recording never touches a reused tape.
// Only the differentiated numbers go through the tape's independents; the constants of a case (data,
// targets) are baked into the tape when it is recorded, which is ADOL-C's model of a reused tape.
#pragma once

#include <adolc/adolc.h>  // a system header (bench/CMakeLists.txt): its warnings are not ours

#include "suite.hpp"

#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless_bench::adolc {

enum class mode { tape, retape, record };

/// The tag of case `case_id`'s tape in mode M (see above).
constexpr short tag(int case_id, mode m) { return static_cast<short>(2 * case_id + (m == mode::retape ? 1 : 0)); }

namespace detail {

/// How many numbers a value holds: 1 for a number, size() for a tl::matrix, the sum over a tuple.
template <class P>
constexpr std::size_t count() {
  if constexpr (std::is_arithmetic_v<P>)
    return 1;
  else if constexpr (argument_list<P>)
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (std::size_t{0} + ... + count<std::tuple_element_t<I, P>>());
    }(std::make_index_sequence<std::tuple_size_v<P>>{});
  else
    return P::size();
}

/// Fills a number, a matrix (row-major) or a tuple of them from consecutive numbers at g.
template <class R>
void assign(R& r, const double*& g) {
  if constexpr (std::is_arithmetic_v<R>)
    r = *g++;
  else if constexpr (argument_list<R>)
    std::apply([&g](auto&... part) { (assign(part, g), ...); }, r);
  else
    for (auto& e : r) e = *g++;
}

inline void fail(const char* what, short tag, int rc) {
  std::fprintf(stderr, "ADOL-C %s on tape %d returned %d\n", what, tag, rc);
  std::abort();
}

}  // namespace detail

/// The differentiated inputs of a case, in order (numbers, and matrices row-major): the independents
/// of its tape.
template <class... P>
std::array<double, (detail::count<P>() + ...)> numbers(const P&... p) {
  std::array<double, (detail::count<P>() + ...)> out;
  std::size_t i = 0;
  auto add = [&](const auto& x) {
    if constexpr (std::is_arithmetic_v<std::remove_cvref_t<decltype(x)>>)
      out[i++] = x;
    else
      for (double e : x) out[i++] = e;
  };
  (add(p), ...);
  return out;
}

/// Records on tape `tag` the function f (from a const std::array<adouble, N>& to an adouble) at x.
template <std::size_t N, class F>
void record(short tag, const std::array<double, N>& x, const F& f) {
  trace_on(tag);
  {
    std::array<adouble, N> ax;
    for (std::size_t i = 0; i < N; ++i) ax[i] <<= x[i];
    adouble y = f(std::as_const(ax));
    double value;
    y >>= value;
  }
  trace_off();
}

/// The gradient at x from tape `tag`, as R: a number, a tl::matrix or a tuple of them, whose
/// components in order are those of x.
template <class R, std::size_t N>
R gradient_from_tape(short tag, const std::array<double, N>& x) {
  static_assert(detail::count<R>() == N, "the gradient type holds as many numbers as the independents");
  std::array<double, N> g;
  // < 0: the input takes other branches than the recorded ones (never here: each tape is read at the
  // inputs it was recorded at).
  if (const int rc = ::gradient(tag, static_cast<int>(N), x.data(), g.data()); rc < 0) detail::fail("gradient", tag, rc);
  R r;
  const double* p = g.data();
  detail::assign(r, p);
  return r;
}

/// The ADOL-C kernel of case `case_id` in mode M: the gradient of f (see record) at x, as R.
template <class R, mode M, std::size_t N, class F>
[[gnu::always_inline]] inline R gradient(int case_id, const std::array<double, N>& x, const F& f) {
  const short t = tag(case_id, M);
  if constexpr (M != mode::tape) record(t, x, f);
  return gradient_from_tape<R>(t, x);
}

/// Records the tape of a case's `mode::tape` kernel: Kernel is its `mode::record` kernel, run once on
/// the case's inputs.
template <auto Kernel, auto Inputs>
void record_tape() {
  (void)invoke_kernel<Kernel>(Inputs());
}

}  // namespace tapeless_bench::adolc
