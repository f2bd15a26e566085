// SPDX-License-Identifier: BSL-1.0
// tapeless/operation/protocol.hpp: how nodes and sweeps ask an operation for its value and its vector-Jacobian product.
//
// What an operation states is documented once, in concepts/operation.hpp (its members) and
// operation/traits.hpp (its options). From the one form of its rule that an operation states, this
// header derives every form the nodes and sweeps call: the value with or without a cache, the vjp of
// a number or of a matrix, of either side of a binary operation, and the local derivatives a trace
// shows.
// Tests: test/unit/concepts/operation_test.cpp
#pragma once

#include <tapeless/adjoint/structured.hpp>
#include <tapeless/detail/arena.hpp>
#include <tapeless/math/batch_functions.hpp>
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

/// A C made from args, by its constructor or as an aggregate (clang 14 has no parenthesized aggregate
/// initialization), returned where the caller builds it.
template <class C, class... A>
constexpr C made_from(A&&... args) {
  if constexpr (std::is_constructible_v<C, A...>)
    return C(std::forward<A>(args)...);
  else
    return C{std::forward<A>(args)...};
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
  /// initializer of constants into zeros and fills the cache with them first.
  constexpr with_cache(V v, uninitialized_t u) : value(std::move(v)), cache(u) {}
  /// The cache built in place from `args`: a large one is not built and then copied, nor moved, which
  /// copies elements held inline (tl::bounded).
  template <class... A>
  constexpr with_cache(V v, std::in_place_t, A&&... args)
      : value(std::move(v)), cache(made_from<C>(std::forward<A>(args)...)) {}
};

template <class Out>
inline constexpr bool has_cache = false;
template <class V, class C>
inline constexpr bool has_cache<with_cache<V, C>> = true;

/// While it lives, what an operation that keeps intermediates (operation_traits::keeps_intermediates)
/// makes takes its room from the gradient's arena; for any other operation, nothing.
template <class Op>
struct intermediates_scope {
  constexpr intermediates_scope() noexcept = default;
};
template <class Op>
  requires(Op::traits.keeps_intermediates)
struct intermediates_scope<Op> : kept_scope {};

/// What a forward pass keeps of op at its operands: with_cache for an op that states forward(), else the value.
template <class Op, class... X>
constexpr auto op_forward(const Op& op, const X&... x) {
  [[maybe_unused]] const intermediates_scope<Op> keep;
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
  [[maybe_unused]] const intermediates_scope<Op> keep;
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
/// it may set errno.
struct value_unread_t {
  explicit value_unread_t() = default;
};
inline constexpr value_unread_t value_unread{};

/// forward_sharing; where nothing reads the value (Need false), op.forward(x..., value_unread) if op
/// offers it. Both forms keep the same type.
template <bool Need, class Op, class Work, class... X>
constexpr auto forward_as_needed(const Op& op, Work work, const X&... x) {
  [[maybe_unused]] const intermediates_scope<Op> keep;
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
  [[maybe_unused]] const intermediates_scope<Op> keep;
  if constexpr (requires { op.forward(x...); })
    return op.forward(x...).value;
  else
    return op.value(x...);
}

template <class Op, class G, class X, class Y>
constexpr auto unary_vjp(const Op& op, const G& g, const X& x, const Y& y) {
  [[maybe_unused]] const intermediates_scope<Op> keep;
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
  [[maybe_unused]] const intermediates_scope<Op> keep;
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
  return math::lazy_select(
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
