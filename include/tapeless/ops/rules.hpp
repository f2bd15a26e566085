// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/rules.hpp: how nodes and sweeps ask an operation for its value and its vector-Jacobian product.
//
// Value: an operation states `value(x)` (unary) or `value(x, y)` (binary). One whose backward pass
// needs more than its operands and its value (a factorisation, the weights of a softmax) states
// `forward(...)` instead, returning with_cache{value, cache}; the sweep keeps the cache beside the
// value and hands it to the vjp as its last argument.
//
// Backward: a unary operation states either `derivative(x, y)` (dy/dx, given its operand x and its own
// value y) or, where dividing beats multiplying by a reciprocal, `vjp(g, x, y)` (g * dy/dx) directly.
// A binary operation states `vjp(g, x, y, z)`, returning the pair (g * dz/dx, g * dz/dy).
// A matrix operation (detail::matrix_operation) states `vjp(g, x, y)` if unary, and if binary
// `vjp_lhs(g, x, y, z)` and `vjp_rhs(g, x, y, z)` apart, so that a constant side costs nothing.
// Each of these is the one place its rule is written; the other forms are derived here.
#pragma once

#include <tapeless/math/batch.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/operation/traits.hpp>

#include <concepts>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// What the rule of the adjoint of operand Side (0: the lhs or only operand, 1: the rhs) reads.
template <class Op, int Side>
constexpr reads vjp_reads() {
  constexpr operation_traits t = traits_of<Op>();
  return (Side == 0 ? t.lhs_vjp_reads : t.rhs_vjp_reads).value_or(t.vjp_reads);
}

/// The value of a V that a forward pass did not compute, because no rule reads it: never read.
template <class V>
inline constexpr V not_computed{};

/// The adjoint of a matrix M whose every element is `value`: what sum and mean send back. A rule that
/// knows it (matmul: G B^T becomes row sums of B) states a vjp taking it; every other rule receives it
/// as a dense matrix (unary_vjp and matrix_binary_vjp below).
template <class M>
struct uniform {
  using matrix_type = M;
  typename M::value_type value;
  [[nodiscard]] constexpr M dense() const { return M::filled(value); }
};

template <class G>
inline constexpr bool is_uniform = false;
template <class M>
inline constexpr bool is_uniform<uniform<M>> = true;

/// The adjoint of a matrix M whose rows are all one row `line` (Rows) or whose columns are all one
/// column: what matmul's rules send back under a uniform G (G B^T: every row the row sums of B; A^T G:
/// every column the column sums of A). An adjoint sum adds it without forming the matrix (S7's two
/// contributions to A were each written out whole, then added); a rule receives it dense.
template <class M, bool Rows>
struct repeated {
  using matrix_type = M;
  using T = typename M::value_type;
  using line_type = std::conditional_t<Rows, matrix<T, 1, M::cols()>, matrix<T, M::rows(), 1>>;
  line_type line;
  /// Element (i, j) of the matrix, read from l (line or a copy of it); a batch B of its row i from j.
  static constexpr T at(const line_type& l, std::size_t i, std::size_t j) { return Rows ? l[j] : l[i]; }
  template <class B>
  static B batch_at(const line_type& l, std::size_t i, std::size_t j) {
    if constexpr (Rows)
      return B::load_unaligned(&l[j]);
    else
      return B(l[i]);
  }
  /// f(element (i, j) of target, element (i, j) of this) for every element, row by row. The line is
  /// read from a local copy, so that the compiler need not fear that writing target changes it.
  /// At run time, a batch of a row at a time: left to itself, g++ vectorised this loop across rows,
  /// with shuffles.
  template <class Target, class F>
  constexpr void each(Target& target, const F& f) const {
    const auto copy = line;
#if TAPELESS_SIMD
    if constexpr (simd::whole_batches<T, M::cols()>()) {
      if (!std::is_constant_evaluated()) {
        using B = simd::batch<T>;
        for (std::size_t i = 0; i < M::rows(); ++i)
          for (std::size_t j = 0; j < M::cols(); j += simd::width<T>) {
            B e = B::load_unaligned(&target(i, j));
            f(e, batch_at<B>(copy, i, j));
            e.store_unaligned(&target(i, j));
          }
        return;
      }
    }
#endif
    for (std::size_t i = 0; i < M::rows(); ++i)
      for (std::size_t j = 0; j < M::cols(); ++j) f(target(i, j), at(copy, i, j));
  }
  [[nodiscard]] constexpr M dense() const {
    M m(uninitialized);
    each(m, [](auto& e, const auto& v) { e = v; });
    return m;
  }
};

