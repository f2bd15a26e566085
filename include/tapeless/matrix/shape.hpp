// SPDX-License-Identifier: BSL-1.0
// tapeless/matrix/shape.hpp: the shapes of operands, and the one-line errors when they do not fit.
//
// Each check is a class template instantiated with the shapes: when one fails, the compiler names the
// operation and both shapes in the line that leads to the message (`matmul_shapes<{2, 3}, {2, 3}>`).
// Tests: test/compile_fail/ test/unit/matrix/matrix_test.cpp test/unit/ops/elementwise/broadcast_test.cpp
#pragma once

#include <tapeless/matrix/matrix.hpp>

#include <concepts>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

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
/// Two shapes of an elementwise binary operation: one shape, or shapes that broadcast as NumPy's do
/// (each axis of one extent, or 1 in one of them: a 1 x C row beside an R x C matrix is used for every
/// row, an R x 1 column for every column, a 1 x 1 matrix for every element, and an R x 1 column beside
/// a 1 x C row gives R x C). `result` is the shape of the operation's value.
template <shape A, shape B>
struct elementwise_shapes {
  static constexpr bool ok =
      (A.rows == B.rows || A.rows == 1 || B.rows == 1) && (A.cols == B.cols || A.cols == 1 || B.cols == 1);
  static_assert(ok,
                "an elementwise operation (+ - * / pow min max) needs two matrices of one shape, or a 1 x C row "
                "or an R x 1 column beside an R x C matrix, which it broadcasts: give the row as many columns as "
                "the matrix, or the column as many rows (tl::transpose, tl::reshape)");
  static constexpr shape result{A.rows == 1 ? B.rows : A.rows, A.cols == 1 ? B.cols : A.cols};
};
/// A mask and the operands it selects between, or two matrices compared: one shape (they do not broadcast).
template <shape A, shape B>
struct mask_shapes {
  static_assert(A == B,
                "a comparison (< > <= >= == !=) or tl::if_else takes matrices of one shape, which it does not "
                "broadcast: give a row or column the matrix's shape first (b + tl::zeros_like(A))");
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
template <shape A, std::size_t R0, std::size_t C0, std::size_t BR, std::size_t BC>
struct block_shapes {
  static constexpr bool ok = BR > 0 && BC > 0 && R0 + BR <= A.rows&& C0 + BC <= A.cols;
  static_assert(ok,
                "tl::block<R0, C0, BR, BC>(A): the block must hold at least one element and lie inside A "
                "(R0 + BR <= rows, C0 + BC <= cols)");
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

namespace detail {
/// The plain matrix x replicated to R x C, each axis where x has 1 element: the value of a broadcast
/// (shapes::elementwise_shapes).
template <std::size_t R, std::size_t C, class T, std::size_t Rx, std::size_t Cx>
constexpr matrix<T, R, C> broadcast_value(const matrix<T, Rx, Cx>& x) {
  static_assert((Rx == 1 || Rx == R) && (Cx == 1 || Cx == C), "broadcast: x's shape must fit in R x C");
  matrix<T, R, C> y(uninitialized);
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) y(i, j) = x(Rx == 1 ? 0 : i, Cx == 1 ? 0 : j);
  return y;
}

/// Whether every extent is fixed: the broadcasts below are of fixed shapes.
template <std::size_t... Extent>
inline constexpr bool fixed_shapes = (fixed_extent(Extent) && ...);

/// The elements of `a op b`: a dual number where one side holds dual numbers and the other their real
/// numbers (f's data meeting x's numbers under the forward-mode transforms), else the elements' own type.
template <class Op, class Ta, class Tb>
using combined_element = std::remove_cvref_t<std::invoke_result_t<Op, const Ta&, const Tb&>>;

/// The loop of a op b over out's elements; a row (a column) repeats where a_rows, b_rows (a_cols,
/// b_cols) say.
template <bool a_rows, bool a_cols, bool b_rows, bool b_cols, class Out, class Op, class A, class B>
constexpr Out each_pair_of_elements(Out out, Op op, const A& a, const B& b) {
  for (std::size_t i = 0; i < out.rows(); ++i)
    for (std::size_t j = 0; j < out.cols(); ++j)
      out(i, j) = op(a(a_rows ? 0 : i, a_cols ? 0 : j), b(b_rows ? 0 : i, b_cols ? 0 : j));
  return out;
}

/// a op b of plain matrices of two shapes or two element types, broadcast as in expressions; when fixed
/// shapes do not fit, after the check's message, a itself, so that no second error follows. A row (a
/// column) by its type repeats beside one that is not, as between expressions
/// (expr/run_time_elementwise.hpp); op takes elements, and run-time extents that must agree and do not
/// throw std::invalid_argument naming both.
template <class Op, class Ta, std::size_t Ra, std::size_t Ca, class Tb, std::size_t Rb, std::size_t Cb>
constexpr auto broadcast_plain(Op op, const char* name, const matrix<Ta, Ra, Ca>& a, const matrix<Tb, Rb, Cb>& b) {
  // Which repeats along which axis: a row by its type beside one that is not, a column likewise.
  constexpr bool a_rows = Ra == 1 && Rb != 1, a_cols = Ca == 1 && Cb != 1;
  constexpr bool b_rows = Rb == 1 && Ra != 1, b_cols = Cb == 1 && Ca != 1;
  // The extents of the one that does not repeat; where neither does, which must agree: a fixed one if
  // either is, else a bounded one (no heap).
  constexpr auto agreed = [](std::size_t x, std::size_t y) {
    return fixed_extent(x) || (!fixed_extent(y) && x != dynamic) ? x : y;
  };
  constexpr std::size_t rows = a_rows ? Rb : b_rows ? Ra : agreed(Ra, Rb);
  constexpr std::size_t cols = a_cols ? Cb : b_cols ? Ca : agreed(Ca, Cb);
  using out = matrix<combined_element<Op, Ta, Tb>, rows, cols>;
  if constexpr (fixed_shapes<Ra, Ca, Rb, Cb>) {
    if constexpr (shapes::elementwise_shapes<shape{Ra, Ca}, shape{Rb, Cb}>::ok)
      return each_pair_of_elements<a_rows, a_cols, b_rows, b_cols>(out(uninitialized), op, a, b);
    else
      return a;
  } else {
    if ((!a_rows && !b_rows && a.rows() != b.rows()) || (!a_cols && !b_cols && a.cols() != b.cols()))
      throw std::invalid_argument(std::string("tl::matrix ") + name + ": shapes " + shape_text(a.rows(), a.cols()) +
                                  " and " + shape_text(b.rows(), b.cols()) + " differ" +
                                  (a_rows || a_cols || b_rows || b_cols
                                       ? "; a row (1 x C) or a column (R x 1) repeats over a matrix of as many "
                                         "columns or rows"
                                       : ""));
    if constexpr (fixed_shapes<rows, cols>)  // a fixed operand gives both extents
      return each_pair_of_elements<a_rows, a_cols, b_rows, b_cols>(out(uninitialized), op, a, b);
    else
      return each_pair_of_elements<a_rows, a_cols, b_rows, b_cols>(
          out(a_rows ? b.rows() : a.rows(), a_cols ? b.cols() : a.cols()), op, a, b);
  }
}

/// Whether + - * / of plain matrices take this path: matrices of two element types or two shapes (those
/// of one type and one shape are matrix's own): fixed shapes that differ and broadcast, or any with a
/// run-time extent, where a row or column by its type repeats beside one that is not and the other
/// extents must agree.
template <class Ta, std::size_t Ra, std::size_t Ca, class Tb, std::size_t Rb, std::size_t Cb>
inline constexpr bool plain_broadcast = !std::same_as<Ta, Tb> || Ra != Rb || Ca != Cb;

/// A dual number beside a plain matrix of its real numbers, which matrix's own operators, taking only
/// the elements' type, do not meet: f's data times a number of x under the forward-mode transforms.
template <class S, class T>
concept dual_over = is_dual<S> && !std::is_convertible_v<S, T>;

/// `op(e, s)` (or `op(s, e)` where Left) for each element e of a.
template <bool Left, class Op, class T, std::size_t R, std::size_t C, class S>
constexpr auto each_element_with(Op op, const matrix<T, R, C>& a, const S& s) {
  using element = std::conditional_t<Left, combined_element<Op, S, T>, combined_element<Op, T, S>>;
  auto out = [&] {
    if constexpr (fixed_shapes<R, C>)
      return matrix<element, R, C>(uninitialized);
    else
      return matrix<element, R, C>(a.rows(), a.cols());
  }();
  for (std::size_t i = 0; i < a.rows(); ++i)
    for (std::size_t j = 0; j < a.cols(); ++j) out(i, j) = Left ? op(s, a(i, j)) : op(a(i, j), s);
  return out;
}
}  // namespace detail

// + - * / of plain matrices of two shapes or element types: they broadcast as they do between
// expressions, so that `A + b` means one thing whether A is data or an argument; and a matrix of dual
// numbers meets one of their real numbers, as x meets f's data in forward mode.
#define TAPELESS_PLAIN_OPERATOR(OP)                                                                     \
  template <class Ta, std::size_t Ra, std::size_t Ca, class Tb, std::size_t Rb, std::size_t Cb>         \
    requires detail::plain_broadcast<Ta, Ra, Ca, Tb, Rb, Cb>                                            \
  constexpr auto operator OP(const matrix<Ta, Ra, Ca>& a, const matrix<Tb, Rb, Cb>& b) {                \
    return detail::broadcast_plain([](const auto& x, const auto& y) { return x OP y; }, #OP, a, b);     \
  }                                                                                                     \
  template <class T, std::size_t R, std::size_t C, detail::dual_over<T> S>                              \
  constexpr auto operator OP(const matrix<T, R, C>& a, const S& s) {                                    \
    return detail::each_element_with<false>([](const auto& x, const auto& y) { return x OP y; }, a, s); \
  }                                                                                                     \
  template <class T, std::size_t R, std::size_t C, detail::dual_over<T> S>                              \
  constexpr auto operator OP(const S& s, const matrix<T, R, C>& a) {                                    \
    return detail::each_element_with<true>([](const auto& x, const auto& y) { return x OP y; }, a, s);  \
  }
TAPELESS_PLAIN_OPERATOR(+)
TAPELESS_PLAIN_OPERATOR(-)
TAPELESS_PLAIN_OPERATOR(*)
TAPELESS_PLAIN_OPERATOR(/)
#undef TAPELESS_PLAIN_OPERATOR

}  // namespace tapeless
