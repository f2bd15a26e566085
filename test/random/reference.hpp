// SPDX-License-Identifier: BSL-1.0
// test/random/reference.hpp: a composition evaluated on plain doubles with std:: functions, and printed.
//
//   double y = rdt::evaluate(c, x0, x1);     // numbers, or a tl::matrix, a tl::vector and a number
//   std::string s = rdt::describe(c);        // "mul(log((softplus(x0) + 0.25)), x1)"
//
// An interpreter walking the node array at run time, written out by hand and independent of tapeless
// (tl::matrix only carries the arguments in; an operation of the registry is its `reference`, from the
// standard library): the reference the tests compare tapeless's value with, and the function whose
// finite differences they compare its gradient with.
#pragma once

#include "composition.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <string_view>

namespace rdt {

/// A number, an n-vector or an n x n matrix (n <= 3), row-major.
struct value {
  int rows = 1, cols = 1;
  std::array<double, 9> e{};

  [[nodiscard]] int size() const { return rows * cols; }
  double& operator()(int i, int j) { return e[static_cast<std::size_t>(i * cols + j)]; }
  [[nodiscard]] double operator()(int i, int j) const { return e[static_cast<std::size_t>(i * cols + j)]; }
  /// Element k, or the number itself for every k: broadcasting.
  [[nodiscard]] double at(int k) const { return size() == 1 ? e[0] : e[static_cast<std::size_t>(k)]; }
};

inline value filled(int rows, int cols, double x = 0) {
  value v{rows, cols, {}};
  v.e.fill(x);
  return v;
}

template <class M>
value to_value(const M& m) {
  if constexpr (requires { m.rows(); }) {
    value v{static_cast<int>(m.rows()), static_cast<int>(m.cols()), {}};
    for (std::size_t k = 0; k < m.rows() * m.cols(); ++k) v.e[k] = m[k];
    return v;
  } else {
    return value{1, 1, {static_cast<double>(m)}};
  }
}

namespace reference {

inline value transpose(const value& a) {
  value t = filled(a.cols, a.rows);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j) t(j, i) = a(i, j);
  return t;
}

inline value matmul(const value& a, const value& b) {
  value p = filled(a.rows, b.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < b.cols; ++j)
      for (int k = 0; k < a.cols; ++k) p(i, j) += a(i, k) * b(k, j);
  return p;
}

/// m mᵀ + I
inline value spd(const value& m) {
  value p = matmul(m, transpose(m));
  for (int i = 0; i < p.rows; ++i) p(i, i) += 1;
  return p;
}

/// The determinant of a without row `skip_row` and column `skip_col` (-1: none), by Laplace expansion.
inline double minor_det(const value& a, int skip_row, int skip_col) {
  std::array<int, 3> rows{}, cols{};
  int n = 0, m = 0;
  for (int i = 0; i < a.rows; ++i)
    if (i != skip_row) rows[static_cast<std::size_t>(n++)] = i;
  for (int j = 0; j < a.cols; ++j)
    if (j != skip_col) cols[static_cast<std::size_t>(m++)] = j;
  const auto at = [&](int i, int j) { return a(rows[static_cast<std::size_t>(i)], cols[static_cast<std::size_t>(j)]); };
  if (n == 1) return at(0, 0);
  if (n == 2) return at(0, 0) * at(1, 1) - at(0, 1) * at(1, 0);
  return at(0, 0) * (at(1, 1) * at(2, 2) - at(1, 2) * at(2, 1)) -
         at(0, 1) * (at(1, 0) * at(2, 2) - at(1, 2) * at(2, 0)) +
         at(0, 2) * (at(1, 0) * at(2, 1) - at(1, 1) * at(2, 0));
}

/// The inverse by the adjugate: entry (i, j) is the cofactor (j, i) over the determinant.
inline value inverse(const value& a) {
  const double d = minor_det(a, -1, -1);
  value inv = filled(a.rows, a.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int j = 0; j < a.cols; ++j)
      inv(i, j) = ((i + j) % 2 == 0 ? 1 : -1) * (a.rows == 1 ? 1.0 : minor_det(a, j, i)) / d;
  return inv;
}

inline value cholesky(const value& a) {
  value l = filled(a.rows, a.cols);
  for (int j = 0; j < a.rows; ++j) {
    double d = a(j, j);
    for (int k = 0; k < j; ++k) d -= l(j, k) * l(j, k);
    l(j, j) = std::sqrt(d);
    for (int i = j + 1; i < a.rows; ++i) {
      double s = a(i, j);
      for (int k = 0; k < j; ++k) s -= l(i, k) * l(j, k);
      l(i, j) = s / l(j, j);
    }
  }
  return l;
}

inline double log_sum_exp(const value& a) {
  const double m = *std::max_element(a.e.begin(), a.e.begin() + a.size());
  double s = 0;
  for (int k = 0; k < a.size(); ++k) s += std::exp(a.e[static_cast<std::size_t>(k)] - m);
  return m + std::log(s);
}

inline double elementwise(const node& n, double x) {
  switch (n.k) {
    case kind::unary: return registry::unary_table[static_cast<std::size_t>(n.op)].reference(x);
    case kind::pow_real: return std::pow(x, n.c);
    case kind::pow_base: return std::pow(n.c, x);
    default: return std::nan("");
  }
}

inline double elementwise(const node& n, double x, double y) {
  switch (n.k) {
    case kind::binary: return registry::binary_table[static_cast<std::size_t>(n.op)].reference(x, y);
    case kind::select: return x > y || std::isnan(x) ? x : y;
    case kind::let: return x * y + std::sin(x);
    default: return std::nan("");
  }
}

}  // namespace reference

