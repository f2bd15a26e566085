// SPDX-License-Identifier: BSL-1.0
// tapeless/interop/eigen.hpp: Eigen's dense matrices at the transforms' boundary, without Eigen.
//
// An Eigen matrix is known by what it states (RowsAtCompileTime, ColsAtCompileTime, IsRowMajor,
// Scalar, data()), not by its name, so tapeless needs Eigen only in a unit that includes it itself.
// A fixed-size one passed to a transform is copied into a tl::matrix of its shape, element (i, j) to
// element (i, j) whatever its storage order, and what comes back for it (a gradient, a block of a
// Hessian) is converted to its own plain type. One of run-time size (VectorXd, MatrixXd, a Map or Ref
// of one), passed to tl::grad, is read in place through its strides (matrix/matrix_view.hpp), and its
// gradient likewise comes back as its plain type. Where its elements are counted one after another
// (the rows and columns of a Hessian or Jacobian block, a flat target of tl::into), they are counted
// in its storage order, as data() lays them out.
#pragma once

#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/matrix_view.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// An Eigen dense object whose elements lie in memory (a Matrix, an Array, a Map or Ref of one), of
/// any size: what tl::into may write a gradient into.
template <class E>
concept eigen_dense = requires(const E& e) {
  typename E::Scalar;
  { E::RowsAtCompileTime } -> std::convertible_to<int>;
  { E::ColsAtCompileTime } -> std::convertible_to<int>;
  { E::IsRowMajor } -> std::convertible_to<bool>;
  e.data();
  e.rows();
  e.cols();
  e(0, 0);
};

/// An Eigen dense object of a shape fixed at compile time: a transform's argument, or tl::cref data.
template <class E>
concept eigen_fixed = eigen_dense<std::remove_cvref_t<E>> &&(std::remove_cvref_t<E>::RowsAtCompileTime > 0) &&
                      (std::remove_cvref_t<E>::ColsAtCompileTime > 0);

/// An Eigen dense object whose shape is known at run time only (VectorXd, MatrixXd, a Map or Ref of one).
template <class E>
concept eigen_of_run_time_size = eigen_dense<std::remove_cvref_t<E>> && !eigen_fixed<E>;

/// One of floating-point numbers: an argument of tl::grad and tl::value_and_grad, as a tl::matrix of
/// run-time extents.
template <class E>
concept eigen_run_time_argument =
    eigen_of_run_time_size<E> && std::floating_point<typename std::remove_cvref_t<E>::Scalar>;

/// An argument of run-time extents, tl's own or Eigen's: what tl::grad and tl::value_and_grad
/// differentiate and the other transforms name in their message.
template <class A>
concept run_time_argument = RunTimeMatrix<A> || eigen_run_time_argument<A>;

/// A fixed-size Eigen object of floating-point numbers: what the transforms take beside tl's own types.
template <class E>
concept eigen_argument = eigen_fixed<E> && std::floating_point<typename std::remove_cvref_t<E>::Scalar>;

/// The type a value of E is held as: a Map or a Ref by the matrix it refers to (Eigen's PlainObject).
template <class E>
constexpr auto eigen_plain() {
  if constexpr (requires { typename E::PlainObject; })
    return std::type_identity<typename E::PlainObject>{};
  else
    return std::type_identity<E>{};
}
template <class E>
using eigen_plain_t = typename decltype(eigen_plain<std::remove_cvref_t<E>>())::type;

/// The tl::matrix a fixed-size Eigen object becomes inside the engine.
template <eigen_fixed E>
using eigen_matrix_t = matrix<std::remove_cv_t<typename std::remove_cvref_t<E>::Scalar>,
                              static_cast<std::size_t>(std::remove_cvref_t<E>::RowsAtCompileTime),
                              static_cast<std::size_t>(std::remove_cvref_t<E>::ColsAtCompileTime)>;

/// A tl::matrix extent for an Eigen one: Eigen::Dynamic (-1) is tl::dynamic.
constexpr std::size_t extent_of_eigen(int extent) { return extent < 0 ? dynamic : static_cast<std::size_t>(extent); }

/// Eigen's index type, which its operator() takes.
using eigen_index = std::ptrdiff_t;

/// e as a tl::matrix of its shape: element (i, j) of each, so the storage order is Eigen's business.
template <eigen_fixed E>
constexpr eigen_matrix_t<E> to_matrix(const E& e) {
  eigen_matrix_t<E> m(uninitialized);
  for (std::size_t i = 0; i < m.rows(); ++i)
    for (std::size_t j = 0; j < m.cols(); ++j) m(i, j) = e(eigen_index(i), eigen_index(j));
  return m;
}

