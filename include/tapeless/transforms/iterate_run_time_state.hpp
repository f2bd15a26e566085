// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/iterate_run_time_state.hpp: tl::iterate whose state is an array of run-time extents.
//
// A fixed-shape state's step is one term on leaves, evaluated and swept where it stands
// (sweep/iterate_steps.hpp). A state of run-time extents (tl::dynamic, tl::bounded) is a formula over
// whole arrays (expr/run_time_elementwise.hpp), which is no node: a formula turns into a loop only where
// something sums it. So each step runs as its own loop over the state's elements:
//   forward, s(k+1) is step's formula at tl::cref(s(k)), its elements written into a state of s(k)'s
//   extents in one pass;
//   in reverse, the adjoint of s(k), and the parameters' of step k, are the gradient of
//   tl::dot(step(s, k, params...), a) at s(k), a the adjoint of s(k+1): one sum over the state's
//   elements, as tl::vjp takes the pullback of a function returning such an array.
// The wrapped step (whole_array_step) states both as the two functions every schedule of the reverse
// loop calls, so the stored states, a tl::workspace and checkpoints serve it unchanged. The loop's node
// (iterate_run_time_steps) takes init, and the parameters stacked in one vector where there are any.
// Tests: test/unit/transforms/iterate/run_time_state_test.cpp
#pragma once

#include <tapeless/detail/arena.hpp>
#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/expr/run_time_elementwise.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/matrix_view.hpp>
#include <tapeless/matrix/run_time_matrix.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/operation/traits.hpp>
#include <tapeless/sweep/iterate_steps.hpp>
#include <tapeless/transforms/grad.hpp>
#include <tapeless/transforms/run_time_reduction.hpp>
#include <tapeless/transforms/sum_over.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// A view of rows x cols elements as a State (a tl::matrix of run-time extents) has them, with none
/// to read.
template <class State>
constexpr auto view_of_extents_only(std::size_t rows, std::size_t cols) {
  return []<class T, std::size_t R, std::size_t C>(std::type_identity<matrix<T, R, C>>, std::size_t r, std::size_t c) {
    return dense_view<T, R, C>(nullptr, r, c, c, 1);
  }(std::type_identity<State>{}, rows, cols);
}

/// A step's result for a state of run-time extents: an array of the state's extents, or a formula of them.
template <class R>
inline constexpr bool run_time_step_result = RunTimeFormula<R> || RunTimeArray<R>;

/// step of tl::iterate for a state of run-time extents, with the two functions of one step that the
/// schedules call (sweep/iterate_steps.hpp, step_value and step_adjoint). It holds step first, so that
/// the data scope of the loop (with_step_data) covers what step holds.
template <class Step>
struct whole_array_step : whole_array_step_tag {
  Step step;

  /// step's result at s = s(k), params being values: a formula over tl::cref(s).
  template <class State, class Params>
  constexpr auto formula_at(const State& s, std::size_t k, const Params& params) const {
    return apply_plain([&](const auto&... p) { return step(::tapeless::cref(s), k, p...); }, params);
  }

  /// Stops with std::invalid_argument where step's result at a state of rows x cols has other extents:
  /// checked where the loop is built, before anything is evaluated, since every step's extents are those
  /// of the first. The state there is a view of those extents over no elements (as State, of run-time
  /// extents, stands for the state) and the parameters zeros: making a formula reads no element.
  template <class State, class Params>
  constexpr void check_extents(std::size_t rows, std::size_t cols) const {
    const auto r = formula_at(view_of_extents_only<State>(rows, cols), 0, Params{});
    if (r.rows() != rows || r.cols() != cols)
      throw std::invalid_argument("tl::iterate(n, init, step, params...): step returns " +
                                  shape_text(r.rows(), r.cols()) + " where the state, init, is " +
                                  shape_text(rows, cols));
  }

