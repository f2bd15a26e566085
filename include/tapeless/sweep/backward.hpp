// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/backward.hpp: the reverse sweep, one overload per kind of node.
//
// backward_sweep(node, values, g, store) pushes the adjoint g of `node` to its operands through the
// node's vector-Jacobian product, depth first, reading the values its forward evaluation computed
// (values is the node's evaluated<Node>, see expr/evaluated.hpp). Inactive subtrees (no argument, var
// or let name below them) are skipped at compile time, so constants cost nothing. A value used twice
// sits twice in the tree and receives its adjoint twice, which is the fan-out sum; let shares a
// subtree as a DAG node.
//
// Each step is also handed to the store's observer, where it has one (sweep/observer.hpp): tl::trace
// records the sweep so. grad's stores have none, and the hooks cost nothing.
// Tests: test/unit/transforms/grad_test.cpp
#pragma once

#include <tapeless/detail/inline.hpp>
#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/children.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/let.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/expr/select.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/sweep/adjoints.hpp>
#include <tapeless/sweep/fused.hpp>
#include <tapeless/sweep/observer.hpp>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

// The sweeps are left to the compiler's inliner, but for the leaves' and those of operations on small
// matrices, which clang is made to inline (detail/inline.hpp).

template <class T, bool Need, class G, class Store>
constexpr void backward_sweep(const constant<T>&, const evaluated<constant<T>, Need>&, const G&, Store&) {}

template <class T, bool Need, class G, class Store>
constexpr void backward_sweep(const constant_ref<T>&, const evaluated<constant_ref<T>, Need>&, const G&, Store&) {}

template <std::size_t S, class T, bool Need, class G, class Store>
TAPELESS_SWEEP_INLINE constexpr void backward_sweep(const argument<S, T>& leaf, const evaluated<argument<S, T>, Need>&,
                                                    const G& g, Store& store) {
  store.accumulate(leaf, g);
  observe(store, [&](auto& o) { o.accumulated(leaf, store); });
}

template <class Tag, class T, bool Need, class G, class Store>
TAPELESS_SWEEP_INLINE constexpr void backward_sweep(const bound<Tag, T>& leaf, const evaluated<bound<Tag, T>, Need>&,
                                                    const G& g, Store& store) {
  store.accumulate(leaf, g);
  observe(store, [&](auto& o) { o.accumulated(leaf, store); });
}

template <class T, bool Need, class G, class Store>
TAPELESS_SWEEP_INLINE constexpr void backward_sweep(const var_ref<T>& leaf, const evaluated<var_ref<T>, Need>&,
                                                    const G& g, [[maybe_unused]] Store& store) {
  if constexpr (observed<Store>)
    store.observer().add_to_var(leaf, g);  // the observer sums apart, and leaves the var alone
  else
    add_adjoint(*leaf.grad_, g);
}

// An elementwise region whose value nothing reads: one loop over its elements (sweep/fused.hpp), which
// reads a uniform or dense adjoint. A loop with scaled adjoints is made inline with clang, and all it
// calls (TAPELESS_SWEEP_FLATTEN): its gradients of a few numbers cost less than the calls. A loop with
// plain adjoints is left to the inliner: forced inline, large loops cost more than the call.
template <class N, class G>
concept scaled_region =
    fused_region<N> && sweeps_scaled<N, std::remove_cvref_t<decltype(dense_or_uniform(std::declval<const G&>()))>>;

template <class N, class G, class Store>
  requires(fused_region<N> && !scaled_region<N, G>)
constexpr void backward_sweep(const N& n, const evaluated<N, false>& v, const G& g, Store& store) {
  sweep_region(n, v, dense_or_uniform(g), store);
}
template <class N, class G, class Store>
requires scaled_region<N, G> TAPELESS_SWEEP_INLINE TAPELESS_SWEEP_FLATTEN constexpr void backward_sweep(
    const N& n, const evaluated<N, false>& v, const G& g, Store& store) {
  sweep_region(n, v, dense_or_uniform(g), store);
}

/// Whether both operands of a binary node are one value, whose adjoints may be summed before its sweep:
/// an argument or a let's name, used twice (matmul(A, A)), and active.
template <class A, class B>
inline constexpr bool same_operand = std::is_same_v<A, B>&& names_one_value<A>&& A::is_active;

