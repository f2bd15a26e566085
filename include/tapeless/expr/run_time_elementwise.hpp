// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/run_time_elementwise.hpp: an operation on whole arrays of run-time extents, element by
// element, kept as the formula it is until a reduction sums it.
//
// A node holds its value, and an array of run-time extents as a node's value would cost an allocation
// per operation. So `x - tl::cref(y)`, `tl::square(...)` or `tl::slice(x, 1, n - 1)` of such arrays
// is not a node: it is this record of the operation and its operands (nodes of f, data, numbers, other
// such records), whose extents are checked where it is made. The reductions over it
// (transforms/run_time_reduction.hpp) turn it into one loop over its elements, a tl::sum_over over
// tl::indices whose term is the formula at element k: no intermediate array, one pass. Products by a
// matrix of fixed shape, transposes and diagonals are records of the same kind, and comparisons are
// records of bools.
// Tests: test/unit/transforms/run_time_reduction_test.cpp test/unit/expr/run_time_elementwise
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/expression.hpp>
#include <tapeless/matrix/extent.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/run_time_matrix.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/operation/traits.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// What every formula below derives from, so that one concept names them.
struct run_time_formula_tag {};
/// What a formula of bools derives from besides: a comparison of arrays of run-time extents, which holds
/// no derivative and is no node (as a tl::mask is none).
struct run_time_mask_tag {};

/// Any formula over arrays of run-time extents, of numbers or of bools.
template <class E>
concept RunTimeRecord = std::is_base_of_v<run_time_formula_tag, std::remove_cvref_t<E>>;
/// A formula of bools: a comparison of arrays of run-time extents, element by element, or ~, &, |, ^ of
/// such formulas; the condition of an elementwise tl::if_else.
template <class E>
concept RunTimeMaskFormula = RunTimeRecord<E> && std::is_base_of_v<run_time_mask_tag, std::remove_cvref_t<E>>;
/// A formula of numbers over arrays of run-time extents: what the operations on arrays take.
template <class E>
concept RunTimeFormula = RunTimeRecord<E> && !RunTimeMaskFormula<E>;

/// Element k (row-major) of a formula, and element (i, j), as a node of f reading the formula's operands
/// there (a bool for a formula of bools). The formula's reads become those of its term, with f's nodes in
/// place of the sum's parameters (transforms/run_time_reduction.hpp, formula_element_of): no sum, no
/// loop, no allocation.
template <class Derived>
struct formula_elements : run_time_formula_tag {
  constexpr auto operator[](std::size_t k) const { return formula_element_of(self(), k, layer_above{}); }
  constexpr auto operator()(std::size_t i, std::size_t j) const {
    return formula_element_of(self(), i, j, layer_above{});
  }

 private:
  [[nodiscard]] constexpr const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }
};

/// What an operation on elements gives: numbers, or bools where it says so (a comparison, ~ & | ^).
template <class Op>
inline constexpr bool gives_bools = requires {
  requires Op::gives_bools;
};

/// ~, &, |, ^ of the elements of formulas of bools.
struct mask_not {
  static constexpr bool gives_bools = true;
  static constexpr const char* name = "operator~";
  constexpr bool operator()(bool a) const noexcept { return !a; }
};
struct mask_and {
  static constexpr bool gives_bools = true;
  static constexpr const char* name = "operator&";
  constexpr bool operator()(bool a, bool b) const noexcept { return a && b; }
};
struct mask_or {
  static constexpr bool gives_bools = true;
  static constexpr const char* name = "operator|";
  constexpr bool operator()(bool a, bool b) const noexcept { return a || b; }
};
struct mask_xor {
  static constexpr bool gives_bools = true;
  static constexpr const char* name = "operator^";
  constexpr bool operator()(bool a, bool b) const noexcept { return a != b; }
};
/// tl::if_else of arrays of run-time extents: element k is its second operand's where the first (a
/// formula of bools, or one bool) holds at k, else its third's (transforms/run_time_reduction.hpp,
/// element_at).
struct select_elements {
  static constexpr const char* name = "tl::if_else";
};

/// The name an operation on elements has in the messages: its own, else its traits'.
template <class Op>
constexpr std::string_view elementwise_name() {
  if constexpr (requires { Op::name; })
    return Op::name;
  else
    return traits_of<Op>().name;
}

