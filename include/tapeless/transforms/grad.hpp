// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/grad.hpp: grad and value_and_grad, the functional transforms of reverse mode.
#pragma once

#include <tapeless/expr/children.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/interop/eigen.hpp>
#include <tapeless/matrix/shape.hpp>
#include <tapeless/meta/selected.hpp>
#include <tapeless/meta/type_list.hpp>
#include <tapeless/sweep/adjoints.hpp>
#include <tapeless/sweep/backward.hpp>
#include <tapeless/sweep/cut.hpp>
#include <tapeless/sweep/shared.hpp>
#include <tapeless/sweep/sweep_memory.hpp>
#include <tapeless/transforms/nested_grad.hpp>
#include <tapeless/transforms/run_time_reduction.hpp>
#include <tapeless/transforms/workspace.hpp>

#include <boost/hana/equal.hpp>
#include <boost/hana/find_if.hpp>
#include <boost/hana/integral_constant.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/range.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>

#include <cstddef>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

namespace hana = boost::hana;

/// The positions of the arguments differentiated, in the order their gradients are returned:
/// selected_sequence as a hana tuple of integral constants.
template <std::size_t N, std::size_t... I>
constexpr auto selected_positions() {
  return []<std::size_t... S>(std::index_sequence<S...>) { return hana::tuple_c<std::size_t, S...>; }
  (selected_sequence<N, I...>{});
}

/// The slot of argument position P in the gradient, as a hana::optional: nothing when P is a constant.
template <std::size_t P, class Positions>
constexpr auto slot_of(Positions positions) {
  auto slots = hana::to_tuple(hana::make_range(hana::size_c<0>, hana::length(positions)));
  return hana::find_if(slots, [&](auto s) { return positions[s] == hana::size_c<P>; });
}

/// What f receives at position P: an argument leaf if P is differentiated, else the plain number.
template <std::size_t P, class Positions, class Arg>
constexpr decltype(auto) argument_for(Positions positions, const Arg& arg) {
  auto slot = slot_of<P>(positions);
  if constexpr (hana::is_just(slot))
    return argument<std::remove_cvref_t<decltype(slot.value())>::value, Arg>(arg);
  else
    return arg;  // the caller's own, which outlives the sweep: data of f read where it lies
}

/// A gradient of the arguments Args... at the positions S... (one part, or a tuple of them), each part
/// as its argument's own type.
template <class... Args, std::size_t... S, class G>
constexpr auto gradient_as_caller(std::index_sequence<S...>, G&& g) {
  using A = std::tuple<Args...>;
  if constexpr (sizeof...(S) == 1)
    return as_caller<std::tuple_element_t<S, A>...>(std::forward<G>(g));
  else
    return std::apply([](auto&&... part) { return std::tuple{as_caller<std::tuple_element_t<S, A>>(part)...}; }, g);
}

/// The adjoint a sweep starts from: 1 for the gradient of a scalar f (vjp passes its own).
struct unit_seed {};

/// The auxiliary output of a has_aux function as plain values: nodes, vars and formulas of run-time
/// extents by their values, pairs and tuples element by element, anything else as it is.
template <class A>
constexpr auto aux_value(const A& a) {
  if constexpr (RunTimeFormula<A>) {
    return formula_value(a);
  } else if constexpr (Differentiable<A>) {
    return value_of(a);
  } else if constexpr (requires {
                         typename A::first_type;
                         typename A::second_type;
                       }) {
    return std::pair{aux_value(a.first), aux_value(a.second)};
  } else if constexpr (requires { std::tuple_size<A>::value; } && !Matrix<A>) {
    return std::apply([](const auto&... e) { return std::tuple{aux_value(e)...}; }, a);
  } else {
    return a;
  }
}

/// The parts of grad's result that sum the adjoints of the arguments, Part...: the matrix, or the
/// tuple's elements, and references to them. The result sums the adjoints itself (gradient_alone)
/// where a part is a matrix; a gradient of numbers alone stays in the store, in registers.
template <class G>
struct result_parts {
  using types = type_list<G>;
  static constexpr bool summed_in_result = Matrix<G>;
  static constexpr std::tuple<G&> of(G& g) { return std::tie(g); }
};
template <class... T>
struct result_parts<std::tuple<T...>> {
  using types = type_list<T...>;
  static constexpr bool summed_in_result = (Matrix<T> || ...) && !(RunTimeMatrix<T> || ...);
  static constexpr std::tuple<T&...> of(std::tuple<T...>& g) {
    return std::apply([](T&... part) { return std::tie(part...); }, g);
  }
};

