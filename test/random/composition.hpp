// SPDX-License-Identifier: BSL-1.0
// test/random/composition.hpp: random compositions of tapeless operations, generated at compile time.
//
//   constexpr rdt::composition c = rdt::generate(i);   // composition number i, the same on every run
//
// A composition is a tree of nodes in a fixed array (children before parents, the root last); each
// node is a kind (an elementwise operation of the registry, test/support/operations.hpp; a form of the
// compositions' own; a reduction or a structural operation; a leaf: an argument or a constant), a shape
// (a number, an n-vector or an n x n matrix) and the interval [lo, hi] holding every element of its
// value when the arguments' elements lie in [-2, 2]. From the intervals the generator keeps every
// operand where the registry draws the operation's points: an operand enters as (x + shift) or as
// x * scale (log of x + 0.25 - lo, asin of 0.9 x / max|x|), inverse, solve, log_det and cholesky take
// the positive definite m mᵀ + I of their operand, and a node whose values may exceed 1e3 is
// multiplied down (post).
//
// Compositions 0 .. scalar_count - 1 are of one to three numbers; the rest, of an n x n matrix A, an
// n-vector v and a number s (n = 2 or 3), with a reduction at the root. The tree, its depth (2 to 5
// operations from the root to the deepest leaf) and its constants come from pseudo-random generators
// seeded with the composition's number; an operation is drawn by its name (registry::choose), so that
// an operation added to the registry takes only the draws it wins: the compositions that do not draw it
// stay as they are, and none is renumbered.
#pragma once

#include <tapeless/math/functions.hpp>

#include <operations.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <string_view>

