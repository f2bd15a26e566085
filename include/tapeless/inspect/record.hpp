// SPDX-License-Identifier: BSL-1.0
// tapeless/inspect/record.hpp: the graph of f at its arguments, with every value and every step of the
// reverse sweep, recorded for tl::trace (inspect/trace.hpp) and tl::to_dot (inspect/dot.hpp).
//
// record(f, args...) calls f with argument leaves, as tl::grad does, computes every value once
// (evaluated<Root, true>, as value_and_grad does) and walks the node tree twice:
//   forward, in post order (the order values are computed in), naming each node (inspect/forward.hpp);
//   backward, by the engine's own sweep (sweep/backward.hpp), whose observer records each step
//     (inspect/backward.hpp): each contribution is the one the engine computes, added by the engine's
//     own stores (argument_adjoints, let_scope). The gradient recorded is tl::grad's but for the
//     order of additions where grad adds two contributions before storing them, or fuses a region.
// Code that never calls tl::trace or tl::to_dot instantiates none of it. For that, the functions of
// inspect/ that depend on no type are templates all the same (`template <class = void>`): a
// translation unit that includes tapeless.hpp and traces nothing does not compile their bodies.
// Tests: test/unit/inspect/trace_test.cpp test/unit/inspect/dot_test.cpp
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/inspect/backward.hpp>
#include <tapeless/inspect/forward.hpp>
#include <tapeless/inspect/graph.hpp>
#include <tapeless/inspect/recorder.hpp>
#include <tapeless/sweep/adjoints.hpp>
#include <tapeless/sweep/cut.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

namespace tapeless::inspect::detail {

/// The graph of f at args, f's value and its gradient (of tl::grad's type: one value, or a tuple).
template <class Value, class Gradient>
struct recording {
  graph g;
  Value value;
  Gradient gradient;
};

template <class... Args>
inline constexpr bool valid_arguments = sizeof...(Args) > 0 && (... && (Real<Args> || Matrix<Args>));

/// Both walks from the root; f's value.
template <class Store, class Root>
auto record_root(recorder<Store>& rec, const Root& root) {
  using V = value_type_of_t<Root>;
  const ::tapeless::detail::evaluated<Root, true> values(root);
  rec.name_output(forward(root, values, rec, true));
  if constexpr (Root::is_active) {
    const V one(1);
    const std::size_t y = rec.g.output;
    rec.complete(step_kind::seed, y, view(one));
    if (rec.g.nodes[y].op == "output")
      rec.contribute(step_kind::pass, rec.id(key_of(root)), y, 0, view(one), view(one), pass_local(one), "output");
    ::tapeless::detail::backward_sweep(root, values, one, rec);  // the recorder is its store and observer
  }
  return V(::tapeless::detail::value_at(root, values));
}

/// The recording of f at args: f called with argument leaves, as tl::grad calls it.
template <class F, std::size_t... P, class... Args>
auto record(const F& f, std::index_sequence<P...>, const Args&... args) {
  ::tapeless::detail::observed_argument_adjoints<Args...> store;
  recorder<decltype(store)> rec(store);
  ((rec.g.arguments.push_back(rec.add(
       node{.kind = node_kind::argument, .name = "x" + std::to_string(P + 1), .value = show(args), .active = true}))),
   ...);
  auto result = std::invoke(f, argument<P, Args>(args)...);
  using Res = decltype(result);
  static_assert(Operand<Res> && !Matrix<value_type_of_t<Res>>,
                "tl::trace(f, args...) and tl::to_dot(f, args...): f must return a scalar, as for tl::grad");
  const auto value = [&] {
    if constexpr (Expression<Res>) {
      return record_root(rec, result);
    } else if constexpr (Variable<Res>) {
      return record_root(rec, ::tapeless::detail::as_node<value_type_of_t<Res>>(result));
    } else {  // a plain number: f depends on no argument
      rec.g.output = rec.add(node{.kind = node_kind::constant, .name = "y", .value = show(result)});
      return result;
    }
  }();
  ((rec.g.nodes[rec.g.arguments[P]].adjoint = show(store.template slot<P>())), ...);
  return recording<std::remove_cvref_t<decltype(value)>, decltype(store.gradient())>{std::move(rec.g), value,
                                                                                     store.gradient()};
}

}  // namespace tapeless::inspect::detail
