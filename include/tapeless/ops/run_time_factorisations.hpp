// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/run_time_factorisations.hpp: det, inverse, log_det, solve and cholesky of a square matrix
// of run-time extents (tl::dynamic, tl::bounded<Max>, an Eigen::MatrixXd read in place): the operations
// of ops/factorisations.hpp, whose rules are written for any extent, given the operand as a square
// matrix of run-time extents (a copy where it lies elsewhere, in a view or a matrix of other extents),
// each adjoint returned in its operand's extents. A node of such an operation knows its value's extents
// before computing it (expr/expression.hpp asks them of the operation). det factorises by LU at every n;
// the factors stay with the node for its rule, as at fixed extents, and a sweep shares them only among
// nodes of fixed extents (sweep/shared.hpp).
// Tests: test/unit/ops/factorisations/run_time_test.cpp
#pragma once

#include <tapeless/adjoint/structured.hpp>
#include <tapeless/expr/run_time_elementwise.hpp>
#include <tapeless/linalg/nan_matrix.hpp>
#include <tapeless/matrix/matrix_view.hpp>
#include <tapeless/matrix/run_time_matrix.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/ops/factorisations.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

/// A matrix of fixed or run-time extents, or a view read as one: what a factorisation's operand is.
template <class X>
concept whole_matrix = Matrix<typename matrix_of_view<X>::type> || RunTimeMatrix<typename matrix_of_view<X>::type>;

/// The extent of the square matrix that a factorisation of X works in, always a run-time one: X's where
/// both of its extents are one, tl::bounded<N> for a fixed N x N (beside a right-hand side of run-time
/// extents: inline, no heap), else tl::dynamic.
template <class X>
constexpr std::size_t square_extent_of() {
  constexpr std::size_t rows = extent_along<X, true>(), cols = extent_along<X, false>();
  if constexpr (rows != cols)
    return dynamic;
  else if constexpr (fixed_extent(rows))
    return bounded<rows>;
  else
    return rows;
}
template <class X>
inline constexpr std::size_t square_extent = square_extent_of<X>();

/// A matrix of the elements of x in type M (as many rows and columns): x itself where it is one.
template <class M, class X>
constexpr decltype(auto) as_matrix(const X& x) {
  if constexpr (std::is_same_v<M, X>) {
    return (x);
  } else {
    M m = linalg::zero_matrix<M>(x.rows(), x.cols());
    for (std::size_t i = 0; i < m.rows(); ++i)
      for (std::size_t j = 0; j < m.cols(); ++j) m(i, j) = x(i, j);
    return m;
  }
}

}  // namespace detail

namespace ops {

/// Op (ops::det, ops::inverse, ops::log_det, ops::solve, ops::cholesky) of a square matrix A of run-time
/// extents, and for solve a right-hand side B of A's rows: A is given to Op's rules as the square matrix
/// of its square extent, B as a matrix of A's rows and its own columns. `shape` is the value's.
template <class Op>
struct run_time_factorised : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits = [] {
    operation_traits t = Op::traits;
    t.takes_run_time_extents = true;
    t.keeps_intermediates = true;  // factors and dense adjoints of n x n
    return t;
  }();
  ::tapeless::detail::element_extents shape;
  /// solve's rules are vjp_lhs and vjp_rhs; the others' one vjp.
  static constexpr bool binary = std::is_same_v<Op, solve>;

  [[nodiscard]] constexpr ::tapeless::detail::element_extents extents() const noexcept { return shape; }

  template <class A>
  using square_t = matrix<scalar_of_t<A>, ::tapeless::detail::square_extent<A>, ::tapeless::detail::square_extent<A>>;
  template <class A, class B>
  using rhs_t =
      matrix<scalar_of_t<B>, ::tapeless::detail::square_extent<A>, ::tapeless::detail::extent_along<B, false>()>;

  template <::tapeless::detail::whole_matrix A>
    requires requires(const square_t<A>& a) { Op::value(a); }
  static constexpr auto value(const A& a) { return Op::value(::tapeless::detail::as_matrix<square_t<A>>(a)); }
  template <::tapeless::detail::whole_matrix A>
    requires requires(const square_t<A>& a) { Op::forward(a); }
  static constexpr auto forward(const A& a) { return Op::forward(::tapeless::detail::as_matrix<square_t<A>>(a)); }
  template <::tapeless::detail::whole_matrix A, ::tapeless::detail::whole_matrix B>
    requires requires(const square_t<A>& a, const rhs_t<A, B>& b) { Op::forward(a, b); }
  static constexpr auto forward(const A& a, const B& b) {
    return Op::forward(::tapeless::detail::as_matrix<square_t<A>>(a), ::tapeless::detail::as_matrix<rhs_t<A, B>>(b));
  }

 private:
  /// g, the value's adjoint, as a matrix of the value's type Y where it is one of another (a view); a
  /// number as it is.
  template <class Y, class G>
  static constexpr decltype(auto) in_value_type(const G& g) {
    if constexpr (std::is_arithmetic_v<Y> || !requires { g.rows(); })
      return (g);
    else
      return ::tapeless::detail::as_matrix<Y>(g);
  }
  /// m, an operand X's adjoint, in X's extents (of a view, those of the matrix it reads as).
  template <class X, class M>
  static constexpr decltype(auto) adjoint_of(M&& m) {
    using D = std::remove_cvref_t<M>;
    using Out = matrix<scalar_of_t<D>, ::tapeless::detail::extent_along<X, true>(),
                       ::tapeless::detail::extent_along<X, false>()>;
    if constexpr (std::is_same_v<Out, D>)
      return D(std::forward<M>(m));
    else
      return ::tapeless::detail::as_matrix<Out>(m);
  }

 public:
  /// The rules of Op, given g in the value's type, each adjoint returned in its operand's extents.
  template <class G, class A, class Y, class... C>
    requires(!binary && !::tapeless::detail::is_structured<G> &&
             requires(const G& g, const A& a, const Y& y, const C&... c) { Op::vjp(in_value_type<Y>(g), a, y, c...); })
  static constexpr auto vjp(const G& g, const A& a, const Y& y, const C&... cache) {
    return adjoint_of<A>(Op::vjp(in_value_type<Y>(g), a, y, cache...));
  }
  template <class G, class A, class B, class Y, class C>
    requires(!::tapeless::detail::is_structured<G> &&
             requires(const G& g, const A& a, const B& b, const Y& y, const C& c) {
               Op::vjp_lhs(in_value_type<Y>(g), a, b, y, c);
             })
  static constexpr auto vjp_lhs(const G& g, const A& a, const B& b, const Y& y, const C& cache) {
    return adjoint_of<A>(Op::vjp_lhs(in_value_type<Y>(g), a, b, y, cache));
  }
  template <class G, class A, class B, class Y, class C>
    requires(!::tapeless::detail::is_structured<G> &&
             requires(const G& g, const A& a, const B& b, const Y& y, const C& c) {
               Op::vjp_rhs(in_value_type<Y>(g), a, b, y, c);
             })
  static constexpr auto vjp_rhs(const G& g, const A& a, const B& b, const Y& y, const C& cache) {
    return adjoint_of<B>(Op::vjp_rhs(in_value_type<Y>(g), a, b, y, cache));
  }
};

}  // namespace ops

}  // namespace tapeless
