// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/observer.hpp: how the reverse sweep may be watched, step by step.
//
// The sweep hands each step it takes to the observer of its store, where the store has one (a member
// observer()): the adjoint reaching an operation, each adjoint it sends to an operand, each leaf's sum
// growing, a let's sum complete, a tl::var's gradient growing. tl::trace and tl::to_dot record their
// graph so (inspect/backward.hpp), by the engine's own walk and rules. The stores of grad, hessian and
// backward() have no observer: every hook is then a call of an empty function, removed at compile time,
// and the sweep is the same code as without hooks.
//
// The hooks an observer O has, as the sweep calls them (n a node, v its evaluation, g its adjoint):
//   o.reached(n, g)                   g arrives at the operation n (before it sends anything);
//   o.sent(n, v, side, x, g, c)       n sends c to its operand x (side 0 or 1; for a cut, the index of
//                                     its leaf, as a std::integral_constant);
//   o.accumulated(leaf, store)        the store added an adjoint to leaf's sum;
//   o.completed(let, sum)             a let's name has its whole adjoint, which is swept on once;
//   o.add_to_var(leaf, g)             in place of *leaf.grad_ += g: the observer keeps its own sum.
// Tests: test/unit/inspect/trace_test.cpp
#pragma once

namespace tapeless::detail {

/// Whether a store carries an observer of the sweep.
template <class Store>
concept observed = requires(Store& store) {
  store.observer();
};

/// hook(observer, args...) where the store has an observer; else nothing.
template <class Store, class Hook, class... Args>
[[gnu::always_inline]] constexpr void observe(Store& store, const Hook& hook, const Args&... args) {
  if constexpr (observed<Store>) hook(store.observer(), args...);
}

/// The hook that tells an observer that node n (evaluated as v, its adjoint g) sent adjoint a to its
/// operand x on `side`: observe(store, sent_by(n, v, side, x, g), a).
template <class N, class V, class Side, class X, class G>
constexpr auto sent_by(const N& n, const V& v, Side side, const X& x, const G& g) {
  return [&n, &v, side, &x, &g](auto& o, const auto& a) { o.sent(n, v, side, x, g, a); };
}

}  // namespace tapeless::detail