/// The argument a part of the result is constructed from: uninitialized for a matrix, whose every
/// element the sweep writes (constructed in place: a matrix returned by a constexpr function is folded
/// by g++ into a constant of zeros, filled in), 0 for a number.
template <class T>
inline constexpr auto unwritten = [] {
  if constexpr (Matrix<T>)
    return uninitialized;
  else
    return T(0);
}();

/// The workspace offered to the next sweep on this thread that takes room for its intermediates
/// (tl::grad(f, ws)): offered once f has built its expression, taken by that sweep.
inline thread_local workspace* offered_workspace = nullptr;

/// f, whose gradients take the room of their intermediates from a workspace: tl::grad(f, ws).
template <class F>
struct with_workspace {
  F f;
  workspace* ws;
  template <class... A>
  constexpr auto operator()(A&&... a) const -> decltype(std::invoke(f, std::forward<A>(a)...)) {
    return std::invoke(f, std::forward<A>(a)...);
  }
};
template <class F>
inline constexpr bool is_with_workspace = false;
template <class F>
inline constexpr bool is_with_workspace<with_workspace<F>> = true;

/// Whether an operation of the tree N keeps intermediates of run-time size for its rule
/// (operation_traits::keeps_intermediates): its sweep then takes their room from an arena.
template <class N>
constexpr bool keeps_intermediates_in() {
  if constexpr (!known_node_kind<N>) {
    return false;
  } else {
    using Op = operation_of_t<N>;
    constexpr bool own = [] {
      if constexpr (requires { Op::traits.keeps_intermediates; })
        return Op::traits.keeps_intermediates;
      else
        return false;
    }();
    return own || []<class... C>(type_list<C...>) { return (keeps_intermediates_in<C>() || ...); }(children_t<N>{});
  }
}

/// The function the user wrote: f of with_workspace<F>.
template <class F>
struct written_function {
  using type = F;
};
template <class F>
struct written_function<with_workspace<F>> {
  using type = F;
};

/// Offers f's workspace to the sweep while it lives; nothing for an f without one.
template <class F>
struct workspace_offer {
  constexpr explicit workspace_offer(const F& /*f*/) noexcept {}
};
template <class F>
class workspace_offer<with_workspace<F>> {
 public:
  constexpr explicit workspace_offer(const with_workspace<F>& f) noexcept {
    if (std::is_constant_evaluated()) return;
    previous_ = offered_workspace;
    offered_workspace = f.ws;
  }
  workspace_offer(const workspace_offer&) = delete;
  workspace_offer& operator=(const workspace_offer&) = delete;
  constexpr ~workspace_offer() {
    if (!std::is_constant_evaluated()) offered_workspace = previous_;
  }

 private:
  workspace* previous_ = nullptr;
};

/// The callable grad(f) and value_and_grad(f) return. With HasAux, f returns a pair (loss, aux) and
/// the gradient is of the loss, with aux passed through.
template <class F, bool WithValue, bool HasAux, std::size_t... I>
struct gradient_transform {
  F f;

  template <class... Args>
  constexpr auto operator()(const Args&... args) const {
    if constexpr ((Differentiable<Args> || ...)) return inside_a_sweep(args...);
    // An Eigen argument goes in as a tl::matrix, and its gradient comes back as its own type.
    else if constexpr (any_eigen<Args...> || any_eigen_of_run_time_size<Args...>) {
      using Result = decltype((*this)(as_engine(args)...));
      if constexpr (!std::is_void_v<Result>) return in_caller_types<Args...>((*this)(as_engine(args)...));
    }
    // Each misuse stops here with one sentence, and nothing further is instantiated.
    else if constexpr (arguments_are_valid<Args...>())
      return run(unit_seed{}, std::index_sequence_for<Args...>{}, args...);
  }

  /// One reverse sweep from `seed`, the adjoint of f's result (of its type): the pullback of vjp.
  template <class Seed, class... Args>
  constexpr auto pull_back(const Seed& seed, const Args&... args) const {
    if constexpr (arguments_are_valid<Args...>()) return run(seed, std::index_sequence_for<Args...>{}, args...);
  }

