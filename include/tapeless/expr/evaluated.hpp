// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/evaluated.hpp: the values of a tree of nodes, computed once for a sweep.
//
// Nodes are recipes and hold no values of their operations (expr/expression.hpp). evaluated<Node,
// Need> is the tree of those values, shaped like the node tree: built in one forward pass, each value
// computed once, straight into its place (no copies), and read by the reverse sweep. Leaves keep their
// own values, so their evaluation is empty; an operation that keeps a cache for its backward pass
// (operation/protocol.hpp) has it kept here beside its value.
//
// Only the values something reads are computed. `Need` says whether the node's value is read from
// above (its parent's rule, its parent's own value, or the caller of value_and_grad); a node computes
// its value when it is needed or when its own rule reads it, and its operands' values when it computes
// its own or its rule reads them (operation/protocol.hpp, vjp_reads). grad of sum(A B) never forms A B.
//
// Each evaluation is built with the work its sweep shares among nodes (sweep/shared.hpp: the LU
// factors of an argument that det, inverse and solve all take), or with no_sharing.
// Tests: test/unit/expr/same_value_test.cpp test/unit/ops/reduction/log_sum_exp_test.cpp
#pragma once

#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/children.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/select.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/operation/protocol.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// The evaluation of a kind of node that no rule below evaluates: one sentence, and nothing else fails.
template <class Node, bool Need = true>
struct evaluated {
  static_assert(sizeof(Node) == 0,
                "tl: node kind Node is not known to the walk evaluated: declare its children in "
                "expr/children.hpp and its evaluation in expr/evaluated.hpp");
  template <class... Any>
  constexpr explicit evaluated(const Any&...) noexcept {}
};

/// The shared work of a sweep that shares none.
struct no_shared_work {
  template <class X>
  static constexpr std::nullptr_t lu_for(const X&) noexcept {
    return nullptr;
  }
};
inline constexpr no_shared_work no_sharing{};

/// A leaf's value is its own: nothing to compute or keep.
template <class Node, bool Need>
  requires is_leaf<Node>
struct evaluated<Node, Need> {
  template <class Shared = const no_shared_work>
  constexpr explicit evaluated(const Node&, Shared& = no_sharing) noexcept {}
};

/// The value of node n, whose evaluation is e (not_computed where nothing reads it).
template <class Node, bool Need>
constexpr decltype(auto) value_at(const Node& n, const evaluated<Node, Need>& e) noexcept {
  if constexpr (is_leaf<Node>)
    return n.value();
  else
    return e.value();
}

/// What a forward pass keeps of one operation: the result of op_forward, or nothing. The built_by tag keeps
/// the maker's constructor from standing in for the copy constructor when a kept is copied.
template <bool Computed, class Out>
struct kept {
  Out out;
  template <class Make>
  constexpr explicit kept(built_by, Make&& make) : out(make()) {}
  [[nodiscard]] constexpr const Out& forward() const noexcept { return out; }
};
template <class Out>
struct kept<false, Out> {
  template <class Make>
  constexpr explicit kept(built_by, Make&&) noexcept {}
  [[nodiscard]] constexpr const auto& forward() const noexcept {
    return not_computed<std::remove_cvref_t<decltype(value_part(std::declval<const Out&>()))>>;
  }
};

template <class Op, class A, bool Need>
struct evaluated<unary_node<Op, A>, Need> {
  static constexpr reads rule = vjp_reads<Op, 0>();
  static constexpr bool computes = Need || (A::is_active && rule.value);
  using out_type = decltype(op_forward(std::declval<const Op&>(), std::declval<const typename A::value_type&>()));

  // An operand node of run-time extents is computed for a rule that reads nothing too: the rule's
  // adjoint (of a row, a slice, an element) has the operand's extents, which only its value knows (a
  // leaf's value is there without it).
  static constexpr bool extents_read = RunTimeMatrix<typename A::value_type> && !is_leaf<A>;
  [[no_unique_address]] evaluated<A, computes || (A::is_active && (rule.lhs || extents_read))> arg;
  [[no_unique_address]] kept<computes, out_type> kept_;
  using children = detail::children<&evaluated::arg>;  // the evaluations of the node's children, in order

