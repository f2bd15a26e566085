// SPDX-License-Identifier: BSL-1.0
// tapeless/inspect/forward.hpp: the forward walk of a recording: names every node of the tree, in the
// order its values are computed, with the expression that computes it.
//
// x1, x2 ... the arguments, t1, t2 ... the operations, y the result, c1 ... constant matrices, v1 ...
// tl::var leaves; a constant number is written where it is used.
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
#include <tapeless/inspect/graph.hpp>
#include <tapeless/inspect/recorder.hpp>
#include <tapeless/ops/arithmetic.hpp>
#include <tapeless/ops/elementwise.hpp>
#include <tapeless/ops/mask.hpp>
#include <tapeless/ops/power.hpp>
#include <tapeless/ops/shape.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace tapeless::inspect::detail {

/// An operand inside an expression: a negative number in parentheses.
template <class = void>
std::string operand(const std::string& name) {
  return !name.empty() && name[0] == '-' ? "(" + name + ")" : name;
}

template <class = void>
std::string call(std::string_view f, const std::string& a) {
  return std::string(f) + "(" + a + ")";
}
template <class = void>
std::string call(std::string_view f, const std::string& a, const std::string& b) {
  return std::string(f) + "(" + a + ", " + b + ")";
}

// The name of an operation (an elementwise one carries its scalar operation's).
template <class Op>
std::string_view op_name(const Op&) {
  return ::tapeless::detail::operation_name<Op>;
}

template <class = void>
bool is_infix(std::string_view name) {
  return name == "+" || name == "-" || name == "*" || name == "/";
}

// An operation applied to its inputs by name: "x1 - x2", "cos(t3)", "pow(t1, 2)", "t4[2]".
template <class Op>
std::string describe(const Op& op, const std::string& a) {
  if constexpr (std::is_same_v<Op, ops::negate>)
    return "-" + operand(a);
  else if constexpr (std::is_same_v<Op, ops::pow_int>)
    return call("pow", a, std::to_string(op.n));
  else if constexpr (std::is_same_v<Op, ops::element>)
    return a + "[" + std::to_string(op.index) + "]";
  else if constexpr (requires { op.index; })  // row, col
    return call(op_name(op), a, std::to_string(op.index));
  else
    return call(op_name(op), a);
}
template <class Op>
std::string describe(const Op& op, const std::string& a, const std::string& b) {
  const std::string_view name = op_name(op);
  return is_infix(name) ? operand(a) + " " + std::string(name) + " " + operand(b) : call(name, a, b);
}
template <class P>
std::string describe(const ops::pow_real<P>& op, const std::string& a) {
  return call("pow", a, operand(literal(op.p)));
}
template <class C>
std::string describe(const ops::pow_base<C>& op, const std::string& a) {
  return call("pow", operand(literal(op.c)), a);
}
template <std::size_t S, std::size_t L>
std::string describe(const ops::slice<S, L>&, const std::string& a) {
  return call("slice<" + std::to_string(S) + ", " + std::to_string(L) + ">", a);
}
template <std::size_t R, std::size_t C>
std::string describe(const ops::reshape<R, C>&, const std::string& a) {
  return call("reshape<" + std::to_string(R) + ", " + std::to_string(C) + ">", a);
}
template <std::size_t R, std::size_t C>
std::string describe(const ops::select_elements<R, C>&, const std::string& a, const std::string& b) {
  return "if_else(mask " + std::to_string(R) + "x" + std::to_string(C) + ", " + a + ", " + b + ")";
}
template <class Op>
std::string describe(const ::tapeless::detail::elementwise_unary<Op>& e, const std::string& a) {
  return describe(e.op, a);
}
template <class Op>
std::string describe(const ::tapeless::detail::elementwise_binary<Op>& e, const std::string& a, const std::string& b) {
  return describe(e.op, a, b);
}