template <class G>
inline constexpr bool is_repeated = false;
template <class M, bool Rows>
inline constexpr bool is_repeated<repeated<M, Rows>> = true;

/// a + b, two repeated adjoints of one matrix, as a matrix written in one pass: matmul(A, A) under a
/// uniform G sends A both G Aᵀ (repeated rows) and Aᵀ G (repeated columns), which its sum wrote, then
/// read back and added to (S7 with clang: a third of its stores and every load of its sweep).
template <class M, bool RowsA, bool RowsB>
constexpr M sum_of_repeated(const repeated<M, RowsA>& a, const repeated<M, RowsB>& b) {
  const auto la = a.line;  // local copies: writing `out` cannot change them
  const auto lb = b.line;
  M out(uninitialized);
#if TAPELESS_SIMD
  using T = typename M::value_type;
  if constexpr (simd::whole_batches<T, M::cols()>()) {
    if (!std::is_constant_evaluated()) {
      using B = simd::batch<T>;
      for (std::size_t i = 0; i < M::rows(); ++i)
        for (std::size_t j = 0; j < M::cols(); j += simd::width<T>)
          (a.template batch_at<B>(la, i, j) + b.template batch_at<B>(lb, i, j)).store_unaligned(&out(i, j));
      return out;
    }
  }
#endif
  for (std::size_t i = 0; i < M::rows(); ++i)
    for (std::size_t j = 0; j < M::cols(); ++j) out(i, j) = a.at(la, i, j) + b.at(lb, i, j);
  return out;
}

/// The adjoint of a matrix M that is zero outside elements Start .. Start + L - 1 (row-major), which
/// are the L elements of part(): what slice's rule sends back. An adjoint sum writes or adds the part
/// and the zeros around it, where the rule wrote a matrix of zeros and then the part, and the sum then
/// copied or added all of it (Rosenbrock, n = 256: memset and memmove were 55% of its time).
/// Not Owned, it points at the adjoint the rule received, which a caller up the sweep holds until the
/// operand's sweep has returned; Owned, it holds the part, for an adjoint made dense for the rule.
template <class M, std::size_t Start, class Part, bool Owned>
struct placed {
  using matrix_type = M;
  static constexpr std::size_t start = Start, length = Part::size();
  std::conditional_t<Owned, Part, const Part*> held;
  [[nodiscard]] constexpr const Part& part() const {
    if constexpr (Owned)
      return held;
    else
      return *held;
  }
  [[nodiscard]] constexpr M dense() const {
    M m(uninitialized);
    write_to(m);
    return m;
  }
  /// target = this.
  template <class Target>
  constexpr void write_to(Target& target) const {
    using T = typename M::value_type;
    for (std::size_t i = 0; i < Start; ++i) target[i] = T(0);
    const Part& p = part();
    for (std::size_t i = 0; i < length; ++i) target[Start + i] = p[i];
    for (std::size_t i = Start + length; i < M::size(); ++i) target[i] = T(0);
  }
};

template <class G>
inline constexpr bool is_placed = false;
template <class M, std::size_t Start, class Part, bool Owned>
inline constexpr bool is_placed<placed<M, Start, Part, Owned>> = true;

/// The adjoint factor times the matrix *of: what log_sum_exp's rule sends back (its exps times g / their
/// sum). An adjoint sum writes or adds the products in one pass, where the rule wrote them into a
/// matrix of its own that the sum then copied (S4, n = 256: 2 KB a gradient). `of` points into the
/// forward pass's values, which outlive the sweep.
template <class M>
struct scaled {
  using matrix_type = M;
  using T = typename M::value_type;
  const M* of;
  T factor;
  [[nodiscard]] constexpr M dense() const { return *of * factor; }
  /// f(element i of target, element i of this) for every element.
  template <class Target, class F>
  constexpr void each(Target& target, const F& f) const {
    const M& m = *of;
    const T c = factor;
    for (std::size_t i = 0; i < M::size(); ++i) f(target[i], m[i] * c);
  }
};