 private:
  // What the engine returned for the arguments Args... (their gradient, with the value or aux output
  // beside it), with each Eigen argument's gradient as the argument's own type.
  template <class... Args, class Result>
  static constexpr auto in_caller_types(Result&& r) {
    auto gradient = [](auto&& g) {
      return gradient_as_caller<Args...>(selected_sequence<sizeof...(Args), I...>{}, std::forward<decltype(g)>(g));
    };
    if constexpr (HasAux && WithValue)
      return std::pair{std::move(r.first), gradient(std::move(r.second))};
    else if constexpr (HasAux)
      return std::pair{gradient(std::move(r.first)), std::move(r.second)};
    else if constexpr (WithValue)
      return std::pair{r.first, gradient(std::move(r.second))};
    else
      return gradient(std::forward<Result>(r));
  }

  // Called with expressions, inside a function being differentiated (grad(grad(f))): the node of this
  // gradient, whose rule is a Hessian-vector product (transforms/nested_grad.hpp). Its value is one
  // gradient, so one argument must be selected; value_and_grad gives f's own expression beside it.
  template <class... Args>
  constexpr auto inside_a_sweep(const Args&... args) const {
    constexpr bool one = sizeof...(I) == 1 || (sizeof...(I) == 0 && sizeof...(Args) == 1);
    static_assert(one,
                  "tl::grad(f) inside a function being differentiated gives one gradient: select one argument with "
                  "tl::grad<I>(f), or use tl::hessian for all second derivatives");
    static_assert(!HasAux, "tl::grad(f, tl::has_aux) cannot be differentiated again; differentiate tl::grad(f)");
    if constexpr (one && !HasAux && arguments_are_valid<value_type_of_t<Args>...>()) {
      constexpr std::size_t selected = [] {
        constexpr std::size_t named[] = {I..., 0};
        return named[0];
      }();
      auto g = gradient_node<selected>(f, args...);
      if constexpr (WithValue)
        return std::pair{std::invoke(f, args...), std::move(g)};
      else
        return g;
    } else {
      return shape_error{};  // passed on quietly by the enclosing function and grad, after the message above
    }
  }

  template <class... Args>
  static constexpr bool arguments_are_valid() {
    constexpr std::size_t n = sizeof...(Args);
    constexpr std::size_t indices[] = {I..., n};
    constexpr bool distinct = [&] {
      for (std::size_t a = 0; a < sizeof...(I); ++a)
        for (std::size_t b = a + 1; b < sizeof...(I); ++b)
          if (indices[a] == indices[b]) return false;
      return true;
    }();
    static_assert(n > 0, "tl::grad(f)(args...): call it with the arguments of f; there is nothing to differentiate");
    static_assert((... && (Real<Args> || Matrix<Args> || RunTimeMatrix<Args>)),
                  "tl::grad(f)(args...): every argument must be a floating-point number (float, double or long "
                  "double; write 1.0, not 1) or a tl::matrix of them (or an Eigen matrix of them)");
    static_assert(((I < n) && ...),
                  "tl::grad<I...>(f)(args...): an argument index I is not less than the number of arguments");
    static_assert(distinct, "tl::grad<I...>(f): an argument index is named twice");
    return n > 0 && (... && (Real<Args> || Matrix<Args> || RunTimeMatrix<Args>)) && ((I < n) && ...) && distinct;
  }

