// SPDX-License-Identifier: BSL-1.0
// tapeless/concepts/operation.hpp: what an operation is, the one place its members are written down.
//
// An operation is a struct: tl::make_unary(op, x) and tl::make_binary(op, x, y) make a node of it.
// Its minimal complete definition, for operands x (and y) of value type T:
//
//   unary   value     `value(x)`, the value y; or `forward(x)`, returning {value, cache} (a
//                     detail::with_cache) when the rule needs more than x and y (a factorisation)
//           rule      `derivative(x, y)`, dy/dx; or `vjp(g, x, y)`, g * dy/dx, where dividing beats
//                     multiplying by a reciprocal; with a forward(): `vjp(g, x, y, cache)`
//   binary  value     `value(x, y)`, the value z; or `forward(x, y)` as above
//           rule      `vjp(g, x, y, z)`, returning the pair (g * dz/dx, g * dz/dy); or, for a matrix
//                     operation (one deriving from detail::matrix_operation), `vjp_lhs(g, x, y, z)` and
//                     `vjp_rhs(g, x, y, z)` apart, so that a constant side costs nothing; with a
//                     forward(), each takes the cache last
//
// g is the adjoint of the result and has its type. Each member is the one place its rule is written:
// the engine derives every other form from it (operation/protocol.hpp). An operation that is not a matrix
// operation is a scalar one: on matrices it applies element by element, with T their element type.
// Everything else an operation may state, its options (name, SIMD batches, what its rule reads), is
// one member `traits` (operation/traits.hpp).
//
// A value type T here is that of the operands as the operation receives them: a number (double, a dual
// number in forward mode, a SIMD batch for a batched operation) or a tl::matrix for a matrix operation.
#pragma once

#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

/// The value type of what op computes at operands of value types X..., through value() or forward().
template <class Op, class... X>
struct operation_value {};
template <class Op, class... X>
  requires requires(const Op& op, const X&... x) { op.value(x...); }
struct operation_value<Op, X...> {
  using type = std::remove_cvref_t<decltype(std::declval<const Op&>().value(std::declval<const X&>()...))>;
};
template <class Op, class... X>
  requires(!requires(const Op& op, const X&... x) { op.value(x...); })
&&requires(const Op& op, const X&... x) { op.forward(x...).value; }
struct operation_value<Op, X...> {
  using type = std::remove_cvref_t<decltype(std::declval<const Op&>().forward(std::declval<const X&>()...).value)>;
};
template <class Op, class... X>
using operation_value_t = typename operation_value<Op, X...>::type;

/// The cache op's forward() keeps beside its value (for an operation that states forward()).
template <class Op, class... X>
using operation_cache_t =
    std::remove_cvref_t<decltype(std::declval<const Op&>().forward(std::declval<const X&>()...).cache)>;

}  // namespace detail

/// Op computes a value at an operand of value type X: `value(x)` or `forward(x)`.
template <class Op, class X>
concept UnaryValue = requires {
  typename detail::operation_value_t<Op, X>;
};

/// Op, with a value at X, has a rule there: `derivative(x, y)`, `vjp(g, x, y)` or `vjp(g, x, y, cache)`.
template <class Op, class X>
concept UnaryRule = UnaryValue<Op, X> &&(
    requires(const Op& op, const X& x, const detail::operation_value_t<Op, X>& y) { op.derivative(x, y); } ||
    requires(const Op& op, const X& x, const detail::operation_value_t<Op, X>& y) { op.vjp(y, x, y); } ||
    requires(const Op& op, const X& x, const detail::operation_value_t<Op, X>& y,
             const detail::operation_cache_t<Op, X>& c) { op.vjp(y, x, y, c); });

/// A unary operation at operands of value type X: a value and a rule.
template <class Op, class X>
concept UnaryOperation = UnaryValue<Op, X> && UnaryRule<Op, X>;

/// Op computes a value at operands of value types X and Y: `value(x, y)` or `forward(x, y)`.
template <class Op, class X, class Y>
concept BinaryValue = requires {
  typename detail::operation_value_t<Op, X, Y>;
};

