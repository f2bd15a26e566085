// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/nested_grad.hpp: grad(f) called on expressions, inside a function being differentiated.
//
// grad(grad(f))(x) calls grad(f) with x as an argument leaf of the outer sweep. That call returns a
// node, gradient_at_nodes, whose value is the gradient of f and whose backward rule is the Hessian-
// vector product: for the outer adjoint G of grad<S> f, the adjoint of argument P is
//   d/de [grad<P> f](x + e G at position S) = (d2f / dx_P dx_S) G,
// one reverse sweep of f run with dual numbers (forward over reverse). A third derivative runs that
// sweep in duals of duals, and so on: every level costs one more sweep, never a tape.
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/expression.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/transforms/tangent.hpp>

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

template <class F, bool WithValue, bool HasAux, std::size_t... I>
struct gradient_transform;

/// grad<S>(f) at arguments of which those at positions Node... are nodes of an enclosing sweep:
/// a unary or binary matrix operation on those nodes. `Values` holds every argument's value: the plain
/// ones as given, a placeholder at each node position, filled with the node's value at each use.
template <class F, std::size_t S, class Values, std::size_t... Node>
struct gradient_at_nodes : matrix_operation {
  // The rule reads the point (the operands), not the gradient there; the value has the extents of
  // argument S, fixed or run-time.
  static constexpr operation_traits traits{.vjp_reads = reads_operands, .takes_run_time_extents = true};
  F f;
  Values values;

  template <class... X>
    requires(sizeof...(X) == sizeof...(Node))
  constexpr auto value(const X&... x) const {
    return apply_plain([&](const auto&... a) { return gradient_transform<F, false, false, S>{f}(a...); }, at(x...));
  }

  template <class G, class X, class Y>
    requires(!is_structured<G>)
  constexpr auto vjp(const G& g, const X& x, const Y&) const { return adjoint<Node...>(g, x); }
  template <class G, class X, class Y, class Z>
    requires(!is_structured<G>)
  constexpr auto vjp_lhs(const G& g, const X& x, const Y& y, const Z&) const {
    return adjoint<std::get<0>(std::tuple{Node...})>(g, x, y);
  }
  template <class G, class X, class Y, class Z>
    requires(!is_structured<G>)
  constexpr auto vjp_rhs(const G& g, const X& x, const Y& y, const Z&) const {
    return adjoint<std::get<1>(std::tuple{Node...})>(g, x, y);
  }

 private:
  /// Every argument's value, with the nodes' values x... in their places.
  template <class... X>
  constexpr Values at(const X&... x) const {
    Values v = values;
    ((plain_get<Node>(v) = x), ...);
    return v;
  }

  /// The adjoint of the node at position P: the tangent of grad<P> f, run with every argument a dual
  /// number, argument S moving along g and the others standing still.
  template <std::size_t P, class G, class... X>
  constexpr auto adjoint(const G& g, const X&... x) const {
    const Values v = at(x...);
    auto seeded = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
      if constexpr (K == S)
        return with_tangent(plain_get<K>(v), g);
      else
        return without_tangent(plain_get<K>(v));
    };
    auto moved = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return gradient_transform<F, false, false, P>{f}(seeded(std::integral_constant<std::size_t, K>{})...);
    }
    (std::make_index_sequence<Values::size>{});
    return tangent_part(moved);
  }
};

/// The positions of the differentiable arguments among Args.
template <class... Args>
constexpr auto node_positions() {
  constexpr bool node[] = {Differentiable<Args>..., false};
  constexpr std::size_t count = (std::size_t(Differentiable<Args>) + ... + 0);
  std::array<std::size_t, count> positions{};
  std::size_t k = 0;
  for (std::size_t p = 0; p < sizeof...(Args); ++p)
    if (node[p]) positions[k++] = p;
  return positions;
}

/// grad<S>(f)(args...) where some args are nodes: the node of the gradient (see gradient_at_nodes).
template <std::size_t S, class F, class... Args>
constexpr auto gradient_node(const F& f, const Args&... args) {
  constexpr auto nodes = node_positions<Args...>();
  static_assert(nodes.size() <= 2,
                "tl::grad(f) inside a function being differentiated: at most two of its arguments may depend on "
                "the outer function's arguments; pass the others as plain numbers (or use tl::hessian)");
  if constexpr (nodes.size() <= 2) {
    using Values = plain_tuple<value_type_of_t<Args>...>;
    // A node's place is filled at each use with its value; computing it here would be wasted.
    auto plain = []<class A>(const A& a) {
      if constexpr (Differentiable<A>)
        return value_type_of_t<A>{};
      else
        return a;
    };
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      using Op = gradient_at_nodes<F, S, Values, nodes[K]...>;
      Op op{{}, f, Values{{plain(args)}...}};
      const auto operands = std::forward_as_tuple(args...);
      if constexpr (sizeof...(K) == 1)
        return make_unary(std::move(op), std::get<nodes[K]>(operands)...);
      else
        return make_binary(std::move(op), std::get<nodes[K]>(operands)...);
    }
    (std::make_index_sequence<nodes.size()>{});
  }
}

}  // namespace tapeless::detail
