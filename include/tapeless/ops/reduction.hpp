// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/reduction.hpp: matrix to number: sum and mean, each with its adjoint spread back.
#pragma once

#include <tapeless/expr/make.hpp>
#include <tapeless/matrix/matrix.hpp>

#include <cstddef>
#include <string_view>
#include <utility>

namespace tapeless {
namespace ops {

/// y = sum of x's elements: every element's adjoint is g.
struct sum : ::tapeless::detail::matrix_operation {
  static constexpr std::string_view name = "sum";
  template <class M> static constexpr auto value(const M& x) {
    typename M::value_type s(0);
    for (const auto& e : x) s += e;
    return s;
  }
  template <class M, class T> static constexpr M vjp(T g, const M&, T) { return M::filled(g); }
};

/// y = sum / size: every element's adjoint is g / size.
struct mean : ::tapeless::detail::matrix_operation {
  static constexpr std::string_view name = "mean";
  template <class M> static constexpr auto value(const M& x) {
    return sum::value(x) / static_cast<typename M::value_type>(M::size());
  }
  template <class M, class T> static constexpr M vjp(T g, const M&, T) {
    return M::filled(g / static_cast<T>(M::size()));
  }
};

}  // namespace ops

namespace detail {
template <class Op, class X>
constexpr auto make_reduction(Op op, X&& x, std::string_view) {
  static_assert(Matrix<value_type_of_t<X>>, "a reduction (tl::sum, tl::mean ...) takes a matrix or a matrix expression");
  if constexpr (Matrix<value_type_of_t<X>>) return make_unary(op, std::forward<X>(x));
}
}  // namespace detail

template <Operand X> constexpr auto sum(X&& x) { return detail::make_reduction(ops::sum{}, std::forward<X>(x), "sum"); }
template <Operand X> constexpr auto mean(X&& x) { return detail::make_reduction(ops::mean{}, std::forward<X>(x), "mean"); }

}  // namespace tapeless
