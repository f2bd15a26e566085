// SPDX-License-Identifier: BSL-1.0
// tapeless/inspect/graph.hpp: the graph of f at its arguments, with every value and every step of the
// reverse sweep, recorded for tl::trace (inspect/trace.hpp) and tl::to_dot (inspect/dot.hpp).
//
// record(f, args...) calls f with argument leaves, as tl::grad does, computes every value once
// (evaluated<Root, true>, as value_and_grad does) and walks the node tree twice:
//   forward, in post order (the order values are computed in), naming each node: x1, x2 ... the
//     arguments, t1, t2 ... the operations, y the result, c1 ... constant matrices, v1 ... tl::var
//     leaves; a constant number is written where it is used;
//   backward, in the order of the engine's sweep (sweep/backward.hpp) and with its rules: each
//     contribution is the one the engine computes (unary_vjp, the binary vjp, matrix_binary_vjp),
//     added by the engine's own stores (argument_adjoints, let_scope), so the gradient recorded is
//     tl::grad's bit for bit. The local derivative shown beside it comes from unary_derivative and
//     binary_partials (ops/rules.hpp).
// Nothing here is used by grad: the sweep is unchanged, and code that never calls tl::trace or
// tl::to_dot instantiates none of it. For that, the functions of inspect/ that depend on no type are
// templates all the same (`template <class = void>`): a translation unit that includes tapeless.hpp
// and traces nothing does not compile their bodies.
#pragma once

#include <tapeless/concepts/expression.hpp>
#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/cut.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/let.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/expr/select.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/ops/arithmetic.hpp>
#include <tapeless/ops/elementwise.hpp>
#include <tapeless/ops/mask.hpp>
#include <tapeless/ops/power.hpp>
#include <tapeless/ops/rules.hpp>
#include <tapeless/ops/shape.hpp>
#include <tapeless/sweep/adjoints.hpp>
#include <tapeless/sweep/cut.hpp>

#include <charconv>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tapeless::inspect {

/// A value as a trace shows it: a number, or a matrix's shape and its elements in row-major order.
struct shown_value {
  std::size_t rows = 1;
  std::size_t cols = 1;
  bool is_matrix = false;
  bool is_uniform = false;              ///< an adjoint with every element equal (what sum and mean send back)
  std::vector<long double> elements{};  ///< one for a number and for a uniform matrix

  /// The number, or the first element.
  [[nodiscard]] long double number() const { return elements.at(0); }
};

enum class node_kind {
  argument,   ///< x1, x2 ...: an argument of f
  variable,   ///< v1, v2 ...: a tl::var used in f
  constant,   ///< c1, c2 ... a constant matrix, or a constant number (named by its value)
  operation,  ///< t1, t2 ... and y: an operation, a let name for a leaf, or the result
};

/// One value of the graph.
struct node {
  node_kind kind = node_kind::operation;
  std::string name{};                               ///< x1, v1, c1, 2 (a number), t1, y
  std::string op{};                                 ///< the operation (cos, -, matmul, if_else, let); empty for a leaf
  std::string expression{};                         ///< the operation on its inputs: "x1 - x2", "cos(t3)"
  std::vector<std::size_t> inputs{};                ///< the nodes it reads, in operand order
  std::vector<std::optional<shown_value>> local{};  ///< per input: d(this)/d(input) where it is a number the sweep used
  std::vector<bool> swept{};                        ///< per input: whether the sweep sent an adjoint along it
  shown_value value{};
  std::optional<shown_value> adjoint{};  ///< its complete adjoint; none where the sweep does not reach
  bool active = false;                   ///< depends on an argument or var: has an adjoint
  std::size_t uses = 0;                  ///< for a value shared by tl::let: the uses of its name
  std::size_t received = 0;              ///< contributions to its adjoint
};

enum class step_kind {
  seed,   ///< g_y = 1
  chain,  ///< g_target += g_source * (d source / d target), a number
  vjp,    ///< g_target += the rule of a matrix operation applied to g_source
  pass,   ///< g_target += g_source: the branch of if_else taken, a let name for a leaf, the result
  total,  ///< g_target is complete: the sum over the uses of a let's name, swept on once
};

/// One row of the reverse sweep.
struct step {
  step_kind kind = step_kind::seed;
  std::size_t target = 0;      ///< the node whose adjoint grows (seed and total: the node itself)
  std::size_t source = 0;      ///< the node whose adjoint is sent back
  std::string rule;            ///< vjp: the rule (vjp_matmul_lhs); pass: why (branch taken, let, output)
  shown_value adjoint{};       ///< g_source
  shown_value local{};         ///< chain: d source / d target
  shown_value contribution{};  ///< what is added to g_target
  shown_value total{};         ///< g_target after the addition
  std::size_t count = 0;       ///< the contributions g_target has received, this one included
};