/// An operation's data, exactly, for telling what a node computes (inspect/recorder.hpp: computation):
/// nothing for most operations; the bytes of an index, an integer exponent or a mask, where the bytes
/// are the value; the bits of a real exponent or base. An operation whose data its bytes may not tell
/// (a member with padding, a float's two zeros) has unknown parameters: no node of it is called a repeat.
template <class Op>
auto parameters(const Op& op) {
  if constexpr (std::is_empty_v<Op>) {
    return std::string();
  } else if constexpr (std::has_unique_object_representations_v<Op>) {
    const auto bytes = std::bit_cast<std::array<char, sizeof(Op)>>(op);
    return std::string(bytes.begin(), bytes.end());
  } else {
    return unknown_parameters{};
  }
}
template <class P>
std::string parameters(const ops::pow_real<P>& op) {
  return literal(op.p);
}
template <class C>
std::string parameters(const ops::pow_base<C>& op) {
  return literal(op.c);
}
template <class Op>
auto parameters(const ::tapeless::detail::elementwise_unary<Op>& e) {
  return parameters(e.op);
}
template <class Op>
auto parameters(const ::tapeless::detail::elementwise_binary<Op>& e) {
  return parameters(e.op);
}

/// if_else on a condition that is a number: the branch it takes is its data.
struct branch_taken {
  bool condition;
};

/// Node id, recorded as computing op on its inputs: a repeat, where an earlier node computes the same.
template <class Op>
std::size_t computing(recorder_state& rec, std::size_t id, const Op& op) {
  rec.computes(id, &type_key<Op>, parameters(op));
  return id;
}

template <class Leaf>
std::string literal_of(const Leaf& leaf) {
  if constexpr (Real<typename Leaf::value_type>)
    return literal(leaf.value());
  else
    return {};
}

/// A kind of node no rule below records: one sentence, where the overloads would list themselves. Every
/// other overload is more specialised than this one, so it is chosen only when none fits.
template <class N, bool Need>
std::size_t forward(const N&, const ::tapeless::detail::evaluated<N, Need>&, recorder_state&, bool) {
  static_assert(sizeof(N) == 0,
                "tl: node kind N is not known to the walk tl::trace: declare its children in "
                "expr/children.hpp and its step in inspect/forward.hpp");
  return 0;
}

template <std::size_t S, class T, bool Need>
std::size_t forward(const argument<S, T>& leaf, const ::tapeless::detail::evaluated<argument<S, T>, Need>&,
                    recorder_state& rec, bool) {
  return rec.remember(key_of(leaf), rec.g.arguments.at(S));
}

template <class T, bool Need>
std::size_t forward(const constant<T>& leaf, const ::tapeless::detail::evaluated<constant<T>, Need>&,
                    recorder_state& rec, bool) {
  return rec.leaf(key_of(leaf), std::nullopt, node_kind::constant, view(leaf.value()), literal_of(leaf));
}

template <class T, bool Need>
std::size_t forward(const constant_ref<T>& leaf, const ::tapeless::detail::evaluated<constant_ref<T>, Need>&,
                    recorder_state& rec, bool) {
  return rec.leaf(key_of(leaf), key{&leaf.value(), &type_key<T>}, node_kind::constant, view(leaf.value()),
                  literal_of(leaf));
}

template <class T, bool Need>
std::size_t forward(const var_ref<T>& leaf, const ::tapeless::detail::evaluated<var_ref<T>, Need>&, recorder_state& rec,
                    bool) {
  return rec.leaf(key_of(leaf), key{leaf.grad_, &type_key<T>}, node_kind::variable, view(leaf.value()), {});
}

template <class Tag, class T, bool Need>
std::size_t forward(const bound<Tag, T>& leaf, const ::tapeless::detail::evaluated<bound<Tag, T>, Need>&,
                    recorder_state& rec, bool) {
  const std::size_t shared = rec.lets.at(&type_key<Tag>);
  ++rec.g.nodes[shared].uses;
  return rec.remember(key_of(leaf), shared);
}