/// An operand an elementwise operation takes element by element at run-time extents: such a formula, or
/// a node, a tl::cref or plain data whose value has run-time extents.
template <class E>
concept RunTimeArray = RunTimeFormula<E> || RunTimeMatrix<value_type_of_t<E>>;

/// Rows and columns of an operand; a number has none (`number`), and combines with any shape.
struct element_extents {
  std::size_t rows = 1, cols = 1;
  bool number = true;
};

template <class E>
constexpr element_extents extents_of(const E& e) {
  using V = value_type_of_t<E>;
  // A node's own, which it may know without computing its value (a loop's: tl::iterate).
  if constexpr (RunTimeRecord<E> || (RunTimeMatrix<V> && Expression<E>))
    return {e.rows(), e.cols(), false};
  else if constexpr (RunTimeMatrix<V>)
    return {value_of(e).rows(), value_of(e).cols(), false};
  else if constexpr (Matrix<V>)
    return {V::rows(), V::cols(), false};
  else
    return {};
}

/// Throws std::invalid_argument naming the operation and both shapes. Out of line and cold.
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] inline void throw_shapes_differ(std::string_view operation,
                                                                             element_extents a, element_extents b) {
  throw std::invalid_argument("tl: " + std::string(operation) + " of a " + shape_text(a.rows, a.cols) + " and a " +
                              shape_text(b.rows, b.cols) + " array; elementwise operands have one shape");
}

/// Whether the type of X fixes its extent along the rows (Rows) or the columns at 1: a number, a row
/// (a 1 x C or 1 x tl::dynamic matrix) along the rows, a column (a vector) along the columns, or a
/// formula whose operands all are. Beside an operand with more, such an operand is repeated along that
/// axis (broadcast). Where the extent is 1 only at run time, the shapes must agree: whether an operand
/// repeats is known from the types, so a formula pays nothing for broadcasting it does not do.
template <class X, bool Rows>
constexpr bool fixed_one_along() {
  using D = std::remove_cvref_t<X>;
  using V = value_type_of_t<D>;
  if constexpr (RunTimeRecord<D>)
    return D::template one_along<Rows>;
  else if constexpr (RunTimeMatrix<V>)
    return (Rows ? V::rows_extent : V::cols_extent) == 1;
  else if constexpr (Matrix<V>)
    return (Rows ? V::rows() : V::cols()) == 1;
  else
    return true;
}

/// Whether X, among the operands All..., is repeated along the rows (Rows) or the columns: it is one
/// row (column) by its type, and another operand may have more.
template <bool Rows, class X, class... All>
inline constexpr bool repeats_along = fixed_one_along<X, Rows>() && !(fixed_one_along<All, Rows>() && ...);

[[noreturn]] [[gnu::cold]] [[gnu::noinline]] inline void throw_broadcast_differs(std::string_view operation,
                                                                                 element_extents a, element_extents b) {
  throw std::invalid_argument("tl: " + std::string(operation) + " of a " + shape_text(a.rows, a.cols) + " and a " +
                              shape_text(b.rows, b.cols) +
                              " array; a row (1 x C) or a column (R x 1) repeats over a matrix of as many columns "
                              "or rows");
}

/// The shape of the result of an elementwise operation on x...: the operands' one shape, where an
/// operand that repeats along an axis (repeats_along) counts only along the other. Where they differ,
/// std::invalid_argument naming `operation` and the two.
template <class... X>
constexpr element_extents common_extents(std::string_view operation, const X&... x) {
  element_extents out;
  bool rows_known = false, cols_known = false;
  const auto take = [&]<class Y>(const Y& y) {
    const element_extents e = extents_of(y);
    if (e.number) return;
    out.number = false;
    if (!repeats_along<true, Y, X...> && !rows_known) out.rows = e.rows, rows_known = true;
    if (!repeats_along<false, Y, X...> && !cols_known) out.cols = e.cols, cols_known = true;
  };
  (take(x), ...);
  const auto check = [&]<class Y>(const Y& y) {
    const element_extents e = extents_of(y);
    if (e.number) return;
    constexpr bool repeats = repeats_along<true, Y, X...> || repeats_along<false, Y, X...>;
    if ((!repeats_along<true, Y, X...> && e.rows != out.rows) ||
        (!repeats_along<false, Y, X...> && e.cols != out.cols)) {
      if (repeats)
        throw_broadcast_differs(operation, out, e);
      else
        throw_shapes_differ(operation, out, e);
    }
  };
  (check(x), ...);
  return out;
}