/// Whether E's elements lie as a tl::matrix of its extents lays them out, as its type says: a vector
/// whose elements are adjacent, or a plain row-major matrix (a Map or Ref of one may skip between rows).
template <class E>
constexpr bool eigen_dense_rows() {
  using P = std::remove_cvref_t<E>;
  if constexpr (P::RowsAtCompileTime == 1 || P::ColsAtCompileTime == 1)
    return P::InnerStrideAtCompileTime == 1;
  else
    return P::IsRowMajor && std::is_same_v<eigen_plain_t<P>, P>;
}

/// The view of kind View of an Eigen object of run-time size: its scalar and extents.
template <template <class, std::size_t, std::size_t> class View, class E>
using eigen_view_as = View<std::remove_cv_t<typename std::remove_cvref_t<E>::Scalar>,
                           extent_of_eigen(std::remove_cvref_t<E>::RowsAtCompileTime),
                           extent_of_eigen(std::remove_cvref_t<E>::ColsAtCompileTime)>;

/// The view an Eigen object of run-time size is read through inside the engine, in place: dense where
/// its type says so, so that a read costs what a tl::matrix's does.
template <eigen_of_run_time_size E>
using eigen_view_t =
    std::conditional_t<eigen_dense_rows<E>(), eigen_view_as<dense_view, E>, eigen_view_as<matrix_view, E>>;

/// e read where it lies, through its strides: element (i, j) of each, whatever its storage order.
template <eigen_of_run_time_size E>
constexpr eigen_view_t<E> view_of(const E& e) noexcept {
  return eigen_view_t<E>(e.data(), static_cast<std::size_t>(e.rows()), static_cast<std::size_t>(e.cols()),
                         static_cast<std::size_t>(e.rowStride()), static_cast<std::size_t>(e.colStride()));
}

/// m as the plain Eigen type P, element (i, j) of each; P of m's extents where they are run-time ones.
template <class P, class M>
constexpr P from_matrix(const M& m) {
  P p = [&] {
    if constexpr (RunTimeMatrix<M>)
      return P(eigen_index(m.rows()), eigen_index(m.cols()));
    else
      return P();
  }();
  if constexpr (P::IsRowMajor || P::RowsAtCompileTime == 1 || P::ColsAtCompileTime == 1) {
    std::copy(m.begin(), m.end(), p.data());  // the same order as m's row-major one: one pass, in SIMD
  } else {
    for (std::size_t i = 0; i < m.rows(); ++i)
      for (std::size_t j = 0; j < m.cols(); ++j) p(eigen_index(i), eigen_index(j)) = m(i, j);
  }
  return p;
}

/// Where element k of a tl::matrix copy of E (row-major) lies in E's storage order.
template <eigen_fixed E>
constexpr std::size_t storage_index(std::size_t k) {
  using P = std::remove_cvref_t<E>;
  constexpr auto rows = static_cast<std::size_t>(P::RowsAtCompileTime);
  constexpr auto cols = static_cast<std::size_t>(P::ColsAtCompileTime);
  if constexpr (P::IsRowMajor || rows == 1 || cols == 1)
    return k;
  else
    return k / cols + k % cols * rows;
}

/// The same for E of run-time size, rows x cols.
template <eigen_of_run_time_size E>
constexpr std::size_t storage_index_in(std::size_t k, std::size_t rows, std::size_t cols) {
  if constexpr (std::remove_cvref_t<E>::IsRowMajor)
    return k;
  else
    return k / cols + k % cols * rows;
}

/// The plain Eigen type of E's family (Matrix or Array) with R rows and C columns, E's scalar and
/// alignment, and E's storage order where Eigen leaves the choice (a vector's is fixed by its shape).
template <class E, std::size_t R, std::size_t C>
struct eigen_rebind;
template <template <class, int, int, int, int, int> class Family, class S, int R0, int C0, int Options, int MaxR,
          int MaxC, std::size_t R, std::size_t C>
struct eigen_rebind<Family<S, R0, C0, Options, MaxR, MaxC>, R, C> {
  static constexpr int row_major = 1;  // Eigen::RowMajor
  static constexpr int order = R == 1 && C != 1 ? row_major : C == 1 && R != 1 ? 0 : Options & row_major;
  using type = Family<S, int(R), int(C), (Options & ~row_major) | order, int(R), int(C)>;
};

/// What the engine takes for a caller's argument of type A: A itself, or a fixed-size Eigen object's
/// tl::matrix.
template <class A>
struct engine_type {
  using type = A;
};
template <eigen_argument A>
struct engine_type<A> {
  using type = eigen_matrix_t<A>;
};
template <eigen_run_time_argument A>
struct engine_type<A> {
  using type = eigen_view_t<A>;
};
template <class A>
using engine_t = typename engine_type<A>::type;

