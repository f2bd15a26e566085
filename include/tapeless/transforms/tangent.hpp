// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/tangent.hpp: moving numbers and matrices into dual numbers and back.
//
// The forward-mode transforms (jvp, jacobian, hessian, grad of grad) run a function with dual
// arguments: each argument's value with a tangent, the direction of the derivative. These helpers make
// such arguments from plain ones and read the two parts of a dual result, for numbers and matrices alike.
// Tests: test/unit/transforms/jvp_test.cpp test/unit/transforms/jacobian_test.cpp
#pragma once

#include <tapeless/concepts/scalar.hpp>
#include <tapeless/expr/expression.hpp>
#include <tapeless/math/dual.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/run_time_matrix.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// The type of V's dual: dual<T> for a number T, a matrix of dual<T> for a matrix of T.
template <class V>
struct dual_of {
  using type = dual<V>;
};
template <class T, std::size_t R, std::size_t C>
struct dual_of<matrix<T, R, C>> {
  using type = matrix<dual<T>, R, C>;
};
template <class V>
using dual_of_t = typename dual_of<V>::type;

/// v with tangent t (of v's type).
template <class V>
constexpr dual_of_t<V> with_tangent(const V& v, const V& t) {
  if constexpr (RunTimeMatrix<V>) {
    dual_of_t<V> d(v.rows(), v.cols());
    for (std::size_t i = 0; i < v.size(); ++i) d.data()[i] = {v.data()[i], t.data()[i]};
    return d;
  } else if constexpr (Matrix<V>) {
    dual_of_t<V> d(uninitialized);
    for (std::size_t i = 0; i < V::size(); ++i) d[i] = {v[i], t[i]};
    return d;
  } else {
    return {v, t};
  }
}

/// v as dual numbers, element j (row-major) with the tangent tangent_of(j): a number, a fixed-shape
/// matrix, or one of run-time extents, read through its strides (a view's too). The seeds of the
/// transforms that move chosen elements along chosen lanes.
template <class V, class TangentOf>
constexpr auto with_tangents(const V& v, TangentOf tangent_of) {
  using D = dual<scalar_of_t<V>, decltype(tangent_of(std::size_t{0}))>;
  if constexpr (RunTimeMatrix<V>) {
    matrix<D, V::rows_extent, V::cols_extent> m(v.rows(), v.cols());
    for (std::size_t i = 0; i < v.size(); ++i) m.data()[i] = D{v(i / v.cols(), i % v.cols()), tangent_of(i)};
    return m;
  } else if constexpr (Matrix<V>) {
    matrix<D, V::rows(), V::cols()> m(uninitialized);
    for (std::size_t i = 0; i < V::size(); ++i) m[i] = D{v[i], tangent_of(i)};
    return m;
  } else {
    return D{v, tangent_of(0)};
  }
}

/// v standing still: its tangent is 0 (of v's extents: a V{} of run-time extents has no elements).
template <class V>
constexpr dual_of_t<V> without_tangent(const V& v) {
  if constexpr (RunTimeMatrix<V>) {
    dual_of_t<V> d(v.rows(), v.cols());
    for (std::size_t i = 0; i < v.size(); ++i) d.data()[i] = v.data()[i];  // a number: a dual of tangent 0
    return d;
  } else {
    return with_tangent(v, V{});
  }
}

/// The value (part = 0) or the tangent (part = 1) of a dual number or a matrix of them.
template <int Part, class D>
constexpr auto part_of(const D& d) {
  if constexpr (Matrix<D>) {
    using T = decltype(std::declval<typename D::value_type>().value);
    matrix<T, D::rows(), D::cols()> m(uninitialized);
    for (std::size_t i = 0; i < D::size(); ++i) m[i] = Part == 0 ? d[i].value : d[i].tangent;
    return m;
  } else if constexpr (RunTimeMatrix<D>) {
    using T = decltype(std::declval<typename D::value_type>().value);
    matrix<T, D::rows_extent, D::cols_extent> m(d.rows(), d.cols());
    for (std::size_t i = 0; i < d.rows(); ++i)
      for (std::size_t j = 0; j < d.cols(); ++j) m(i, j) = Part == 0 ? d(i, j).value : d(i, j).tangent;
    return m;
  } else {
    return Part == 0 ? d.value : d.tangent;
  }
}
template <class D>
constexpr auto primal_part(const D& d) {
  return part_of<0>(d);
}
template <class D>
constexpr auto tangent_part(const D& d) {
  return part_of<1>(d);
}

/// The number of scalars in a value: 1 for a number, R * C for a matrix; for a matrix of run-time
/// extents (whose count is element_count's) an extent of that count: tl::bounded by the most elements
/// where each extent is fixed or bounded, so that its blocks need no heap either, else tl::dynamic.
template <class V>
inline constexpr std::size_t size_of = 1;
template <Matrix M>
inline constexpr std::size_t size_of<M> = M::size();
template <RunTimeMatrix M>
inline constexpr std::size_t size_of<M> = M::rows_extent == dynamic || M::cols_extent == dynamic
                                              ? dynamic
                                              : run_time_extent_bit |
                                                    (max_extent(M::rows_extent) * max_extent(M::cols_extent));

/// The number of scalars in v: size_of, or its size for run-time extents.
template <class V>
constexpr std::size_t element_count(const V& v) {
  if constexpr (RunTimeMatrix<V>)
    return v.size();
  else
    return size_of<V>;
}

/// Element j of a value: of a matrix row-major, or the number itself.
template <class V>
constexpr decltype(auto) element_at(V& v, std::size_t j) {
  if constexpr (RunTimeMatrix<std::remove_const_t<V>>)
    return (v.data()[j]);
  else if constexpr (Matrix<std::remove_const_t<V>>)
    return (v[j]);
  else
    return (v);
}

}  // namespace tapeless::detail