/// Op, with a value at (X, Y), has a rule there: `vjp(g, x, y, z)`, or `vjp_lhs` and `vjp_rhs` of that
/// form; each may take the forward()'s cache last.
template <class Op, class X, class Y>
concept BinaryRule = BinaryValue<Op, X, Y> &&(
    requires(const Op& op, const X& x, const Y& y, const detail::operation_value_t<Op, X, Y>& z) {
      op.vjp(z, x, y, z);
    } ||
    requires(const Op& op, const X& x, const Y& y, const detail::operation_value_t<Op, X, Y>& z) {
      op.vjp_lhs(z, x, y, z);
      op.vjp_rhs(z, x, y, z);
    } ||
    requires(const Op& op, const X& x, const Y& y, const detail::operation_value_t<Op, X, Y>& z,
             const detail::operation_cache_t<Op, X, Y>& c) {
      op.vjp_lhs(z, x, y, z, c);
      op.vjp_rhs(z, x, y, z, c);
    });

/// A binary operation at operands of value types X and Y: a value and a rule.
template <class Op, class X, class Y>
concept BinaryOperation = BinaryValue<Op, X, Y> && BinaryRule<Op, X, Y>;

namespace detail {
template <class Op, class... X>
inline constexpr bool is_operation = false;
template <class Op, class X>
inline constexpr bool is_operation<Op, X> = UnaryOperation<Op, X>;
template <class Op, class X, class Y>
inline constexpr bool is_operation<Op, X, Y> = BinaryOperation<Op, X, Y>;
}  // namespace detail

/// An operation at operands of value types X...: a unary one at one operand, a binary one at two.
template <class Op, class... X>
concept Operation = detail::is_operation<Op, X...>;

namespace detail {

/// Whether Op states an option as a member of its own instead of in `traits`: the engine would not
/// read it.
template <class Op>
concept states_loose_options = requires {
  Op::name;
}
|| requires { Op::batched; }
|| requires { Op::plain_arithmetic; }
|| requires { Op::vjp_reads; }
|| requires { Op::lhs_vjp_reads; }
|| requires { Op::rhs_vjp_reads; };

/// Whether Op states no option outside `traits`; if it does, the static_assert says where they go.
template <class Op>
struct options_check {
  static_assert(!states_loose_options<Op>,
                "an operation states its options in one member: declare `static constexpr tl::operation_traits "
                "traits{...}` (operation/traits.hpp) instead of members named name, batched, plain_arithmetic or "
                "vjp_reads");
  static constexpr bool ok = !states_loose_options<Op>;
};

/// Whether Op is an operation at operands of value types X (and Y), with a rule where Rule (an operand
/// is differentiable); if not, a static_assert here says which member is missing, and the compiler
/// names Op and the operand types beside it.
template <class Op, bool Rule, class... X>
struct operation_check;

template <class Op, bool Rule, class X>
struct operation_check<Op, Rule, X> {
  static_assert(UnaryValue<Op, X>,
                "the operation has no `value(x)` (nor `forward(x)`) for this operand: declare "
                "`template <class T> static constexpr T value(T x)` in its struct (concepts/operation.hpp)");
  static_assert(!Rule || !UnaryValue<Op, X> || UnaryRule<Op, X>,
                "the operation has no rule for this operand: declare `derivative(x, y)` (dy/dx at x, with y its "
                "value) or `vjp(g, x, y)` (g * dy/dx) in its struct (concepts/operation.hpp)");
  static constexpr bool ok = options_check<Op>::ok && UnaryValue<Op, X> && (!Rule || UnaryRule<Op, X>);
};

template <class Op, bool Rule, class X, class Y>
struct operation_check<Op, Rule, X, Y> {
  static_assert(BinaryValue<Op, X, Y>,
                "the operation has no `value(x, y)` (nor `forward(x, y)`) for these operands: declare "
                "`template <class T> static constexpr T value(T x, T y)` in its struct (concepts/operation.hpp)");
  static_assert(!Rule || !BinaryValue<Op, X, Y> || BinaryRule<Op, X, Y>,
                "the operation has no rule for these operands: declare `vjp(g, x, y, z)` returning the pair "
                "(g * dz/dx, g * dz/dy) in its struct (concepts/operation.hpp)");
  static constexpr bool ok = options_check<Op>::ok && BinaryValue<Op, X, Y> && (!Rule || BinaryRule<Op, X, Y>);
};

}  // namespace detail
}  // namespace tapeless