namespace rdt {

enum class kind : std::uint8_t {
  // leaves
  argument,
  constant,
  // elementwise: an operation of the registry (test/support/operations.hpp), node::op its position
  unary,
  binary,  // a number on either side used for every element
  // elementwise forms of the compositions' own: a drawn exponent or base, a shared operand, a branch
  pow_real,
  pow_base,
  let,
  select,
  // a number from a vector or matrix
  sum,
  mean,
  prod,
  norm,
  squared_norm,
  log_sum_exp,
  max_element,
  min_element,
  element,
  trace,
  det,
  log_det,
  dot,
  // a vector or matrix from vectors and matrices
  transpose,
  matmul,
  inverse,
  solve,
  cholesky,
  outer,
  softmax,
  log_softmax,
  col,
  diag,
  row,     // transpose(row(m, i)): a vector
  rotate,  // the elements shifted by one, by slice and concat (of a matrix: through reshape to a column)
};
inline constexpr int kind_count = static_cast<int>(kind::rotate) + 1;

/// What describe() prints for a kind that is not an operation of the registry.
constexpr std::string_view kind_name(kind k) {
  switch (k) {
    case kind::argument:
    case kind::constant:
    case kind::unary:
    case kind::binary: return "";
    case kind::pow_real:
    case kind::pow_base: return "pow";
    case kind::let: return "let";
    case kind::select: return "if_else";
    case kind::sum: return "sum";
    case kind::mean: return "mean";
    case kind::prod: return "prod";
    case kind::norm: return "norm";
    case kind::squared_norm: return "squared_norm";
    case kind::log_sum_exp: return "log_sum_exp";
    case kind::max_element: return "max_element";
    case kind::min_element: return "min_element";
    case kind::element: return "element";
    case kind::trace: return "trace";
    case kind::det: return "det";
    case kind::log_det: return "log_det";
    case kind::dot: return "dot";
    case kind::transpose: return "transpose";
    case kind::matmul: return "matmul";
    case kind::inverse: return "inverse";
    case kind::solve: return "solve";
    case kind::cholesky: return "cholesky";
    case kind::outer: return "outer";
    case kind::softmax: return "softmax";
    case kind::log_softmax: return "log_softmax";
    case kind::col: return "col";
    case kind::diag: return "diag";
    case kind::row: return "row";
    case kind::rotate: return "rotate";
  }
  return "";
}

enum class shape : std::uint8_t { number, vector, matrix };

constexpr bool is_unary_elementwise(kind k) { return k == kind::unary || k == kind::pow_real || k == kind::pow_base; }
constexpr bool is_binary_elementwise(kind k) { return k == kind::binary || k == kind::let || k == kind::select; }
constexpr bool is_elementwise(kind k) { return is_unary_elementwise(k) || is_binary_elementwise(k); }
constexpr bool is_binary(kind k) {
  return is_binary_elementwise(k) || k == kind::dot || k == kind::matmul || k == kind::solve || k == kind::outer;
}
/// Whether the operation reads m mᵀ + I instead of its (first) operand m.
constexpr bool takes_spd(kind k) {
  return k == kind::inverse || k == kind::solve || k == kind::log_det || k == kind::cholesky;
}

struct node {
  kind k = kind::argument;
  int op = -1;  // unary, binary: the operation's position in the registry's list
  shape s = shape::number;
  int a = -1, b = -1;                 // the operands' positions
  int index = 0;                      // argument: its position; element, col: which one
  double c = 0;                       // constant: its value; pow_real: the exponent; pow_base: the base
  std::array<double, 2> shift{0, 0};  // operand i enters as (x + shift[i]) * scale[i]: one or the other
  std::array<double, 2> scale{1, 1};
  double post = 1;        // the result is multiplied by post
  double lo = 0, hi = 0;  // every element of the value lies in [lo, hi]
};

inline constexpr int max_nodes = 40;
inline constexpr int scalar_count = 400;  // compositions of numbers
inline constexpr int matrix_count = 150;  // compositions of a matrix, a vector and a number
inline constexpr int count = scalar_count + matrix_count;
inline constexpr double arg_bound = 2;  // arguments' elements are drawn from [-2, 2]

struct composition {
  std::array<node, max_nodes> nodes{};
  int size = 0;
  int root = 0;
  bool of_matrices = false;
  int arguments = 1;  // numbers x0, x1, ...; or A, v, s
  int n = 1;          // the matrices' dimension
  int depth = 0;      // operations from the root to the deepest leaf
};

// ---- intervals ---------------------------------------------------------------------------------

struct interval {
  double lo, hi;
};

constexpr double min2(double a, double b) { return a < b ? a : b; }
constexpr double max2(double a, double b) { return a < b ? b : a; }
constexpr double magnitude(interval x) { return max2(-x.lo, x.hi); }
/// The smallest |x| in x.
constexpr double least_magnitude(interval x) { return x.lo > 0 ? x.lo : x.hi < 0 ? -x.hi : 0; }
constexpr interval corners(double a, double b, double c, double d) {
  return {min2(min2(a, b), min2(c, d)), max2(max2(a, b), max2(c, d))};
}
constexpr interval product(interval x, interval y) {
  return corners(x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi);
}
constexpr interval times(double k, interval x) {
  return k >= 0 ? interval{k * x.lo, k * x.hi} : interval{k * x.hi, k * x.lo};
}
constexpr double power(double x, int n) {
  double r = 1;
  for (int i = 0; i < n; ++i) r *= x;
  return r;
}

template <class F>
constexpr interval increasing(F f, interval x) {
  return {f(x.lo), f(x.hi)};
}
template <class F>
constexpr interval decreasing(F f, interval x) {
  return {f(x.hi), f(x.lo)};
}

// ---- the pseudo-random generator ---------------------------------------------------------------

/// splitmix64: a fixed, portable sequence from a seed.
struct prng {
  std::uint64_t state;
  constexpr std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in 0 .. n - 1.
  constexpr int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
};

// ---- which operation may produce which shape ---------------------------------------------------

struct kind_list {
  std::array<kind, kind_count> k{};
  int size = 0;
  constexpr void add(kind x) { k[size++] = x; }
};

/// A node's operation: its kind and, for an operation of the registry, its position there.
struct choice {
  kind k = kind::argument;
  int op = -1;
};

namespace op = registry;

/// The elementwise operations: the registry's, then the compositions' own forms. Drawn by name
/// (registry::choose), so that an operation added to the registry leaves every draw it does not win,
/// and so every composition that does not use it, as it is.
inline constexpr int elementwise_count = static_cast<int>(op::unary_count + op::binary_count) + 4;
constexpr std::array<choice, elementwise_count> elementwise_choices() {
  std::array<choice, elementwise_count> c{};
  int i = 0;
  for (int u = 0; u < static_cast<int>(op::unary_count); ++u) c[static_cast<std::size_t>(i++)] = {kind::unary, u};
  for (int b = 0; b < static_cast<int>(op::binary_count); ++b) c[static_cast<std::size_t>(i++)] = {kind::binary, b};
  for (kind k : {kind::pow_real, kind::pow_base, kind::let, kind::select}) c[static_cast<std::size_t>(i++)] = {k, -1};
  return c;
}
/// The name a choice is drawn by: the registry's, or the form's own.
constexpr std::string_view draw_name(choice c) {
  switch (c.k) {
    case kind::unary: return op::unary_table[static_cast<std::size_t>(c.op)].name;
    case kind::binary: return op::binary_table[static_cast<std::size_t>(c.op)].name;
    case kind::pow_real: return "pow_real";
    case kind::pow_base: return "pow_base";
    case kind::let: return "let";
    default: return "select";
  }
}
inline constexpr std::array<choice, elementwise_count> elementwise = elementwise_choices();
inline constexpr std::array<std::uint64_t, elementwise_count> elementwise_hashes = [] {
  std::array<std::uint64_t, elementwise_count> h{};
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = op::name_hash(draw_name(elementwise[i]));
  return h;
}();
static_assert(op::detail::distinct([] {
                std::array<std::string_view, elementwise_count> n{};
                for (std::size_t i = 0; i < n.size(); ++i) n[i] = draw_name(elementwise[i]);
                return n;
              }()),
              "an operation of the registry is named as a form of the compositions' own");

/// The operations that produce a vector or a matrix from vectors and matrices.
constexpr kind_list structural_kinds(shape s) {
  kind_list l;
  if (s == shape::vector)
    for (kind k :
         {kind::matmul, kind::solve, kind::softmax, kind::log_softmax, kind::col, kind::diag, kind::row, kind::rotate})
      l.add(k);
  if (s == shape::matrix)
    for (kind k : {kind::transpose, kind::matmul, kind::inverse, kind::solve, kind::cholesky, kind::outer,
                   kind::softmax, kind::log_softmax, kind::diag, kind::rotate})
      l.add(k);
  return l;
}

/// A reduction at the root of a matrix composition, with the shape of its operand.
struct reduction {
  kind k;
  shape operand;
};
constexpr std::array<reduction, 22> reductions() {
  std::array<reduction, 22> r{};
  int i = 0;
  for (kind k : {kind::sum, kind::mean, kind::prod, kind::norm, kind::squared_norm, kind::log_sum_exp,
                 kind::max_element, kind::min_element, kind::element}) {
    r[i++] = {k, shape::vector};
    r[i++] = {k, shape::matrix};
  }
  r[i++] = {kind::trace, shape::matrix};
  r[i++] = {kind::det, shape::matrix};
  r[i++] = {kind::log_det, shape::matrix};
  r[i++] = {kind::dot, shape::vector};
  return r;
}

// ---- the generator -----------------------------------------------------------------------------

/// What make() must build at the root: its operation, its first operand's and, for a reduction, the
/// shape it reduces. kind::argument: chosen at random.
struct plan {
  choice k{};
  choice first{};
  shape operand = shape::number;
};

class generator {
 public:
  constexpr generator(composition& c, std::uint64_t seed) : c_(c), rng_{seed} {}