/// A node read of a formula as the term of its sum holds it (transforms/run_time_reduction.hpp): the
/// sum's parameter K, of number type T.
template <std::size_t K, class T>
struct parameter_at {};

template <class E>
struct formula_number {
  using type = scalar_type_of_t<E>;
};
template <std::size_t K, class T>
struct formula_number<parameter_at<K, T>> {
  using type = T;
};
template <>
struct formula_number<bool> {  // tl::if_else's one condition
  using type = bool;
};
template <RunTimeMaskFormula E>
struct formula_number<E> {
  using type = bool;
};
/// The number type of a formula over operands X...
template <class... X>
using formula_number_t = std::common_type_t<typename formula_number<X>::type...>;

/// The scalar operation Op applied to the elements of its operands A... (and to a number operand as it
/// is), for arrays of `rows` x `cols`. Its operands are held by value: nodes of f (a pointer for an
/// argument), tl::cref data (a pointer), numbers, and plain matrices, copied. Where Op gives bools (a
/// comparison), it is a formula of bools, no node.
template <class Op, class... A>
struct run_time_elementwise : std::conditional_t<gives_bools<Op>, run_time_mask_tag, expression_tag>,
                              formula_elements<run_time_elementwise<Op, A...>> {
  /// The type an operation on the whole of it would take: run-time extents, which those refuse.
  using value_type = matrix<formula_number_t<A...>, dynamic, dynamic>;
  template <bool Rows>
  static constexpr bool one_along = (fixed_one_along<A, Rows>() && ...);
  Op op;
  std::tuple<A...> operands;
  std::size_t rows_ = 0, cols_ = 0;

  [[nodiscard]] constexpr std::size_t rows() const noexcept { return rows_; }
  [[nodiscard]] constexpr std::size_t cols() const noexcept { return cols_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return rows_ * cols_; }
};

/// What a slice is by its type: elements of a vector (tl::slice), or a row or a column of a matrix
/// (tl::row, tl::col), one row or one column whatever the run-time extents.
enum class slice_kind { elements, row, column };

/// Elements start, start + stride, ... of the operand A (row-major), rows_ x cols_ of them: of a vector,
/// elements start .. start + length - 1 in its orientation (tl::slice(v, start, length)); of a matrix of
/// C columns, row i (start i C, stride 1) or column j (start j, stride C).
template <class A, slice_kind Kind = slice_kind::elements>
struct run_time_slice : expression_tag, formula_elements<run_time_slice<A, Kind>> {
  using value_type = matrix<formula_number_t<A>, dynamic, dynamic>;
  static constexpr slice_kind kind = Kind;
  template <bool Rows>
  static constexpr bool one_along = Kind == slice_kind::elements ? fixed_one_along<A, Rows>()
                                                                 : Rows == (Kind == slice_kind::row);
  A operand;
  std::size_t start = 0, rows_ = 0, cols_ = 0, stride = 1;

  [[nodiscard]] constexpr std::size_t rows() const noexcept { return rows_; }
  [[nodiscard]] constexpr std::size_t cols() const noexcept { return cols_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return rows_ * cols_; }
};

/// The operand A repeated over a result of rows x cols: along the rows where it is one row
/// (RepeatRows), along the columns where it is one column (RepeatCols). Element k of the result is A's
/// element k % cols, k / cols, or 0.
template <class A, bool RepeatRows, bool RepeatCols>
struct run_time_broadcast : expression_tag, formula_elements<run_time_broadcast<A, RepeatRows, RepeatCols>> {
  using value_type = matrix<formula_number_t<A>, dynamic, dynamic>;
  static constexpr bool repeat_rows = RepeatRows, repeat_cols = RepeatCols;
  template <bool Rows>
  static constexpr bool one_along = !(Rows ? RepeatRows : RepeatCols) && fixed_one_along<A, Rows>();
  A operand;
  std::size_t rows_ = 0, cols_ = 0;

