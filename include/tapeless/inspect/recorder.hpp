// SPDX-License-Identifier: BSL-1.0
// tapeless/inspect/recorder.hpp: the bookkeeping of a recording: the graph being built, the way
// from node objects (by address and type) to its nodes, and what each node computes, which tells a
// value computed twice (inspect/repeats.hpp).
//
// Both walks of inspect/record.hpp go through it: the forward walk adds a node per value
// (inspect/forward.hpp), the engine's reverse sweep a step per contribution, through the observer of
// inspect/backward.hpp.
// Tests: test/unit/inspect/trace_test.cpp test/unit/inspect/repeats_test.cpp
#pragma once

#include <tapeless/concepts/scalar.hpp>
#include <tapeless/inspect/graph.hpp>

#include <charconv>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tapeless::inspect::detail {

/// The name of an operation's vector-Jacobian product, for a row of the sweep: vjp_matmul_lhs.
template <class = void>
std::string rule_name(std::string_view op, std::string_view side) {
  const std::string_view word = op == "+"   ? "add"
                                : op == "-" ? "subtract"
                                : op == "*" ? "multiply"
                                : op == "/" ? "divide"
                                            : op;
  return "vjp_" + std::string(word) + std::string(side);
}

/// A distinct address per type: with a node's address, it tells a node from its first operand,
/// which may share its address.
template <class T>
inline constexpr char type_key = 0;

using key = std::pair<const void*, const void*>;
template <class N>
key key_of(const N& n) {
  return {&n, &type_key<N>};
}

/// What a node stands for besides itself: the name a let binds (its key is the let's node's), the leaf K
/// of a cut (the cut keeps no leaf objects, and sends to a stand-in shared by every cut: expr/cut.hpp).
/// Lets made by one function share a tag, so neither the tag nor a stand-in tells them apart.
template <class Let>
struct name_of_let {};
template <std::size_t K>
struct leaf_of_cut {};
template <class N>
key name_key(const N& let) {
  return {&let, &type_key<name_of_let<N>>};
}
template <std::size_t K, class N>
key leaf_key(const N& cut) {
  return {&cut, &type_key<leaf_of_cut<K>>};
}

/// A parameter or constant as the user wrote it: the shortest text that reads back as the same number,
/// so that two numbers of one type have the same text only if they are equal (0 and -0 are not).
template <class T>
std::string literal(T x) {
  char buffer[64];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, x).ptr;
  return std::string(buffer, end);
}

/// A value exactly, with its shape: equal texts are equal values.
template <class = void>
std::string exact_text(const shown_value& v) {
  // Appended piece by piece: g++ 12 at -O3 warns (-Wrestrict) on `"literal" + std::string&&`.
  std::string text = v.is_matrix ? "matrix " : "number ";
  if (v.is_uniform) text += "uniform ";
  text += std::to_string(v.rows);
  text += 'x';
  text += std::to_string(v.cols);
  for (long double x : v.elements) {  // a long double holds a float or double exactly
    text += ' ';
    text += literal(x);
  }
  return text;
}

/// What one node computes: an operation (its type, and its parameters exactly) on its inputs, each
/// input as the first node that computes its value; or a constant, by its value. Two nodes that
/// compute the same are one value computed twice.
struct computation {
  const void* operation = nullptr;    // &type_key<Op>, or &type_key<constant_value> for a constant
  std::string parameters{};           // the operation's data (an index, an exponent, a mask), or the constant, exactly
  std::vector<std::size_t> inputs{};  // the first node computing each input's value
  auto operator<=>(const computation&) const = default;
};

/// Where an operation keeps data that its bytes do not tell exactly, the recording cannot tell two of
/// its nodes apart, and never calls them the same: no false "computed twice".
struct unknown_parameters {};
/// What a constant leaf computes: its value, in its type.
struct constant_value {};

/// The bookkeeping of both walks: the graph being built and the way from node objects to its nodes.
/// One instance, whatever the functions traced (a template only so as to be compiled when used).
template <class = void>
struct basic_recorder_state {
  graph g{};
  std::map<key, std::size_t> ids{};           // a node object (address, type) -> its graph node
  std::map<key, std::size_t> referred{};      // a constant_ref's data, a var's gradient -> its graph node
  std::map<const void*, std::size_t> lets{};  // a let's tag -> the node its name stands for
  std::vector<long double> var_totals{};      // per variable, added in the var's own type
  std::size_t operations = 0, constants = 0;
  std::vector<std::size_t> first{};               // per node: the first node that computes its value
  std::map<computation, std::size_t> computed{};  // what a node computes -> the first node computing it

  std::size_t add(node n) {
    g.nodes.push_back(std::move(n));
    first.push_back(g.nodes.size() - 1);
    return g.nodes.size() - 1;
  }
  /// The first node that computes c, with id if none did before it.
  std::size_t first_computing(computation c, std::size_t id) {
    for (std::size_t& input : c.inputs) input = first[input];
    return computed.try_emplace(std::move(c), id).first->second;
  }
  /// The operation id computes `op` with these parameters on its inputs: where an earlier node
  /// computes the same value, id is marked as computing it again (same_as).
  void computes(std::size_t id, const void* op, std::string parameters) {
    const std::size_t earlier = first_computing({op, std::move(parameters), g.nodes[id].inputs}, id);
    // The same operation on the same inputs gives the same value: a mark only where the values agree too.
    if (earlier == id || exact_text(g.nodes[earlier].value) != exact_text(g.nodes[id].value)) return;
    first[id] = earlier;
    g.nodes[id].same_as = earlier;
  }
  void computes(std::size_t, const void*, unknown_parameters) {}
  std::size_t remember(key k, std::size_t id) {
    ids[k] = id;
    return id;
  }
  [[nodiscard]] std::size_t id(key k) const { return ids.at(k); }
  [[nodiscard]] const std::string& name(std::size_t id) const { return g.nodes[id].name; }

