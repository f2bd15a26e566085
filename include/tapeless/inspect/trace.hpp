// SPDX-License-Identifier: BSL-1.0
// tapeless/inspect/trace.hpp: tl::trace(f, args...), the evaluation trace of f at args, as the
// textbook walkthrough of reverse mode writes it.
//
//   std::cout << tl::trace(f, 1.0, 2.0);     // f(x1, x2) = (x1 - x2)^2 + cos(x1 + x2)
//
//   forward: each value once, in evaluation order
//     x1              = 1
//     x2              = 2
//     t1 = x1 - x2    = -1
//     t2 = pow(t1, 2) = 1
//     ...
//     y  = t2 + t4    = 0.0100075
//   reverse: adjoints g_v = dy/dv, one row per contribution, in sweep order
//     g_y = 1
//     g_t2 += g_y * (dy/dt2)   = 1 * 1          = 1
//     g_t1 += g_t2 * (dt2/dt1) = 1 * (-2)       = -2
//     ...
//     g_x1 += g_t3 * (dt3/dx1) = -0.14112 * 1   = -0.14112   => g_x1 = -2.14112
//     g_x2 += g_t3 * (dt3/dx2) = -0.14112 * 1   = -0.14112   => g_x2 = 1.85888
//   gradient
//     g_x1 = -2.14112
//     g_x2 = 1.85888
//
// The format:
// - Names: x1, x2 ... the arguments of f, in order; t1, t2 ... the operations, numbered in the order
//   their values are computed (post order: operands first); y the result; c1, c2 ... constant
//   matrices (their values, when small, on their rows); v1, v2 ... tl::var leaves f uses. A constant
//   number is written where it is used (`1 - t2`). A subtree that f uses twice through a local is two
//   subtrees, computed and swept twice, and the trace shows both, as the engine runs them; a value
//   shared with tl::let is one row, marked `shared by let, N uses`.
// - A node that computes what an earlier node computes (inspect/repeats.hpp) is marked `same as t1`;
//   at the top of a repeated subtree, `same as t1, computed twice: bind it with tl::let to compute it
//   once`. Where there is one, a last line counts them:
//     computed more than once: 1 value, in 1 extra node (t1 twice): bind each with tl::let to compute it once
// - Forward rows: `name = operation(inputs) = value`. A matrix value is shown as its shape,
//   `matrix 3x1`, followed by its elements when it has at most 4 (rows separated by ';'). An operation
//   on constants only is marked `constant`: it has no adjoint.
// - Reverse rows, one per contribution, in the order the engine's sweep makes them (depth first from
//   y, the left operand's subtree before the right one's):
//     g_y = 1                                         the seed
//     g_t1 += g_t2 * (dt2/dt1) = g * d = c            a scalar edge: the local derivative d, the contribution c
//     g_t1 += vjp_matmul_lhs(g_t3) = c                a matrix operation: its vector-Jacobian product
//     g_t1 += g_t3 = c  (the branch taken)            if_else; also (let): a let's name for a leaf, and
//                                                     (output): y when f returns a leaf
//     g_t1 = s  complete: the sum of its N uses       a let's name, before its expression is swept once
//   `=> g_x1 = s` follows a contribution to an adjoint that had one already: the running sum.
//   The rule's result c is the engine's (unary_vjp, the binary vjp); d beside it is the local
//   derivative the rule multiplies by, which may differ from c / g in the last bit.
// - The gradient: the adjoint of each argument (and var), as tl::grad computes it; in the last bits it
//   may differ where grad fuses an elementwise region or adds two contributions before storing them. A
//   matrix gradient shows its elements up to 64 of them.
// Numbers are printed with the stream's precision (6 significant digits unless set).
//
// tl::trace records the graph with the engine's own sweep, watched by an observer (inspect/record.hpp,
// sweep/observer.hpp); tl::grad's stores have none, so its sweep is the same whether this header is used
// or not.
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/inspect/record.hpp>
#include <tapeless/inspect/repeats.hpp>

#include <algorithm>
#include <cstddef>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace tapeless {