/// Every node in forward order, and the steps of the reverse sweep in the order the sweep takes them.
struct graph {
  std::vector<node> nodes{};
  std::vector<step> sweep{};
  std::vector<std::size_t> arguments{};  ///< the nodes of x1, x2 ...
  std::vector<std::size_t> variables{};  ///< the nodes of v1, v2 ...
  std::size_t output = 0;                ///< the node of y

  [[nodiscard]] const node& at(std::size_t i) const { return nodes.at(i); }
  /// The node of that name (x1, t3, y); std::out_of_range if there is none.
  template <class = void>
  [[nodiscard]] const node& named(std::string_view name) const {
    for (const node& n : nodes)
      if (n.name == name) return n;
    throw std::out_of_range("tapeless::inspect::graph: no node named " + std::string(name));
  }
};

/// A number to `precision` significant digits, as printf's %g writes it.
template <class = void>
std::string number_text(long double x, int precision) {
  char buffer[64];  // 36 digits at most (a long double has 21 that matter), and the sign, point, exponent
  const int n = std::snprintf(buffer, sizeof buffer, "%.*Lg", precision < 36 ? precision : 36, x);
  return {buffer, n > 0 ? static_cast<std::size_t>(n) : 0};
}

/// A value to `precision` digits: a number; a matrix as its shape, with its elements (rows separated
/// by ';') when it has at most `max_elements`; a uniform matrix as its shape and its one element
/// (unless max_elements is 0: then every matrix is its shape alone).
template <class = void>
std::string value_text(const shown_value& v, int precision, std::size_t max_elements = 4) {
  if (!v.is_matrix) return number_text(v.number(), precision);
  std::string s = "matrix " + std::to_string(v.rows) + "x" + std::to_string(v.cols);
  if (max_elements == 0) return s;
  if (v.is_uniform) return s + ", every element " + number_text(v.number(), precision);
  if (v.elements.size() > max_elements) return s;
  s += " [";
  for (std::size_t i = 0; i < v.elements.size(); ++i) {
    if (i > 0) s += i % v.cols == 0 ? "; " : ", ";
    s += number_text(v.elements[i], precision);
  }
  return s + "]";
}

namespace detail {

/// A number, a matrix or a uniform adjoint seen through a pointer: the walks, compiled once per node
/// type, hand values to the recording (compiled once) as these, which copies them into shown_values.
struct value_view {
  std::size_t rows = 1;
  std::size_t cols = 1;
  bool is_matrix = false;
  bool is_uniform = false;
  const void* data = nullptr;  ///< none: no value (a step without a local derivative)
  int type = 0;                ///< of the elements: 0 float, 1 double, 2 long double
};

template <class T>
inline constexpr int number_type = std::is_same_v<T, float>    ? 0
                                   : std::is_same_v<T, double> ? 1
                                                               : 2;

/// A view of v, valid while v lives.
template <class V>
value_view view(const V& v) {
  if constexpr (::tapeless::detail::is_uniform<V>) {
    using M = typename V::matrix_type;
    return {M::rows(), M::cols(), true, true, &v.value, number_type<typename M::value_type>};
  } else if constexpr (Matrix<V>) {
    return {V::rows(), V::cols(), true, false, v.data(), number_type<typename V::value_type>};
  } else {
    return {1, 1, false, false, &v, number_type<V>};
  }
}

template <class = void>
shown_value to_shown(const value_view& v) {
  shown_value s{v.rows, v.cols, v.is_matrix, v.is_uniform, {}};
  s.elements.resize(v.is_matrix && !v.is_uniform ? v.rows * v.cols : 1);
  for (std::size_t i = 0; i < s.elements.size(); ++i)
    s.elements[i] = v.type == 0   ? static_cast<const float*>(v.data)[i]
                    : v.type == 1 ? static_cast<const double*>(v.data)[i]
                                  : static_cast<const long double*>(v.data)[i];
  return s;
}

/// The value of a number, a matrix or a uniform adjoint, as shown.
template <class V>
shown_value show(const V& v) {
  return to_shown(view(v));
}

/// A parameter or constant as the user wrote it: the shortest text that reads back as the same number.
template <class T>
std::string literal(T x) {
  char buffer[64];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, x).ptr;
  return std::string(buffer, end);
}

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

/// The adjoint the let scope of Tag has summed so far, found along the chain of stores.
template <class Tag, class T, class Parent>
const T& scope_total(const ::tapeless::detail::let_scope<Tag, T, Parent>& s) {
  return s.sum.value;  // read after an adjoint arrived
}
template <class Tag, class Other, class T, class Parent>
  requires(!std::is_same_v<Tag, Other>)
const auto& scope_total(const ::tapeless::detail::let_scope<Other, T, Parent>& s) { return scope_total<Tag>(s.parent); }

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

  std::size_t add(node n) {
    g.nodes.push_back(std::move(n));
    return g.nodes.size() - 1;
  }
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
    return add(std::move(r));
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