template <class G>
inline constexpr bool is_scaled = false;
template <class M>
inline constexpr bool is_scaled<scaled<M>> = true;

/// Adjoints that stand for a matrix without being one: a rule that does not take them receives them dense.
template <class G>
inline constexpr bool is_structured = is_uniform<G> || is_repeated<G> || is_placed<G> || is_scaled<G>;

/// An adjoint as a plain number, matrix or uniform matrix (for what knows uniform adjoints only).
template <class G>
constexpr decltype(auto) dense_or_uniform(const G& g) {
  if constexpr (is_repeated<G> || is_placed<G> || is_scaled<G>)
    return g.dense();
  else
    return (g);
}

/// target = g, for an adjoint g that may be uniform or repeated.
template <class T, class G>
constexpr void assign_adjoint(T& target, const G& g) {
  if constexpr (is_uniform<G>) {
    for (auto& e : target) e = g.value;
  } else if constexpr (is_repeated<G> || is_scaled<G>) {
    g.each(target, [](auto& e, const auto& v) { e = v; });
  } else if constexpr (is_placed<G>) {
    g.write_to(target);
  } else {
    target = g;
  }
}

/// target += g, for an adjoint g that may be uniform or repeated.
template <class T, class G>
constexpr void add_adjoint(T& target, const G& g) {
  if constexpr (is_uniform<G>) {
    for (auto& e : target) e += g.value;
  } else if constexpr (is_repeated<G> || is_scaled<G>) {
    g.each(target, [](auto& e, const auto& v) { e += v; });
  } else if constexpr (is_placed<G>) {
    const auto& p = g.part();
    for (std::size_t i = 0; i < G::length; ++i) target[G::start + i] += p[i];
  } else {
    target += g;
  }
}

/// The result of an operation's forward(): its value, and what its vjp needs besides.
template <class V, class C>
struct with_cache {
  V value;
  C cache;

  template <class X, class Y>
    requires std::constructible_from<V, X> && std::constructible_from<C, Y>
  constexpr with_cache(X&& v, Y&& c) : value(std::forward<X>(v)), cache(std::forward<Y>(c)) {}
  /// The cache left for the forward pass to write. Not {0, C(uninitialized)}: g++ folds that
  /// initializer of constants into zeros and fills the cache with them first (log_sum_exp, n = 256:
  /// a quarter of its instructions).
  constexpr with_cache(V v, uninitialized_t u) : value(std::move(v)), cache(u) {}
  /// The cache built in place from `args`: a large one is not built and then copied.
  template <class... A>
  constexpr with_cache(V v, std::in_place_t, A&&... args) : value(std::move(v)), cache(std::forward<A>(args)...) {}
};

template <class Out>
inline constexpr bool has_cache = false;
template <class V, class C>
inline constexpr bool has_cache<with_cache<V, C>> = true;

/// What a forward pass keeps of op at its operands: with_cache for an op that states forward(), else the value.
template <class Op, class... X>
constexpr auto op_forward(const Op& op, const X&... x) {
  if constexpr (requires { op.forward(x...); })
    return op.forward(x...);
  else
    return op.value(x...);
}

/// op_forward, where the sweep shares work among the nodes of one argument (sweep/shared.hpp) and
/// `work` points at it: op.forward(x..., *work) if op takes it, else op_forward. A null `work` (of
/// type std::nullptr_t) shares nothing. Both forms keep the same type, which the evaluation is.
template <class Op, class Work, class... X>
constexpr auto forward_sharing(const Op& op, Work work, const X&... x) {
  if constexpr (requires { op.forward(x..., *work); }) {
    static_assert(std::is_same_v<decltype(op.forward(x..., *work)), decltype(op_forward(op, x...))>,
                  "an operation's forward with shared work must return what its forward without it does");
    return op.forward(x..., *work);
  } else {
    return op_forward(op, x...);
  }
}