  /// Adds a node of shape s whose deepest leaf lies `depth` operations down (depth >= 2 with a plan).
  /// With `needs_argument`, the leftmost path ends at an argument.
  constexpr int make(shape s, int depth, bool needs_argument, const plan& p = {}) {
    if (depth == 0) return leaf(s, needs_argument);
    const choice k = p.k.k != kind::argument ? p.k : pick(s);
    node n{.k = k.k, .op = k.op, .s = s};
    shape sa = s, sb = s;
    operand_shapes(n, sa, sb);
    if (p.k.k != kind::argument && n.s == shape::number && !is_elementwise(k.k)) sa = p.operand;
    // let names its first operand: give it an argument, so that it is an expression to share.
    n.a = make(sa, depth - 1, needs_argument || k.k == kind::let, plan{.k = p.first});
    if (is_binary(k.k)) n.b = make(sb, c_.size > 12 ? 0 : rng_.below(depth), false);
    if (k.k == kind::pow_real) n.c = std::array{0.5, 1.5, 2.5, -0.5, -1.5}[rng_.below(5)];
    if (k.k == kind::pow_base) n.c = std::array{0.5, 2.0, 3.0}[rng_.below(3)];
    if (k.k == kind::element) n.index = rng_.below(elements(sa));
    if (k.k == kind::col || k.k == kind::row) n.index = rng_.below(c_.n);
    adapt(n);
    return push(n);
  }