/// The type of the adjoint a matrix operation's rule sends operand Side.
template <std::size_t Side, class Op, class G, class X, class Y, class Z>
using rule_adjoint_t =
    decltype(matrix_binary_vjp<Side>(std::declval<const Op&>(), std::declval<const G&>(), std::declval<const X&>(),
                                     std::declval<const Y&>(), std::declval<const Z&>()));

/// Whether a matrix operation's rules both send repeated adjoints (sum_of_repeated). A class, so that
/// std::conjunction looks at it only for the same operand twice.
template <class Op, class G, class X, class Y, class Z>
struct repeated_adjoints : std::bool_constant<is_repeated<rule_adjoint_t<0, Op, G, X, Y, Z>> &&
                                              is_repeated<rule_adjoint_t<1, Op, G, X, Y, Z>>> {};

/// The sweep of operand x with the adjoint adjoint() makes, which sent(observer, adjoint) reports to an
/// observer. Where x is a leaf that receives its first matrix adjoint (claim_sum: grad's result, a let's
/// sum), that adjoint is constructed there, in place: assigned, it would be made on the stack and
/// copied. (Not where the sweep is observed: the leaf's own sweep reports its sum.)
template <class X, class E, class Adjoint, class Store, class Sent>
[[gnu::always_inline]] constexpr void sweep_operand(const X& x, const E& values, const Adjoint& adjoint, Store& store,
                                                    [[maybe_unused]] const Sent& sent) {
  using M = decltype(adjoint());
  if constexpr (observed<Store>) {
    const M a = adjoint();
    sent(store.observer(), a);
    backward_sweep(x, values, a, store);
  } else {
    if constexpr (Matrix<M> && std::is_same_v<decltype(claim_sum(store, x)), M*>) {
      if (!std::is_constant_evaluated()) {  // placement new is not constexpr
        if (M* destination = claim_sum(store, x)) {
          ::new (static_cast<void*>(destination)) M(adjoint());  // a prvalue: made there, no copy
          return;
        }
      }
    }
    backward_sweep(x, values, adjoint(), store);
  }
}

// The sweep of an operation node, always inlined into the backward_sweep below that calls it: that one
// is what an inliner sees, forced or not (sweep_inline).
template <class Op, class A, bool Need, class G, class Store>
[[gnu::always_inline]] constexpr void sweep_operation(const unary_node<Op, A>& n,
                                                      const evaluated<unary_node<Op, A>, Need>& v, const G& g,
                                                      Store& store) {
  observe(store, [&](auto& o) { o.reached(n, g); });
  if constexpr (A::is_active)
    sweep_operand(
        n.arg, v.arg, [&] { return unary_vjp(n.op, g, value_at(n.arg, v.arg), v.out()); }, store,
        sent_by(n, v, 0, n.arg, g));
}

template <class Op, class A, class B, bool Need, class G, class Store>
[[gnu::always_inline]] constexpr void sweep_operation(const binary_node<Op, A, B>& n,
                                                      const evaluated<binary_node<Op, A, B>, Need>& v, const G& g,
                                                      Store& store) {
  using T = typename binary_node<Op, A, B>::value_type;
  observe(store, [&](auto& o) { o.reached(n, g); });
  const auto& x = value_at(n.lhs, v.lhs);
  const auto& y = value_at(n.rhs, v.rhs);
  if constexpr (is_matrix_operation<Op>) {
    using Adjoints = repeated_adjoints<Op, G, std::remove_cvref_t<decltype(x)>, std::remove_cvref_t<decltype(y)>,
                                       std::remove_cvref_t<decltype(v.out())>>;
    if constexpr (std::conjunction_v<std::bool_constant<same_operand<A, B> && !observed<Store>>, Adjoints>) {
      // f(A, A) whose adjoints repeat a row and a column (matmul(A, A) under sum): one pass over A's.
      // An observer sees the two adjoints, each sent on its side.
      sweep_operand(
          n.lhs, v.lhs,
          [&] {
            return sum_of_repeated(matrix_binary_vjp<0>(n.op, g, x, y, v.out()),
                                   matrix_binary_vjp<1>(n.op, g, x, y, v.out()));
          },
          store, sent_by(n, v, 0, n.lhs, g));
    } else {
      if constexpr (A::is_active)
        sweep_operand(
            n.lhs, v.lhs, [&] { return matrix_binary_vjp<0>(n.op, g, x, y, v.out()); }, store,
            sent_by(n, v, 0, n.lhs, g));
      if constexpr (B::is_active)
        sweep_operand(
            n.rhs, v.rhs, [&] { return matrix_binary_vjp<1>(n.op, g, x, y, v.out()); }, store,
            sent_by(n, v, 1, n.rhs, g));
    }
  } else if constexpr (A::is_active || B::is_active) {
    const auto [ga, gb] = n.op.vjp(T(g), T(x), T(y), v.value());
    if constexpr (A::is_active) {
      observe(store, sent_by(n, v, 0, n.lhs, g), ga);
      backward_sweep(n.lhs, v.lhs, ga, store);
    }
    if constexpr (B::is_active) {
      observe(store, sent_by(n, v, 1, n.rhs, g), gb);
      backward_sweep(n.rhs, v.rhs, gb, store);
    }
  }
}

