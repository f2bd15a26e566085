// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/compare.hpp: comparisons of values (x > 0.0), plain bools for if_else and ordinary branches.
#pragma once

#include <tapeless/expr/make.hpp>

namespace tapeless {

namespace detail {
template <class E>
constexpr auto value_of(const E& e) {
  if constexpr (Differentiable<E>)
    return e.value();
  else
    return e;
}
}  // namespace detail

/// Compares values, not graphs: the result is a plain bool with no derivative.
template <class X, class Y> requires BinaryOperands<X, Y>
constexpr bool operator<(const X& x, const Y& y) { return detail::value_of(x) < detail::value_of(y); }
template <class X, class Y> requires BinaryOperands<X, Y>
constexpr bool operator>(const X& x, const Y& y) { return detail::value_of(x) > detail::value_of(y); }
template <class X, class Y> requires BinaryOperands<X, Y>
constexpr bool operator<=(const X& x, const Y& y) { return detail::value_of(x) <= detail::value_of(y); }
template <class X, class Y> requires BinaryOperands<X, Y>
constexpr bool operator>=(const X& x, const Y& y) { return detail::value_of(x) >= detail::value_of(y); }
template <class X, class Y> requires BinaryOperands<X, Y>
constexpr bool operator==(const X& x, const Y& y) { return detail::value_of(x) == detail::value_of(y); }

}  // namespace tapeless
