// SPDX-License-Identifier: BSL-1.0
// bench/steps_bench.cpp: S12 oscillator, a loop of a run-time number of time steps: the damped
// oscillator integrated by explicit Euler for n = 1,000 steps, differentiated with respect to its
// spring constant and damping. Two cases share the hand-written adjoint, which stores every state and
// sweeps back:
//   S12_oscillator              tl::iterate storing every state, and every peer library;
//   S12_oscillator_checkpoints  tl::iterate(tl::checkpoints<32>{}, ...), which keeps at most 32 states
//                               and recomputes the others, and ADOL-C's checkpointing of the same loop
//                               (CP_Context, revolve) with 32 checkpoints (`adolc_checkpoints`).
// Beside the suite, a loop over a state of run-time size (tl::iterate from a tl::vector<double,
// tl::dynamic>), for which the suite has no case: n particles, each a cubic spring with damping and a
// forcing that changes with the step, 100 steps, differentiated in the particles' start and the two
// constants; n = 16 and 256 read at run time:
//   springs_run_time_<n>        tl::dynamic, beside tl::bounded<256> (`tapeless_bounded`) and the state
//                               of fixed size n (`tapeless_fixed_shape`), against an adjoint written by
//                               hand that stores every state, scalar and in SIMD batches.
// Before timing, it states the memory each gradient takes: the heap it allocates (counted,
// allocations.hpp), the snapshots a checkpointed loop keeps, and the size of ADOL-C's tapes.
#include "allocations.hpp"
#include "cases.hpp"
#include "simd.hpp"
#include "suite.hpp"

#include <adolc/checkpointing.h>  // a system header (bench/CMakeLists.txt)

#include <tapeless/tapeless.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace tl = tapeless;

namespace {

using namespace tapeless_bench;

// ---------------------------------------------------------------------------------------------
// S12 oscillator: f(k, c) = (x(n) - 0.25)^2 + v(n), x(j+1) = x(j) + dt v(j),
// v(j+1) = v(j) + dt (-k x(j) - c v(j)), x(0) = 1, v(0) = 0, dt = 0.01, at k = 4, c = 0.3.

inline constexpr double s12_dt = 0.01;
inline constexpr std::size_t s12_steps = 1'000;
inline constexpr std::size_t s12_snapshots = 32;  // of the checkpointed loops

struct s12_in {
  double k, c;
  std::size_t n;  // read at run time: the inputs are opaque to the compiler in every gradient
};

inline s12_in s12_inputs() { return {4.0, 0.3, s12_steps}; }

using s12_gradient = std::tuple<double, double>;

TAPELESS_BENCH_KERNEL s12_gradient s12_handwritten(const s12_in& in) {
  const std::size_t n = in.n;
  const double k = in.k, c = in.c, dt = s12_dt;
  // forward: every state (x(j), v(j)), j < n, in one allocation, as the sweep reads them
  const auto states = std::make_unique_for_overwrite<double[]>(2 * n);
  double x = 1.0, v = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    states[2 * j] = x;
    states[2 * j + 1] = v;
    const double x_next = x + dt * v;
    v = v + dt * (-k * x - c * v);
    x = x_next;
  }
  // reverse, from f_bar = 1: x(n)_bar = 2 (x(n) - 0.25), v(n)_bar = 1; through step j,
  // k_bar -= dt x(j) v(j+1)_bar, c_bar -= dt v(j) v(j+1)_bar, x(j)_bar = x(j+1)_bar - dt k v(j+1)_bar,
  // v(j)_bar = dt x(j+1)_bar + (1 - dt c) v(j+1)_bar
  double x_bar = 2.0 * (x - 0.25), v_bar = 1.0, k_bar = 0.0, c_bar = 0.0;
  for (std::size_t j = n; j-- > 0;) {
    x = states[2 * j];
    v = states[2 * j + 1];
    k_bar -= dt * x * v_bar;
    c_bar -= dt * v * v_bar;
    const double x_bar_before = x_bar - dt * k * v_bar;
    v_bar = dt * x_bar + (1.0 - dt * c) * v_bar;
    x_bar = x_bar_before;
  }
  return {k_bar, c_bar};
}

/// One Euler step of the state s = (x, v), the spring constant k and the damping c its parameters.
inline constexpr auto oscillator_step = [](const auto& s, std::size_t, const auto& k, const auto& c) {
  return tl::concat(s[0] + s12_dt * s[1], s[1] + s12_dt * (-k * s[0] - c * s[1]));
};