/// The value of node k of c, the arguments given.
inline value evaluate_node(const composition& c, int k, const std::array<value, 3>& args) {
  namespace ref = reference;
  const node& n = c.nodes[static_cast<std::size_t>(k)];
  if (n.k == kind::argument) return args[static_cast<std::size_t>(n.index)];
  if (n.k == kind::constant) return value{1, 1, {n.c}};
  const auto adapted = [&](int side) {
    value v = evaluate_node(c, side == 0 ? n.a : n.b, args);
    const auto s = static_cast<std::size_t>(side);
    for (int i = 0; i < v.size(); ++i) {
      double& x = v.e[static_cast<std::size_t>(i)];
      if (n.shift[s] != 0)
        x = x + n.shift[s];
      else if (n.scale[s] != 1)
        x = x * n.scale[s];
    }
    return v;
  };
  const value a = adapted(0);
  const value b = is_binary(n.k) ? adapted(1) : value{};
  value r = a;
  double sum = 0;
  switch (n.k) {
    case kind::sum:
    case kind::mean:
    case kind::squared_norm:
    case kind::norm:
      for (int i = 0; i < a.size(); ++i) sum += n.k == kind::sum || n.k == kind::mean ? a.at(i) : a.at(i) * a.at(i);
      r = value{1, 1, {n.k == kind::mean ? sum / a.size() : n.k == kind::norm ? std::sqrt(sum) : sum}};
      break;
    case kind::prod:
      r = value{1, 1, {1.0}};
      for (int i = 0; i < a.size(); ++i) r.e[0] *= a.at(i);
      break;
    case kind::log_sum_exp: r = value{1, 1, {ref::log_sum_exp(a)}}; break;
    case kind::max_element: r = value{1, 1, {*std::max_element(a.e.begin(), a.e.begin() + a.size())}}; break;
    case kind::min_element: r = value{1, 1, {*std::min_element(a.e.begin(), a.e.begin() + a.size())}}; break;
    case kind::element: r = value{1, 1, {a.at(n.index)}}; break;
    case kind::trace:
      for (int i = 0; i < a.rows; ++i) sum += a(i, i);
      r = value{1, 1, {sum}};
      break;
    case kind::det: r = value{1, 1, {ref::minor_det(a, -1, -1)}}; break;
    case kind::log_det: r = value{1, 1, {std::log(ref::minor_det(ref::spd(a), -1, -1))}}; break;
    case kind::dot:
      for (int i = 0; i < a.size(); ++i) sum += a.at(i) * b.at(i);
      r = value{1, 1, {sum}};
      break;
    case kind::transpose: r = ref::transpose(a); break;
    case kind::matmul: r = ref::matmul(a, b); break;
    case kind::inverse: r = ref::inverse(ref::spd(a)); break;
    case kind::solve: r = ref::matmul(ref::inverse(ref::spd(a)), b); break;
    case kind::cholesky: r = ref::cholesky(ref::spd(a)); break;
    case kind::outer: r = ref::matmul(a, ref::transpose(b)); break;
    case kind::softmax:
    case kind::log_softmax: {
      const double lse = ref::log_sum_exp(a);
      for (int i = 0; i < a.size(); ++i)
        r.e[static_cast<std::size_t>(i)] = n.k == kind::softmax ? std::exp(a.at(i) - lse) : a.at(i) - lse;
      break;
    }
    case kind::col:
      r = filled(a.rows, 1);
      for (int i = 0; i < a.rows; ++i) r(i, 0) = a(i, n.index);
      break;
    case kind::row:
      r = filled(a.cols, 1);
      for (int j = 0; j < a.cols; ++j) r(j, 0) = a(n.index, j);
      break;
    case kind::rotate:
      for (int i = 0; i < a.size(); ++i) r.e[static_cast<std::size_t>(i)] = a.at((i + 1) % a.size());
      break;
    case kind::diag:
      if (a.cols == 1) {
        r = filled(a.rows, a.rows);
        for (int i = 0; i < a.rows; ++i) r(i, i) = a(i, 0);
      } else {
        r = filled(a.rows, 1);
        for (int i = 0; i < a.rows; ++i) r(i, 0) = a(i, i);
      }
      break;
    default:
      if (is_unary_elementwise(n.k)) {
        for (int i = 0; i < a.size(); ++i) r.e[static_cast<std::size_t>(i)] = ref::elementwise(n, a.at(i));
      } else {  // binary elementwise: the shape of the operand that is not a number
        r = b.size() > a.size() ? b : a;
        for (int i = 0; i < r.size(); ++i) r.e[static_cast<std::size_t>(i)] = ref::elementwise(n, a.at(i), b.at(i));
      }
  }
  for (int i = 0; i < r.size(); ++i) r.e[static_cast<std::size_t>(i)] *= n.post;
  return r;
}