 private:
  constexpr int elements(shape s) const { return s == shape::number ? 1 : s == shape::vector ? c_.n : c_.n * c_.n; }

  constexpr int push(const node& n) {
    c_.nodes[c_.size] = n;
    return c_.size++;
  }

  constexpr int leaf(shape s, bool needs_argument) {
    node n{.k = kind::argument, .s = s, .lo = -arg_bound, .hi = arg_bound};
    if (c_.of_matrices) {
      n.index = s == shape::matrix ? 0 : s == shape::vector ? 1 : 2;
    } else {
      n.index = rng_.below(c_.arguments);
    }
    if (s == shape::number && !needs_argument && rng_.below(4) == 0) {
      n.k = kind::constant;
      n.c = std::array{0.5, 1.5, -0.75, 2.0, -1.25, 3.0}[rng_.below(6)];
      n.lo = n.hi = n.c;
    }
    return push(n);
  }

  /// An operation producing shape s: elementwise or, for vectors and matrices, half the time a structural one.
  constexpr choice pick(shape s) {
    if (s != shape::number && rng_.below(2) == 0) {
      const kind_list l = structural_kinds(s);
      return {l.k[rng_.below(l.size)]};
    }
    if (s == shape::number && c_.of_matrices && rng_.below(3) == 0) {
      const reduction r = reductions()[rng_.below(22)];
      return {r.k};
    }
    return elementwise[op::choose(rng_.next(), elementwise_hashes)];
  }

  /// The shapes of the operands of n (of shape n.s); a binary elementwise operation may take a number
  /// on one side (broadcast), and a reduction a vector or a matrix.
  constexpr void operand_shapes(const node& n, shape& sa, shape& sb) {
    switch (n.k) {
      case kind::sum:
      case kind::mean:
      case kind::prod:
      case kind::norm:
      case kind::squared_norm:
      case kind::log_sum_exp:
      case kind::max_element:
      case kind::min_element:
      case kind::element: sa = rng_.below(2) == 0 ? shape::vector : shape::matrix; return;
      case kind::trace:
      case kind::det:
      case kind::log_det:
      case kind::transpose:
      case kind::inverse:
      case kind::cholesky: sa = shape::matrix; return;
      case kind::dot:
      case kind::outer: sa = sb = shape::vector; return;
      case kind::matmul:
      case kind::solve:
        sa = shape::matrix;
        sb = n.s;
        return;
      case kind::col:
      case kind::row: sa = shape::matrix; return;
      case kind::diag: sa = n.s == shape::matrix ? shape::vector : shape::matrix; return;
      default:
        if (is_binary_elementwise(n.k) && n.s != shape::number && n.k != kind::let) {
          const int r = rng_.below(4);  // a number on the right, on the left, or neither
          if (r == 0) sb = shape::number;
          if (r == 1) sa = shape::number;
        }
        if (n.k == kind::let && n.s != shape::number && rng_.below(2) == 0) sb = shape::number;
        return;
    }
  }

  constexpr interval operand(const node& n, int i) const {
    const node& x = c_.nodes[i == 0 ? n.a : n.b];
    return {(x.lo + n.shift[i]) * n.scale[i], (x.hi + n.shift[i]) * n.scale[i]};
  }