template <class Op, class A, bool Need>
std::size_t forward(const unary_node<Op, A>& n, const ::tapeless::detail::evaluated<unary_node<Op, A>, Need>& v,
                    recorder_state& rec, bool root) {
  const std::size_t a = forward(n.arg, v.arg, rec, false);
  return computing(
      rec, rec.operation(key_of(n), root, A::is_active, op_name(n.op), describe(n.op, rec.name(a)), view(v.value()), a),
      n.op);
}

template <class Op, class A, class B, bool Need>
std::size_t forward(const binary_node<Op, A, B>& n, const ::tapeless::detail::evaluated<binary_node<Op, A, B>, Need>& v,
                    recorder_state& rec, bool root) {
  const std::size_t a = forward(n.lhs, v.lhs, rec, false);
  const std::size_t b = forward(n.rhs, v.rhs, rec, false);
  return computing(rec,
                   rec.operation(key_of(n), root, A::is_active || B::is_active, op_name(n.op),
                                 describe(n.op, rec.name(a), rec.name(b)), view(v.value()), a, b),
                   n.op);
}

template <class A, class B, bool Need>
std::size_t forward(const select_node<A, B>& n, const ::tapeless::detail::evaluated<select_node<A, B>, Need>& v,
                    recorder_state& rec, bool root) {
  const std::size_t a = forward(n.if_true, v.if_true, rec, false);
  const std::size_t b = forward(n.if_false, v.if_false, rec, false);
  return computing(
      rec,
      rec.operation(key_of(n), root, A::is_active || B::is_active, "if_else",
                    "if_else(" + std::string(n.cond ? "true" : "false") + ", " + rec.name(a) + ", " + rec.name(b) + ")",
                    view(v.value()), a, b),
      branch_taken{n.cond});
}

/// The bound expression first (the let computes it when built), then the body, in which the let's
/// name stands for the bound expression's node (a leaf bound by a let gets a node of its own). The
/// let's value is its body's: the let is its body's node.
template <class Tag, class Bound, class Body, bool Need>
std::size_t forward(const let_node<Tag, Bound, Body>& n,
                    const ::tapeless::detail::evaluated<let_node<Tag, Bound, Body>, Need>& v, recorder_state& rec,
                    bool root) {
  std::size_t shared = forward(n.bound_expr, n.bound_values, rec, false);
  if constexpr (::tapeless::detail::is_leaf<Bound>) shared = rec.let_name(shared);
  rec.lets[&type_key<Tag>] = shared;
  rec.remember(name_key(n), shared);
  return rec.remember(key_of(n), forward(n.body, v.body, rec, root));
}

/// A cut (expr/cut.hpp): one node, `cut(x1, x2)` (op "cut"), whose inputs are the leaves its subtree
/// reads; the operations inside were swept when the tree was built, and are not shown.
template <class T, class P, class... L, bool Need>
std::size_t forward(const cut_node<T, P, L...>& n, const ::tapeless::detail::evaluated<cut_node<T, P, L...>, Need>&,
                    recorder_state& rec, bool root) {
  std::vector<std::size_t> inputs;
  std::string names;
  auto read = [&]<std::size_t K, class Leaf>(std::integral_constant<std::size_t, K>, const Leaf& leaf) {
    if (!n.reached[K]) return;
    inputs.push_back(
        rec.remember(leaf_key<K>(n), forward(leaf, ::tapeless::detail::evaluated<Leaf>(leaf), rec, false)));
    names += (names.empty() ? "" : ", ") + rec.name(inputs.back());
  };
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (read(std::integral_constant<std::size_t, K>{}, ::tapeless::detail::leaf_stand_in<L>), ...);
  }
  (std::index_sequence_for<L...>{});
  return rec.operation(key_of(n), root, true, "cut", "cut(" + names + ")", view(n.value()), std::move(inputs));
}

}  // namespace tapeless::inspect::detail
