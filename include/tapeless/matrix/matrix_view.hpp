// SPDX-License-Identifier: BSL-1.0
// tapeless/matrix/matrix_view.hpp: a matrix of run-time extents that lies in memory someone else owns.
//
// An Eigen VectorXd or MatrixXd, or a Map or Ref of one, passed to tl::grad or read through tl::cref,
// is read where it lies: through its strides, so that column-major storage and a Map's gaps need no
// copy. Inside the engine it stands where a tl::matrix of the same extents would (A(i, j), v[i], rows(),
// cols()), read-only; what the engine computes for it (a gradient) is that tl::matrix
// (matrix_of_view_t), since a gradient is owned by whoever receives it.
// Tests: test/unit/matrix/matrix_view_test.cpp
#pragma once

#include <tapeless/matrix/run_time_matrix.hpp>

#include <cstddef>
#include <type_traits>

namespace tapeless {

namespace detail {

/// rows x cols elements of T that someone else owns: R and C are the extents of its type, as a
/// tl::matrix states them (tl::dynamic, or a fixed number). Where Dense, they lie as a tl::matrix's do,
/// row-major and contiguous (a VectorXd, a row-major Matrix), and element k is data[k]; else element
/// (i, j) is at data[i * row_stride + j * column_stride] (column-major storage, a Map's gaps, a block).
template <class T, std::size_t R, std::size_t C, bool Dense>
class view_of_extents {
 public:
  using value_type = T;
  using size_type = std::size_t;
  static constexpr bool fixed_shape = false;
  static constexpr std::size_t rows_extent = R;
  static constexpr std::size_t cols_extent = C;

  constexpr view_of_extents(const T* data, size_type rows, size_type cols, size_type row_stride,
                            size_type column_stride) noexcept
      : data_(data), rows_(rows), cols_(cols), row_stride_(row_stride), column_stride_(column_stride) {}

  [[nodiscard]] constexpr size_type rows() const noexcept { return rows_; }
  [[nodiscard]] constexpr size_type cols() const noexcept { return cols_; }
  [[nodiscard]] constexpr size_type size() const noexcept { return rows_ * cols_; }
  /// The elements, where they lie as a tl::matrix's: for the loops that read them a batch at a time.
  [[nodiscard]] constexpr const T* data() const noexcept requires Dense { return data_; }

  constexpr const T& operator()(size_type i, size_type j) const noexcept {
    if constexpr (Dense)
      return data_[i * cols_ + j];
    else
      return data_[i * row_stride_ + j * column_stride_];
  }
  /// Element k in row-major order, as a tl::matrix counts them: of a vector, k steps along its one line;
  /// of a matrix, the row and column k names.
  constexpr const T& operator[](size_type k) const noexcept {
    if constexpr (Dense)
      return data_[k];
    else if constexpr (C == 1)
      return data_[k * row_stride_];
    else if constexpr (R == 1)
      return data_[k * column_stride_];
    else
      return (*this)(k / cols_, k % cols_);
  }

 private:
  const T* data_;
  size_type rows_;
  size_type cols_;
  size_type row_stride_;
  size_type column_stride_;
};

/// A view through strides. (Two templates of three parameters, not one of four, so that an operation
/// taking any matrix as X<T, R, C> takes them both.)
template <class T, std::size_t R, std::size_t C>
class matrix_view : public view_of_extents<T, R, C, false> {
  using view_of_extents<T, R, C, false>::view_of_extents;
};
/// A view of elements laid out as a tl::matrix of its extents lays them out.
template <class T, std::size_t R, std::size_t C>
class dense_view : public view_of_extents<T, R, C, true> {
  using view_of_extents<T, R, C, true>::view_of_extents;
};

template <class M>
struct matrix_of_view {
  using type = M;
};
template <class T, std::size_t R, std::size_t C>
struct matrix_of_view<matrix_view<T, R, C>> {
  using type = matrix<T, R, C>;
};
template <class T, std::size_t R, std::size_t C>
struct matrix_of_view<dense_view<T, R, C>> {
  using type = matrix<T, R, C>;
};

/// The extent of X's rows (Rows) or columns as its type states it, X a matrix of fixed or run-time
/// extents or a view: a fixed one's number, or tl::dynamic or tl::bounded<Max>.
template <class X, bool Rows>
constexpr std::size_t extent_along() {
  using M = typename matrix_of_view<X>::type;
  if constexpr (M::fixed_shape)
    return Rows ? M::rows() : M::cols();
  else
    return Rows ? M::rows_extent : M::cols_extent;
}

}  // namespace detail

/// A view reads as a matrix of run-time extents wherever the engine reads one.
template <class T, std::size_t R, std::size_t C>
inline constexpr bool is_run_time_matrix<detail::matrix_view<T, R, C>> = true;
template <class T, std::size_t R, std::size_t C>
inline constexpr bool is_run_time_matrix<detail::dense_view<T, R, C>> = true;

namespace detail {
/// What the engine computes for a value of type M, where it is M's own type (a gradient, an adjoint): a
/// view's is the tl::matrix of its extents, which owns its elements; any other type's is itself.
template <class M>
using matrix_of_view_t = typename matrix_of_view<std::remove_cvref_t<M>>::type;
}  // namespace detail

}  // namespace tapeless