namespace inspect {

namespace detail {
/// Rows of cells, each cell but a row's last padded to the widest of its column.
template <class = void>
std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t i = 0; i + 1 < r.size(); ++i) {
      if (width.size() <= i) width.resize(i + 1);
      width[i] = std::max(width[i], r[i].size());
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line = " ";
    for (std::size_t i = 0; i < r.size(); ++i) {
      line += " " + r[i];
      if (i + 1 < r.size()) line.append(width[i] - r[i].size(), ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

template <class = void>
std::string padded(const std::string& s, std::size_t width) {
  return s + std::string(width > s.size() ? width - s.size() : 0, ' ');
}

template <class = void>
std::vector<std::string> forward_row(const node& n, std::size_t name_width, int precision, const std::string& repeat) {
  const std::string value = "= " + value_text(n.value, precision);
  switch (n.kind) {
    case node_kind::argument: return {n.name, value};
    case node_kind::variable: return {n.name, value, "  tl::var"};
    case node_kind::constant:
      return {n.name, value, n.name == "y" ? "  constant: f depends on no argument" : "  constant"};
    case node_kind::operation: break;
  }
  std::string note;
  if (n.uses > 0) note = "  shared by let, " + std::to_string(n.uses) + (n.uses == 1 ? " use" : " uses");
  if (!n.active) note = "  constant";
  if (!repeat.empty()) note += (note.empty() ? "  " : ", ") + repeat;
  std::string definition = padded(n.name, name_width) + " = " + n.expression;
  if (n.op == "let") definition += " (let)";
  return {definition, value, note};
}

template <class = void>
std::string product(const shown_value& g, const shown_value& d, int precision) {
  const std::string ds = number_text(d.number(), precision);
  return "= " + number_text(g.number(), precision) + " * " + (ds[0] == '-' ? "(" + ds + ")" : ds);
}

template <class = void>
std::vector<std::string> reverse_row(const graph& g, const step& s, int precision) {
  const std::string target = "g_" + g.at(s.target).name, source = "g_" + g.at(s.source).name;
  const std::string c = "= " + value_text(s.contribution, precision);
  const std::string sum = s.count > 1 ? "  => " + target + " = " + value_text(s.total, precision) : "";
  switch (s.kind) {
    case step_kind::seed: return {target + " = " + value_text(s.total, precision)};
    case step_kind::chain:
      return {target + " += " + source + " * (d" + g.at(s.source).name + "/d" + g.at(s.target).name + ")",
              product(s.adjoint, s.local, precision), c, sum};
    case step_kind::vjp: return {target + " += " + s.rule + "(" + source + ")", "", c, sum};
    case step_kind::pass: return {target + " += " + source, "", c, (sum.empty() ? "  (" : sum + " (") + s.rule + ")"};
    case step_kind::total: break;
  }
  return {target, "", "= " + value_text(s.total, precision),
          "  complete: the sum of its " + std::to_string(s.count) + (s.count == 1 ? " use" : " uses")};
}
}  // namespace detail

/// The trace as text, its numbers to `precision` significant digits (see the top of this header).
template <class = void>
std::string trace_text(const graph& g, int precision = 6) {
  // A constant number is written where it is used, and has no row.
  const auto has_row = [](const node& n) {
    return n.kind != node_kind::constant || n.value.is_matrix || n.name == "y";
  };
  std::size_t name_width = 0;
  for (const node& n : g.nodes)
    if (has_row(n)) name_width = std::max(name_width, n.name.size());
  std::vector<std::vector<std::string>> forward, reverse, gradient;
  const detail::repeats repeated = detail::find_repeats(g);
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (has_row(g.nodes[i]))
      forward.push_back(
          detail::forward_row(g.nodes[i], name_width, precision, detail::repeat_note(g, repeated, i, true)));
  for (const step& s : g.sweep) reverse.push_back(detail::reverse_row(g, s, precision));
  for (const auto* list : {&g.arguments, &g.variables})
    for (std::size_t id : *list) {
      const node& n = g.at(id);
      gradient.push_back({"g_" + n.name + " = " + (n.adjoint ? value_text(*n.adjoint, precision, 64) : "0")});
    }
  std::string summary = detail::repeat_summary(g, repeated);
  if (!summary.empty()) summary += "\n";
  return "forward: each value once, in evaluation order\n" + detail::table(forward) +
         "reverse: adjoints g_v = dy/dv, one row per contribution, in sweep order\n" + detail::table(reverse) +
         "gradient\n" + detail::table(gradient) + summary;
}

}  // namespace inspect

/// What tl::trace returns: the recorded graph, f's value and gradient, and, streamed, the trace.
template <class Value, class Gradient>
class evaluation_trace {
 public:
  explicit evaluation_trace(inspect::detail::recording<Value, Gradient> r) : r_(std::move(r)) {}

  /// Every node and every step of the sweep, for programs that want more than the text.
  [[nodiscard]] const inspect::graph& graph() const noexcept { return r_.g; }
  /// f at the arguments.
  [[nodiscard]] const Value& value() const noexcept { return r_.value; }
  /// The gradient, of tl::grad's type and value: one value for one argument, else a std::tuple.
  [[nodiscard]] const Gradient& gradient() const noexcept { return r_.gradient; }
  /// The trace as text, to `precision` significant digits.
  [[nodiscard]] std::string str(int precision = 6) const { return inspect::trace_text(r_.g, precision); }

  template <class Traits>
  friend std::basic_ostream<char, Traits>& operator<<(std::basic_ostream<char, Traits>& os, const evaluation_trace& t) {
    const std::string s = t.str(static_cast<int>(os.precision()));
    return os.write(s.data(), static_cast<std::streamsize>(s.size()));
  }

 private:
  inspect::detail::recording<Value, Gradient> r_;
};

/// The evaluation trace of the scalar function f at args (numbers and tl::matrix), every argument
/// differentiated: each value of the forward pass, each contribution of the reverse sweep, the
/// gradient. Stream it, or read its graph(); see the top of this header for the format.
///
///   std::cout << tl::trace([](auto x1, auto x2) { return tl::pow(x1 - x2, 2) + tl::cos(x1 + x2); }, 1.0, 2.0);
///
/// (tl::trace(A) of one matrix is the sum of its diagonal, ops/products.hpp.)
template <class F, class... Args>
  requires(sizeof...(Args) > 0 && !Operand<F>)
auto trace(const F& f, const Args&... args) {
  static_assert(inspect::detail::valid_arguments<Args...>,
                "tl::trace(f, args...): every argument must be a floating-point number (write 1.0, not 1) or a "
                "tl::matrix of them");
  if constexpr (inspect::detail::valid_arguments<Args...>) {
    auto r = inspect::detail::record(f, std::index_sequence_for<Args...>{}, args...);
    return evaluation_trace<decltype(r.value), decltype(r.gradient)>(std::move(r));
  }
}

}  // namespace tapeless
