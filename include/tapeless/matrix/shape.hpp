// SPDX-License-Identifier: BSL-1.0
// tapeless/matrix/shape.hpp: the shapes of operands, and the one-line errors when they do not fit.
//
// Each check is a class template instantiated with the shapes: when one fails, the compiler names the
// operation and both shapes in the line that leads to the message (`matmul_shapes<{2, 3}, {2, 3}>`).
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
inline constexpr shape shape_of<matrix<T, R, C>> = shape{R, C};

namespace shapes {
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
  static_assert(A.rows == A.cols, "this operation (det, inverse, log_det, trace, cholesky, solve) needs a square matrix");
  static constexpr bool ok = A.rows == A.cols;
};
template <shape A, shape B>
struct solve_shapes {
  static_assert(A.rows == A.cols && A.cols == B.rows, "tl::solve(A, b): A must be square with as many rows as b");
  static constexpr bool ok = A.rows == A.cols && A.cols == B.rows;
};
template <shape A, bool IsMatrix>
struct scalar_result {
  static_assert(!IsMatrix,
                "tl::grad(f): f must return a scalar; it returned a matrix: reduce it (tl::sum, tl::mean, tl::dot ...)");
  static constexpr bool ok = !IsMatrix;
};
}  // namespace shapes

}  // namespace tapeless