  /// A node t1, t2 ... (y at the root) computing `expression` from its inputs a (and b).
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::size_t operation(key k, bool root, bool active, std::string_view op, std::string expression,
                        const value_view& value, std::size_t a, std::size_t b = none) {
    std::vector<std::size_t> inputs{a};
    if (b != none) inputs.push_back(b);
    return operation(k, root, active, op, std::move(expression), value, std::move(inputs));
  }
  std::size_t operation(key k, bool root, bool active, std::string_view op, std::string expression,
                        const value_view& value, std::vector<std::size_t> inputs) {
    node r;
    r.name = root ? "y" : "t" + std::to_string(++operations);
    r.op = std::string(op);
    r.expression = std::move(expression);
    r.inputs = std::move(inputs);
    r.local.resize(r.inputs.size());
    r.swept.resize(r.inputs.size());
    r.value = to_shown(value);
    r.active = active;
    return remember(k, add(std::move(r)));
  }
  /// A leaf of its own (an argument, a constant), or one of the leaves that refer to the same data
  /// (`data`: a constant_ref's data, a var's gradient), which share one node. A constant matrix is
  /// c1, c2 ..., a constant number its value (`literal`), a var v1, v2 ...
  std::size_t leaf(key k, std::optional<key> data, node_kind kind, const value_view& value,
                   const std::string& literal) {
    if (data)
      if (const auto found = referred.find(*data); found != referred.end()) return remember(k, found->second);
    node r;
    r.kind = kind;
    r.name = kind == node_kind::variable ? "v" + std::to_string(g.variables.size() + 1)
             : value.is_matrix           ? "c" + std::to_string(++constants)
                                         : literal;
    r.value = to_shown(value);
    r.active = kind == node_kind::variable;
    const std::size_t id = add(std::move(r));
    if (kind == node_kind::constant)  // equal constants are one value: an operation on either computes the same
      first[id] = first_computing({&type_key<constant_value>,
                                   std::to_string(static_cast<int>(value.type)) + " " + exact_text(g.nodes[id].value)},
                                  id);
    if (data) referred[*data] = id;
    if (kind == node_kind::variable) {
      g.variables.push_back(id);
      var_totals.push_back(0);
    }
    return remember(k, id);
  }
  /// A node `name = other` that passes another node's value on: op is let or output.
  std::size_t alias(std::string alias_name, std::string_view op, std::size_t other, bool active) {
    node r;
    r.name = std::move(alias_name);
    r.op = std::string(op);
    r.expression = name(other);
    r.inputs = {other};
    r.local.resize(1);
    r.swept.resize(1);
    r.value = g.nodes[other].value;
    r.active = active;
    add(std::move(r));
    first.back() = first[other];  // the same value, passed on
    return first.size() - 1;
  }
  /// The node that stands for a leaf's value inside a let's body, `t1 = x1 (let)`: its name receives
  /// adjoints, whatever it stands for.
  std::size_t let_name(std::size_t leaf_id) { return alias("t" + std::to_string(++operations), "let", leaf_id, true); }
  /// y: the root's node, or, when the root is a leaf (f returned an argument), `y = x1`.
  void name_output(std::size_t root_id) {
    g.output = name(root_id) == "y" ? root_id : alias("y", "output", root_id, g.nodes[root_id].active);
  }

  /// A contribution c to g_target from g_source through input `operand` of source: a row, an edge
  /// swept. A chain step has the local derivative; a vjp step names the operation and the side of its
  /// rule (vjp_matmul_lhs); a pass step says why.
  void contribute(step_kind kind, std::size_t target, std::size_t source, std::size_t operand,
                  const value_view& g_source, const value_view& c, const value_view& local = {},
                  std::string_view rule = {}, std::string_view side = {}) {
    step s;
    s.kind = kind;
    s.target = target;
    s.source = source;
    s.rule = kind == step_kind::vjp ? rule_name(rule, side) : std::string(rule);
    s.adjoint = to_shown(g_source);
    s.contribution = to_shown(c);
    s.total = s.contribution;  // a leaf's store replaces it with its sum (accumulated, below)
    if (local.data != nullptr) s.local = to_shown(local);
    s.count = ++g.nodes[target].received;
    node& from = g.nodes[source];
    if (operand < from.inputs.size()) {
      from.swept[operand] = true;
      if (local.data != nullptr) from.local[operand] = s.local;
    }
    g.sweep.push_back(std::move(s));
  }
  /// The sum a leaf's store holds after the last contribution.
  void accumulated(std::size_t id, const value_view& total) {
    g.sweep.back().total = to_shown(total);
    g.nodes[id].adjoint = g.sweep.back().total;
  }
  /// g arrives at an operation: its adjoint (from its one parent, or a let's sum).
  void reached(std::size_t id, const value_view& adjoint) { g.nodes[id].adjoint = to_shown(adjoint); }
  /// The seed g_y = 1, or a let name's adjoint complete (the sum of its uses).
  void complete(step_kind kind, std::size_t id, const value_view& total) {
    step s;
    s.kind = kind;
    s.target = s.source = id;
    s.adjoint = s.contribution = s.total = to_shown(total);
    s.count = kind == step_kind::seed ? 1 : g.nodes[id].received;
    g.sweep.push_back(std::move(s));
    reached(id, total);
  }
};

using recorder_state = basic_recorder_state<>;

}  // namespace tapeless::inspect::detail