/// Whether V is a matrix small enough that clang is made to inline the sweeps of operations on it: the
/// size below which plain elementwise regions are swept node by node (fuse_min_elements).
template <class V>
inline constexpr bool small_matrix = false;
template <Matrix V>
inline constexpr bool small_matrix<V> = V::size() < fuse_min_elements;

template <class N>
concept operation_node = is_operation_node<N>;

/// Whether the sweep of the operation node N is marked TAPELESS_SWEEP_INLINE: where its value or an
/// operand's is a small matrix (so the sum of one too, whose sweep runs the rest), or an operand is a
/// region whose loop has scaled adjoints (the sum in normal_logpdf): their calls cost more than their
/// bodies.
template <class N>
inline constexpr bool sweep_inline = false;
template <class Operands>
inline constexpr bool operands_inline = false;
template <class... X>
inline constexpr bool operands_inline<type_list<X...>> = (small_matrix<typename X::value_type> || ...) ||
                                                         (scaled_under_sum<X> || ...);
template <operation_node N>
inline constexpr bool sweep_inline<N> = small_matrix<typename N::value_type> || operands_inline<children_t<N>>;

template <operation_node N, bool Need, class G, class Store>
requires sweep_inline<N> TAPELESS_SWEEP_INLINE constexpr void backward_sweep(const N& n, const evaluated<N, Need>& v,
                                                                             const G& g, Store& store) {
  sweep_operation(n, v, g, store);
}
template <operation_node N, bool Need, class G, class Store>
  requires(!sweep_inline<N>)
constexpr void backward_sweep(const N& n, const evaluated<N, Need>& v, const G& g, Store& store) {
  sweep_operation(n, v, g, store);
}

template <class A, class B, bool Need, class G, class Store>
constexpr void backward_sweep(const select_node<A, B>& n, const evaluated<select_node<A, B>, Need>& v, const G& g,
                              Store& store) {
  observe(store, [&](auto& o) { o.reached(n, g); });
  // A pattern's sweep takes both branches (expr/select.hpp).
  constexpr bool both = finds_pattern<typename select_node<A, B>::value_type>;
  if constexpr (A::is_active) {
    if (n.cond || both) {
      observe(store, sent_by(n, v, 0, n.if_true, g), g);
      backward_sweep(n.if_true, v.if_true, g, store);
    }
  }
  if constexpr (B::is_active) {
    if (!n.cond || both) {
      observe(store, sent_by(n, v, 1, n.if_false, g), g);
      backward_sweep(n.if_false, v.if_false, g, store);
    }
  }
}

// The body first, summing the adjoint of every use of the bound name; then the bound expression once,
// with the values the let kept when it was built.
template <class Tag, class Bound, class Body, bool Need, class G, class Store>
constexpr void backward_sweep(const let_node<Tag, Bound, Body>& n, const evaluated<let_node<Tag, Bound, Body>, Need>& v,
                              const G& g, Store& store) {
  using T = typename Bound::value_type;
  let_scope<Tag, T, Store> scope(store);
  if constexpr (Body::is_active) backward_sweep(n.body, v.body, g, scope);
  // -0 where no use was reached: the identity of IEEE addition, as the sum is.
  observe(store, [&](auto& o) { o.completed(n, scope.sum.total(-0.0)); });
  if constexpr (Bound::is_active) backward_sweep(n.bound_expr, n.bound_values, scope.sum.total(-0.0), store);
}

}  // namespace tapeless::detail