/// f of the final state s = (x(n), v(n)), named by tl::let: it reads s twice.
inline constexpr auto oscillator_loss = [](const auto& s) { return tl::square(s[0] - 0.25) + s[1]; };

inline constexpr tl::vector<double, 2> oscillator_start{1.0, 0.0};

TAPELESS_BENCH_KERNEL s12_gradient s12_tapeless(const s12_in& in) {
  const std::size_t n = in.n;
  return tl::grad([n](const auto& k, const auto& c) {
    return tl::let(tl::iterate(n, oscillator_start, oscillator_step, k, c), oscillator_loss);
  })(in.k, in.c);
}

TAPELESS_BENCH_KERNEL s12_gradient s12_tapeless_checkpoints(const s12_in& in) {
  const std::size_t n = in.n;
  return tl::grad([n](const auto& k, const auto& c) {
    return tl::let(tl::iterate(tl::checkpoints<s12_snapshots>{}, n, oscillator_start, oscillator_step, k, c),
                   oscillator_loss);
  })(in.k, in.c);
}

// ADOL-C's checkpointing (CP_Context): the loop's step is a function of the state alone, so its
// state is (x, v, k, c), the parameters carried through every step unchanged. The step is recorded
// once on a tape of its own; the reverse sweep over the case's tape runs revolve, recomputing steps
// from 32 checkpoints with it.
namespace adolc_checkpoints {

constexpr short case_tag = 100, step_tag = 101;  // above the tags of the cases (bench/peers/adolc.hpp)

int step(int, adouble* s) {
  adouble x_next = s[0] + s12_dt * s[1];
  s[1] = s[1] + s12_dt * (-s[2] * s[0] - s[3] * s[1]);
  s[0] = x_next;
  return 0;
}

int step_in_doubles(int, double* s) {
  const double x_next = s[0] + s12_dt * s[1];
  s[1] = s[1] + s12_dt * (-s[2] * s[0] - s[3] * s[1]);
  s[0] = x_next;
  return 0;
}

void record() {
  const s12_in in = s12_inputs();
  trace_on(case_tag);
  {
    std::array<adouble, 4> s;
    s[0] = 1.0;
    s[1] = 0.0;
    s[2] <<= in.k;
    s[3] <<= in.c;
    CP_Context context(step);
    context.setDoubleFct(step_in_doubles);
    context.setNumberOfSteps(static_cast<int>(in.n));
    context.setNumberOfCheckpoints(static_cast<int>(s12_snapshots));
    context.setDimensionXY(4);
    context.setInput(s.data());
    context.setOutput(s.data());
    context.setTapeNumber(step_tag);
    context.setAlwaysRetaping(false);
    context.checkpointing();
    adouble loss = (s[0] - 0.25) * (s[0] - 0.25) + s[1];
    double value;
    loss >>= value;
  }
  trace_off();
}

TAPELESS_BENCH_KERNEL s12_gradient gradient(const s12_in& in) {
  const std::array<double, 2> x{in.k, in.c};
  std::array<double, 2> g;
  if (const int rc = ::gradient(case_tag, 2, x.data(), g.data()); rc < 0) {
    std::fprintf(stderr, "ADOL-C gradient on the checkpointed tape returned %d\n", rc);
    std::abort();
  }
  return {g[0], g[1]};
}

}  // namespace adolc_checkpoints

struct s12 : tapeless_bench::kernels<s12_inputs, s12_handwritten, s12_tapeless> {
  static std::string name() { return "S12_oscillator"; }
  static std::array<double, 2> numbers(const s12_in& in) { return tapeless_bench::numbers(in.k, in.c); }
  template <class T>
  static T f(const std::array<T, 2>& p, const s12_in& in) {
    T x = 1.0, v = 0.0;
    for (std::size_t j = 0; j < in.n; ++j) {
      const T x_next = x + s12_dt * v;
      v = v + s12_dt * (-p[0] * x - p[1] * v);
      x = x_next;
    }
    return (x - 0.25) * (x - 0.25) + v;
  }
};

struct s12_checkpoints : tapeless_bench::kernels<s12_inputs, s12_handwritten, s12_tapeless_checkpoints> {
  static std::string name() { return "S12_oscillator_checkpoints"; }
  static void add_libraries(std::vector<entry_t>& entries, const std::string& c) {
    entries.push_back(
        entry<adolc_checkpoints::gradient, s12_inputs>(c + "/adolc_checkpoints", exact, adolc_checkpoints::record));
  }
};

// ---------------------------------------------------------------------------------------------
// Springs of run-time count: s(k+1) = s(k) + dt (-kk s(k) - c s(k)^3 + 0.05 (k mod 7)) elementwise,
// s(0) = x, loss sum(s(100)^2), in (x, kk, c); x[i] = 2u - 1, kk = 2, c = 0.5.

