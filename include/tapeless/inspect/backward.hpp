// SPDX-License-Identifier: BSL-1.0
// tapeless/inspect/backward.hpp: the reverse sweep of a recording, step by step.
#pragma once

#include <tapeless/concepts/expression.hpp>
#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/cut.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/let.hpp>
#include <tapeless/expr/select.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/inspect/forward.hpp>
#include <tapeless/inspect/graph.hpp>
#include <tapeless/inspect/recorder.hpp>
#include <tapeless/ops/rules.hpp>
#include <tapeless/sweep/adjoints.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::inspect::detail {

/// The adjoint the let scope of Tag has summed so far, found along the chain of stores.
template <class Tag, class T, class Parent>
const T& scope_total(const ::tapeless::detail::let_scope<Tag, T, Parent>& s) {
  return s.sum.value;  // read after an adjoint arrived
}
template <class Tag, class Other, class T, class Parent>
  requires(!std::is_same_v<Tag, Other>)
const auto& scope_total(const ::tapeless::detail::let_scope<Other, T, Parent>& s) { return scope_total<Tag>(s.parent); }

template <std::size_t S, class T, bool Need, class G, class Store, class Arguments>
void backward(const argument<S, T>& leaf, const ::tapeless::detail::evaluated<argument<S, T>, Need>&, const G& g,
              Store& store, recorder<Arguments>& rec) {
  store.accumulate(leaf, g);
  rec.accumulated(rec.id(key_of(leaf)), view(rec.arguments.template slot<S>()));
}

template <class Tag, class T, bool Need, class G, class Store, class Arguments>
void backward(const bound<Tag, T>& leaf, const ::tapeless::detail::evaluated<bound<Tag, T>, Need>&, const G& g,
              Store& store, recorder<Arguments>& rec) {
  store.accumulate(leaf, g);
  rec.accumulated(rec.id(key_of(leaf)), view(scope_total<Tag>(store)));
}

/// The engine adds into the var's own gradient (*grad_ += g); the trace adds into a copy of it that
/// starts at 0, in the var's type, and leaves the var alone.
template <class T, bool Need, class G, class Store, class Arguments>
void backward(const var_ref<T>& leaf, const ::tapeless::detail::evaluated<var_ref<T>, Need>&, const G& g, Store&,
              recorder<Arguments>& rec) {
  const std::size_t id = rec.id(key_of(leaf));
  std::size_t k = 0;
  while (rec.g.variables[k] != id) ++k;
  T total = static_cast<T>(rec.var_totals[k]);
  total += g;
  rec.var_totals[k] = total;
  rec.accumulated(id, view(total));
}

template <class Op, class A, bool Need, class G, class Store, class Arguments>
void backward(const unary_node<Op, A>& n, const ::tapeless::detail::evaluated<unary_node<Op, A>, Need>& v, const G& g,
              Store& store, recorder<Arguments>& rec) {
  const std::size_t self = rec.id(key_of(n));
  rec.reached(self, view(g));
  if constexpr (A::is_active) {
    const auto& x = ::tapeless::detail::value_at(n.arg, v.arg);
    const auto c = ::tapeless::detail::dense_or_uniform(::tapeless::detail::unary_vjp(n.op, g, x, v.out()));
    const std::size_t a = rec.id(key_of(n.arg));
    if constexpr (::tapeless::detail::is_matrix_operation<Op>)
      rec.contribute(step_kind::vjp, a, self, 0, view(g), view(c), {}, op_name(n.op), "");
    else
      rec.contribute(step_kind::chain, a, self, 0, view(g), view(c),
                     view(::tapeless::detail::unary_derivative(n.op, x, v.value())));
    backward(n.arg, v.arg, c, store, rec);
  }
}

