// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/compare.hpp: comparisons of values (x > 0.0), plain bools for if_else and ordinary branches.
#pragma once

#include <tapeless/expr/make.hpp>

namespace tapeless {

namespace detail {
/// Either operand is matrix-valued: an ordering compares element by element (ops/mask.hpp), giving a
/// tl::mask, or of run-time extents a formula of bools.
template <class X, class Y>
concept matrix_valued = Matrix<value_type_of_t<X>> || Matrix<value_type_of_t<Y>> || RunTimeMatrix<value_type_of_t<X>> ||
    RunTimeMatrix<value_type_of_t<Y>>;

/// Two operands whose ordering is one bool: at least one differentiable, neither matrix-valued.
template <class X, class Y>
concept scalar_operands = BinaryOperands<X, Y> && !matrix_valued<X, Y>;

/// Whether no branch of an if_else on a tl::mask, whose shape is fixed, has run-time extents; if one
/// has, stopped here with one sentence.
template <class... X>
constexpr bool fixed_extents_selected() {
  constexpr bool ok = !(RunTimeMatrix<value_type_of_t<X>> || ...);
  static_assert(ok,
                "tl::if_else(m, a, b): m is a tl::mask of fixed shape and a or b an array of run-time extents "
                "(tl::dynamic, tl::bounded); compare the arrays of run-time extents themselves (x > 0.0 gives "
                "a condition of their extents)");
  return ok;
}
}  // namespace detail

/// Compares values, not graphs: the result is a plain bool with no derivative. Orderings of
/// matrices are elementwise and give a tl::mask (ops/mask.hpp); == of matrices is one bool, whether
/// every element is equal.
template <class X, class Y>
  requires detail::scalar_operands<X, Y>
constexpr bool operator<(const X& x, const Y& y) { return detail::value_of(x) < detail::value_of(y); }
template <class X, class Y>
  requires detail::scalar_operands<X, Y>
constexpr bool operator>(const X& x, const Y& y) { return detail::value_of(x) > detail::value_of(y); }
template <class X, class Y>
  requires detail::scalar_operands<X, Y>
constexpr bool operator<=(const X& x, const Y& y) { return detail::value_of(x) <= detail::value_of(y); }
template <class X, class Y>
  requires detail::scalar_operands<X, Y>
constexpr bool operator>=(const X& x, const Y& y) { return detail::value_of(x) >= detail::value_of(y); }
template <class X, class Y>
  requires BinaryOperands<X, Y>
constexpr bool operator==(const X& x, const Y& y) { return detail::value_of(x) == detail::value_of(y); }

}  // namespace tapeless
