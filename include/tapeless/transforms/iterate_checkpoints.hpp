// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/iterate_checkpoints.hpp: tl::iterate(tl::checkpoints<S>{}, n, init, step, params...),
// the loop whose reverse keeps at most S states and recomputes the others (binomial checkpointing).
//
// The loop is tl::iterate's node (transforms/iterate.hpp) with the policy keeps_checkpoints<S>. Its
// forward pass runs the n steps and keeps nothing: s(0) is the value of its operand, which the evaluated
// tree holds anyway. Its reverse pass runs the schedule of sweep/checkpoints.hpp from s(0): states are
// recomputed with the step's value (step_value) into S slots on the stack, and each step is swept with
// the adjoint of the state after it (step_adjoint) as the schedule reaches it, n - 1 down to 0. Those
// are the functions, states and order of the stored states' reverse loop, so the gradient is the same
// to the last bit; what checkpoints cost is t(n, S) steps run again, and no heap for any n.
// Tests: test/unit/transforms/iterate_checkpoints_test.cpp
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/sweep/checkpoints.hpp>
#include <tapeless/sweep/iterate_steps.hpp>
#include <tapeless/transforms/iterate.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

/// What the forward pass of a loop with checkpoints keeps: nothing, s(0) being its operand's value.
struct kept_nothing {};

/// tl::iterate's policy with checkpoints<S>: the forward pass runs the steps, the reverse pass the
/// binomial schedule from s(0) (the policies' interface: transforms/iterate.hpp, stores_states).
template <std::size_t S>
struct keeps_checkpoints {
  template <class State, class Step, class Params>
  constexpr auto forward(const Step& step, const State& init, std::size_t n, const Params& params) const {
    return with_cache<State, kept_nothing>(advance(step, init, 0, n, params), kept_nothing{});
  }
  template <class State, class Step, class Params, class Sums>
  constexpr State reverse(const Step& step, const State& init, const kept_nothing&, std::size_t n, const Params& params,
                          const State& adjoint, Sums& sums) const {
    State a = adjoint;
    with_step_data(step, [&] {
      return reverse_with_checkpoints<S>(
          n, init, [&](State& s, std::size_t k) TAPELESS_STEP_FLATTEN { s = step_value(step, s, k, params); },
          [&](const State& s, std::size_t k) TAPELESS_STEP_FLATTEN { a = step_adjoint(step, s, k, params, a, sums); });
    });
    return a;
  }
};

}  // namespace detail

/// tl::iterate whose reverse sweep keeps at most S states, in an array on the stack inside the call,
/// and recomputes the others from them by Griewank and Walther's binomial schedule ("revolve"): no heap
/// for any n, and the gradient of stored states to the last bit, at the cost of t(n, S) = r n -
/// C(S + r, S + 1) steps run again, r the least with C(S + r, S) >= n (sweep/checkpoints.hpp). With
/// plain values, or outside a gradient, it is tl::iterate(n, init, step, params...).
///
///   auto s = tl::iterate(tl::checkpoints<32>{}, n, s0, step, kk, c);  // n = 1000: 2405 steps run again
template <std::size_t S, Operand Init, class Step, class... Params>
constexpr auto iterate(checkpoints<S>, std::size_t n, Init&& init, Step step, Params&&... params) {
  static_assert(S >= 1, "tl::checkpoints<S> needs S >= 1: the reverse sweep advances the loop's state in one of them");
  // With S = 0 the loop is built with stored states, so that the sentence above is the only error.
  using Policy = std::conditional_t<S == 0, detail::in_own_memory, detail::keeps_checkpoints<S>>;
  return detail::iterate_with(Policy{}, n, std::forward<Init>(init), std::move(step), std::forward<Params>(params)...);
}

}  // namespace tapeless
