// SPDX-License-Identifier: BSL-1.0
// tapeless/inspect/graph.hpp: the graph tl::trace and tl::to_dot record: every value of f at its
// arguments and every step of the reverse sweep (the types a user reads), and how a value is shown.
//
// inspect/record.hpp records it; inspect/trace.hpp and inspect/dot.hpp print it. Values are kept as
// long double, whatever the type they were computed in, so that one graph type serves every function.
// Tests: test/unit/inspect/trace_test.cpp test/unit/inspect/dot_test.cpp
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/operation/protocol.hpp>

#include <cstddef>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
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
  /// For an operation that computes again a value an earlier node computes (a subtree f uses twice
  /// without tl::let is two copies): that earlier node, the first to compute it.
  std::optional<std::size_t> same_as{};
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

/// The type of the elements a value_view points to.
enum class element_type { float_elements, double_elements, long_double_elements };

/// A number, a matrix or a uniform adjoint seen through a pointer: the walks, compiled once per node
/// type, hand values to the recording (compiled once) as these, which copies them into shown_values.
struct value_view {
  std::size_t rows = 1;
  std::size_t cols = 1;
  bool is_matrix = false;
  bool is_uniform = false;
  const void* data = nullptr;  ///< none: no value (a step without a local derivative)
  element_type type = element_type::double_elements;
};

template <class T>
inline constexpr element_type element_type_of = std::is_same_v<T, float>    ? element_type::float_elements
                                                : std::is_same_v<T, double> ? element_type::double_elements
                                                                            : element_type::long_double_elements;

/// A view of v, valid while v lives.
template <class V>
value_view view(const V& v) {
  if constexpr (::tapeless::detail::is_uniform<V>) {
    using M = typename V::matrix_type;
    return {M::rows(), M::cols(), true, true, &v.value, element_type_of<typename M::value_type>};
  } else if constexpr (Matrix<V>) {
    return {V::rows(), V::cols(), true, false, v.data(), element_type_of<typename V::value_type>};
  } else {
    return {1, 1, false, false, &v, element_type_of<V>};
  }
}

template <class = void>
shown_value to_shown(const value_view& v) {
  shown_value s{v.rows, v.cols, v.is_matrix, v.is_uniform, {}};
  s.elements.resize(v.is_matrix && !v.is_uniform ? v.rows * v.cols : 1);
  for (std::size_t i = 0; i < s.elements.size(); ++i)
    s.elements[i] = v.type == element_type::float_elements    ? static_cast<const float*>(v.data)[i]
                    : v.type == element_type::double_elements ? static_cast<const double*>(v.data)[i]
                                                              : static_cast<const long double*>(v.data)[i];
  return s;
}

/// The value of a number, a matrix or a uniform adjoint, as shown.
template <class V>
shown_value show(const V& v) {
  return to_shown(view(v));
}

}  // namespace detail

}  // namespace tapeless::inspect