/// The tag of a forward pass whose value nothing reads: not the caller (grad at the root) nor the
/// parent. An operation whose rule reads its cache only may offer forward(x..., value_unread), which
/// skips the work only the value takes: log_sum_exp's log, a libm call the compiler may not drop, as
/// it may set errno (S4, n = 16: 467 -> 400 instructions per gradient).
struct value_unread_t {
  explicit value_unread_t() = default;
};
inline constexpr value_unread_t value_unread{};

/// forward_sharing; where nothing reads the value (Need false), op.forward(x..., value_unread) if op
/// offers it. Both forms keep the same type.
template <bool Need, class Op, class Work, class... X>
constexpr auto forward_as_needed(const Op& op, Work work, const X&... x) {
  if constexpr (!Need && requires { op.forward(x..., value_unread); }) {
    static_assert(std::is_same_v<decltype(op.forward(x..., value_unread)), decltype(op_forward(op, x...))>,
                  "an operation's forward with its value unread must return what its forward does");
    return op.forward(x..., value_unread);
  } else {
    return forward_sharing(op, work, x...);
  }
}

/// The value part of what op_forward returned.
template <class Out>
constexpr const auto& value_part(const Out& out) noexcept {
  if constexpr (has_cache<Out>)
    return out.value;
  else
    return out;
}

/// op's value at its operands.
template <class Op, class... X>
constexpr auto op_value(const Op& op, const X&... x) {
  if constexpr (requires { op.forward(x...); })
    return op.forward(x...).value;
  else
    return op.value(x...);
}

template <class Op, class G, class X, class Y>
constexpr auto unary_vjp(const Op& op, const G& g, const X& x, const Y& y) {
  if constexpr (is_structured<G> && !requires { op.vjp(g, x, value_part(y)); }) {
    return unary_vjp(op, g.dense(), x, y);  // the rule takes dense adjoints only
  } else if constexpr (has_cache<Y>) {
    return op.vjp(g, x, y.value, y.cache);
  } else if constexpr (requires { op.vjp(g, x, y); }) {
    return op.vjp(g, x, y);
  } else {
    return g * op.derivative(x, y);
  }
}

/// g * dz/dx (Side 0) or g * dz/dy (Side 1) of a matrix operation, from its forward result z.
template <int Side, class Op, class G, class X, class Y, class Z>
constexpr auto matrix_binary_vjp(const Op& op, const G& g, const X& x, const Y& y, const Z& z) {
  if constexpr (is_structured<G> && !(Side == 0 ? requires { op.vjp_lhs(g, x, y, value_part(z)); }
                                                : requires { op.vjp_rhs(g, x, y, value_part(z)); })) {
    return matrix_binary_vjp<Side>(op, g.dense(), x, y, z);  // the rule takes dense adjoints only
  } else if constexpr (Side == 0) {
    if constexpr (has_cache<Z>)
      return op.vjp_lhs(g, x, y, z.value, z.cache);
    else
      return op.vjp_lhs(g, x, y, z);
  } else {
    if constexpr (has_cache<Z>)
      return op.vjp_rhs(g, x, y, z.value, z.cache);
    else
      return op.vjp_rhs(g, x, y, z);
  }
}

/// A rule's result inside its operation's domain, NaN outside it (and for a NaN operand, which fails
/// every comparison the domain test makes): a NaN value always comes with a NaN gradient.
template <class C, class T>
constexpr T inside_domain(const C& inside, T r) noexcept {
  return math::choose(
      inside, [&] { return r; }, [] { return math::quiet_nan<T>(); });
}

/// dy/dx of a unary operation at (x, y): the local derivative the trace prints on an edge.
template <class Op, class T>
constexpr T unary_derivative(const Op& op, const T& x, const T& y) {
  if constexpr (requires { op.derivative(x, y); })
    return op.derivative(x, y);
  else
    return op.vjp(T(1), x, y);
}

/// (dz/dx, dz/dy) of a binary operation at (x, y, z).
template <class Op, class T>
constexpr std::pair<T, T> binary_partials(const Op& op, const T& x, const T& y, const T& z) {
  return op.vjp(T(1), x, y, z);
}

}  // namespace tapeless::detail
