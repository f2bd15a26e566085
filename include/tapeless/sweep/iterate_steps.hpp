// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/iterate_steps.hpp: the steps of a loop that carries a state, forward and in reverse.
//
// s(k+1) = step(s(k), k, params...) has one term type whatever k, so a loop of run-time length builds
// that term for one step on leaves, as a sum over rows builds its term (sweep/sum_over_rows.hpp): the
// state and each parameter an argument leaf where their adjoints are wanted, a constant where only the
// value is. Forward, the term is evaluated for the next state; in reverse, it is evaluated again at the
// stored state s(k) and swept with the adjoint of s(k+1) as its seed (a matrix for a matrix state),
// which gives the adjoint of s(k) and adds the parameters' adjoints into sums kept over all the steps.
// Nothing is recorded: a step's tree lives in registers and on the stack for that step only.
//
// The two functions of one step are the interface of every schedule of the reverse loop:
//   step_value(step, s, k, params)                      s(k+1), from s = s(k) and the parameters' values;
//   step_adjoint(step, s, k, params, adjoint, sums)     the adjoint of s(k), from that of s(k+1), adding
//                                                       the parameters' adjoints of this step into sums.
// The loops over stored states (advance_storing, reverse_stored) and without storing (advance) are
// built on them; a schedule that keeps fewer states recomputes them with step_value.
// Tests: test/unit/transforms/iterate/
#pragma once

#include <tapeless/adjoint/structured.hpp>
#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/in_place.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/sweep/adjoints.hpp>
#include <tapeless/sweep/backward.hpp>
#include <tapeless/sweep/sum_over_rows.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

// TAPELESS_STEP_FLATTEN marks the functions of a schedule that run one step (the checkpoints' advance
// and reverse, transforms/iterate_checkpoints.hpp): step_value or step_adjoint, and every function
// they call, is inlined into them, with g++ as with clang. Left to itself, g++ 12 calls the step's
// evaluation and sweep out of line from the schedule, and builds the step's tree in memory at every
// call: S12 of bench/steps_bench.cpp runs 27% more instructions per gradient with checkpoints<32>.
// The loops over stored states are left to the inliner, which inlines the step into them already
// (flattened, g++ keeps the parameters' sums in memory there). Written in GNU syntax, which applies to
// a lambda's call operator. Not at -O0 (no __OPTIMIZE__), where it only costs compile time; defined
// before this header, empty, it leaves those functions to the compiler's inliner.
#ifndef TAPELESS_STEP_FLATTEN
#if defined(__GNUC__) && defined(__OPTIMIZE__)
#define TAPELESS_STEP_FLATTEN __attribute__((flatten))
#else
#define TAPELESS_STEP_FLATTEN
#endif
#endif

// TAPELESS_STEP_LOOP marks the forward loops over a small state's steps (store_small_steps,
// run_small_steps; small_state below): g++ runs each out of line, and without its basic-block (SLP)
// vectorizer. Inlined into the gradient, the loop begins after the allocation of the states, a call
// across which g++ keeps no floating-point register: it then reads the parameters from the stack at
// every step, and carries part of the state through memory. And where a step's parts have the same
// form (s[0] + dt * s[1] and s[1] + dt * (...)), the SLP vectorizer packs the state into one vector
// register to store it in one instruction, which puts two shuffles on the chain of dependent
// operations from one step to the next: S12 of bench/steps_bench.cpp runs its forward loop 25% slower
// so. Defined before this header, empty, it leaves those functions to the compiler.
#ifndef TAPELESS_STEP_LOOP
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#define TAPELESS_STEP_LOOP __attribute__((noinline, optimize("no-tree-slp-vectorize")))
#else
#define TAPELESS_STEP_LOOP
#endif
#endif