  template <class Seed, std::size_t... P, class... Args>
  constexpr auto run(const Seed& seed, std::index_sequence<P...>, const Args&... args) const {
    constexpr auto positions = selected_positions<sizeof...(Args), I...>();
    // Asked only of an f that is not a template (a function, a lambda taking double): asking a generic
    // lambda instantiates its body, and clang then takes an error inside it (a shape check's) to mean
    // that f cannot be called, and would add this message, wrong there, to the one that matters.
    using written = typename written_function<F>::type;
    constexpr bool is_template = std::is_class_v<written> && !requires { &written::operator(); };
    constexpr bool invocable =
        is_template || std::is_invocable_v<const written&, decltype(argument_for<P>(positions, args))...>;
    static_assert(invocable,
                  "tl::grad(f)(args...): f cannot be called with differentiable numbers for these arguments; "
                  "write f as a generic lambda taking auto (or const auto&) parameters");
    if constexpr (invocable) {
      // Until the sweep is done: the data f uses is read in place or copied once (expr/in_place.hpp).
      [[maybe_unused]] const data_scope_for<F, decltype(argument_for<P>(positions, args))...> data(f);
      const auto out = std::invoke(f, argument_for<P>(positions, args)...);
      // The caller's workspace, for this sweep (after f, in which other gradients may run).
      [[maybe_unused]] const workspace_offer<F> offer(f);
      constexpr bool pair = !HasAux || requires { std::tuple_size<std::remove_cvref_t<decltype(out)>>::value == 2; };
      static_assert(pair, "tl::grad(f, tl::has_aux): f must return a pair (loss, aux), e.g. std::pair{loss, aux}");
      if constexpr (pair) {
        const auto& result = loss_part(out);
        using R = std::remove_cvref_t<decltype(result)>;
        using selected = selected_sequence<sizeof...(Args), I...>;
        using ArgTypes = std::type_identity<std::tuple<Args...>>;
        static_assert(Operand<R>,
                      "tl::grad(f): f must return a scalar (an expression or a number); it returned something else");
        constexpr bool fits = Operand<R> && result_fits<value_type_of_t<R>, Seed>();
        const std::tuple<const Args&...> all{args...};
        if constexpr (ShapeError<R> || !fits) {
          // A check has failed and said so (a shape check in f, or the result's here): zeros of the
          // argument types, so that the caller's code adds no message of its own.
          return with_store(selected{}, ArgTypes{}, all, [&](auto& store) { return finish(store, 0.0, out); });
        } else if constexpr (Expression<R>) {
          return sweep(selected{}, result, ArgTypes{}, all, seed, out);  // the result is the root: no copy of the tree
        } else if constexpr (Differentiable<R>) {
          return sweep(selected{}, as_node<value_type_of_t<R>>(result), ArgTypes{}, all, seed, out);  // a var
        } else {
          // f returned a plain number: it depends on no argument, so every gradient is 0.
          return with_store(selected{}, ArgTypes{}, all, [&](auto& store) { return finish(store, result, out); });
        }
      }
    }
  }

  // What is differentiated of f's result: all of it, or the loss of (loss, aux).
  template <class Out>
  static constexpr const auto& loss_part(const Out& out) {
    if constexpr (HasAux)
      return std::get<0>(out);
    else
      return out;
  }

  // The gradient needs a scalar result; a sweep from a given seed, a result of the seed's type.
  template <class V, class Seed>
  static constexpr bool result_fits() {
    if constexpr (std::is_same_v<Seed, unit_seed>) {
      return shapes::scalar_result<shape_of<V>, Matrix<V>>::ok;
    } else {
      static_assert(std::is_same_v<V, Seed>,
                    "tl::vjp(f, args...): the cotangent passed to the pullback must have the type of f's result");
      return std::is_same_v<V, Seed>;
    }
  }

  // One forward evaluation of the root's values and one reverse sweep from it into a store with one
  // slot per selected argument, typed like it.
  template <class Selected, class Root, class ArgTypes, class All, class Seed, class Out>
  static constexpr auto sweep(Selected selected, const Root& root, ArgTypes arg_types, const All& all, const Seed& seed,
                              const Out& out) {
    decltype(make_shared_work<Root>(selected, arg_types)) shared;  // e.g. one LU of A for det(A) and inverse(A)
    using G = decltype(make_store(selected, arg_types).gradient());
    if constexpr (!HasAux && !WithValue && result_parts<G>::summed_in_result) {
      return gradient_alone<G>(typename result_parts<G>::types{}, root, shared, seed);
    } else {
      return with_store(selected, arg_types, all, [&](auto& store) {
        return evaluate_and_sweep(root, shared, seed, store,
                                  [&](const auto& value) { return finish(store, value, out); });
      });
    }
  }

