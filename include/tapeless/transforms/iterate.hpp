// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/iterate.hpp: tl::iterate, a state carried through a run-time number of steps.
//
// The loop is one node of the expression, as a sum over rows is (transforms/sum_over.hpp): a unary
// operation whose operand is init, or init and the parameters stacked in one vector (tl::concat of each
// flattened), so that every walk of the tree, every transform and the inspectors take it as they take
// any operation. Its forward pass runs the steps of sweep/iterate_steps.hpp and keeps, as its cache,
// the states s(0) ... s(n - 1) that the reverse loop reads, in one allocation (or in a tl::workspace,
// or the gradient's arena);
// its rule runs the steps in reverse from the adjoint of s(n). Its operand's values may be dual
// numbers, so hessian, jvp and grad of grad run through it as through any node: the loop then runs in
// dual numbers.
// Tests: test/unit/transforms/iterate/
#pragma once

#include <tapeless/detail/arena.hpp>
#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/shape.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/operation/traits.hpp>
#include <tapeless/ops/shape.hpp>
#include <tapeless/simd/batch.hpp>
#include <tapeless/sweep/iterate_steps.hpp>
#include <tapeless/sweep/sum_over_rows.hpp>
#include <tapeless/transforms/iterate_run_time_state.hpp>
#include <tapeless/transforms/sum_over.hpp>
#include <tapeless/transforms/workspace.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace shapes {
/// The state step returns must have the shape of init: a number for a number, an R x C matrix for one.
template <shape State, shape Step, bool StateIsMatrix, bool StepIsMatrix>
struct iterate_shapes {
  static constexpr bool ok = State == Step && StateIsMatrix == StepIsMatrix;
  static_assert(ok,
                "tl::iterate(n, init, step, params...): step(s, k, params...) must return the state's shape, that "
                "of init (a number for a number; R x C for an R x C matrix)");
};
}  // namespace shapes

