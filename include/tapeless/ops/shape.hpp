// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/shape.hpp: taking matrices apart: one element, A(i, j) and v[i], as a scalar node.
#pragma once

#include <tapeless/expr/make.hpp>
#include <tapeless/matrix/matrix.hpp>

#include <cstddef>
#include <string_view>

namespace tapeless {
namespace ops {

/// y = x[index] (row-major): the adjoint goes to that element alone.
struct element : ::tapeless::detail::matrix_operation {
  static constexpr std::string_view name = "element";
  std::size_t index;
  constexpr explicit element(std::size_t i) : index(i) {}
  template <class M> constexpr auto value(const M& x) const { return x[index]; }
  template <class M, class T> constexpr M vjp(T g, const M&, T) const {
    M gx{};
    gx[index] = g;
    return gx;
  }
};

}  // namespace ops

namespace detail {
template <class E>
constexpr auto element_of(const E& e, std::size_t i, std::size_t j) {
  using M = typename E::value_type;
  static_assert(Matrix<M>, "A(i, j): A is a scalar expression; only a matrix expression has elements");
  if constexpr (Matrix<M>) return make_unary(ops::element(i * M::cols() + j), e);
}
template <class E>
constexpr auto element_of(const E& e, std::size_t i) {
  using M = typename E::value_type;
  static_assert(Matrix<M> && (M::cols() == 1 || M::rows() == 1),
                "v[i]: v must be a vector expression (one column or one row); write A(i, j) for a matrix");
  if constexpr (Matrix<M>) return make_unary(ops::element(i), e);
}
}  // namespace detail

}  // namespace tapeless