  /// Operand i enters at least `least`.
  constexpr void shift_up(node& n, int i, double least) {
    const double lo = c_.nodes[i == 0 ? n.a : n.b].lo;
    if (lo < least) n.shift[i] = least - lo;
  }
  /// Operand i enters at most `most`.
  constexpr void shift_down(node& n, int i, double most) {
    const double hi = c_.nodes[i == 0 ? n.a : n.b].hi;
    if (hi > most) n.shift[i] = most - hi;
  }
  /// Operand i enters within [-bound, bound].
  constexpr void scale_into(node& n, int i, double bound) {
    const node& x = c_.nodes[i == 0 ? n.a : n.b];
    const double m = max2(-x.lo, x.hi);
    if (m > bound) n.scale[i] = bound / m;
  }
  /// Operand i enters where the registry draws the operation's points: kept `margin` off its kink
  /// (by a shift up, where it comes closer), or inside `points` (by a shift for a half-line, a scale
  /// about its centre for an interval).
  constexpr void bring_into(node& n, int i, const op::operand_domain& d) {
    const node& x = c_.nodes[i == 0 ? n.a : n.b];
    if (d.kink && d.margin > 0) {
      if (x.lo < *d.kink + d.margin && x.hi > *d.kink - d.margin) shift_up(n, i, *d.kink + d.margin);
      return;
    }
    const op::interval p = d.points;
    if (p.lo > -op::inf && p.hi < op::inf) {
      const double centre = (p.lo + p.hi) / 2;
      scale_into(n, i, (p.hi - p.lo) / 2);
      if (centre != 0) n.shift[i] = centre / n.scale[i];
    } else if (p.lo > -op::inf) {
      shift_up(n, i, p.lo);
    } else if (p.hi < op::inf) {
      shift_down(n, i, p.hi);
    }
  }