  /// s(k+1), from s = s(k): step's formula evaluated element by element into a state of s's extents.
  template <class State, class Params>
  constexpr State next_state(const State& s, std::size_t k, const Params& params) const {
    const auto r = formula_at(s, k, params);
    using R = std::remove_cvref_t<decltype(r)>;
    if constexpr (RunTimeFormula<R>) {
      State out(s.rows(), s.cols(), uninitialized);  // every element written below
      each_element_value(r, [&](std::size_t e, const auto& v) { return (out[e] = v, true); });
      return out;
    } else {
      return State(value_of(r));  // step returns data or its state as it is
    }
  }

  /// The adjoint of s(k) from `adjoint`, that of s(k+1), adding the parameters' adjoints of step k into
  /// sums: the gradient of tl::dot(step(s, k, params...), adjoint) at s(k).
  template <class State, class Params, class Sums>
  constexpr State state_adjoint(const State& s, std::size_t k, const Params& params, const State& adjoint,
                                Sums& sums) const {
    const auto along_adjoint = [&](const auto& state, const auto&... p) {
      return ::tapeless::dot(step(state, k, p...), ::tapeless::cref(adjoint));
    };
    const gradient_transform<decltype(along_adjoint), false, false> gradient{along_adjoint};
    if constexpr (Params::size == 0) {
      return State(gradient(s));
    } else {
      return apply_plain(
          [&](const auto&... p) {
            auto g = gradient(s, p...);
            [&]<std::size_t... J>(std::index_sequence<J...>) {
              (add_adjoint(plain_get<J>(sums), std::get<J + 1>(g)), ...);
            }
            (std::index_sequence_for<decltype(p)...>{});
            return State(std::move(std::get<0>(g)));
          },
          params);
    }
  }
};

/// The reverse loop's adjoints of the parameters, kept from the adjoint of init's rule for the
/// parameters' own (iterate_run_time_steps, both operands active): one reverse loop gives both, and the
/// sweep asks each operand's rule in turn, init's first.
template <class Kept, class Sums>
struct kept_with_sums {
  Kept kept;
  mutable Sums sums;
  mutable bool sums_held = false;
};

/// The state after n steps of s(k+1) = step(s(k), k, params...), s(0) = init of run-time extents: a
/// unary operation on init where there are no parameters, else a binary one on init and the parameters
/// stacked in one vector (tl::concat of each flattened; each a number or of fixed shape). Policy says
/// what the forward pass keeps (stores_states, keeps_checkpoints).
template <class Step, class Policy, class... P>
struct iterate_run_time_steps : matrix_operation {
  /// The number type of the loop at operands x and y: a dual number where either is.
  template <class X, class Y>
  using number_t = std::common_type_t<scalar_of_t<X>, scalar_of_t<Y>>;
  /// The state for a value x of init: a tl::matrix of its extents in number type S (of a view, tl::cref
  /// of an Eigen vector, the matrix it reads as).
  template <class S, class X>
  using state_t = in_lanes_t<S, matrix_of_view_t<X>>;
  /// The parameters' sums in number type S.
  template <class S>
  using sums_t = plain_tuple<in_lanes_t<S, P>...>;

  // Its states, adjoints and the buffers of its steps take their room from the sweep's arena, whose
  // pieces serve again step after step (detail/arena.hpp, loop_scope).
  static constexpr operation_traits traits{
      .name = "iterate", .keeps_intermediates = true, .takes_run_time_extents = true};
  std::size_t n = 0;
  whole_array_step<Step> step;
  Policy keep;
  element_extents state_extents;  // init's, every state's

  /// The extents of the loop's value, the last state: init's (expr/expression.hpp asks them of it).
  [[nodiscard]] constexpr element_extents extents() const noexcept { return state_extents; }