  [[nodiscard]] constexpr std::size_t rows() const noexcept { return rows_; }
  [[nodiscard]] constexpr std::size_t cols() const noexcept { return cols_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return rows_ * cols_; }
  /// The element of A that element k of the result reads.
  [[nodiscard]] constexpr std::size_t operand_element(std::size_t k) const noexcept {
    if constexpr (RepeatRows && RepeatCols)
      return 0;
    else if constexpr (RepeatRows)
      return k % cols_;
    else
      return k / cols_;
  }
};

/// The product A W of an array A of run-time extents (data, a node, or a formula) and a matrix W of
/// fixed shape K x M (a node, or data), or where Left the product W A of W (M x K) and A: element (i, j)
/// a row of one dotted with a column of the other. So a linear model over data of run-time length is a
/// formula, `tl::matmul(tl::cref(X), w)`, and so is a layer of a network over a batch of run-time size,
/// `tl::matmul(tl::cref(X), W)`. W may have run-time extents too (never Left), where A and W are arrays
/// (nodes or data), not formulas: element (i, j) is then a dot product of run-time length (ops::line_dot).
template <class A, class W, bool Left = false, class WValue = value_type_of_t<W>>
struct run_time_matmul : expression_tag, formula_elements<run_time_matmul<A, W, Left, WValue>> {
  using value_type = matrix<formula_number_t<A, W>, dynamic, dynamic>;
  static constexpr bool left = Left;
  /// W's value type, which a term's record keeps where W is the sum's parameter.
  using w_value_type = WValue;
  /// Whether W has run-time extents, and so the length of the dot products.
  static constexpr bool run_time_inner = RunTimeMatrix<WValue>;
  template <bool Rows>
  static constexpr bool one_along = Left ? (Rows ? fixed_one_along<WValue, true>() : fixed_one_along<A, false>())
                                         : (Rows ? fixed_one_along<A, true>() : fixed_one_along<WValue, false>());
  A a;
  W w;
  std::size_t rows_ = 0, cols_ = 0;

  [[nodiscard]] constexpr std::size_t rows() const noexcept { return rows_; }
  [[nodiscard]] constexpr std::size_t cols() const noexcept { return cols_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return rows_ * cols_; }
};

/// How a record that rearranges its operand reads it: element k of a result of rows x cols is the
/// operand's element `operand_element(k, rows, cols)`, or, where `zeros_outside` and not `inside`, 0.
struct transposed_elements {  // tl::transpose: (i, j) is the operand's (j, i)
  static constexpr bool zeros_outside = false;
  template <class A, bool Rows>
  static constexpr bool one_along = fixed_one_along<A, !Rows>();
  static constexpr std::size_t operand_element(std::size_t k, std::size_t rows, std::size_t cols) noexcept {
    return (k % cols) * rows + k / cols;
  }
};
struct diagonal_elements {  // tl::diag of a square matrix: a column of its diagonal
  static constexpr bool zeros_outside = false;
  template <class A, bool Rows>
  static constexpr bool one_along = !Rows;
  static constexpr std::size_t operand_element(std::size_t k, std::size_t rows, std::size_t /*cols*/) noexcept {
    return k * (rows + 1);
  }
};
struct diagonal_matrix_elements {  // tl::diag of a vector: the square matrix with it on the diagonal
  static constexpr bool zeros_outside = true;
  template <class A, bool Rows>
  static constexpr bool one_along = false;
  static constexpr std::size_t operand_element(std::size_t k, std::size_t /*rows*/, std::size_t cols) noexcept {
    return k / cols;
  }
  static constexpr bool inside(std::size_t k, std::size_t cols) noexcept { return k / cols == k % cols; }
};

/// The operand A rearranged as Kind says (transposed_elements, diagonal_elements,
/// diagonal_matrix_elements), for a result of rows x cols: each element reads one of A's, or is 0.
template <class A, class Kind>
struct run_time_rearranged : expression_tag, formula_elements<run_time_rearranged<A, Kind>> {
  using value_type = matrix<formula_number_t<A>, dynamic, dynamic>;
  template <bool Rows>
  static constexpr bool one_along = Kind::template one_along<A, Rows>;
  using kind = Kind;
  A operand;
  std::size_t rows_ = 0, cols_ = 0;

  [[nodiscard]] constexpr std::size_t rows() const noexcept { return rows_; }
  [[nodiscard]] constexpr std::size_t cols() const noexcept { return cols_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return rows_ * cols_; }
};