namespace tapeless::detail {

/// What a step derives from that runs its own loop over a state of run-time extents: it states the two
/// functions of one step as members, next_state and state_adjoint, which step_value and step_adjoint
/// call in place of their own (transforms/iterate_run_time_state.hpp).
struct whole_array_step_tag {};
template <class Step>
concept steps_whole_arrays = std::is_base_of_v<whole_array_step_tag, Step>;

template <class State, steps_whole_arrays Step, class Params>
constexpr State step_value(const Step& step, const State& state, std::size_t k, const Params& params) {
  return step.next_state(state, k, params);
}
template <class State, steps_whole_arrays Step, class Params, class Sums>
constexpr State step_adjoint(const Step& step, const State& state, std::size_t k, const Params& params,
                             const State& adjoint, Sums& sums) {
  return step.state_adjoint(state, k, params, adjoint, sums);
}

/// The term of one step, step(s, k, params...), built on leaves: the state takes the slot of parameter
/// 0 and parameter J that of J + 1 (parameter_leaf: constants for Wanted value, argument leaves for
/// partials).
template <wanted Wanted, class Step, class State, std::size_t... J, class... P>
constexpr auto step_term(const Step& step, const State& state, std::size_t k,
                         const plain_tuple_of<std::index_sequence<J...>, P...>& params) {
  return step(parameter_leaf<Wanted, 0>(state), k, parameter_leaf<Wanted, J + 1>(plain_get<J>(params))...);
}

/// The type of a step's term, as step_term builds it from a state State and parameters P...
template <wanted Wanted, class Step, class State, class... P>
using step_term_t =
    std::remove_cvref_t<decltype(step_term<Wanted>(std::declval<const Step&>(), std::declval<const State&>(),
                                                   std::size_t{}, std::declval<const plain_tuple<P...>&>()))>;

/// s(k+1) = step(s(k), k, params...) on values: numbers, matrices, or dual numbers of either, as State.
template <class State, class Step, class Params>
constexpr State step_value(const Step& step, const State& state, std::size_t k, const Params& params) {
  const auto term = step_term<wanted::value>(step, state, k, params);
  using Term = std::remove_cvref_t<decltype(term)>;
  if constexpr (Expression<Term>) {
    const evaluated<Term, true> values(term);
    return State(value_at(term, values));
  } else {
    return State(term);  // a step that reads nothing of its leaves
  }
}

/// Whether a term's leaf is the state's argument leaf.
template <class Leaf>
inline constexpr bool is_state_leaf = false;
template <class V>
inline constexpr bool is_state_leaf<argument<parameter_slot, V>> = true;

/// The adjoint of a small matrix state (small_state), summed element by element: the first adjoint
/// to reach an element is copied into it and the others added, and an element none reached is +0 at
/// the end. A step reads its state by elements (s[0] + dt * s[1]), whose adjoints are one element
/// each; summed as one matrix (adjoint_sum), the first would write zeros around its element and every
/// later one add to those zeros, an addition of +0 per element and step on the reverse loop's chain of
/// dependent operations. With the sweep inlined, `written` is known where it is tested, and the tests
/// fold away.
template <class State>
struct elementwise_sum {
  static constexpr std::size_t size = State::size();  // at most 64: a small state's bytes
  static_assert(size <= 64);
  static constexpr std::uint64_t every = size == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << size) - 1;
  State value;
  std::uint64_t written = 0;  // bit e: element e has received an adjoint

  constexpr elementwise_sum() : value(uninitialized) {}

  template <class G>
  TAPELESS_SWEEP_INLINE constexpr void add(const G& g) {
    if constexpr (lists_elements<G>) {
      g.each_element([this](std::size_t e, const auto& v) { this->add_at(e, v); });
    } else {
      if (written == 0) {
        assign_adjoint(value, g);
      } else if (written == every) {
        add_adjoint(value, g);
      } else {
        const State d = dense_of(g);
        for (std::size_t e = 0; e < size; ++e) add_at(e, d[e]);
      }
      written = every;
    }
  }
  /// The sum, for a rule to write its first adjoint into; nullptr once an adjoint has arrived.
  constexpr State* claim() {
    if (written != 0) return nullptr;
    written = every;
    return &value;
  }
  /// The sum, `none` in every element no adjoint reached (as adjoint_sum::total).
  constexpr const State& total(double none) {
    if (written != every)
      for (std::size_t e = 0; e < size; ++e)
        if ((written >> e & 1) == 0) value[e] = typename State::value_type(none);
    written = every;
    return value;
  }

 private:
  template <class V>
  TAPELESS_SWEEP_INLINE constexpr void add_at(std::size_t e, const V& v) {
    const std::uint64_t bit = std::uint64_t{1} << e;
    if ((written & bit) != 0) {
      value[e] += v;
    } else {
      value[e] = v;
      written |= bit;
    }
  }
  template <class G>
  static constexpr State dense_of(const G& g) {
    if constexpr (is_structured<G>)
      return g.dense();
    else
      return State(g);
  }
};

/// Whether a state is small: trivially copyable, of at most 64 bytes (8 doubles), as the checkpoints
/// advance in registers (sweep/checkpoints.hpp). Its step is a short chain of scalar operations, whose
/// latency is the loop's: the forward loops over it run as TAPELESS_STEP_LOOP says, and its adjoint is
/// summed element by element. A larger state's step does more work side by side, in tapeless's own
/// SIMD batches and the vectorizer's, whose packing it needs (S14 of bench/lstm_bench.cpp, a state of
/// 33 numbers, runs 3% more instructions without it), and its adjoint is one matrix.
template <class State>
inline constexpr bool small_state = std::is_trivially_copyable_v<State> && sizeof(State) <= 64;

/// The sum of a state's adjoints in one step: element by element for a small matrix state.
template <class State>
struct state_sum {
  using type = adjoint_sum<State>;
};
template <Matrix State>
  requires small_state<State>
struct state_sum<State> {
  using type = elementwise_sum<State>;
};

/// The adjoints of one step's sweep: the state's in a sum of its own (it starts afresh at every step),
/// the parameters' added into the sums kept over all the steps.
template <class State, class Sums>
struct step_adjoints {
  typename state_sum<State>::type state{};
  Sums& sums;