/// An argument as the engine takes it: a reference to it, a fixed-size Eigen object's copy, or a view
/// of one of run-time size.
template <class A>
constexpr decltype(auto) as_engine(const A& a) {
  if constexpr (eigen_argument<A>)
    return to_matrix(a);
  else if constexpr (eigen_run_time_argument<A>)
    return view_of(a);
  else
    return (a);
}

/// An argument as the engine takes it, owning its elements: for an Eigen object of run-time size, which
/// the engine otherwise reads in place, a tl::matrix of its extents holding a copy. What a pullback
/// keeps (tl::vjp), and what the forward transforms pair with tangents.
template <class A>
struct owned_engine_type {
  using type = engine_t<A>;
};
template <eigen_run_time_argument A>
struct owned_engine_type<A> {
  using type = eigen_view_as<matrix, A>;
};
template <class A>
using owned_engine_t = typename owned_engine_type<A>::type;

template <class A>
constexpr owned_engine_t<A> as_owned_engine(const A& a) {
  if constexpr (eigen_run_time_argument<A>) {
    owned_engine_t<A> m(static_cast<std::size_t>(a.rows()), static_cast<std::size_t>(a.cols()));
    for (std::size_t i = 0; i < m.rows(); ++i)
      for (std::size_t j = 0; j < m.cols(); ++j) m(i, j) = a(eigen_index(i), eigen_index(j));
    return m;
  } else {
    return as_engine(a);
  }
}

/// Whether any of the arguments is a fixed-size Eigen object, which the transforms convert.
template <class... A>
inline constexpr bool any_eigen = (eigen_argument<A> || ...);
/// Whether any is one of run-time size, which tl::grad and tl::value_and_grad convert.
template <class... A>
inline constexpr bool any_eigen_of_run_time_size = (eigen_run_time_argument<A> || ...);

/// What the engine computed for an argument of type A (its gradient, of engine_t<A>), as A's own type.
template <class A, class G>
constexpr auto as_caller(G&& g) {
  if constexpr (eigen_argument<A> || eigen_run_time_argument<A>)
    return from_matrix<eigen_plain_t<A>>(g);
  else
    return std::forward<G>(g);
}

/// The rows and columns of a tl::matrix type (of a block that may be a number: read only for a matrix).
template <class M>
inline constexpr std::size_t rows_of = 1;
template <class T, std::size_t R, std::size_t C>
inline constexpr std::size_t rows_of<matrix<T, R, C>> = R;
template <class M>
inline constexpr std::size_t cols_of = 1;
template <class T, std::size_t R, std::size_t C>
inline constexpr std::size_t cols_of<matrix<T, R, C>> = C;

/// The rows of a Jacobian's blocks, the elements of f's result: always the engine's, counted row-major.
struct engine_order {};

/// A block of a Jacobian or Hessian, whose rows are the elements of the value *row (of type Row) and
/// columns those of *col (each row-major in the engine), as the caller's types count them: an Eigen
/// matrix of the block's shape when either is an Eigen object, its rows and columns in their storage
/// order. The values give the extents of Eigen objects of run-time size.
template <class Row, class Col, class B>
constexpr auto block_as_caller(const B& b, const Row* row, const Col* col) {
  constexpr bool row_eigen = eigen_argument<Row> || eigen_run_time_argument<Row>;
  constexpr bool col_eigen = eigen_argument<Col> || eigen_run_time_argument<Col>;
  if constexpr (row_eigen || col_eigen) {
    using Model = eigen_plain_t<std::conditional_t<col_eigen, Col, Row>>;
    // Eigen's Dynamic for an extent of run-time size, bounded or not.
    typename eigen_rebind<Model, fixed_extent(rows_of<B>) ? rows_of<B> : dynamic,
                          fixed_extent(cols_of<B>) ? cols_of<B> : dynamic>::type out;
    const std::size_t rows = Matrix<B> || RunTimeMatrix<B> ? b.rows() : 1;
    const std::size_t cols = Matrix<B> || RunTimeMatrix<B> ? b.cols() : 1;
    out.resize(eigen_index(rows), eigen_index(cols));
    const auto in_storage = []<class A>(const A* a, std::size_t k) {
      if constexpr (eigen_argument<A>)
        return storage_index<A>(k);
      else if constexpr (eigen_run_time_argument<A>)
        return storage_index_in<A>(k, static_cast<std::size_t>(a->rows()), static_cast<std::size_t>(a->cols()));
      else
        return k;
    };
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t c = 0; c < cols; ++c) {
        if constexpr (Matrix<B> || RunTimeMatrix<B>)
          out(eigen_index(in_storage(row, r)), eigen_index(in_storage(col, c))) = b(r, c);
        else
          out(eigen_index(in_storage(row, r)), eigen_index(in_storage(col, c))) = b;
      }
    }
    return out;
  } else {
    return b;
  }
}

}  // namespace tapeless::detail