inline constexpr double springs_dt = 0.02;
inline constexpr std::size_t springs_steps = 100;
inline constexpr std::size_t springs_bound = 256;  // of the tl::bounded kernel

using springs_vector = tl::vector<double, tl::dynamic>;
using springs_bounded_vector = tl::vector<double, tl::bounded<springs_bound>>;

template <class V>
struct springs_in {
  V x;
  double kk, c;
  std::size_t steps;  // read at run time, as S12's
};

template <class V, std::size_t N>
springs_in<V> springs_inputs() {
  V x = [] {
    if constexpr (tl::RunTimeMatrix<V>)
      return V(N);
    else
      return V{};
  }();
  input_stream u;
  for (std::size_t i = 0; i < N; ++i) x[i] = u.uniform(-1.0, 1.0);
  return {x, 2.0, 0.5, springs_steps};
}

/// The forcing of step k.
inline double springs_forcing(std::size_t k) { return 0.05 * static_cast<double>(k % 7); }

using springs_gradient = std::tuple<springs_vector, double, double>;

/// The hand-written adjoint: the states in one allocation; each step's reverse, for every particle,
/// adds its parts of kk's and c's adjoints and carries its own adjoint back. Simd: in batches of
/// particles, the rest one at a time.
template <bool Simd>
springs_gradient springs_adjoint(const springs_in<springs_vector>& in) {
  const std::size_t n = in.x.size(), steps = in.steps, whole = Simd ? n - n % simd::width : 0;
  const double kk = in.kk, c = in.c, dt = springs_dt;
  const auto states = std::make_unique_for_overwrite<double[]>(n * (steps + 1));
  std::copy(in.x.begin(), in.x.end(), states.get());
  for (std::size_t k = 0; k < steps; ++k) {
    const double* s = states.get() + k * n;
    double* next = states.get() + (k + 1) * n;
    const double forcing = springs_forcing(k);
    for (std::size_t i = 0; i < n; ++i) next[i] = s[i] + dt * (-kk * s[i] - c * s[i] * s[i] * s[i] + forcing);
  }
  springs_vector a(n);
  const double* last = states.get() + steps * n;
  for (std::size_t i = 0; i < n; ++i) a[i] = 2.0 * last[i];
  double kk_bar = 0.0, c_bar = 0.0;
  simd::batch kk_bars(0.0), c_bars(0.0);
  for (std::size_t k = steps; k-- > 0;) {
    const double* s = states.get() + k * n;
    for (std::size_t i = 0; i < whole; i += simd::width) {
      const simd::batch si = simd::load(s + i), ai = simd::load(a.data() + i), s2 = si * si;
      kk_bars -= dt * ai * si;
      c_bars -= dt * ai * s2 * si;
      simd::store(a.data() + i, ai * (1.0 + dt * (-kk - 3.0 * c * s2)));
    }
    for (std::size_t i = whole; i < n; ++i) {
      const double si = s[i], ai = a[i];
      kk_bar -= dt * ai * si;
      c_bar -= dt * ai * si * si * si;
      a[i] = ai * (1.0 + dt * (-kk - 3.0 * c * si * si));
    }
  }
  if constexpr (Simd) {
    kk_bar += xsimd::hadd(kk_bars);
    c_bar += xsimd::hadd(c_bars);
  }
  return {std::move(a), kk_bar, c_bar};
}

TAPELESS_BENCH_KERNEL springs_gradient springs_handwritten(const springs_in<springs_vector>& in) {
  return springs_adjoint<false>(in);
}
TAPELESS_BENCH_KERNEL springs_gradient springs_handwritten_simd(const springs_in<springs_vector>& in) {
  return springs_adjoint<true>(in);
}

inline constexpr auto springs_step = [](const auto& s, std::size_t k, const auto& kk, const auto& c) {
  return s + springs_dt * (-kk * s - c * s * s * s + springs_forcing(k));
};

/// The loss of the state after `steps` steps from x, as users write it whatever x's kind.
template <class V>
TAPELESS_BENCH_KERNEL auto springs_tapeless(const springs_in<V>& in) {
  const std::size_t steps = in.steps;
  return tl::grad([steps](const auto& x, const auto& kk, const auto& c) {
    return tl::sum(tl::square(tl::iterate(steps, x, springs_step, kk, c)));
  })(in.x, in.kk, in.c);
}