  template <class Shared = const no_shared_work>
  constexpr explicit evaluated(const unary_node<Op, A>& n, Shared& shared = no_sharing)
      : arg(n.arg, shared),
        kept_(built_by{}, [&] { return forward_as_needed<Need>(n.op, shared.lu_for(n.arg), value_at(n.arg, arg)); }) {}
  /// The forward result as the rule takes it (with its cache, if the operation keeps one).
  [[nodiscard]] constexpr const auto& out() const noexcept { return kept_.forward(); }
  [[nodiscard]] constexpr const auto& value() const noexcept { return value_part(out()); }
};

template <class Op, class A, class B, bool Need>
struct evaluated<binary_node<Op, A, B>, Need> {
  static constexpr reads lhs_rule = vjp_reads<Op, 0>(), rhs_rule = vjp_reads<Op, 1>();
  static constexpr bool computes = Need || (A::is_active && lhs_rule.value) || (B::is_active && rhs_rule.value);
  using out_type = decltype(binary_forward_at(std::declval<const Op&>(), std::declval<const typename A::value_type&>(),
                                              std::declval<const typename B::value_type&>()));

  [[no_unique_address]] evaluated<A, computes || (A::is_active && lhs_rule.lhs) || (B::is_active && rhs_rule.lhs)> lhs;
  [[no_unique_address]] evaluated<B, computes || (A::is_active && lhs_rule.rhs) || (B::is_active && rhs_rule.rhs)> rhs;
  [[no_unique_address]] kept<computes, out_type> kept_;
  using children = detail::children<&evaluated::lhs, &evaluated::rhs>;

  template <class Shared = const no_shared_work>
  constexpr explicit evaluated(const binary_node<Op, A, B>& n, Shared& shared = no_sharing)
      : lhs(n.lhs, shared), rhs(n.rhs, shared), kept_(built_by{}, [&] {
          if constexpr (Matrix<typename A::value_type>)  // solve(A, b) takes the shared factors of A
            return forward_sharing(n.op, shared.lu_for(n.lhs), value_at(n.lhs, lhs), value_at(n.rhs, rhs));
          else
            return binary_forward_at(n.op, value_at(n.lhs, lhs), value_at(n.rhs, rhs));
        }) {}
  [[nodiscard]] constexpr const auto& out() const noexcept { return kept_.forward(); }
  [[nodiscard]] constexpr const auto& value() const noexcept { return value_part(out()); }
};

/// Both branches are evaluated as far as their own sweeps read (their types are fixed); the value,
/// where needed, is the taken branch's.
template <class A, class B, bool Need>
struct evaluated<select_node<A, B>, Need> {
  using value_type = typename select_node<A, B>::value_type;
  [[no_unique_address]] evaluated<A, Need> if_true;
  [[no_unique_address]] evaluated<B, Need> if_false;
  [[no_unique_address]] kept<Need, value_type> kept_;
  using children = detail::children<&evaluated::if_true, &evaluated::if_false>;

  template <class Shared = const no_shared_work>
  constexpr explicit evaluated(const select_node<A, B>& n, Shared& shared = no_sharing)
      : if_true(n.if_true, shared), if_false(n.if_false, shared), kept_(built_by{}, [&] {
          if constexpr (finds_pattern<value_type>)
            return branch_value(n.cond, value_type(value_at(n.if_true, if_true)),
                                value_type(value_at(n.if_false, if_false)));
          else
            return n.cond ? value_type(value_at(n.if_true, if_true)) : value_type(value_at(n.if_false, if_false));
        }) {}
  [[nodiscard]] constexpr const value_type& value() const noexcept { return kept_.forward(); }
};

}  // namespace tapeless::detail