/// tl::transpose(a) of an array of run-time extents.
template <class A>
constexpr auto make_run_time_transpose(A&& a) {
  const element_extents e = extents_of(a);
  return run_time_rearranged<std::remove_cvref_t<A>, transposed_elements>{{}, {}, std::forward<A>(a), e.cols, e.rows};
}

/// tl::diag(x) of an array of run-time extents: of a vector by its type, the square matrix with it on
/// the diagonal; of a matrix, which must be square (std::invalid_argument naming its shape), its
/// diagonal.
template <class A>
constexpr auto make_run_time_diag(A&& a) {
  const element_extents e = extents_of(a);
  if constexpr (fixed_one_along<A, true>() || fixed_one_along<A, false>()) {
    const std::size_t n = e.rows * e.cols;
    return run_time_rearranged<std::remove_cvref_t<A>, diagonal_matrix_elements>{{}, {}, std::forward<A>(a), n, n};
  } else {
    if (e.rows != e.cols)
      throw std::invalid_argument("tl::diag(A): A is " + shape_text(e.rows, e.cols) +
                                  ", not square; its diagonal is that of a square matrix");
    return run_time_rearranged<std::remove_cvref_t<A>, diagonal_elements>{{}, {}, std::forward<A>(a), e.rows, 1};
  }
}

/// Throws std::invalid_argument for a product whose left operand's columns are not its right one's rows.
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] inline void throw_product_shapes(element_extents a, element_extents b) {
  throw std::invalid_argument("tl::matmul(A, B): A is " + shape_text(a.rows, a.cols) + " and B " +
                              shape_text(b.rows, b.cols) + "; A's columns must be B's rows");
}

/// Whether a product of two arrays of run-time extents reads X in place: an array (a node or data), or
/// the transpose of one, not a formula, whose elements it would read many times over.
template <class X>
inline constexpr bool read_in_place = !RunTimeRecord<X>;
template <class A>
inline constexpr bool read_in_place<run_time_rearranged<A, transposed_elements>> = !RunTimeRecord<A>;

/// tl::matmul(A, W) of an array A of run-time extents and a matrix W of fixed shape (Left: tl::matmul(W,
/// A)), or of two arrays of run-time extents: the inner extents must agree (std::invalid_argument naming
/// both shapes).
template <bool Left, class A, class W>
constexpr auto make_run_time_matmul(A&& a, W&& w) {
  const element_extents e = extents_of(a), f = extents_of(w);
  if (Left ? f.cols != e.rows : e.cols != f.rows) Left ? throw_product_shapes(f, e) : throw_product_shapes(e, f);
  return run_time_matmul<std::remove_cvref_t<A>, std::remove_cvref_t<W>, Left>{
      {}, {}, std::forward<A>(a), std::forward<W>(w), Left ? f.rows : e.rows, Left ? e.cols : f.cols};
}

/// op(x...) over arrays of run-time extents: the formula, once the operands' shapes agree.
template <class Op, class... X>
constexpr auto make_run_time_elementwise(Op op, X&&... x) {
  const element_extents e = common_extents(elementwise_name<Op>(), x...);
  // Each operand that repeats along an axis, wrapped in its broadcast over the result.
  const auto operand = [&]<class Y>(Y&& y) {
    constexpr bool rows = repeats_along<true, Y, X...>, cols = repeats_along<false, Y, X...>;
    if constexpr ((rows || cols) && !std::is_arithmetic_v<std::remove_cvref_t<Y>> &&
                  (RunTimeArray<Y> || RunTimeMaskFormula<Y> || Matrix<value_type_of_t<Y>>))
      return run_time_broadcast<std::remove_cvref_t<Y>, rows, cols>{{}, {}, std::forward<Y>(y), e.rows, e.cols};
    else
      return std::remove_cvref_t<Y>(std::forward<Y>(y));
  };
  using operands = std::tuple<decltype(operand(std::forward<X>(x)))...>;
  return std::apply(
      [&]<class... A>(A&&... a) {
        return run_time_elementwise<Op, std::remove_cvref_t<A>...>{
            {}, {}, std::move(op), {std::forward<A>(a)...}, e.rows, e.cols};
      },
      operands{operand(std::forward<X>(x))...});
}

