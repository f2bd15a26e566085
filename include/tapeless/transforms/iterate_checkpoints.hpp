// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/iterate_checkpoints.hpp: tl::iterate(tl::checkpoints<S>{}, n, init, step, params...),
// the loop whose reverse keeps at most S states and recomputes the others (binomial checkpointing).
//
// The loop is tl::iterate's node (transforms/iterate.hpp) with checkpoints<S> as its policy. Its forward
// pass runs the n steps and keeps nothing: s(0) is the value of its operand, which the evaluated tree
// holds anyway. Its rule runs the schedule of sweep/checkpoints.hpp from s(0): states are recomputed with
// the step's value (step_value) into S slots on the stack, and each step is swept with the adjoint of
// the state after it (step_adjoint) as the schedule reaches it, n - 1 down to 0. Those are the
// functions, states and order of the stored states' reverse loop, so the gradient is the same to the
// last bit; what checkpoints cost is t(n, S) steps run again, and no heap for any n.
// Tests: test/unit/transforms/iterate_checkpoints_test.cpp
#pragma once

#include <tapeless/adjoint/structured.hpp>
#include <tapeless/expr/concepts.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/operation/traits.hpp>
#include <tapeless/sweep/checkpoints.hpp>
#include <tapeless/sweep/iterate_steps.hpp>
#include <tapeless/transforms/iterate.hpp>
#include <tapeless/transforms/sum_over.hpp>

#include <cstddef>
#include <utility>

namespace tapeless {

namespace detail {

/// tl::iterate's node with checkpoints: the value without a cache, the rule by the binomial schedule.
template <class Step, std::size_t S, class Init, class... P>
struct iterate_steps<Step, checkpoints<S>, Init, P...> : matrix_operation {
  static constexpr operation_traits traits{.name = "iterate"};
  std::size_t n;
  Step step;
  checkpoints<S> keep;

  template <class X>
  constexpr auto value(const X& x) const {
    using State = in_lanes_t<scalar_of_t<X>, Init>;
    const auto all = parameters_from<Init, P...>(x);
    return advance(step, State(plain_get<0>(all)), 0, n, tail(all, std::index_sequence_for<P...>{}));
  }

  /// Dense adjoints only: the protocol makes a structured one (that of one element read) dense first.
  template <class G, class X, class Y>
    requires(!is_structured<G>)
  constexpr X vjp(const G& g, const X& x, const Y&) const {
    using T = scalar_of_t<X>;
    using State = in_lanes_t<T, Init>;
    const auto all = parameters_from<Init, P...>(x);
    const auto params = tail(all, std::index_sequence_for<P...>{});
    plain_tuple<in_lanes_t<T, P>...> sums{{filled<in_lanes_t<T, P>>(-0.0)}...};
    const State first(plain_get<0>(all));
    State adjoint(g);
    with_step_data(step, [&] {
      return reverse_with_checkpoints<S>(
          n, first, [&](State& s, std::size_t k) { s = step_value(step, s, k, params); },
          [&](const State& s, std::size_t k) { adjoint = step_adjoint(step, s, k, params, adjoint, sums); });
    });
    return laid_out_as<X>(with_first(adjoint, sums, std::index_sequence_for<P...>{}));
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
constexpr auto iterate(checkpoints<S> keep, std::size_t n, Init&& init, Step step, Params&&... params) {
  return detail::iterate_with(keep, n, std::forward<Init>(init), std::move(step), std::forward<Params>(params)...);
}

}  // namespace tapeless
