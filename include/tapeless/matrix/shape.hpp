// SPDX-License-Identifier: BSL-1.0
// tapeless/matrix/shape.hpp: the shapes of operands, and the one-line errors when they do not fit.
//
// Each check is a class template instantiated with the shapes: when one fails, the compiler names the
// operation and both shapes in the line that leads to the message (`matmul_shapes<{2, 3}, {2, 3}>`).
// Tests: test/compile_fail/ test/unit/matrix/matrix_test.cpp
#pragma once

#include <tapeless/matrix/matrix.hpp>

#include <cstddef>

namespace tapeless {

/// Rows and columns; a number is 1 x 1.
struct shape {
  std::size_t rows;
  std::size_t cols;
  friend constexpr bool operator==(shape, shape) = default;
};

template <class V>
inline constexpr shape shape_of = shape{1, 1};
template <class T, std::size_t R, std::size_t C>
  requires(fixed_extent(R) && fixed_extent(C))
inline constexpr shape shape_of<matrix<T, R, C>> = shape{R, C};

namespace shapes {
/// No condition beyond the operands' kind (transpose, row, col).
template <shape...>
struct any_shapes {
  static constexpr bool ok = true;
};
template <shape A, shape B>
struct matmul_shapes {
  static_assert(A.cols == B.rows, "tl::matmul(A, B): the columns of A must equal the rows of B");
  static constexpr bool ok = A.cols == B.rows;
};
template <shape A, shape B>
struct elementwise_shapes {
  static_assert(A == B, "an elementwise operation (+ - * / pow min max if_else) needs two matrices of one shape");
  static constexpr bool ok = A == B;
};
template <shape A, shape B>
struct dot_shapes {
  static_assert(A == B && A.cols == 1, "tl::dot(a, b): a and b must be vectors of one length");
  static constexpr bool ok = A == B && A.cols == 1;
};
template <shape A>
struct square_shape {
  static_assert(A.rows == A.cols,
                "this operation (det, inverse, log_det, trace, cholesky, solve) needs a square matrix");
  static constexpr bool ok = A.rows == A.cols;
};
template <shape A, shape B>
struct solve_shapes {
  static_assert(A.rows == A.cols && A.cols == B.rows, "tl::solve(A, b): A must be square with as many rows as b");
  static constexpr bool ok = A.rows == A.cols && A.cols == B.rows;
};
template <shape A, bool IsMatrix>
struct scalar_result {
  static_assert(
      !IsMatrix,
      "tl::grad(f): f must return a scalar; it returned a matrix: reduce it (tl::sum, tl::mean, tl::dot ...)");
  static constexpr bool ok = !IsMatrix;
};

// ---- construction and slicing (ops/shape.hpp) ----------------------------------------------------
template <shape From, shape To>
struct reshape_shapes {
  static_assert(From.rows * From.cols == To.rows * To.cols,
                "tl::reshape<R, C>(A): R x C must hold as many elements as A");
  static constexpr bool ok = From.rows * From.cols == To.rows * To.cols;
};
template <shape A, shape B>
struct concat_shapes {
  static_assert(A.cols == B.cols,
                "tl::concat(a, b) stacks b below a: a and b must have one number of columns "
                "(a number counts as 1 x 1)");
  static constexpr bool ok = A.cols == B.cols;
};
template <shape A, std::size_t Start, std::size_t Length>
struct slice_shapes {
  static constexpr bool is_vector = A.cols == 1 || A.rows == 1;
  static constexpr std::size_t n = A.rows * A.cols;
  static_assert(is_vector, "tl::slice<Start, Length>(v): v must be a vector (one column or one row)");
  static_assert(!is_vector || (Length > 0 && Start + Length <= n),
                "tl::slice<Start, Length>(v): the slice must hold at least one element and lie inside v "
                "(Start + Length <= size)");
  static constexpr bool ok = is_vector && Length > 0 && Start + Length <= n;
};
template <shape A>
struct diag_shape {
  static_assert(A.cols == 1 || A.rows == 1 || A.rows == A.cols,
                "tl::diag(x): x must be a vector (giving the diagonal matrix) "
                "or a square matrix (giving its diagonal)");
  static constexpr bool ok = A.cols == 1 || A.rows == 1 || A.rows == A.cols;
};
template <shape A, shape B>
struct outer_shapes {
  static_assert(A.cols == 1 && B.cols == 1, "tl::outer(a, b): a and b must be column vectors (N x 1 and M x 1)");
  static constexpr bool ok = A.cols == 1 && B.cols == 1;
};
}  // namespace shapes

}  // namespace tapeless