template <std::size_t N>
struct springs_run_time : tapeless_bench::kernels<springs_inputs<springs_vector, N>, springs_handwritten,
                                                  springs_tapeless<springs_vector>, springs_handwritten_simd> {
  static_assert(N <= springs_bound);
  static std::string name() { return "springs_run_time_" + std::to_string(N); }
  static void add_libraries(std::vector<entry_t>& entries, const std::string& c) {
    entries.push_back(entry<springs_tapeless<springs_bounded_vector>, springs_inputs<springs_bounded_vector, N>>(
        c + "/tapeless_bounded"));
    entries.push_back(entry<springs_tapeless<tl::vector<double, N>>, springs_inputs<tl::vector<double, N>, N>>(
        c + "/tapeless_fixed_shape"));
  }
};

/// The bytes of ADOL-C's tape `tag` (tapestats): one byte per operation, a locint per location, a
/// double per value, and the doubles of its Taylor stack, which the reverse sweep reads.
std::string adolc_tape_size(short tag) {
  std::array<std::size_t, STAT_SIZE> stats;
  tapestats(tag, stats.data());
  const std::size_t bytes = stats[NUM_OPERATIONS] + stats[NUM_LOCATIONS] * sizeof(locint) +
                            stats[NUM_VALUES] * sizeof(double) + stats[TAY_STACK_SIZE] * sizeof(double);
  return thousands(bytes) + " bytes of tape (" + thousands(stats[NUM_OPERATIONS]) + " operations, " +
         thousands(stats[NUM_LOCATIONS]) + " locations, " + thousands(stats[NUM_VALUES]) + " values, " +
         thousands(stats[TAY_STACK_SIZE]) + " Taylor coefficients)";
}

/// States the heap of the tapeless gradients of springs_run_time<N>.
template <std::size_t N>
void note_springs_memory() {
  const std::string c = springs_run_time<N>::name() + "/";
  note_memory(c + "tapeless",
              describe(measure_allocations<springs_tapeless<springs_vector>, springs_inputs<springs_vector, N>>()) +
                  ": the gradient's buffer of states and steps, its result and the sum's partials");
  note_memory(
      c + "tapeless_bounded",
      describe(
          measure_allocations<springs_tapeless<springs_bounded_vector>, springs_inputs<springs_bounded_vector, N>>()) +
          ": the states, " + std::to_string(sizeof(springs_bounded_vector)) + " bytes each");
}

/// States the memory of every library's gradient (harness.hpp, note_memory). Run after the tapes are
/// recorded; returns true: the gradients themselves are checked by the harness.
bool note_memory_of_each() {
  const std::string stored = "S12_oscillator/", checkpointed = "S12_oscillator_checkpoints/";
  note_memory(stored + "handwritten",
              describe(measure_allocations<s12_handwritten, s12_inputs>()) + ": every state (x, v) but the last");
  note_memory(stored + "tapeless", describe(measure_allocations<s12_tapeless, s12_inputs>()));
  note_memory(checkpointed + "tapeless", describe(measure_allocations<s12_tapeless_checkpoints, s12_inputs>()) +
                                             "; at most " + std::to_string(s12_snapshots) + " snapshots of " +
                                             std::to_string(sizeof(tl::vector<double, 2>)) + " bytes on the stack");
  // Cases are numbered from 1 in run<...>: S12_oscillator's tape (adolc_tape) is tag 2.
  note_memory(stored + "adolc_tape",
              describe(measure_allocations<detail::peer_kernel<s12, adolc::peer<adolc::mode::tape>, 1>, s12_inputs>()) +
                  "; " + adolc_tape_size(adolc::tag(1, adolc::mode::tape)));
  note_memory(stored + "sacado_rad",
              describe(measure_allocations<detail::peer_kernel<s12, sacado::rad, 1>, s12_inputs>()) +
                  " (Sacado keeps its blocks of nodes between gradients)");
  // The step's tape exists once a gradient has run the checkpointed loop (the gradients measured here).
  const allocations heap = measure_allocations<adolc_checkpoints::gradient, s12_inputs>();
  note_memory(checkpointed + "adolc_checkpoints", describe(heap) + "; " + adolc_tape_size(adolc_checkpoints::case_tag) +
                                                      "; the step's " + adolc_tape_size(adolc_checkpoints::step_tag) +
                                                      "; " + std::to_string(s12_snapshots) +
                                                      " checkpoints of 4 doubles");
  note_springs_memory<16>();
  note_springs_memory<256>();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  return tapeless_bench::run<s12, s12_checkpoints, springs_run_time<16>, springs_run_time<256>>(argc, argv,
                                                                                                note_memory_of_each);
}