  // then(store), the store of the selected arguments' adjoints. Default-constructed for arguments of
  // fixed shape (returned by a constexpr function, g++ would fold it into a constant of zeros, filled
  // in); sized from the arguments where one has run-time extents.
  template <std::size_t... S, class ArgTypes, class All, class Then>
  static constexpr auto with_store(std::index_sequence<S...> selected, ArgTypes arg_types, const All& all,
                                   const Then& then) {
    using Store = decltype(make_store(selected, arg_types));
    if constexpr ((RunTimeMatrix<std::tuple_element_t<S, All>> || ...)) {
      Store store(std::get<S>(all)...);
      return then(store);
    } else {
      Store store;
      return then(store);
    }
  }

  // The gradient alone, of a matrix argument or of several with a matrix among them: summed in the
  // result itself, not copied out of a store. One return of one local, so that the local is the
  // caller's result. Part is G for a matrix, the tuple's element types for a tuple.
  template <class G, class... Part, class Root, class Shared, class Seed>
  static constexpr G gradient_alone(type_list<Part...>, const Root& root, Shared& shared, const Seed& seed) {
    G gradient(unwritten<Part>...);
    auto store = std::make_from_tuple<argument_adjoints_into<Part...>>(result_parts<G>::of(gradient));
    evaluate_and_sweep(root, shared, seed, store, [](const auto&) {});
    store.finish();
    return gradient;
  }

  // The forward pass and the reverse one into store; then then(value of the root), while it lives.
  // Where an operation of the tree keeps intermediates of run-time size (a factorisation), or the caller
  // gave a workspace, the sweep runs with an arena (sweep/sweep_memory.hpp); what then() makes is the
  // caller's, on the heap. The store was made before, and stays on the heap. The tree is walked for
  // such operations only where what the sweep keeps needs a destructor: never at fixed shapes.
  template <class Root, class Shared, class Seed, class Store, class Then>
  static constexpr auto evaluate_and_sweep(const Root& root, Shared& shared, const Seed& seed, Store& store,
                                           const Then& then) {
    if constexpr (!std::is_trivially_destructible_v<evaluated<Root, WithValue>> ||
                  !std::is_trivially_destructible_v<Shared>) {
      if constexpr (is_with_workspace<F> || keeps_intermediates_in<Root>()) {
        if (!std::is_constant_evaluated()) return sweep_in_arena(root, shared, seed, store, then);
      }
    }
    return sweep_then(root, shared, seed, store, then);
  }
  // Not constexpr: a constexpr function may not hold the arena, which is not a literal type. In the
  // workspace offered to this sweep (tl::grad(f, ws)), else in a buffer of the sweep's own.
  template <class Root, class Shared, class Seed, class Store, class Then>
  static auto sweep_in_arena(const Root& root, Shared& shared, const Seed& seed, Store& store, const Then& then) {
    const auto sweep = [&] {
      return sweep_then(root, shared, seed, store, [&](const auto& value) {
        const result_scope result_outside_the_sweep;
        return then(value);
      });
    };
    if constexpr (is_with_workspace<F>) {
      if (workspace* ws = std::exchange(offered_workspace, nullptr)) {
        const sweep_in_workspace memory(*ws);
        return sweep();
      }
    }
    const sweep_memory memory;
    return sweep();
  }
  template <class Root, class Shared, class Seed, class Store, class Then>
  static constexpr auto sweep_then(const Root& root, Shared& shared, const Seed& seed, Store& store, const Then& then) {
    const evaluated<Root, WithValue> values(root, shared);  // grad computes only what the sweep reads
    if constexpr (Root::is_active) {
      if constexpr (std::is_same_v<Seed, unit_seed>)
        backward_sweep(root, values, value_type_of_t<Root>(1), store);
      else
        backward_sweep(root, values, seed, store);
    }
    return then(value_at(root, values));
  }

  // The store's type: a slot per selected argument, typed like it (a view's, like the matrix it views). Only its type:
  // a store returned by a constexpr function is folded by g++ into a constant whose unwritten slots are zeros, filled
  // in.
  template <std::size_t... S, class ArgTypes>
  static auto make_store(std::index_sequence<S...>, std::type_identity<ArgTypes>)
      -> argument_adjoints<matrix_of_view_t<std::tuple_element_t<S, ArgTypes>>...>;

