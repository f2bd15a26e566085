// SPDX-License-Identifier: BSL-1.0
// bench/peers/adolc.hpp: ADOL-C (Debian's libadolc-dev), the classic tape-based library, as a peer
// (bench/peers/common.hpp) in two modes:
//   adolc::peer<mode::tape>    `<case>/adolc_tape`: the gradient from the case's tape, recorded once
//                              before the checks and the timing (prepare), gradient(tag, n, x, g) on each
//                              call (valid while the input takes the recorded branches).
//   adolc::peer<mode::retape>  `<case>/adolc_retape`: the tape recorded again on each call, then the
//                              gradient from it: what ADOL-C needs when the function may take other
//                              branches at another input.
//
// ADOL-C keeps its tapes in global state, by tag: case c owns tag 2c (the tape reused by mode::tape)
// and 2c + 1 (the one mode::retape records again), so re-recording never touches a reused tape.
// Only the differentiated numbers go through the tape's independents; the constants of a case (data,
// targets) are baked into the tape when it is recorded, which is ADOL-C's model of a reused tape.
#pragma once

#include <adolc/adolc.h>  // a system header (bench/CMakeLists.txt): its warnings are not ours

#include "common.hpp"

#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <type_traits>
#include <utility>

namespace tapeless_bench::adolc {

enum class mode { tape, retape };

/// The tag of case `case_id`'s tape in mode M (see above).
constexpr short tag(int case_id, mode m) { return static_cast<short>(2 * case_id + (m == mode::retape ? 1 : 0)); }

/// The buffer sizes of a tape, in elements: operations, locations, values, Taylor coefficients.
using buffer_sizes = std::array<unsigned, 4>;

/// Records on tape `tag` the function f (from a const std::array<adouble, N>& to an adouble, or to a
/// std::array of them: a vector function's dependents in order) at x, in buffers of `sizes`, or ADOL-C's
/// default ones (usrparms.h) when none.
template <std::size_t N, class F>
void trace(short tag, const std::array<double, N>& x, const F& f, const std::optional<buffer_sizes>& sizes) {
  if (sizes)
    trace_on(tag, 0, (*sizes)[0], (*sizes)[1], (*sizes)[2], (*sizes)[3]);
  else
    trace_on(tag);
  {
    std::array<adouble, N> ax;
    for (std::size_t i = 0; i < N; ++i) ax[i] <<= x[i];
    double value;
    if constexpr (argument_list<std::invoke_result_t<const F&, const std::array<adouble, N>&>>) {
      auto y = f(std::as_const(ax));
      for (adouble& yi : y) yi >>= value;
    } else {
      adouble y = f(std::as_const(ax));
      y >>= value;
    }
  }
  trace_off();
}

/// The buffer sizes each tape is recorded with, by tag (prepare finds them).
inline std::map<short, std::optional<buffer_sizes>>& tape_buffers() {
  static std::map<short, std::optional<buffer_sizes>> sizes;
  return sizes;
}

/// Finds the buffers that hold tape `tag` whole, for f at x, and records it in them. Past its buffers
/// ADOL-C writes a tape to files in the working folder, and at each sweep over it its Taylor
/// coefficients (about one per operation): timed, that would be the file system, not the library. So
/// the tape is recorded first in buffers larger than any case's tape (allocated, not touched: only what
/// the tape fills becomes memory), and its counts size the buffers it is recorded in for good: ADOL-C's
/// defaults where they hold it.
template <std::size_t N, class F>
void record_sized(short tag, const std::array<double, N>& x, const F& f) {
  constexpr unsigned ample = 1U << 26;
  trace(tag, x, f, buffer_sizes{ample, ample, ample, ample});
  std::array<std::size_t, STAT_SIZE> stats;
  tapestats(tag, stats.data());
  std::optional<buffer_sizes> sizes;
  if (stats[NUM_OPERATIONS] >= OBUFSIZE || stats[NUM_LOCATIONS] >= LBUFSIZE || stats[NUM_VALUES] >= VBUFSIZE ||
      stats[NUM_OPERATIONS] >= TBUFSIZE) {
    // Twice the counts: room for the Taylor coefficients of operations that overwrite two locations.
    auto room = [](std::size_t count) { return static_cast<unsigned>(2 * count + 1024); };
    sizes = buffer_sizes{room(stats[NUM_OPERATIONS]), room(stats[NUM_LOCATIONS]), room(stats[NUM_VALUES]),
                         room(stats[NUM_OPERATIONS])};
  }
  tape_buffers()[tag] = sizes;
  trace(tag, x, f, sizes);
}

/// Records on tape `tag` the function f at x again, in the buffers record_sized found.
template <std::size_t N, class F>
void record(short tag, const std::array<double, N>& x, const F& f) {
  trace(tag, x, f, tape_buffers().at(tag));
}

template <mode M>
struct peer {
  static constexpr const char* name = M == mode::tape ? "adolc_tape" : "adolc_retape";

  // Both modes record before timing: the reused tape, and the tape recorded again at each call, whose
  // buffers this sizes.
  template <std::size_t N, class F>
  static void prepare(int case_id, const std::array<double, N>& x, const F& f) {
    record_sized(tag(case_id, M), x, f);
  }

  template <class R, std::size_t N, class F>
  static R gradient(int case_id, const std::array<double, N>& x, const F& f) {
    const short t = tag(case_id, M);
    if constexpr (M == mode::retape) record(t, x, f);
    std::array<double, N> g;
    // < 0: the input takes other branches than the recorded ones (never here: each tape is read at the
    // inputs it was recorded at).
    if (const int rc = ::gradient(t, static_cast<int>(N), x.data(), g.data()); rc < 0) {
      std::fprintf(stderr, "ADOL-C gradient on tape %d returned %d\n", t, rc);
      std::abort();
    }
    return as_gradient<R>(g);
  }
};

}  // namespace tapeless_bench::adolc
