// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/grad.hpp: grad and value_and_grad, the functional transforms of reverse mode.
#pragma once

#include <tapeless/expr/make.hpp>
#include <tapeless/matrix/shape.hpp>
#include <tapeless/sweep/adjoints.hpp>
#include <tapeless/sweep/backward.hpp>

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
/// those named in grad<I...>, or all N when none are named.
template <std::size_t N, std::size_t... I>
constexpr auto selected_positions() {
  if constexpr (sizeof...(I) == 0)
    return hana::to_tuple(hana::make_range(hana::size_c<0>, hana::size_c<N>));
  else
    return hana::tuple_c<std::size_t, I...>;
}

/// The slot of argument position P in the gradient, as a hana::optional: nothing when P is a constant.
template <std::size_t P, class Positions>
constexpr auto slot_of(Positions positions) {
  auto slots = hana::to_tuple(hana::make_range(hana::size_c<0>, hana::length(positions)));
  return hana::find_if(slots, [&](auto s) { return positions[s] == hana::size_c<P>; });
}

/// What f receives at position P: an argument leaf if P is differentiated, else the plain number.
template <std::size_t P, class Positions, class Arg>
constexpr auto argument_for(Positions positions, const Arg& arg) {
  auto slot = slot_of<P>(positions);
  if constexpr (hana::is_just(slot))
    return argument<std::remove_cvref_t<decltype(slot.value())>::value, Arg>(arg);
  else
    return arg;
}

/// The callable grad(f) and value_and_grad(f) return.
template <class F, bool WithValue, std::size_t... I>
struct gradient_transform {
  F f;

  template <class... Args>
  constexpr auto operator()(const Args&... args) const {
    // Each misuse stops here with one sentence, and nothing further is instantiated.
    if constexpr (arguments_are_valid<Args...>()) {
      constexpr auto positions = selected_positions<sizeof...(Args), I...>();
      return run(positions, std::index_sequence_for<Args...>{}, args...);
    }
  }

 private:
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
    static_assert(((Real<Args> || Matrix<Args>) && ...),
                  "tl::grad(f)(args...): every argument must be a floating-point number (float, double or long "
                  "double; write 1.0, not 1) or a tl::matrix of them");
    static_assert(((I < n) && ...),
                  "tl::grad<I...>(f)(args...): an argument index I is not less than the number of arguments");
    static_assert(distinct, "tl::grad<I...>(f): an argument index is named twice");
    return n > 0 && ((Real<Args> || Matrix<Args>) && ...) && ((I < n) && ...) && distinct;
  }

  template <class Positions, std::size_t... P, class... Args>
  constexpr auto run(Positions positions, std::index_sequence<P...>, const Args&... args) const {
    // Asked only of an f that is not a template (a function, a lambda taking double): asking a generic
    // lambda instantiates its body, and clang then takes an error inside it (a shape check's) to mean
    // that f cannot be called, and would add this message, wrong there, to the one that matters.
    constexpr bool is_template = std::is_class_v<F> && !requires { &F::operator(); };
    constexpr bool invocable =
        is_template || std::is_invocable_v<const F&, decltype(argument_for<P>(positions, args))...>;
    static_assert(invocable,
                  "tl::grad(f)(args...): f cannot be called with differentiable numbers for these arguments; "
                  "write f as a generic lambda taking auto (or const auto&) parameters");
    if constexpr (invocable) {
      auto result = std::invoke(f, argument_for<P>(positions, args)...);
      using R = decltype(result);
      using selected = decltype(hana::unpack(positions, [](auto... s) { return std::index_sequence<s...>{}; }));
      using ArgTypes = std::type_identity<std::tuple<Args...>>;
      static_assert(Operand<R>,
                    "tl::grad(f): f must return a scalar (an expression or a number); it returned something else");
      constexpr bool scalar = Operand<R> && shapes::scalar_result<shape_of<value_type_of_t<R>>, Matrix<value_type_of_t<R>>>::ok;
      if constexpr (ShapeError<R> || !scalar) {
        // A check has failed and said so (a shape check in f, or the result's here): zeros of the
        // argument types, so that the caller's code adds no message of its own.
        return finish(make_store(selected{}, ArgTypes{}), 0.0);
      } else if constexpr (Expression<R>) {
        return sweep(selected{}, result, ArgTypes{});  // the result itself is the root: no copy of the tree
      } else if constexpr (Differentiable<R>) {
        return sweep(selected{}, as_node<value_type_of_t<R>>(result), ArgTypes{});  // f returned a var
      } else {
        // f returned a plain number: it depends on no argument, so every gradient is 0.
        return finish(make_store(selected{}, ArgTypes{}), result);
      }
    }
  }

  // One forward evaluation of the root's values and one reverse sweep from it into a store with one
  // slot per selected argument, typed like it.
  template <class Selected, class Root, class ArgTypes>
  static constexpr auto sweep(Selected selected, const Root& root, ArgTypes arg_types) {
    auto store = make_store(selected, arg_types);
    const evaluated<Root, WithValue> values(root);  // grad computes only what the sweep reads
    if constexpr (Root::is_active) backward_sweep(root, values, value_type_of_t<Root>(1), store);
    return finish(store, value_at(root, values));
  }

  template <std::size_t... S, class ArgTypes>
  static constexpr auto make_store(std::index_sequence<S...>, std::type_identity<ArgTypes>) {
    return argument_adjoints<std::tuple_element_t<S, ArgTypes>...>{};
  }

  // The gradient (one slot alone, or the tuple of them), with the value when asked for.
  template <class Store, class V>
  static constexpr auto finish(const Store& store, const V& value) {
    auto g = [&] {
      if constexpr (std::tuple_size_v<decltype(store.slots)> == 1)
        return std::get<0>(store.slots);
      else
        return store.slots;
    }();
    if constexpr (WithValue)
      return std::pair{value, g};
    else
      return g;
  }
};

}  // namespace detail

/// grad(f) is a function returning the gradient of the scalar function f at its arguments:
/// a plain number for one argument, a std::tuple in argument order for several.
/// grad<I...>(f) differentiates only with respect to the arguments at positions I..., in that order;
/// the other arguments are passed to f as plain numbers.
///
///   auto [g1, g2] = tl::grad(f)(1.0, 2.0);
template <std::size_t... I, class F>
constexpr auto grad(F f) {
  return detail::gradient_transform<F, false, I...>{std::move(f)};
}

/// value_and_grad(f)(args...) returns std::pair{f(args...), grad(f)(args...)} from one sweep.
template <std::size_t... I, class F>
constexpr auto value_and_grad(F f) {
  return detail::gradient_transform<F, true, I...>{std::move(f)};
}

}  // namespace tapeless