  /// The operands' adapters, n's interval, and its post factor.
  constexpr void adapt(node& n) {
    namespace m = tapeless::math;
    if (n.k == kind::unary) bring_into(n, 0, op::unary_table[static_cast<std::size_t>(n.op)].domain);
    if (n.k == kind::binary)
      for (int i = 0; i < 2; ++i)
        bring_into(n, i, op::binary_table[static_cast<std::size_t>(n.op)].domain[static_cast<std::size_t>(i)]);
    switch (n.k) {
      case kind::pow_base: scale_into(n, 0, 5); break;
      case kind::pow_real: shift_up(n, 0, 0.25); break;
      case kind::inverse:
      case kind::solve:
      case kind::log_det:
      case kind::cholesky: scale_into(n, 0, 3); break;
      default: break;
    }
    const interval x = operand(n, 0);
    const interval y = is_binary(n.k) ? operand(n, 1) : interval{0, 0};
    const double mx = magnitude(x), my = magnitude(y);
    const int size = elements(c_.nodes[n.a].s);
    const double dim = c_.n;
    interval r{0, 0};
    switch (n.k) {
      case kind::unary: {
        const op::unary_info& o = op::unary_table[static_cast<std::size_t>(n.op)];
        const interval e = o.range == op::extremes::even ? interval{least_magnitude(x), mx} : x;
        if (o.range == op::extremes::bounded) {
          r = {o.bound.lo, o.bound.hi};
        } else {
          const double at_lo = o.value(e.lo), at_hi = o.value(e.hi);
          r = {min2(at_lo, at_hi), max2(at_lo, at_hi)};
        }
        break;
      }
      case kind::binary: {
        const op::binary_info& o = op::binary_table[static_cast<std::size_t>(n.op)];
        const bool even = o.range == op::extremes::even;
        const interval a = even ? interval{least_magnitude(x), mx} : x;
        const interval b = even ? interval{least_magnitude(y), my} : y;
        r = o.range == op::extremes::bounded
                ? interval{o.bound.lo, o.bound.hi}
                : corners(o.value(a.lo, b.lo), o.value(a.lo, b.hi), o.value(a.hi, b.lo), o.value(a.hi, b.hi));
        break;
      }
      case kind::pow_real: {
        const double p = n.c;
        const auto f = [p](double t) { return m::pow(t, p); };
        r = p > 0 ? increasing(f, x) : decreasing(f, x);
        break;
      }
      case kind::pow_base: {
        const double base = n.c;
        const auto f = [base](double t) { return m::pow(base, t); };
        r = base > 1 ? increasing(f, x) : decreasing(f, x);
        break;
      }
      case kind::outer: r = product(x, y); break;
      case kind::select: r = {max2(x.lo, y.lo), max2(x.hi, y.hi)}; break;
      case kind::let: {  // t y + sin(t)
        const interval p = product(x, y);
        r = {p.lo - 1, p.hi + 1};
        break;
      }
      case kind::sum: r = times(size, x); break;
      case kind::mean:
      case kind::max_element:
      case kind::min_element:
      case kind::element:
      case kind::transpose:
      case kind::col:
      case kind::row:
      case kind::rotate: r = x; break;
      case kind::prod:
        r = x.lo >= 0 ? interval{power(x.lo, size), power(x.hi, size)} : interval{-power(mx, size), power(mx, size)};
        break;
      case kind::norm: r = {0, m::sqrt(static_cast<double>(size)) * mx}; break;
      case kind::squared_norm: r = {0, size * mx * mx}; break;
      case kind::log_sum_exp: {  // between the mean and the largest element, plus log n
        const double log_n = m::log(static_cast<double>(size));
        r = {x.lo + log_n, x.hi + log_n};
        break;
      }
      case kind::trace: r = times(dim, x); break;
      case kind::det: {  // Hadamard's bound
        const double h = power(m::sqrt(dim) * mx, c_.n);
        r = {-h, h};
        break;
      }
      case kind::log_det: r = {0, dim * m::log(1 + dim * mx * mx)}; break;
      case kind::dot:
      case kind::matmul: r = times(dim, product(x, y)); break;
      case kind::inverse: r = {-1, 1}; break;  // the eigenvalues of m mᵀ + I are at least 1
      case kind::solve: r = {-m::sqrt(dim) * my, m::sqrt(dim) * my}; break;
      case kind::cholesky: {
        const double l = m::sqrt(1 + dim * mx * mx);
        r = {-l, l};
        break;
      }
      case kind::softmax: r = {0, 1}; break;
      case kind::log_softmax: r = {x.lo - x.hi - m::log(static_cast<double>(size)), 0}; break;
      case kind::diag: r = n.s == shape::matrix ? interval{min2(x.lo, 0), max2(x.hi, 0)} : x; break;
      default: break;
    }
    const double big = magnitude(r);
    if (big > 1e3) n.post = 1e3 / big;
    n.lo = r.lo * n.post;
    n.hi = r.hi * n.post;
  }

  composition& c_;
  prng rng_;
};

/// Composition number i (0 <= i < count). Its draws come from generators seeded with i, and each
/// operation is drawn by name: an operation added to the registry changes only the compositions that
/// draw it, and no composition's number.
constexpr composition generate(int i) {
  composition c;
  generator g(c, 0x5eed0000ULL + static_cast<std::uint64_t>(i));
  prng r{0xc0ffeeULL + static_cast<std::uint64_t>(i)};
  c.depth = 2 + r.below(4);
  const choice root = elementwise[op::choose(r.next(), elementwise_hashes)];
  const choice first = elementwise[op::choose(r.next(), elementwise_hashes)];
  if (i < scalar_count) {
    c.arguments = 1 + r.below(3);
    c.root = g.make(shape::number, c.depth, true, plan{.k = root, .first = first});
  } else {
    c.of_matrices = true;
    c.arguments = 3;
    c.n = 2 + r.below(2);
    // A reduction at the root; its operand half the time a structural operation, else an elementwise one.
    const reduction p = reductions()[r.below(22)];
    const kind_list l = structural_kinds(p.operand);
    const choice structural{l.k[r.below(l.size)]};
    c.root = g.make(shape::number, c.depth, true,
                    plan{.k = {p.k}, .first = r.below(2) == 0 ? structural : first, .operand = p.operand});
  }
  return c;
}

}  // namespace rdt
