// SPDX-License-Identifier: BSL-1.0
// tapeless/inspect/dot.hpp: tl::to_dot(f, args...), the graph of f at args in Graphviz DOT.
//
//   std::ofstream("f.dot") << tl::to_dot(f, 1.0, 2.0);   // then: dot -Tpng f.dot -o f.png
//
// The graph is the one tl::trace prints (inspect/trace.hpp), with its names, drawn left to right:
// - arguments (x1 ...) and tl::var leaves (v1 ...) are ellipses labelled with value and adjoint g;
// - operations are rounded boxes labelled `t1 = x1 - x2`, `= value`, `g = adjoint`; the result y has a
//   double border; a value shared by tl::let says how often its name is used; a matrix value (and
//   adjoint) is shown as its shape, `matrix 3x1`;
// - constants are grey: a number as itself, a matrix c1 with its shape; an operation on constants
//   only is a dashed box without adjoint;
// - an edge goes from an operand to the operation that reads it, labelled with the local derivative
//   d(operation)/d(operand) where that is a number; an edge of a matrix operation has no label (its
//   Jacobian is the operation's vjp rule, named in the trace); an edge from a constant is dashed, and
//   the branch if_else did not take is dotted.
// - a node that computes again what an earlier node computes (inspect/repeats.hpp) is red and says
//   `same as t1`; the top of a repeated subtree also says how often its value is computed, and a dotted
//   red line joins it to the node it repeats; the graph's label then counts the repeats.
// Numbers have 6 significant digits unless another precision is asked for.
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/inspect/record.hpp>
#include <tapeless/inspect/repeats.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace tapeless {

namespace inspect {

namespace detail {
/// Text for a double-quoted DOT string; lines joined by \n, which DOT centres.
template <class = void>
std::string dot_string(const std::vector<std::string>& lines) {
  std::string s = "\"";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) s += "\\n";
    for (char c : lines[i]) {
      if (c == '"' || c == '\\') s += '\\';
      s += c;
    }
  }
  return s + "\"";
}

template <class = void>
std::string dot_node(std::size_t id, const node& n, int precision, const std::string& repeat) {
  const std::string value = value_text(n.value, precision, 0);
  const std::string adjoint = n.adjoint ? "g = " + value_text(*n.adjoint, precision, 0) : "";
  std::vector<std::string> label;
  std::string attributes;
  switch (n.kind) {
    case node_kind::argument:
    case node_kind::variable:
      label = {n.name + " = " + value};
      attributes = "shape=ellipse";
      break;
    case node_kind::constant:
      label = n.value.is_matrix ? std::vector<std::string>{n.name, value} : std::vector<std::string>{value};
      if (n.name == "y") label = {"y = " + value};
      attributes = n.value.is_matrix ? "style=\"rounded,dashed\", color=gray50, fontcolor=gray35"
                                     : "shape=plaintext, fontcolor=gray35";
      break;
    case node_kind::operation:
      label = {n.name + " = " + n.expression + (n.op == "let" ? " (let)" : ""), "= " + value};
      if (n.uses > 0) label.push_back("shared by let, " + std::to_string(n.uses) + (n.uses == 1 ? " use" : " uses"));
      if (!n.active) attributes = "style=\"rounded,dashed\", color=gray50, fontcolor=gray35";
      if (n.name == "y") attributes = "peripheries=2";
      if (!repeat.empty()) {
        label.push_back(repeat);
        attributes = std::string(n.active ? "style=\"rounded,bold\"" : "style=\"rounded,dashed\"") +
                     ", color=red3, fontcolor=red3" + (n.name == "y" ? ", peripheries=2" : "");
      }
      break;
  }
  if (!adjoint.empty()) label.push_back(adjoint);
  return "  n" + std::to_string(id) + " [label=" + dot_string(label) + (attributes.empty() ? "" : ", " + attributes) +
         "];\n";
}

template <class = void>
std::string dot_edge(const graph& g, std::size_t to, std::size_t k, int precision) {
  const node& n = g.at(to);
  const node& from = g.at(n.inputs[k]);
  std::string attributes;
  if (n.local[k]) attributes = "label=" + dot_string({" " + number_text(n.local[k]->number(), precision) + " "});
  if (!from.active)
    attributes = "style=dashed, color=gray50";
  else if (n.op == "if_else" && !n.swept[k] && n.active && n.adjoint)
    attributes = "style=dotted, label=\" not taken \"";
  return "  n" + std::to_string(n.inputs[k]) + " -> n" + std::to_string(to) +
         (attributes.empty() ? "" : " [" + attributes + "]") + ";\n";
}
}  // namespace detail

/// The graph as Graphviz DOT (see the top of this header).
template <class = void>
std::string dot_text(const graph& g, int precision = 6) {
  std::string s =
      "digraph tapeless {\n"
      "  rankdir=LR;\n"
      "  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11];\n"
      "  edge [fontname=\"Helvetica\", fontsize=10];\n";
  const detail::repeats repeated = detail::find_repeats(g);
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    s += detail::dot_node(i, g.nodes[i], precision, detail::repeat_note(g, repeated, i, false));
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (std::size_t k = 0; k < g.nodes[i].inputs.size(); ++k) s += detail::dot_edge(g, i, k, precision);
  for (std::size_t i = 0; i < g.nodes.size(); ++i)  // a repeated subtree's top, joined to the node it repeats
    if (repeated.outermost[i])
      s += "  n" + std::to_string(*g.nodes[i].same_as) + " -> n" + std::to_string(i) +
           " [style=dotted, color=red3, arrowhead=none, constraint=false];\n";
  if (repeated.nodes > 0)
    s += "  graph [label=" + detail::dot_string({detail::repeat_summary(g, repeated)}) +
         ", labelloc=b, fontname=\"Helvetica\", fontsize=11];\n";
  return s + "}\n";
}

}  // namespace inspect

/// The graph of the scalar function f at args (numbers and tl::matrix) in Graphviz DOT: every value,
/// every adjoint, and on each edge its local derivative. Render it with `dot -Tpng`.
template <class F, class... Args>
  requires(sizeof...(Args) > 0 && !Operand<F>)
std::string to_dot(const F& f, const Args&... args) {
  static_assert(inspect::detail::valid_arguments<Args...>,
                "tl::to_dot(f, args...): every argument must be a floating-point number (write 1.0, not 1) or a "
                "tl::matrix of them");
  if constexpr (inspect::detail::valid_arguments<Args...>)
    return inspect::dot_text(inspect::detail::record(f, std::index_sequence_for<Args...>{}, args...).g);
  else
    return {};
}

}  // namespace tapeless