  // What the nodes of the sweep share (sweep/shared.hpp), for argument leaves argument<slot, type>.
  template <class Root, std::size_t... S, class ArgTypes>
  static auto make_shared_work(std::index_sequence<S...>, std::type_identity<ArgTypes>) {
    return [&]<std::size_t... Slot>(std::index_sequence<Slot...>) {
      return shared_work<Root, argument<Slot, std::tuple_element_t<S, ArgTypes>>...>{};
    }
    (std::index_sequence_for<std::integral_constant<std::size_t, S>...>{});
  }

  // The gradient (one slot alone, or the tuple of them), with the value and the aux output when asked
  // for, laid out as JAX does: (value, grad), (grad, aux), ((value, aux), grad).
  template <class Store, class V, class Out>
  static constexpr auto finish(Store& store, const V& value, const Out& out) {
    auto g = store.gradient();  // moved into the pair: a copy would allocate for arrays of run-time extents
    if constexpr (HasAux) {
      auto aux = aux_value(std::get<1>(out));
      if constexpr (WithValue)
        return std::pair{std::pair{value, std::move(aux)}, std::move(g)};
      else
        return std::pair{std::move(g), std::move(aux)};
    } else if constexpr (WithValue) {
      return std::pair{value, std::move(g)};
    } else {
      return g;
    }
  }
};

}  // namespace detail

/// grad(f) is a function returning the gradient of the scalar function f at its arguments:
/// a plain number for one argument, a std::tuple in argument order for several.
/// grad<I...>(f) differentiates only with respect to the arguments at positions I..., in that order;
/// the other arguments are passed to f as plain numbers.
///
///   auto [g1, g2] = tl::grad(f)(1.0, 2.0);
///
/// grad(grad(f)) is the second derivative: grad(f) called on expressions, inside a function being
/// differentiated, is itself differentiable (transforms/nested_grad.hpp).
template <std::size_t... I, class F>
constexpr auto grad(F f) {
  return detail::gradient_transform<F, false, false, I...>{std::move(f)};
}

/// value_and_grad(f)(args...) returns std::pair{f(args...), grad(f)(args...)} from one sweep.
template <std::size_t... I, class F>
constexpr auto value_and_grad(F f) {
  return detail::gradient_transform<F, true, false, I...>{std::move(f)};
}

/// Marks a function returning a pair (loss, aux): the gradient is the loss's, and aux, anything the
/// caller wants back from the same call (a prediction, a count), is passed through as plain values.
struct has_aux_t {
  explicit has_aux_t() = default;
};
inline constexpr has_aux_t has_aux{};

/// grad(f, has_aux)(args...) returns std::pair{gradient, aux}.
template <std::size_t... I, class F>
constexpr auto grad(F f, has_aux_t) {
  return detail::gradient_transform<F, false, true, I...>{std::move(f)};
}

/// value_and_grad(f, has_aux)(args...) returns std::pair{std::pair{loss, aux}, gradient}.
template <std::size_t... I, class F>
constexpr auto value_and_grad(F f, has_aux_t) {
  return detail::gradient_transform<F, true, true, I...>{std::move(f)};
}

/// grad(f, ws), value_and_grad(f, ws) and the same with has_aux: the intermediates of a sweep over
/// arrays of run-time extents (a product's value, an LU factorisation, a dense adjoint) take their room
/// from the workspace ws, which grows to hold them, rather than from one allocation per call:
///
///   tl::workspace ws;
///   for (...) g = tl::grad(f, ws)(A);  // from the second call on, nothing but the result allocates
template <std::size_t... I, class F>
constexpr auto grad(F f, workspace& ws) {
  return detail::gradient_transform<detail::with_workspace<F>, false, false, I...>{{std::move(f), &ws}};
}
template <std::size_t... I, class F>
constexpr auto value_and_grad(F f, workspace& ws) {
  return detail::gradient_transform<detail::with_workspace<F>, true, false, I...>{{std::move(f), &ws}};
}
template <std::size_t... I, class F>
constexpr auto grad(F f, has_aux_t, workspace& ws) {
  return detail::gradient_transform<detail::with_workspace<F>, false, true, I...>{{std::move(f), &ws}};
}
template <std::size_t... I, class F>
constexpr auto value_and_grad(F f, has_aux_t, workspace& ws) {
  return detail::gradient_transform<detail::with_workspace<F>, true, true, I...>{{std::move(f), &ws}};
}

}  // namespace tapeless