namespace detail {

/// Room for the n states State that the reverse loop reads: in one allocation of its own, in the
/// arena of the sweep or of the transform's workspace where one is current (tl::grad(f, ws); the loop's
/// loop_scope makes it take buffers), or in a workspace of tl::iterate's own. A copy (a let's
/// evaluation copied) holds its own.
template <class State>
class state_store {
 public:
  /// Room for n states of its own, or in the current arena.
  constexpr explicit state_store(std::size_t n) : n_(n) {
    if (n == 0) return;
    if (!std::is_constant_evaluated()) arena_ = arena_taking_buffers();
    data_ = room_in<State>(arena_, n, in_arena_);
  }
  /// Room for n states in ws where it fits, else of its own.
  state_store(std::size_t n, workspace& ws) : n_(n) {
    if (n == 0) return;
    if (std::byte* room = workspace_access::claim(ws, n * sizeof(State), alignof(State))) {
      data_ = static_cast<State*>(static_cast<void*>(room));
      borrowed_from_ = &ws;
    } else {
      data_ = std::allocator<State>().allocate(n);
    }
  }
  constexpr state_store(const state_store& other) : n_(other.n_) {
    if (n_ > 0) data_ = std::allocator<State>().allocate(n_);
    for (std::size_t k = 0; k < n_; ++k) std::construct_at(data_ + k, other.data_[k]);
  }
  constexpr state_store(state_store&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        n_(other.n_),
        borrowed_from_(other.borrowed_from_),
        arena_(std::exchange(other.arena_, nullptr)),
        in_arena_(other.in_arena_) {}
  state_store& operator=(const state_store&) = delete;
  state_store& operator=(state_store&&) = delete;
  constexpr ~state_store() {
    if (data_ == nullptr) return;
    if constexpr (!std::is_trivially_destructible_v<State>) std::destroy_n(data_, n_);
    if (borrowed_from_ != nullptr)
      workspace_access::release(*borrowed_from_);
    else
      give_back_room(arena_, data_, n_, in_arena_);
  }

  /// The room for state k, which advance_storing constructs.
  [[nodiscard]] constexpr State* data() const noexcept { return data_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return n_; }

 private:
  State* data_ = nullptr;
  std::size_t n_ = 0;
  workspace* borrowed_from_ = nullptr;
  arena* arena_ = nullptr;  // the current arena, asked for the room
  bool in_arena_ = false;   // and the room is there
};

/// A policy of tl::iterate says what the forward pass keeps for the reverse pass, and runs both:
///   keep.forward(step, init, n, params)                        with_cache{s(n), what it kept};
///   keep.reverse(step, init, kept, n, params, adjoint, sums)   the adjoint of s(0) = init from `adjoint`,
///                                                              that of s(n), adding the parameters'
///                                                              adjoints into sums;
/// both on the steps of sweep/iterate_steps.hpp. The policies below store every state the reverse pass
/// reads, in room that Derived::room<State>(n) makes.
template <class Derived>
struct stores_states {
  template <class State, class Step, class Params>
  constexpr auto forward(const Step& step, const State& init, std::size_t n, const Params& params) const {
    state_store<State> states = static_cast<const Derived&>(*this).template room<State>(n);
    State last = advance_storing(step, init, n, params, states.data());
    return with_cache<State, state_store<State>>(std::move(last), std::move(states));
  }
  template <class State, class Step, class Params, class Sums>
  constexpr State reverse(const Step& step, const State& /*init*/, const state_store<State>& states, std::size_t n,
                          const Params& params, const State& adjoint, Sums& sums) const {
    return reverse_stored(step, states.data(), n, params, adjoint, sums);
  }
};

/// The states kept in one allocation per call (tl::iterate's default).
struct in_own_memory : stores_states<in_own_memory> {
  template <class State>
  constexpr state_store<State> room(std::size_t n) const {
    return state_store<State>(n);
  }
};

/// The states kept in a caller's workspace (in one allocation of their own in a constant expression).
struct in_workspace : stores_states<in_workspace> {
  workspace* ws;
  template <class State>
  constexpr state_store<State> room(std::size_t n) const {
    if (std::is_constant_evaluated()) return state_store<State>(n);
    return state_store<State>(n, *ws);
  }
};

/// The state after n steps of s(k+1) = step(s(k), k, params...), a function of init and the parameters
/// (their values of doubles in Init and P...; the operand may hold duals): init alone, or init and the
/// parameters stacked in a vector. Policy says what the forward pass keeps (stores_states).
template <class Step, class Policy, class Init, class... P>
struct iterate_steps : matrix_operation {
  static constexpr operation_traits traits{.name = "iterate"};
  std::size_t n;
  Step step;
  Policy keep;

  template <class X>
  constexpr auto forward(const X& x) const {
    const loop_scope steps_memory;  // the states and the steps' buffers in the current arena
    using S = scalar_of_t<X>;
    using State = in_lanes_t<S, Init>;
    const auto all = parameters_from<Init, P...>(x);
    const auto params = tail(all, std::index_sequence_for<P...>{});
    return keep.forward(step, State(plain_get<0>(all)), n, params);
  }

  template <class G, class X, class Y, class C>
  constexpr X vjp(const G& g, const X& x, const Y&, const C& kept) const {
    const loop_scope steps_memory;
    using S = scalar_of_t<X>;
    using State = in_lanes_t<S, Init>;
    const auto all = parameters_from<Init, P...>(x);
    const auto params = tail(all, std::index_sequence_for<P...>{});
    plain_tuple<in_lanes_t<S, P>...> sums{{filled<in_lanes_t<S, P>>(-0.0)}...};
    const State adjoint = keep.reverse(step, State(plain_get<0>(all)), kept, n, params, State(g), sums);
    return laid_out_as<X>(with_first(adjoint, sums, std::index_sequence_for<P...>{}));
  }