  template <class Leaf, class G>
  TAPELESS_SWEEP_INLINE constexpr void accumulate(const Leaf&, const G& g) {
    if constexpr (is_state_leaf<Leaf>)
      state.add(g);
    else
      add_adjoint(plain_get<Leaf::slot - parameter_slot - 1>(sums), g);
  }
  /// The state's sum, for a rule to write its first adjoint into in place.
  template <class Leaf>
  constexpr auto claim(const Leaf&) {
    if constexpr (is_state_leaf<Leaf>)
      return state.claim();
    else
      return nullptr;
  }
};

/// The adjoint of s(k), from `adjoint`, that of s(k+1) = step(s(k), k, params...); adds the adjoints
/// this step sends the parameters into `sums` (one per parameter, of its type: start them at -0, the
/// identity of IEEE addition). The state is `state`, s(k); the step's term is evaluated at it again.
template <class State, class Step, class Params, class Sums>
constexpr State step_adjoint(const Step& step, const State& state, std::size_t k, const Params& params,
                             const State& adjoint, Sums& sums) {
  const auto term = step_term<wanted::partials>(step, state, k, params);
  using Term = std::remove_cvref_t<decltype(term)>;
  if constexpr (Expression<Term>) {
    if constexpr (Term::is_active) {
      const evaluated<Term, false> values(term);
      step_adjoints<State, Sums> store{{}, sums};
      backward_sweep(term, values, adjoint, store);
      return store.state.total(0.0);
    }
  }
  return filled<State>(0.0);  // a step that reads neither the state nor a parameter
}

/// The data scope of a step's terms: data the step holds by value is read in place, as long as the
/// loop runs (expr/in_place.hpp). Nothing is done in a constant expression.
template <class Step, class Run>
constexpr auto with_step_data(const Step& step, const Run& run) {
  if (std::is_constant_evaluated()) return run();
  const data_in_use outer = open_data_scope(&step, sizeof(Step), nullptr, 0);
  auto result = run();
  close_data_scope(outer);
  return result;
}

/// The loop of advance_storing for a small state, in the step's data scope.
template <class State, class Step, class Params>
TAPELESS_STEP_LOOP constexpr State store_small_steps(const Step& step, const State& init, std::size_t n,
                                                     const Params& params, State* states) {
  const Params values = params;  // a local: the stores to `states` cannot change it
  State s = init;
  for (std::size_t k = 0; k < n; ++k) {
    std::construct_at(states + k, s);
    s = step_value(step, s, k, values);
  }
  return State(s);  // a copy: s itself is no return slot in memory, and stays in registers
}

/// s(n) from s(0) = init, storing s(0) ... s(n - 1) at `states` (room for n states, constructed here),
/// which the reverse loop reads.
template <class State, class Step, class Params>
constexpr State advance_storing(const Step& step, const State& init, std::size_t n, const Params& params,
                                State* states) {
  return with_step_data(step, [&] {
    if constexpr (small_state<State>) {
      return store_small_steps(step, init, n, params, states);
    } else {
      // s(k) moved into its place, and s(k + 1) computed from there: a state that owns its elements
      // (tl::dynamic) hands them on rather than copying them. The parameters in a local, as in
      // store_small_steps: where this loop is not inlined into the function that holds them, the
      // stores to `states` could change them through the reference, and g++ reloads them every step.
      const Params values = params;
      State s = init;
      for (std::size_t k = 0; k < n; ++k) {
        std::construct_at(states + k, std::move(s));
        s = step_value(step, states[k], k, values);
      }
      return s;
    }
  });
}

/// The loop of advance for a small state, in the step's data scope.
template <class State, class Step, class Params>
TAPELESS_STEP_LOOP constexpr State run_small_steps(const Step& step, const State& init, std::size_t first,
                                                   std::size_t last, const Params& params) {
  const Params values = params;
  State s = init;
  for (std::size_t k = first; k < last; ++k) s = step_value(step, s, k, values);
  return State(s);
}

/// s(n) from s(0) = init, storing nothing: the loop outside a gradient, or a schedule's recomputation.
template <class State, class Step, class Params>
constexpr State advance(const Step& step, const State& init, std::size_t first, std::size_t last,
                        const Params& params) {
  return with_step_data(step, [&] {
    if constexpr (small_state<State>) {
      return run_small_steps(step, init, first, last, params);
    } else {
      State s = init;
      for (std::size_t k = first; k < last; ++k) s = step_value(step, s, k, params);
      return s;
    }
  });
}

/// The adjoint of s(0), from `adjoint`, that of s(n), reading the states advance_storing stored; adds
/// the parameters' adjoints over all the steps into `sums`.
template <class State, class Step, class Params, class Sums>
constexpr State reverse_stored(const Step& step, const State* states, std::size_t n, const Params& params,
                               const State& adjoint, Sums& sums) {
  return with_step_data(step, [&] {
    // The parameters and the sums in locals of the loop: g++ otherwise loads and stores them through
    // their references at every step where it inlines the loop into a larger function.
    const Params values = params;
    Sums local_sums = sums;
    State a = adjoint;
    for (std::size_t k = n; k-- > 0;) a = step_adjoint(step, states[k], k, values, a, local_sums);
    sums = local_sums;
    return a;
  });
}

}  // namespace tapeless::detail