/// ~m, m & n, m | n and m ^ n of formulas of bools, element by element: formulas of bools, once the
/// shapes agree (a row or a column repeats, as in the operations on numbers).
template <RunTimeMaskFormula M>
constexpr auto operator~(M&& m) {
  return make_run_time_elementwise(mask_not{}, std::forward<M>(m));
}
template <RunTimeMaskFormula M, RunTimeMaskFormula N>
constexpr auto operator&(M&& m, N&& n) {
  return make_run_time_elementwise(mask_and{}, std::forward<M>(m), std::forward<N>(n));
}
template <RunTimeMaskFormula M, RunTimeMaskFormula N>
constexpr auto operator|(M&& m, N&& n) {
  return make_run_time_elementwise(mask_or{}, std::forward<M>(m), std::forward<N>(n));
}
template <RunTimeMaskFormula M, RunTimeMaskFormula N>
constexpr auto operator^(M&& m, N&& n) {
  return make_run_time_elementwise(mask_xor{}, std::forward<M>(m), std::forward<N>(n));
}

/// The type of the first operand of run-time extents among X...
template <class X, class... Rest>
struct first_run_time {
  using type = typename first_run_time<Rest...>::type;
};
template <class X, class... Rest>
  requires RunTimeMatrix<X>
struct first_run_time<X, Rest...> {
  using type = std::remove_cvref_t<X>;
};

/// Element (i, j) of a plain operand, row 0 where it is one row, column 0 where one column
/// (fixed_one_along); a number is its own.
template <class X>
constexpr auto plain_element(const X& x, std::size_t i, std::size_t j) {
  if constexpr (RunTimeMatrix<X> || Matrix<X>)
    return x(fixed_one_along<X, true>() ? 0 : i, fixed_one_along<X, false>() ? 0 : j);
  else
    return x;
}

/// op(x...) of plain values, one of run-time extents (f called on plain values): its value, a matrix
/// of the first such operand's extents (a tl::matrix where that is a view), once the shapes agree.
template <class Op, class... X>
constexpr auto plain_run_time_elementwise(const Op& op, const X&... x) {
  const element_extents e = common_extents(traits_of<Op>().name, x...);
  using First = typename first_run_time<X...>::type;
  // The operands' common number type: dual numbers where f's double data meets x's under jvp.
  using T = std::common_type_t<scalar_type_of_t<X>...>;
  // Run-time extents where the first such operand repeats (a run-time row beside a fixed matrix).
  constexpr std::size_t rows = repeats_along<true, First, X...> ? dynamic : First::rows_extent;
  constexpr std::size_t cols = repeats_along<false, First, X...> ? dynamic : First::cols_extent;
  matrix<T, rows, cols> out(e.rows, e.cols);
  for (std::size_t i = 0; i < e.rows; ++i)
    for (std::size_t j = 0; j < e.cols; ++j)
      out(i, j) = static_cast<T>(op_value(op, static_cast<T>(plain_element(x, i, j))...));
  return out;
}

/// Throws std::out_of_range for a slice past its vector's end. Out of line and cold.
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] inline void throw_slice_past(
    std::size_t start, std::size_t length, std::size_t size,
    std::string_view operation = "tl::slice(v, start, length)") {
  throw std::out_of_range(std::string(operation) + ": elements " + std::to_string(start) + " to " +
                          std::to_string(start) + " + " + std::to_string(length) + " are past the size " +
                          std::to_string(size) + " of v");
}

/// tl::slice(v, start, length) of a vector v of any extents, checked against v's size.
template <class V>
constexpr auto make_run_time_slice(V&& v, std::size_t start, std::size_t length) {
  const element_extents e = extents_of(v);
  const std::size_t size = e.rows * e.cols;
  if (e.rows != 1 && e.cols != 1)
    throw std::invalid_argument("tl::slice(v, start, length): v is a " + shape_text(e.rows, e.cols) +
                                " matrix, not a vector");
  if (start > size || length > size - start) throw_slice_past(start, length, size);
  const bool column = e.cols == 1;
  return run_time_slice<std::remove_cvref_t<V>>{
      {}, {}, std::forward<V>(v), start, column ? length : 1, column ? 1 : length};
}

}  // namespace tapeless::detail