template <class... X>
double evaluate(const composition& c, const X&... x) {
  return evaluate_node(c, c.root, std::array<value, 3>{to_value(x)...}).e[0];
}

namespace detail {
/// The operation's name: the registry's, or the kind's.
inline std::string_view name_of(const node& n) {
  if (n.k == kind::unary) return registry::unary_table[static_cast<std::size_t>(n.op)].name;
  if (n.k == kind::binary) return registry::binary_table[static_cast<std::size_t>(n.op)].name;
  return kind_name(n.k);
}

inline void describe(std::ostream& os, const composition& c, int k) {
  const node& n = c.nodes[static_cast<std::size_t>(k)];
  if (n.k == kind::argument) {
    os << (c.of_matrices ? std::array{"A", "v", "s"}[static_cast<std::size_t>(n.index)]
                         : std::array{"x0", "x1", "x2"}[static_cast<std::size_t>(n.index)]);
    return;
  }
  if (n.k == kind::constant) {
    os << n.c;
    return;
  }
  const auto operand = [&](int side) {
    const auto s = static_cast<std::size_t>(side);
    const bool adapted = n.shift[s] != 0 || n.scale[s] != 1;
    const bool spd = side == 0 && takes_spd(n.k);
    if (spd) os << "spd(";
    if (adapted) os << "(";
    describe(os, c, side == 0 ? n.a : n.b);
    if (n.shift[s] != 0)
      os << " + " << n.shift[s] << ")";
    else if (n.scale[s] != 1)
      os << " * " << n.scale[s] << ")";
    if (spd) os << ")";
  };
  if (n.post != 1) os << "(";
  os << name_of(n) << "(";
  if (n.k == kind::pow_base) os << n.c << ", ";
  if (n.k == kind::select) os << "a > b, ";
  operand(0);
  if (is_binary(n.k)) {
    os << ", ";
    operand(1);
  }
  if (n.k == kind::pow_real) os << ", " << n.c;
  if (n.k == kind::element || n.k == kind::col || n.k == kind::row) os << ", #" << n.index;
  if (n.k == kind::let) os << ", t -> t * b + sin(t)";
  os << ")";
  if (n.post != 1) os << " * " << n.post << ")";
}
}  // namespace detail

/// The composition as a formula; spd(m) is m mᵀ + I.
inline std::string describe(const composition& c) {
  std::ostringstream os;
  os.precision(6);
  detail::describe(os, c, c.root);
  return os.str();
}

}  // namespace rdt
