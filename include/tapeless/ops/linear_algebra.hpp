// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/linear_algebra.hpp: matmul, transpose and dot, each a coarse node with the closed-form
// matrix-calculus rule (for C = A B: dL/dA = G B^T, dL/dB = A^T G).
#pragma once

#include <tapeless/expr/make.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/shape.hpp>

#include <cstddef>
#include <string_view>
#include <utility>

namespace tapeless {
namespace ops {

struct matmul : ::tapeless::detail::matrix_operation {
  static constexpr std::string_view name = "matmul";
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  static constexpr matrix<T, R, C> value(const matrix<T, R, K>& a, const matrix<T, K, C>& b) {
    matrix<T, R, C> c;
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t j = 0; j < C; ++j) c(i, j) += a(i, k) * b(k, j);
    return c;
  }
  // dA = G B^T
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  static constexpr matrix<T, R, K> vjp_lhs(const matrix<T, R, C>& g, const matrix<T, R, K>&, const matrix<T, K, C>& b,
                                           const matrix<T, R, C>&) {
    matrix<T, R, K> ga;
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t k = 0; k < K; ++k) {
        T s(0);
        for (std::size_t j = 0; j < C; ++j) s += g(i, j) * b(k, j);
        ga(i, k) = s;
      }
    return ga;
  }
  // dB = A^T G
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  static constexpr matrix<T, K, C> vjp_rhs(const matrix<T, R, C>& g, const matrix<T, R, K>& a, const matrix<T, K, C>&,
                                           const matrix<T, R, C>&) {
    matrix<T, K, C> gb;
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t j = 0; j < C; ++j) gb(k, j) += a(i, k) * g(i, j);
    return gb;
  }
};

struct transpose : ::tapeless::detail::matrix_operation {
  static constexpr std::string_view name = "transpose";
  template <class T, std::size_t R, std::size_t C>
  static constexpr matrix<T, C, R> value(const matrix<T, R, C>& a) {
    matrix<T, C, R> t;
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t j = 0; j < C; ++j) t(j, i) = a(i, j);
    return t;
  }
  template <class T, std::size_t R, std::size_t C>
  static constexpr matrix<T, R, C> vjp(const matrix<T, C, R>& g, const matrix<T, R, C>&, const matrix<T, C, R>&) {
    return value(g);
  }
};

/// a . b of two vectors of one length.
struct dot : ::tapeless::detail::matrix_operation {
  static constexpr std::string_view name = "dot";
  template <class M> static constexpr auto value(const M& a, const M& b) {
    typename M::value_type s(0);
    for (std::size_t i = 0; i < M::size(); ++i) s += a[i] * b[i];
    return s;
  }
  template <class T, class M> static constexpr M vjp_lhs(T g, const M&, const M& b, T) { return b * g; }
  template <class T, class M> static constexpr M vjp_rhs(T g, const M& a, const M&, T) { return a * g; }
};

}  // namespace ops

/// The matrix product A B (`*` is elementwise).
template <Operand A, Operand B>
constexpr auto matmul(A&& a, B&& b) {
  constexpr shape sa = shape_of<value_type_of_t<A>>, sb = shape_of<value_type_of_t<B>>;
  static_assert(Matrix<value_type_of_t<A>> && Matrix<value_type_of_t<B>>, "tl::matmul(A, B): A and B must be matrices");
  if constexpr (shapes::matmul_shapes<sa, sb>::ok)
    return detail::make_binary(ops::matmul{}, std::forward<A>(a), std::forward<B>(b));
}

template <Operand A>
constexpr auto transpose(A&& a) {
  static_assert(Matrix<value_type_of_t<A>>, "tl::transpose(A): A must be a matrix");
  return detail::make_unary(ops::transpose{}, std::forward<A>(a));
}

template <Operand A, Operand B>
constexpr auto dot(A&& a, B&& b) {
  constexpr shape sa = shape_of<value_type_of_t<A>>, sb = shape_of<value_type_of_t<B>>;
  if constexpr (shapes::dot_shapes<sa, sb>::ok)
    return detail::make_binary(ops::dot{}, std::forward<A>(a), std::forward<B>(b));
}

}  // namespace tapeless
