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
#include <utility>

namespace tapeless_bench::adolc {

enum class mode { tape, retape };

/// The tag of case `case_id`'s tape in mode M (see above).
constexpr short tag(int case_id, mode m) { return static_cast<short>(2 * case_id + (m == mode::retape ? 1 : 0)); }

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

template <mode M>
struct peer {
  static constexpr const char* name = M == mode::tape ? "adolc_tape" : "adolc_retape";

  template <std::size_t N, class F>
  static void prepare(int case_id, const std::array<double, N>& x, const F& f) {
    if constexpr (M == mode::tape) record(tag(case_id, M), x, f);
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