  template <class X>
  constexpr auto forward(const X& x) const {
    const loop_scope steps_memory;  // the states and the steps' buffers in the current arena
    return keep.forward(step, state_of<scalar_of_t<X>>(x), n, plain_tuple<>{});
  }
  template <class G, class X, class Y, class C>
    requires(!is_structured<G>)
  constexpr state_t<scalar_of_t<X>, X> vjp(const G& g, const X& x, const Y& /*y*/, const C& kept) const {
    const loop_scope steps_memory;
    using S = scalar_of_t<X>;
    plain_tuple<> sums{};
    return keep.reverse(step, state_of<S>(x), kept, n, plain_tuple<>{}, state_of<S>(g), sums);
  }

  // With parameters, the state and the parameters in one number type, S: a dual number where either is
  // (tl::hessian of a loop from data, init, in the parameters), since an array of run-time extents is
  // not lifted where it is an operand (expr/make.hpp, lifted_to).
  template <class X, class Y>
    requires(!std::is_same_v<Y, value_unread_t>)  // the form every value reads (operation/protocol.hpp)
  constexpr auto forward(const X& x, const Y& y) const {
    const loop_scope steps_memory;
    using S = number_t<X, Y>;
    auto r = keep.forward(step, state_of<S>(x), n, params_of<S>(y));
    using Kept = kept_with_sums<decltype(r.cache), sums_t<S>>;
    return with_cache<state_t<S, X>, Kept>(std::move(r.value), std::in_place, std::move(r.cache), zero_sums<S>());
  }
  // One reverse loop gives the adjoints of init and of the parameters: init's rule, which the sweep asks
  // first, keeps the parameters' for theirs. Not in a constant expression, where a mutable member cannot
  // be read: each rule runs the loop there.
  template <class G, class X, class Y, class Z, class C>
    requires(!is_structured<G>)
  constexpr state_t<number_t<X, Y>, X> vjp_lhs(const G& g, const X& x, const Y& y, const Z& /*z*/,
                                               const C& kept) const {
    const loop_scope steps_memory;
    using S = number_t<X, Y>;
    sums_t<S> sums = zero_sums<S>();
    state_t<S, X> a = keep.reverse(step, state_of<S>(x), kept.kept, n, params_of<S>(y), state_of<S>(g), sums);
    if (!std::is_constant_evaluated()) {
      kept.sums = sums;
      kept.sums_held = true;
    }
    return a;
  }
  template <class G, class X, class Y, class Z, class C>
    requires(!is_structured<G>)
  constexpr Y vjp_rhs(const G& g, const X& x, const Y& y, const Z& /*z*/, const C& kept) const {
    const loop_scope steps_memory;
    using S = number_t<X, Y>;
    sums_t<S> sums = zero_sums<S>();
    if (!std::is_constant_evaluated() && kept.sums_held) {
      sums = kept.sums;
      kept.sums_held = false;
    } else {
      keep.reverse(step, state_of<S>(x), kept.kept, n, params_of<S>(y), state_of<S>(g), sums);
    }
    // +0 where no step reached a parameter (n = 0), as for a state of fixed shape.
    apply_plain([](auto&... sum) { (add_lanes(sum, filled<std::remove_cvref_t<decltype(sum)>>(0.0)), ...); }, sums);
    return laid_out_as<Y>(sums);
  }

 private:
  /// The parameters' sums before any step: -0, the identity of IEEE addition.
  template <class S>
  static constexpr sums_t<S> zero_sums() {
    return sums_t<S>{{filled<in_lanes_t<S, P>>(-0.0)}...};
  }
  /// The parameters, stacked in y, in number type S.
  template <class S, class Y>
  static constexpr auto params_of(const Y& y) {
    return parameters_from<P...>(as_number<S>(y));
  }
  /// x as a state_t: x itself where it is one, else a copy.
  template <class S, class X>
  static constexpr decltype(auto) state_of(const X& x) {
    if constexpr (std::is_same_v<X, state_t<S, X>>) {
      return (x);
    } else {
      state_t<S, X> s(x.rows(), x.cols(), uninitialized);
      for (std::size_t e = 0; e < x.size(); ++e) s[e] = S(x[e]);
      return s;
    }
  }
};

}  // namespace tapeless::detail
