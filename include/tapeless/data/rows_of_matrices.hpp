// SPDX-License-Identifier: BSL-1.0
// tapeless/data/rows_of_matrices.hpp: the rows of a matrix as a column of tl::rows, and tl::row_vectors.
//
// A data set is often one matrix, a row per point (Eigen::Matrix<double, Eigen::Dynamic, C>). Its row i
// is a tl::vector<T, C> whose C is known at compile time, so that a term over it keeps one fixed shape
// and runs in SIMD batches of rows. The column reads the rows in place, in either storage order: it
// holds the matrix's first element, the distance between its rows (row-major) or its columns
// (column-major), and the first row it starts at, and computes where each element lies. Eigen stays
// optional: its matrices are told by what they state (rows(), cols(), data(), outerStride(),
// innerStride(), IsRowMajor, ColsAtCompileTime), not by their types.
// Tests: test/unit/data/rows_of_matrices_test.cpp
#pragma once

#include <tapeless/matrix/matrix.hpp>

#include <concepts>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

/// The column of the rows of a matrix of T with C columns, read in place. Row r of the column is the
/// matrix's row `row + r`; it computes its rows' places (column_start in data/rows.hpp).
template <class T, std::size_t C, bool RowMajor>
struct matrix_rows_column {
  static constexpr bool computed_rows = true;
  /// What a row is: the sum's number type follows it (transforms/sum_over.hpp).
  using row_type = matrix<T, C, 1>;
  const T* data;
  /// The distance between the matrix's rows (row-major) or its columns (column-major), in elements.
  std::size_t outer;
  std::size_t row;

  constexpr matrix_rows_column operator+(std::size_t k) const noexcept { return {data, outer, row + k}; }

  /// Element e of row r of the column.
  [[nodiscard]] constexpr const T* at(std::size_t r, std::size_t e) const noexcept {
    if constexpr (RowMajor)
      return data + (row + r) * outer + e;
    else
      return data + (row + r) + e * outer;
  }
};

/// The element type of what `data()` points at, without const.
template <class X>
using data_element_t = std::remove_cv_t<std::remove_pointer_t<decltype(std::declval<const X&>().data())>>;

/// A dense matrix of float or double that states its storage order and its compile-time column count,
/// as Eigen's matrices, maps, refs and blocks do.
template <class X>
concept ordered_dense_matrix = requires(const X& x) {
  x.rows();
  x.cols();
  x.outerStride();
  { x.data() } -> std::convertible_to<const void*>;
  bool(X::IsRowMajor);
  int(X::ColsAtCompileTime);
  int(X::RowsAtCompileTime);
}
&&(std::same_as<data_element_t<X>, float> || std::same_as<data_element_t<X>, double>);

/// A matrix whose rows a column can read in place: an ordered dense matrix, or a tl::matrix of fixed or
/// run-time extents (row-major).
template <class X>
concept matrix_with_rows = ordered_dense_matrix<X> ||((Matrix<X> || RunTimeMatrix<X>)&&Real<typename X::value_type>);

template <class X>
constexpr bool is_row_major() {
  if constexpr (Matrix<X> || RunTimeMatrix<X>)
    return true;
  else
    return bool(X::IsRowMajor);
}

}  // namespace detail

/// The rows of a matrix as a column of tl::rows: row i is the matrix's row i, a tl::vector<T, C>, read
/// in place. Made by tl::row_vectors<C>(X), or by tl::rows for a matrix whose C is fixed at compile time.
template <class T, std::size_t C, bool RowMajor>
class row_vectors_view {
 public:
  constexpr row_vectors_view(detail::matrix_rows_column<T, C, RowMajor> first, std::size_t count) noexcept
      : first_(first), count_(count) {}

  /// The number of rows.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return count_; }
  /// The column, from the first row on.
  [[nodiscard]] constexpr detail::matrix_rows_column<T, C, RowMajor> column() const noexcept { return first_; }
  /// Row i, copied.
  [[nodiscard]] constexpr matrix<T, C, 1> operator[](std::size_t i) const noexcept {
    matrix<T, C, 1> row(detail::uninitialized);
    for (std::size_t e = 0; e < C; ++e) row[e] = *first_.at(i, e);
    return row;
  }

 private:
  detail::matrix_rows_column<T, C, RowMajor> first_;
  std::size_t count_;
};

namespace detail {

template <class X>
inline constexpr bool is_row_vectors_view = false;
template <class T, std::size_t C, bool RowMajor>
inline constexpr bool is_row_vectors_view<row_vectors_view<T, C, RowMajor>> = true;

/// The rows of x as tl::vector<T, C>, where x has C columns. Throws std::invalid_argument where x's
/// elements along its storage order are not adjacent, naming x by name() (a string is made only then).
template <std::size_t C, class X, class Name>
constexpr auto read_matrix_rows(const X& x, const Name& name) {
  using T = data_element_t<X>;
  constexpr bool row_major = is_row_major<X>();
  const auto rows = static_cast<std::size_t>(x.rows());
  std::size_t outer = row_major ? C : rows;
  if constexpr (requires { x.outerStride(); }) outer = static_cast<std::size_t>(x.outerStride());
  if constexpr (requires { x.innerStride(); }) {
    if (x.innerStride() != 1 && rows > 0 && C > 0)
      throw std::invalid_argument(name() + " is strided; the elements along its storage order must be adjacent");
  }
  return row_vectors_view<T, C, row_major>(matrix_rows_column<T, C, row_major>{x.data(), outer, 0}, rows);
}

}  // namespace detail

/// The rows of X as a column of tl::rows, row i a tl::vector<T, C> (T float or double), read in place in
/// either storage order: for a matrix with a run-time number of columns (Eigen::MatrixXd, its maps and
/// refs, a tl::matrix of tl::dynamic columns), whose C a fixed-shape term needs at compile time. Throws
/// std::invalid_argument, naming both numbers, where X.cols() != C, and where X is strided along its storage order.
///
///   Eigen::MatrixXd X = ...;  // N x 3
///   tl::sum_over(tl::rows(tl::row_vectors<3>(X), y), body, w, b);
template <std::size_t C, class X>
  requires detail::matrix_with_rows<X>
constexpr auto row_vectors(const X& x) {
  const auto name = [] { return "tl::row_vectors<" + std::to_string(C) + ">(X)"; };
  if (static_cast<std::size_t>(x.cols()) != C)
    throw std::invalid_argument(name() + ": X has " + std::to_string(x.cols()) + " columns");
  return detail::read_matrix_rows<C>(x, [&] { return name() + ": X"; });
}

}  // namespace tapeless