template <class Op, class A, class B, bool Need, class G, class Store, class Arguments>
void backward(const binary_node<Op, A, B>& n, const ::tapeless::detail::evaluated<binary_node<Op, A, B>, Need>& v,
              const G& g, Store& store, recorder<Arguments>& rec) {
  using T = typename binary_node<Op, A, B>::value_type;
  const std::size_t self = rec.id(key_of(n));
  rec.reached(self, view(g));
  const auto& x = ::tapeless::detail::value_at(n.lhs, v.lhs);
  const auto& y = ::tapeless::detail::value_at(n.rhs, v.rhs);
  if constexpr (::tapeless::detail::is_matrix_operation<Op>) {
    if constexpr (A::is_active) {
      const auto c =
          ::tapeless::detail::dense_or_uniform(::tapeless::detail::matrix_binary_vjp<0>(n.op, g, x, y, v.out()));
      rec.contribute(step_kind::vjp, rec.id(key_of(n.lhs)), self, 0, view(g), view(c), {}, op_name(n.op), "_lhs");
      backward(n.lhs, v.lhs, c, store, rec);
    }
    if constexpr (B::is_active) {
      const auto c =
          ::tapeless::detail::dense_or_uniform(::tapeless::detail::matrix_binary_vjp<1>(n.op, g, x, y, v.out()));
      rec.contribute(step_kind::vjp, rec.id(key_of(n.rhs)), self, 1, view(g), view(c), {}, op_name(n.op), "_rhs");
      backward(n.rhs, v.rhs, c, store, rec);
    }
  } else if constexpr (A::is_active || B::is_active) {
    const auto [ga, gb] = n.op.vjp(T(g), T(x), T(y), v.value());
    const auto [da, db] = ::tapeless::detail::binary_partials(n.op, T(x), T(y), v.value());
    if constexpr (A::is_active) {
      rec.contribute(step_kind::chain, rec.id(key_of(n.lhs)), self, 0, view(g), view(ga), view(da));
      backward(n.lhs, v.lhs, ga, store, rec);
    }
    if constexpr (B::is_active) {
      rec.contribute(step_kind::chain, rec.id(key_of(n.rhs)), self, 1, view(g), view(gb), view(db));
      backward(n.rhs, v.rhs, gb, store, rec);
    }
  }
}

template <class A, class B, bool Need, class G, class Store, class Arguments>
void backward(const select_node<A, B>& n, const ::tapeless::detail::evaluated<select_node<A, B>, Need>& v, const G& g,
              Store& store, recorder<Arguments>& rec) {
  const std::size_t self = rec.id(key_of(n));
  rec.reached(self, view(g));
  if (n.cond) {
    if constexpr (A::is_active) {
      rec.contribute(step_kind::pass, rec.id(key_of(n.if_true)), self, 0, view(g), view(g), pass_local(g),
                     "the branch taken");
      backward(n.if_true, v.if_true, g, store, rec);
    }
  } else {
    if constexpr (B::is_active) {
      rec.contribute(step_kind::pass, rec.id(key_of(n.if_false)), self, 1, view(g), view(g), pass_local(g),
                     "the branch taken");
      backward(n.if_false, v.if_false, g, store, rec);
    }
  }
}

/// As the engine (sweep/cut.hpp): g times each partial, to each leaf the cut's sweep reached.
template <class T, class... L, bool Need, class G, class Store, class Arguments>
void backward(const cut_node<T, L...>& n, const ::tapeless::detail::evaluated<cut_node<T, L...>, Need>&, const G& g,
              Store& store, recorder<Arguments>& rec) {
  const std::size_t self = rec.id(key_of(n));
  rec.reached(self, view(g));
  std::size_t operand = 0;
  auto send = [&]<std::size_t K, class Leaf>(std::integral_constant<std::size_t, K>, const Leaf& leaf) {
    if (!n.reached[K]) return;
    const auto& partial = ::tapeless::detail::plain_get<K>(n.partials);
    const auto c = partial * T(g);
    // The stand-in's key now stands for this cut's leaf, which the leaf's own step reads.
    const std::size_t id = rec.remember(key_of(leaf), rec.id(leaf_key<K>(n)));
    if constexpr (Real<std::remove_cvref_t<decltype(partial)>>)
      rec.contribute(step_kind::chain, id, self, operand++, view(g), view(c), view(partial));
    else
      rec.contribute(step_kind::vjp, id, self, operand++, view(g), view(c), {}, "cut", "");
    backward(leaf, ::tapeless::detail::evaluated<Leaf>(leaf), c, store, rec);
  };
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (send(std::integral_constant<std::size_t, K>{}, ::tapeless::detail::leaf_stand_in<L>), ...);
  }
  (std::index_sequence_for<L...>{});
}

/// As the engine: the body first, its uses of the name summed from -0 in a let_scope; then the sum,
/// complete, sent once into the bound expression.
template <class Tag, class Bound, class Body, bool Need, class G, class Store, class Arguments>
void backward(const let_node<Tag, Bound, Body>& n,
              const ::tapeless::detail::evaluated<let_node<Tag, Bound, Body>, Need>& v, const G& g, Store& store,
              recorder<Arguments>& rec) {
  using T = typename Bound::value_type;
  ::tapeless::detail::let_scope<Tag, T, Store> scope(store);
  if constexpr (Body::is_active) backward(n.body, v.body, g, scope, rec);
  const T& total = scope.sum.total(-0.0);
  const std::size_t shared = rec.id(name_key(n));
  rec.complete(step_kind::total, shared, view(total));
  if constexpr (Bound::is_active) {
    if constexpr (::tapeless::detail::is_leaf<Bound>)
      rec.contribute(step_kind::pass, rec.id(key_of(n.bound_expr)), shared, 0, view(total), view(total),
                     pass_local(total), "let");
    backward(n.bound_expr, n.bound_values, total, store, rec);
  }
}

}  // namespace tapeless::inspect::detail