 private:
  /// The parameters of the step: all but init.
  template <class All, std::size_t... J>
  static constexpr auto tail(const All& all, std::index_sequence<J...>) {
    return plain_tuple<std::remove_cvref_t<decltype(plain_get<J + 1>(all))>...>{{plain_get<J + 1>(all)}...};
  }
  /// init's adjoint before the parameters' sums, +0 where no step reached one.
  template <class A, class Sums, std::size_t... J>
  static constexpr auto with_first(const A& a, const Sums& sums, std::index_sequence<J...>) {
    using Out = plain_tuple<A, std::remove_cvref_t<decltype(plain_get<J>(sums))>...>;
    Out out{{a}, {plain_get<J>(sums)}...};
    (add_lanes(plain_get<J + 1>(out), filled<std::remove_cvref_t<decltype(plain_get<J>(sums))>>(0.0)), ...);
    return out;
  }
};

/// The value type of operand E as a state or parameter: a plain integer as the number type T.
template <class T, class E>
using step_value_t = std::conditional_t<Matrix<value_type_of_t<E>>, value_type_of_t<E>, T>;

/// Whether an operand is differentiable and depends on an argument: a var, or an active node. An
/// expression of constants (tl::cref data, a sum's row) counts as its plain value.
template <class E>
concept active_expression = Expression<E> && std::remove_cvref_t<E>::is_active;
template <class E>
concept reaches_argument = Variable<E> || active_expression<E>;

/// iterate_on_run_time_state once init and the parameters are of the kinds it takes.
template <class Policy, class Init, class Step, class... Params>
constexpr auto iterate_from_run_time_array(const Policy& keep, std::size_t n, Init&& init, Step step,
                                           Params&&... params) {
  using T = plain_value_t<scalar_type_of_t<Init>, scalar_type_of_t<Params>...>;
  // The state is a tl::matrix of init's extents; init may be a view (tl::cref of an Eigen vector).
  using State = matrix_of_view_t<decltype(value_of(init))>;
  using Values = plain_tuple<in_lanes_t<T, step_value_t<T, Params>>...>;
  using Result = decltype(std::declval<const whole_array_step<Step>&>().formula_at(
      std::declval<const State&>(), std::size_t{}, std::declval<const Values&>()));
  constexpr bool array_result = run_time_step_result<std::remove_cvref_t<Result>>;
  static_assert(array_result,
                "tl::iterate(n, init, step, params...): for a state of run-time extents, step must return an array "
                "of the state's extents (a formula over s), not a number or a matrix of fixed shape");
  const whole_array_step<Step> whole{{}, std::move(step)};
  if constexpr (!array_result) {
    return shape_error{};
  } else if constexpr (!(reaches_argument<Init> || ... || reaches_argument<Params>)) {
    const Values values{{static_cast<step_value_t<T, Params>>(value_of(params))}...};
    const auto& given = value_of(init);
    if (n > 0) whole.template check_extents<State, Values>(given.rows(), given.cols());
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(given)>, State>)
      return advance(whole, given, 0, n, values);
    else
      return advance(whole, State(given), 0, n, values);  // a view's elements, as the state's matrix
  } else {
    if (n > 0) whole.template check_extents<State, Values>(init.rows(), init.cols());
    using Op = iterate_run_time_steps<Step, Policy, in_lanes_t<T, step_value_t<T, Params>>...>;
    Op op{{}, n, whole, keep, {init.rows(), init.cols(), false}};
    // Plain data as init is copied into a constant leaf, an operand of the loop's node, as a state of
    // fixed shape is; tl::cref(data) is read where it lies.
    auto first = [&]() -> decltype(auto) {
      if constexpr (Differentiable<Init>)
        return std::forward<Init>(init);
      else
        return constant<State>(State(init));
    };
    if constexpr (sizeof...(Params) == 0)
      return make_unary(std::move(op), first());
    else if constexpr (sizeof...(Params) == 1)
      return make_binary(std::move(op), first(), std::forward<Params>(params)...);
    else
      return make_binary(std::move(op), first(), concat(flattened(std::forward<Params>(params))...));
  }
}

/// tl::iterate with states kept by `keep`, from init of run-time extents (an array, or a node of one):
/// the loop of whole_array_step, whose parameters are numbers or of fixed shape.
template <class Policy, class Init, class Step, class... Params>
constexpr auto iterate_on_run_time_state(const Policy& keep, std::size_t n, Init&& init, Step step,
                                         Params&&... params) {
  constexpr bool fixed_params = !(RunTimeArray<Params> || ...);
  static_assert(fixed_params,
                "tl::iterate(n, init, step, params...) with a state of run-time extents: each of params must be a "
                "number or of fixed shape; let step capture data of run-time extents instead");
  constexpr bool array_init = !RunTimeFormula<Init>;
  static_assert(array_init,
                "tl::iterate(n, init, step, params...): init of run-time extents must be an array or an argument, "
                "not a formula over them; apply that formula in step");
  if constexpr (!fixed_params || !array_init)
    return shape_error{};  // passed on quietly, after the sentence above
  else
    return iterate_from_run_time_array(keep, n, std::forward<Init>(init), std::move(step),
                                       std::forward<Params>(params)...);
}

/// tl::iterate with states kept by `keep`, on operands of numbers (not SIMD batches).
template <class Policy, class Init, class Step, class... Params>
constexpr auto iterate_on_numbers(const Policy& keep, std::size_t n, Init&& init, Step step, Params&&... params) {
  using T = plain_value_t<scalar_type_of_t<Init>, scalar_type_of_t<Params>...>;
  using InitV = in_lanes_t<T, step_value_t<T, Init>>;
  using Term = step_term_t<wanted::value, Step, InitV, in_lanes_t<T, step_value_t<T, Params>>...>;
  using Result = value_type_of_t<Term>;
  constexpr bool same_shape =
      shapes::iterate_shapes<shape_of<InitV>, shape_of<Result>, Matrix<InitV>, Matrix<std::remove_cvref_t<Result>>>::ok;
  constexpr bool own_leaves =
      !same_shape ||
      reads_parameters_only<step_term_t<wanted::partials, Step, InitV, in_lanes_t<T, step_value_t<T, Params>>...>>();
  static_assert(own_leaves,
                "tl::iterate(n, init, step, params...): step reads an expression of f that it captures; pass that "
                "expression to step as one of params instead");
  if constexpr (!same_shape || !own_leaves) {
    return InitV{};
  } else if constexpr (!(reaches_argument<Init> || ... || reaches_argument<Params>)) {
    // The step's own number type where it brings a wider one: dual numbers it captures, as f run by
    // tl::jvp holds them.
    using U = std::common_type_t<T, scalar_of_t<Result>>;
    const plain_tuple<in_lanes_t<U, step_value_t<T, Params>>...> values{
        {broadcast<U>(static_cast<step_value_t<T, Params>>(value_of(params)))}...};
    return advance(step, broadcast<U>(static_cast<step_value_t<T, Init>>(value_of(init))), 0, n, values);
  } else {
    using Op = iterate_steps<Step, Policy, InitV, in_lanes_t<T, step_value_t<T, Params>>...>;
    Op op{{}, n, std::move(step), keep};
    if constexpr (sizeof...(Params) == 0)
      return make_unary(std::move(op), std::forward<Init>(init));
    else
      return make_unary(std::move(op),
                        concat(flattened(std::forward<Init>(init)), flattened(std::forward<Params>(params))...));
  }
}

/// The SIMD batch among the number types Ts, or void where there is none.
template <class... Ts>
struct batch_among {
  using type = void;
};
template <class T, class... Ts>
struct batch_among<T, Ts...> {
  using type = std::conditional_t<simd::is_batch<T>, T, typename batch_among<Ts...>::type>;
};

/// Lane j of v, a number or a matrix of SIMD batches or numbers, as numbers.
template <class V>
constexpr auto lane_of(const V& v, std::size_t j) {
  if constexpr (Matrix<V>) {
    in_lanes_t<typename lane_number<scalar_of_t<V>>::type, V> m(uninitialized);
    for (std::size_t e = 0; e < V::size(); ++e) m[e] = lane_of(v[e], j);
    return m;
  } else if constexpr (simd::is_batch<V>) {
    return v.get(j);
  } else {
    return v;
  }
}

/// The batch L of the results of each lane's loop, a number or a matrix each.
template <class L, class R, std::size_t W>
constexpr auto in_one_batch(const std::array<R, W>& lanes) {
  const auto element = [&](const auto& at) {
    std::array<typename L::value_type, W> e{};
    for (std::size_t j = 0; j < W; ++j) e[j] = at(lanes[j]);
    return L::load_unaligned(e.data());
  };
  if constexpr (Matrix<R>) {
    in_lanes_t<L, R> m(uninitialized);
    for (std::size_t e = 0; e < R::size(); ++e) m[e] = element([e](const R& r) { return r[e]; });
    return m;
  } else {
    return element([](const R& r) { return r; });
  }
}

/// tl::iterate with states kept by `keep`. A sum over rows may run its term on a SIMD batch of rows, whose
/// values then come as batches: each lane's loop runs apart, on numbers, since step need not be written
/// for batches (a sum runs a term in batches when the term's operations are, and the loop is a number
/// there, its step out of sight).
template <class Policy, class Init, class Step, class... Params>
constexpr auto iterate_with(const Policy& keep, std::size_t n, Init&& init, Step step, Params&&... params) {
  using L = typename batch_among<scalar_type_of_t<Init>, scalar_type_of_t<Params>...>::type;
  if constexpr (RunTimeArray<Init>) {
    return iterate_on_run_time_state(keep, n, std::forward<Init>(init), std::move(step),
                                     std::forward<Params>(params)...);
  } else if constexpr (std::is_void_v<L>) {
    return iterate_on_numbers(keep, n, std::forward<Init>(init), std::move(step), std::forward<Params>(params)...);
  } else {
    static_assert(!(reaches_argument<Init> || ... || reaches_argument<Params>),
                  "tl::iterate: SIMD batches of rows reach it only as data");
    using R = decltype(iterate_on_numbers(keep, n, lane_of(value_of(init), 0), step, lane_of(value_of(params), 0)...));
    std::array<R, L::size> lanes{};
    for (std::size_t j = 0; j < L::size; ++j)
      lanes[j] = iterate_on_numbers(keep, n, lane_of(value_of(init), j), step, lane_of(value_of(params), j)...);
    auto batch = in_one_batch<L>(lanes);
    return constant<decltype(batch)>(std::move(batch));  // a batch is no operand; a constant leaf of it is
  }
}

template <class X>
inline constexpr bool is_workspace = std::is_same_v<std::remove_cvref_t<X>, workspace>;

}  // namespace detail