/// The state, and the engine's store of argument adjoints that the sweep adds into.
template <class Store>
struct recorder : recorder_state {
  Store& arguments;
  explicit recorder(Store& s) : arguments(s) {}
};

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

template <class Leaf>
std::string literal_of(const Leaf& leaf) {
  if constexpr (Real<typename Leaf::value_type>)
    return literal(leaf.value());
  else
    return {};
}

// ---- forward: name every node, in post order, and keep its value ---------------------------------

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
  return rec.operation(key_of(n), root, A::is_active, op_name(n.op), describe(n.op, rec.name(a)), view(v.value()), a);
}

template <class Op, class A, class B, bool Need>
std::size_t forward(const binary_node<Op, A, B>& n, const ::tapeless::detail::evaluated<binary_node<Op, A, B>, Need>& v,
                    recorder_state& rec, bool root) {
  const std::size_t a = forward(n.lhs, v.lhs, rec, false);
  const std::size_t b = forward(n.rhs, v.rhs, rec, false);
  return rec.operation(key_of(n), root, A::is_active || B::is_active, op_name(n.op),
                       describe(n.op, rec.name(a), rec.name(b)), view(v.value()), a, b);
}

template <class A, class B, bool Need>
std::size_t forward(const select_node<A, B>& n, const ::tapeless::detail::evaluated<select_node<A, B>, Need>& v,
                    recorder_state& rec, bool root) {
  const std::size_t a = forward(n.if_true, v.if_true, rec, false);
  const std::size_t b = forward(n.if_false, v.if_false, rec, false);
  return rec.operation(
      key_of(n), root, A::is_active || B::is_active, "if_else",
      "if_else(" + std::string(n.cond ? "true" : "false") + ", " + rec.name(a) + ", " + rec.name(b) + ")",
      view(v.value()), a, b);
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
template <class T, class... L, bool Need>
std::size_t forward(const cut_node<T, L...>& n, const ::tapeless::detail::evaluated<cut_node<T, L...>, Need>&,
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

// ---- backward: the engine's sweep, step by step ---------------------------------------------------

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

// ---- the whole recording --------------------------------------------------------------------------

/// The graph of f at args, f's value and its gradient (of tl::grad's type: one value, or a tuple).
template <class Value, class Gradient>
struct recording {
  graph g;
  Value value;
  Gradient gradient;
};

template <class... Args>
inline constexpr bool valid_arguments = sizeof...(Args) > 0 && (... && (Real<Args> || Matrix<Args>));

/// Both walks from the root; f's value.
template <class Store, class Root>
auto record_root(Store& store, recorder<Store>& rec, const Root& root) {
  using V = value_type_of_t<Root>;
  const ::tapeless::detail::evaluated<Root, true> values(root);
  rec.name_output(forward(root, values, rec, true));
  if constexpr (Root::is_active) {
    const V one(1);
    const std::size_t y = rec.g.output;
    rec.complete(step_kind::seed, y, view(one));
    if (rec.g.nodes[y].op == "output")
      rec.contribute(step_kind::pass, rec.id(key_of(root)), y, 0, view(one), view(one), pass_local(one), "output");
    backward(root, values, one, store, rec);
  }
  return V(::tapeless::detail::value_at(root, values));
}

/// The recording of f at args: f called with argument leaves, as tl::grad calls it.
template <class F, std::size_t... P, class... Args>
auto record(const F& f, std::index_sequence<P...>, const Args&... args) {
  ::tapeless::detail::argument_adjoints<Args...> store;
  recorder<decltype(store)> rec(store);
  ((rec.g.arguments.push_back(rec.add(
       node{.kind = node_kind::argument, .name = "x" + std::to_string(P + 1), .value = show(args), .active = true}))),
   ...);
  auto result = std::invoke(f, argument<P, Args>(args)...);
  using Res = decltype(result);
  static_assert(Operand<Res> && !Matrix<value_type_of_t<Res>>,
                "tl::trace(f, args...) and tl::to_dot(f, args...): f must return a scalar, as for tl::grad");
  const auto value = [&] {
    if constexpr (Expression<Res>) {
      return record_root(store, rec, result);
    } else if constexpr (Variable<Res>) {
      return record_root(store, rec, ::tapeless::detail::as_node<value_type_of_t<Res>>(result));
    } else {  // a plain number: f depends on no argument
      rec.g.output = rec.add(node{.kind = node_kind::constant, .name = "y", .value = show(result)});
      return result;
    }
  }();
  ((rec.g.nodes[rec.g.arguments[P]].adjoint = show(store.template slot<P>())), ...);
  return recording<std::remove_cvref_t<decltype(value)>, decltype(store.gradient())>{std::move(rec.g), value,
                                                                                     store.gradient()};
}

}  // namespace detail
}  // namespace tapeless::inspect
