// SPDX-License-Identifier: BSL-1.0
// tapeless/inspect/backward.hpp: the reverse sweep of a recording: the engine's own sweep
// (sweep/backward.hpp), watched by a recorder that writes a step per contribution.
//
// The recorder is the store the sweep runs with: it adds the arguments' adjoints into the engine's
// store (argument_adjoints, as tl::grad's), and it is the sweep's observer (sweep/observer.hpp), so
// every contribution it records is the one the engine computes. Observed, the sweep stores each
// contribution on its own, so where grad adds two first (matmul(A, A)'s) or fuses a region's loop, the
// gradient recorded may differ from grad's in the last bits. What a step shows beside it, the local derivative of a
// number operation, comes from unary_derivative and binary_partials (operation/protocol.hpp). An adjoint that stands
// for a matrix (adjoint/structured.hpp: repeated, placed, scaled) is shown as the matrix.
// Tests: test/unit/inspect/trace_test.cpp
#pragma once

#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/cut.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/let.hpp>
#include <tapeless/expr/select.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/inspect/forward.hpp>
#include <tapeless/inspect/graph.hpp>
#include <tapeless/inspect/recorder.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/sweep/adjoints.hpp>

#include <algorithm>
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

template <class G>
inline constexpr G unit{1};

/// d/dx x, for the edge of a step that passes an adjoint on unchanged: 1, or nothing for a matrix.
template <class G>
value_view pass_local(const G&) {
  if constexpr (Real<G>)
    return view(unit<G>);
  else
    return {};
}

/// The recording's store and the observer of the engine's sweep: the state, and the engine's store of
/// argument adjoints that the sweep adds into.
template <class Store>
struct recorder : recorder_state {
  Store& arguments;
  explicit recorder(Store& s) : arguments(s) {}

  // ---- the store: the arguments' adjoints go to the engine's store, as grad's do
  template <class Leaf, class G>
  void accumulate(const Leaf& leaf, const G& g) {
    arguments.accumulate(leaf, g);
  }
  recorder& observer() { return *this; }

  // ---- the observer (sweep/observer.hpp)

  /// g arrives at the operation n.
  template <class N, class G>
  void reached(const N& n, const G& g) {
    const auto& shown = ::tapeless::detail::dense_or_uniform(g);
    recorder_state::reached(id(key_of(n)), view(shown));
  }

  /// The unary operation n sends c to its operand: through its rule (a matrix operation), or a number
  /// times its derivative.
  template <class Op, class A, class V, class X, class G, class C>
  void sent(const unary_node<Op, A>& n, const V& v, std::size_t, const X& x, const G& g, const C& c) {
    const auto& shown_g = ::tapeless::detail::dense_or_uniform(g);
    const auto& shown_c = ::tapeless::detail::dense_or_uniform(c);
    if constexpr (::tapeless::detail::is_matrix_operation<Op>)
      contribute(step_kind::vjp, id(key_of(x)), id(key_of(n)), 0, view(shown_g), view(shown_c), {}, op_name(n.op), "");
    else
      contribute(
          step_kind::chain, id(key_of(x)), id(key_of(n)), 0, view(shown_g), view(shown_c),
          view(::tapeless::detail::unary_derivative(n.op, ::tapeless::detail::value_at(n.arg, v.arg), v.value())));
  }

  /// The binary operation n sends c to its operand on `side`.
  template <class Op, class A, class B, class V, class X, class G, class C>
  void sent(const binary_node<Op, A, B>& n, const V& v, std::size_t side, const X& x, const G& g, const C& c) {
    using T = typename binary_node<Op, A, B>::value_type;
    const auto& shown_g = ::tapeless::detail::dense_or_uniform(g);
    const auto& shown_c = ::tapeless::detail::dense_or_uniform(c);
    if constexpr (::tapeless::detail::is_matrix_operation<Op>) {
      contribute(step_kind::vjp, id(key_of(x)), id(key_of(n)), side, view(shown_g), view(shown_c), {}, op_name(n.op),
                 side == 0 ? "_lhs" : "_rhs");
    } else {
      const auto partials =
          ::tapeless::detail::binary_partials(n.op, T(::tapeless::detail::value_at(n.lhs, v.lhs)),
                                              T(::tapeless::detail::value_at(n.rhs, v.rhs)), v.value());
      contribute(step_kind::chain, id(key_of(x)), id(key_of(n)), side, view(shown_g), view(shown_c),
                 view(side == 0 ? partials.first : partials.second));
    }
  }

  /// if_else passes g on to the branch taken.
  template <class A, class B, class V, class X, class G>
  void sent(const select_node<A, B>& n, const V&, std::size_t side, const X& x, const G& g, const G&) {
    const auto& shown = ::tapeless::detail::dense_or_uniform(g);
    contribute(step_kind::pass, id(key_of(x)), id(key_of(n)), side, view(shown), view(shown), pass_local(g),
               "the branch taken");
  }

  /// A cut sends g times the partial of its leaf K (sweep/cut.hpp). The stand-in's key then stands for
  /// this cut's leaf, which the leaf's own step reads.
  template <class T, class P, class... L, class V, std::size_t K, class Leaf, class G, class C>
  void sent(const cut_node<T, P, L...>& n, const V&, std::integral_constant<std::size_t, K>, const Leaf& leaf,
            const G& g, const C& c) {
    const auto operand = static_cast<std::size_t>(std::count(n.reached.begin(), n.reached.begin() + K, true));
    const std::size_t target = remember(key_of(leaf), id(leaf_key<K>(n)));
    const auto& partial = ::tapeless::detail::plain_get<K>(n.partials);
    if constexpr (Real<std::remove_cvref_t<decltype(partial)>>)
      contribute(step_kind::chain, target, id(key_of(n)), operand, view(g), view(c), view(partial));
    else
      contribute(step_kind::vjp, target, id(key_of(n)), operand, view(g), view(c), {}, "cut", "");
  }

  /// The store added an adjoint to leaf's sum: the sum it holds now.
  template <std::size_t S, class T, class LeafStore>
  void accumulated(const argument<S, T>& leaf, LeafStore&) {
    recorder_state::accumulated(id(key_of(leaf)), view(arguments.template slot<S>()));
  }
  template <class Tag, class T, class LeafStore>
  void accumulated(const bound<Tag, T>& leaf, LeafStore& store) {
    recorder_state::accumulated(id(key_of(leaf)), view(scope_total<Tag>(store)));
  }

  /// The engine adds into the var's own gradient (*grad_ += g); the trace adds into a copy of it that
  /// starts at 0, in the var's type, and leaves the var alone.
  template <class T, class G>
  void add_to_var(const var_ref<T>& leaf, const G& g) {
    const std::size_t at = id(key_of(leaf));
    std::size_t k = 0;
    while (this->g.variables[k] != at) ++k;
    T total = static_cast<T>(var_totals[k]);
    total += g;
    var_totals[k] = total;
    recorder_state::accumulated(at, view(total));
  }

  /// The sum over the uses of a let's name, complete, before it is sent once into the bound
  /// expression: a pass step of its own where the let binds a leaf (which has a node of its own).
  template <class Tag, class Bound, class Body, class Total>
  void completed(const let_node<Tag, Bound, Body>& n, const Total& total) {
    const std::size_t shared = id(name_key(n));
    complete(step_kind::total, shared, view(total));
    if constexpr (Bound::is_active && ::tapeless::detail::is_leaf<Bound>)
      contribute(step_kind::pass, id(key_of(n.bound_expr)), shared, 0, view(total), view(total), pass_local(total),
                 "let");
  }
};

}  // namespace tapeless::inspect::detail