/// The state after n steps: s(0) = init, s(k + 1) = step(s(k), k, params...), the result s(n) (init
/// for n = 0). n is a run-time count; step is generic in all its parameters and receives the state as
/// an expression of init's shape (a number, a fixed-shape matrix, or an array of run-time extents:
/// transforms/iterate_run_time_state.hpp), k as a std::size_t, then params as they are given:
/// expressions of f's arguments, or plain numbers and matrices. It may read plain
/// data it captures (an input at step k), and returns an expression of the state's shape. The result
/// is an expression like any other (differentiable again: hessian, jvp, grad of grad); with plain init
/// and params, a plain value.
///
/// In a gradient, the n states s(0) ... s(n - 1) that the reverse loop reads are stored in one
/// allocation per call (see tl::workspace to reuse it); the steps run again in reverse, one at a time,
/// each swept with the adjoint of the state after it.
///
///   auto loss = [&](const auto& kk, const auto& c) {
///     auto s = tl::iterate(n, tl::vector<double, 2>{1.0, 0.0}, [dt](const auto& s, std::size_t, const auto& kk,
///                          const auto& c) { return tl::concat(s[0] + dt * s[1], s[1] + dt * (-kk * s[0] - c * s[1]));
///                          }, kk, c);
///     return tl::square(s[0] - 0.25) + s[1];
///   };
template <Operand Init, class Step, class... Params>
  requires(!detail::is_workspace<Init>)
constexpr auto iterate(std::size_t n, Init&& init, Step step, Params&&... params) {
  return detail::iterate_with(detail::in_own_memory{}, n, std::forward<Init>(init), std::move(step),
                              std::forward<Params>(params)...);
}

/// tl::iterate keeping its states in the caller's workspace `ws`, which must outlive the gradient:
/// nothing is allocated once ws is large enough.
template <Operand Init, class Step, class... Params>
constexpr auto iterate(workspace& ws, std::size_t n, Init&& init, Step step, Params&&... params) {
  return detail::iterate_with(detail::in_workspace{{}, &ws}, n, std::forward<Init>(init), std::move(step),
                              std::forward<Params>(params)...);
}

}  // namespace tapeless
