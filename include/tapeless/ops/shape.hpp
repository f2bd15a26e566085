// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/shape.hpp: taking matrices apart and putting them together.
//
//   A(i, j), v[i]          one element, a scalar node (the members of every matrix expression)
//   row(A, i), col(A, j)   row i (1 x C) and column j (R x 1); i and j are run-time indices; of a
//                          matrix whose lines have a run-time length, a formula of the line's elements
//   slice<Start, Length>(v) Length consecutive elements of a vector, keeping its orientation
//   reshape<R, C>(A)       the same elements, row-major order, in an R x C matrix
//   concat(a, b, ...)      vertical stacking: b's rows below a's (one column count; a number is 1 x 1),
//                          so two column vectors give one longer vector and numbers give a vector;
//                          of column vectors of run-time size, a node holding their elements
//   diag(v)                a vector's diagonal matrix; diag(A) of a square matrix (not a vector) is
//                          its diagonal, as a column vector. A 1 x 1 matrix is a vector: diag gives it back.
//   zeros_like(A), ones_like(A)  plain matrices (numbers) of A's type: constants, without adjoint
//
// Each one moves elements only, so its adjoint moves them back: the adjoint of a row, column, slice
// or diagonal is 0 outside it. A run-time index past the extent (v[i], A(i, j), row, col) throws
// std::out_of_range naming the index and the extent, as tl::indices' loops rely on (a compile error in a
// constant expression); where the index is a constant, the compiler folds the check away.
#pragma once

#include <tapeless/expr/inline.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/shape.hpp>
#include <tapeless/ops/elementwise.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tapeless {
namespace ops {

/// y = x[index] (row-major): the adjoint goes to that element alone.
struct element : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{
      .name = "element", .vjp_reads = reads_nothing, .takes_run_time_extents = true};
  /// The elements of an operand M its adjoint can be nonzero at (expr/cut.hpp: what a cut keeps).
  template <class M>
  static constexpr std::size_t adjoint_part_size = 1;
  std::size_t index;
  constexpr explicit element(std::size_t i) : index(i) {}
  template <class M>
  constexpr auto value(const M& x) const {
    return x[index];
  }
  /// g at its element, zero elsewhere, without writing the zeros (adjoint/structured.hpp, one_element).
  template <class M, class G, class T>
  constexpr auto vjp(G g, const M& x, T) const {
    return ::tapeless::detail::one_element<M>{index, static_cast<typename M::value_type>(g), x.rows(), x.cols()};
  }
};

/// g in its row or column of an R x C matrix, zero elsewhere, without writing the zeros: pointing at a
/// dense g, holding a structured one made dense here (adjoint/structured.hpp, strided_part).
template <class M, class G, class X>
constexpr auto line_adjoint(const G& g, std::size_t start, std::size_t stride, const X& x) {
  if constexpr (::tapeless::detail::is_structured<G>)
    return ::tapeless::detail::strided_part<M, typename G::matrix_type, true>{
        {g.dense()}, start, stride, x.rows(), x.cols()};
  else
    return ::tapeless::detail::strided_part<M, G, false>{{&g}, start, stride, x.rows(), x.cols()};
}

/// y = row `index` of x, a 1 x C matrix.
struct row : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "row", .vjp_reads = reads_nothing, .takes_run_time_extents = true};
  template <class M>
  static constexpr std::size_t adjoint_part_size = M::cols();
  std::size_t index;
  constexpr explicit row(std::size_t i) : index(i) {}
  // X is a tl::matrix, or a view of one (an Eigen matrix read in place): its adjoint is the matrix's.
  template <class T, std::size_t R, std::size_t C, template <class, std::size_t, std::size_t> class X>
  constexpr matrix<T, 1, C> value(const X<T, R, C>& x) const {
    matrix<T, 1, C> y;
    for (std::size_t j = 0; j < C; ++j) y[j] = x(index, j);
    return y;
  }
  template <class G, class T, std::size_t R, std::size_t C, template <class, std::size_t, std::size_t> class X>
  constexpr auto vjp(const G& g, const X<T, R, C>& x, const matrix<T, 1, C>&) const {
    return line_adjoint<matrix<T, R, C>>(g, index * C, 1, x);
  }
};

/// y = column `index` of x, an R x 1 vector.
struct col : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "col", .vjp_reads = reads_nothing, .takes_run_time_extents = true};
  template <class M>
  static constexpr std::size_t adjoint_part_size = M::rows();
  std::size_t index;
  constexpr explicit col(std::size_t j) : index(j) {}
  template <class T, std::size_t R, std::size_t C, template <class, std::size_t, std::size_t> class X>
  constexpr matrix<T, R, 1> value(const X<T, R, C>& x) const {
    matrix<T, R, 1> y;
    for (std::size_t i = 0; i < R; ++i) y[i] = x(i, index);
    return y;
  }
  template <class G, class T, std::size_t R, std::size_t C, template <class, std::size_t, std::size_t> class X>
  constexpr auto vjp(const G& g, const X<T, R, C>& x, const matrix<T, R, 1>&) const {
    return line_adjoint<matrix<T, R, C>>(g, index, x.cols(), x);  // C is a marker where the columns are run-time
  }
};

/// y = row `index` (Row) or column `index` of a matrix of run-time extents whose other extent is Length
/// at run time, as a column of Length: what a product of such a matrix and a fixed one dots
/// (transforms/run_time_reduction.hpp). Its adjoint is g in that line, as row's and col's.
template <std::size_t Length, bool Row>
struct fixed_line : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{
      .name = Row ? "row" : "col", .vjp_reads = reads_nothing, .takes_run_time_extents = true};
  template <class M>
  static constexpr std::size_t adjoint_part_size = Length;
  std::size_t index;
  constexpr explicit fixed_line(std::size_t i) : index(i) {}
  template <class T, std::size_t R, std::size_t C, template <class, std::size_t, std::size_t> class X>
  constexpr matrix<T, Length, 1> value(const X<T, R, C>& x) const {
    matrix<T, Length, 1> y;
    for (std::size_t k = 0; k < Length; ++k) y[k] = Row ? x(index, k) : x(k, index);
    return y;
  }
  template <class G, class T, std::size_t R, std::size_t C, template <class, std::size_t, std::size_t> class X>
  constexpr auto vjp(const G& g, const X<T, R, C>& x, const matrix<T, Length, 1>&) const {
    return Row ? line_adjoint<matrix<T, R, C>>(g, index * x.cols(), 1, x)
               : line_adjoint<matrix<T, R, C>>(g, index, x.cols(), x);
  }
};

/// y = elements Start .. Start + Length - 1 of a vector, a vector of the same orientation.
template <std::size_t Start, std::size_t Length>
struct slice : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{
      .name = "slice", .vjp_reads = reads_nothing, .elements_from = Start, .selects_elements = true};
  template <class M>
  static constexpr std::size_t adjoint_part_size = Length;
  template <class T, std::size_t R, std::size_t C>
  using result = std::conditional_t<C == 1, matrix<T, Length, 1>, matrix<T, 1, Length>>;

  template <class T, std::size_t R, std::size_t C>
  static constexpr result<T, R, C> value(const matrix<T, R, C>& x) {
    result<T, R, C> y;
    for (std::size_t i = 0; i < Length; ++i) y[i] = x[Start + i];
    return y;
  }
  /// g in its place among zeros, which are not written out until an adjoint sum takes it: pointing at
  /// a dense g, holding a uniform or repeated one made dense here (adjoint/structured.hpp, placed).
  template <class G, class T, std::size_t R, std::size_t C>
  static constexpr auto vjp(const G& g, const matrix<T, R, C>&, const result<T, R, C>&) {
    if constexpr (::tapeless::detail::is_structured<G>)
      return ::tapeless::detail::placed<matrix<T, R, C>, Start, result<T, R, C>, true>{{g.dense()}};
    else
      return ::tapeless::detail::placed<matrix<T, R, C>, Start, result<T, R, C>, false>{{&g}};
  }
};

/// y = elements Start .. Start + Length - 1 of a vector of run-time extents whose type fixes its
/// orientation (a tl::vector, or a 1 x tl::dynamic row), read where it lies: a fixed-size vector, which
/// every fixed-shape operation takes. Its adjoint is g at its elements' places (line_adjoint), as a
/// row's; tl::slice checks the vector's size before building it.
template <std::size_t Start, std::size_t Length>
struct slice_of_run_time : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "slice", .vjp_reads = reads_nothing, .takes_run_time_extents = true};
  template <class M>
  static constexpr std::size_t adjoint_part_size = Length;
  template <class T, std::size_t C>
  using result = std::conditional_t<C == 1, matrix<T, Length, 1>, matrix<T, 1, Length>>;

  // X is a tl::matrix, or a view of one (an Eigen vector read in place): its adjoint is the matrix's.
  template <class T, std::size_t R, std::size_t C, template <class, std::size_t, std::size_t> class X>
  static constexpr result<T, C> value(const X<T, R, C>& x) {
    result<T, C> y;
    for (std::size_t i = 0; i < Length; ++i) y[i] = x[Start + i];
    return y;
  }
  template <class G, class T, std::size_t R, std::size_t C, template <class, std::size_t, std::size_t> class X>
  static constexpr auto vjp(const G& g, const X<T, R, C>& x, const result<T, C>&) {
    return line_adjoint<matrix<T, R, C>>(g, Start, 1, x);
  }
};

/// y = x's elements in row-major order, as an R2 x C2 matrix.
template <std::size_t R2, std::size_t C2>
struct reshape : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "reshape", .vjp_reads = reads_nothing, .selects_elements = true};
  template <class T, std::size_t R, std::size_t C>
  static constexpr matrix<T, R2, C2> value(const matrix<T, R, C>& x) {
    matrix<T, R2, C2> y(::tapeless::detail::uninitialized);
    for (std::size_t i = 0; i < R * C; ++i) y[i] = x[i];
    return y;
  }
  template <class T, std::size_t R, std::size_t C>
  static constexpr matrix<T, R, C> vjp(const matrix<T, R2, C2>& g, const matrix<T, R, C>&, const matrix<T, R2, C2>&) {
    matrix<T, R, C> gx(::tapeless::detail::uninitialized);
    for (std::size_t i = 0; i < R * C; ++i) gx[i] = g[i];
    return gx;
  }
};

/// y = rows R0 .. R0 + BR - 1 and columns C0 .. C0 + BC - 1 of x, a BR x BC matrix; its adjoint is g
/// in its place among zeros.
template <std::size_t R0, std::size_t C0, std::size_t BR, std::size_t BC>
struct block : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "block", .vjp_reads = reads_nothing, .selects_elements = true};
  template <class T, std::size_t R, std::size_t C>
  static constexpr matrix<T, BR, BC> value(const matrix<T, R, C>& x) {
    matrix<T, BR, BC> y(::tapeless::detail::uninitialized);
    for (std::size_t i = 0; i < BR; ++i)
      for (std::size_t j = 0; j < BC; ++j) y(i, j) = x(R0 + i, C0 + j);
    return y;
  }
  template <class T, std::size_t R, std::size_t C>
  static constexpr matrix<T, R, C> vjp(const matrix<T, BR, BC>& g, const matrix<T, R, C>&, const matrix<T, BR, BC>&) {
    matrix<T, R, C> gx{};
    for (std::size_t i = 0; i < BR; ++i)
      for (std::size_t j = 0; j < BC; ++j) gx(R0 + i, C0 + j) = g(i, j);
    return gx;
  }
};

/// z = a stacked above b (same column count; a number is 1 x 1). Row-major, so z's elements are
/// a's followed by b's, and each side's adjoint is its own part of g.
struct concat : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "concat", .vjp_reads = reads_nothing, .selects_elements = true};
  template <class A, class B>
  static constexpr auto value(const A& a, const B& b) {
    using T = std::common_type_t<scalar_of_t<A>, scalar_of_t<B>>;
    constexpr shape sa = shape_of<A>, sb = shape_of<B>;
    constexpr std::size_t na = sa.rows * sa.cols, nb = sb.rows * sb.cols;
    matrix<T, sa.rows + sb.rows, sa.cols> z;
    for (std::size_t i = 0; i < na; ++i) z[i] = static_cast<T>(::tapeless::detail::broadcast_element(a, i));
    for (std::size_t i = 0; i < nb; ++i) z[na + i] = static_cast<T>(::tapeless::detail::broadcast_element(b, i));
    return z;
  }
  template <class M, class A, class B>
  static constexpr A vjp_lhs(const M& g, const A&, const B&, const M&) {
    return part<A>(g, 0);
  }
  template <class M, class A, class B>
  static constexpr B vjp_rhs(const M& g, const A&, const B&, const M&) {
    return part<B>(g, shape_of<A>.rows * shape_of<A>.cols);
  }

 private:
  template <class S, class M>
  static constexpr S part(const M& g, std::size_t offset) {
    if constexpr (Matrix<S>) {
      S s;
      for (std::size_t i = 0; i < S::size(); ++i) s[i] = g[offset + i];
      return s;
    } else {
      return static_cast<S>(g[offset]);
    }
  }
};

/// z = a's elements followed by b's, each row-major, where either has run-time extents: a column
/// vector of their count (a number counts one). It holds the operands' extents, so that its own are
/// known without its value (expr/expression.hpp); each side's adjoint is its own part of g, in that
/// side's extents and type (of a view, the tl::matrix it reads as).
struct run_time_concat : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{
      .name = "concat", .vjp_reads = reads{.lhs = true, .rhs = true, .value = false}, .takes_run_time_extents = true};
  std::size_t lhs_count = 1, rhs_count = 1;

  [[nodiscard]] constexpr ::tapeless::detail::element_extents extents() const noexcept {
    return {lhs_count + rhs_count, 1, false};
  }

  /// The most elements an operand of type V holds: tl::dynamic where it has no bound.
  template <class V>
  static constexpr std::size_t most_elements() {
    if constexpr (Matrix<V>) {
      return V::size();
    } else if constexpr (RunTimeMatrix<V>) {
      constexpr std::size_t r = max_extent(V::rows_extent), c = max_extent(V::cols_extent);
      return r == dynamic || c == dynamic ? dynamic : r * c;
    } else {
      return 1;
    }
  }
  /// The value's type: tl::bounded where both operands are bounded or fixed (no heap), else tl::dynamic.
  template <class A, class B>
  static constexpr std::size_t extent_of() {
    constexpr std::size_t a = most_elements<A>(), b = most_elements<B>();
    if constexpr (a == dynamic || b == dynamic)
      return dynamic;
    else
      return bounded<a + b>;
  }
  template <class A, class B>
  using value_type = matrix<std::common_type_t<scalar_of_t<A>, scalar_of_t<B>>, extent_of<A, B>(), 1>;

  template <class A, class B>
  constexpr value_type<A, B> value(const A& a, const B& b) const {
    using T = scalar_of_t<value_type<A, B>>;
    value_type<A, B> z(lhs_count + rhs_count);
    for (std::size_t i = 0; i < lhs_count; ++i) z[i] = static_cast<T>(element_of(a, i));
    for (std::size_t i = 0; i < rhs_count; ++i) z[lhs_count + i] = static_cast<T>(element_of(b, i));
    return z;
  }
  // A dense adjoint, or the sum's partials times its adjoint (scaled), read in place: each part is
  // written once, with no dense copy of the whole first.
  template <class G, class A, class B, class Z>
    requires(!::tapeless::detail::is_structured<G> || ::tapeless::detail::is_scaled<G>)
  constexpr auto vjp_lhs(const G& g, const A& a, const B&, const Z&) const { return part(g, a, 0); }
  template <class G, class A, class B, class Z>
    requires(!::tapeless::detail::is_structured<G> || ::tapeless::detail::is_scaled<G>)
  constexpr auto vjp_rhs(const G& g, const A&, const B& b, const Z&) const { return part(g, b, lhs_count); }

 private:
  /// Element i of x, row-major; a number is its one element.
  template <class X>
  static constexpr auto element_of(const X& x, std::size_t i) {
    if constexpr (Matrix<X> || RunTimeMatrix<X>)
      return x[i];
    else
      return x;
  }
  template <class G>
  static constexpr auto adjoint_at(const G& g, std::size_t i) {
    if constexpr (::tapeless::detail::is_scaled<G>)
      return (*g.of)[i] * g.factor;
    else
      return g[i];
  }
  template <class G, class X>
  static constexpr auto part(const G& g, const X& x, std::size_t offset) {
    using T = std::remove_cvref_t<decltype(adjoint_at(g, 0))>;
    if constexpr (RunTimeMatrix<X>) {
      matrix<T, X::rows_extent, X::cols_extent> s(x.rows(), x.cols());
      for (std::size_t i = 0; i < s.size(); ++i) s[i] = adjoint_at(g, offset + i);
      return s;
    } else if constexpr (Matrix<X>) {
      matrix<T, X::rows(), X::cols()> s(::tapeless::detail::uninitialized);
      for (std::size_t i = 0; i < X::size(); ++i) s[i] = adjoint_at(g, offset + i);
      return s;
    } else {
      return adjoint_at(g, offset);
    }
  }
};

/// y = the N x N matrix with the vector x on its diagonal.
struct diag : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "diag", .vjp_reads = reads_nothing, .selects_elements = true};
  template <class T, std::size_t R, std::size_t C>
  static constexpr matrix<T, R * C, R * C> value(const matrix<T, R, C>& x) {
    matrix<T, R * C, R * C> y{};
    for (std::size_t i = 0; i < R * C; ++i) y(i, i) = x[i];
    return y;
  }
  template <class T, std::size_t R, std::size_t C>
  static constexpr matrix<T, R, C> vjp(const matrix<T, R * C, R * C>& g, const matrix<T, R, C>&,
                                       const matrix<T, R * C, R * C>&) {
    matrix<T, R, C> gx;
    for (std::size_t i = 0; i < R * C; ++i) gx[i] = g(i, i);
    return gx;
  }
};

/// y = the diagonal of a square matrix, as a column vector.
struct diagonal : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "diagonal", .vjp_reads = reads_nothing, .selects_elements = true};
  template <class T, std::size_t N>
  static constexpr matrix<T, N, 1> value(const matrix<T, N, N>& x) {
    matrix<T, N, 1> y;
    for (std::size_t i = 0; i < N; ++i) y[i] = x(i, i);
    return y;
  }
  template <class T, std::size_t N>
  static constexpr matrix<T, N, N> vjp(const matrix<T, N, 1>& g, const matrix<T, N, N>&, const matrix<T, N, 1>&) {
    matrix<T, N, N> gx{};
    for (std::size_t i = 0; i < N; ++i) gx(i, i) = g[i];
    return gx;
  }
};

}  // namespace ops

namespace detail {

/// The access a run-time index is checked for, named in the message of throw_index_past.
enum class index_access : unsigned char { element, element_row, element_column, row, column };

/// Throws std::out_of_range for `index` past `extent` in `access`. Out of line and cold, and taking
/// integers only, so that where the check passes it costs its comparison and a short call.
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] inline void throw_index_past(std::size_t index, std::size_t extent,
                                                                          index_access access) {
  const char* which = access == index_access::element_row      ? "row index "
                      : access == index_access::element_column ? "column index "
                                                               : "index ";
  const char* where = access == index_access::element  ? "v[i]"
                      : access == index_access::row    ? "tl::row(A, i)"
                      : access == index_access::column ? "tl::col(A, j)"
                                                       : "A(i, j)";
  throw std::out_of_range(std::string("tl: ") + which + std::to_string(index) + " is past the extent " +
                          std::to_string(extent) + " of " + where);
}

/// Checks a run-time index against its extent before the access reads anything. Forced inline, as are
/// element_of, row, col and the element operators of expr/expression.hpp (expr/inline.hpp): left to
/// g++'s early inliner, the call the check adds stops the builders from being inlined into the function
/// that writes the access, so its nodes stay in memory, that function's stack frame passes g++'s
/// large-stack-frame-growth limit and it is called out of line from the gradient, 1.4 times slower for a
/// small network. Inlined, a constant index folds the check away where it is written.
TAPELESS_BUILD_INLINE constexpr void check_index(std::size_t index, std::size_t extent, index_access access) {
  if (index >= extent) [[unlikely]]
    throw_index_past(index, extent, access);
}

template <class E, class Part>
constexpr auto part_node(const E& e, const Part& part);

/// The part of a broadcast row or column (operation/elementwise.hpp, broadcast_to) read from the line
/// itself, so that an access in a loop over the elements or rows costs the part, not the R x C
/// replication: an element is an element of the line; row i is the line's row (row 0 of a 1 x C row,
/// row i of an R x 1 column), repeated along the row if the line has one column; col j likewise. Other
/// parts (a slice) read the replicated value (void here).
template <class E, class Part>
struct line_of_broadcast {
  using type = void;
};
template <class E, class Part>
  requires(is_broadcast<operation_of_t<E>> &&
           (std::is_same_v<Part, ops::element> || std::is_same_v<Part, ops::row> || std::is_same_v<Part, ops::col>))
struct line_of_broadcast<E, Part> {
  using type = line_of_broadcast;
  using M = typename E::value_type;
  using X = typename std::remove_cvref_t<child_t<0, E>>::value_type;
  template <class Line>
  static constexpr auto of(const Line& x, const Part& part) {
    if constexpr (std::is_same_v<Part, ops::element>) {
      const std::size_t i = X::rows() == 1 ? 0 : part.index / M::cols();
      const std::size_t j = X::cols() == 1 ? 0 : part.index % M::cols();
      return part_node(x, ops::element(i * X::cols() + j));
    } else if constexpr (std::is_same_v<Part, ops::row>) {
      auto line = part_node(x, ops::row(X::rows() == 1 ? 0 : part.index));
      if constexpr (X::cols() == M::cols())
        return line;
      else
        return make_unary(broadcast_to<1, M::cols()>{}, std::move(line));
    } else {
      auto line = part_node(x, ops::col(X::cols() == 1 ? 0 : part.index));
      if constexpr (X::rows() == M::rows())
        return line;
      else
        return make_unary(broadcast_to<M::rows(), 1>{}, std::move(line));
    }
  }
};

/// What the part of an elementwise operation reads of its operand x: that part of a matrix, or the
/// number itself, which a number beside a matrix stands for at every element.
template <class X, class Part>
constexpr auto operand_part_node(const X& x, const Part& part) {
  if constexpr (Matrix<typename X::value_type>)
    return part_node(x, part);
  else
    return x;
}

/// A part of the matrix-valued node e (`part` is an element, a row, a column or a slice: an operation
/// that moves elements only) as a node that reads only what the part needs. The part of an elementwise
/// operation is the operation on its operands' parts ((x - y)[i] is x[i] - y[i], row(exp(A), i) is
/// exp(row(A, i))), and an element of data is that number. Anything else reads the part of the node's
/// value.
/// So an access costs the size of the part, plus the work of what it reads, and its adjoint is the part
/// in its place, without the zeros around it (adjoint/structured.hpp).
template <class E, class Part>
constexpr auto part_node(const E& e, const Part& part) {
  if constexpr (!std::is_void_v<typename line_of_broadcast<E, Part>::type>) {
    return line_of_broadcast<E, Part>::of(child<0>(e), part);
  } else if constexpr (is_elementwise_node<E> && child_count<E> == 1)
    return make_unary(e.op.op, operand_part_node(child<0>(e), part));
  else if constexpr (is_elementwise_node<E>)
    return make_binary(e.op.op, operand_part_node(child<0>(e), part), operand_part_node(child<1>(e), part));
  else if constexpr (!E::is_active && Real<decltype(op_value(part, e.value()))>)
    return constant<decltype(op_value(part, e.value()))>(op_value(part, e.value()));
  else
    return make_unary(part, e);  // a region reads a slice of a leaf in place (sweep/region.hpp)
}

/// row(a, i) and the like: the part_node of an expression, else the node or value make_unary makes.
/// (Fits is named only once Kind holds, as checked_node does: its static_assert names the shapes.)
template <class Fits, bool Kind, class Part, class A>
constexpr auto part_of(const Part& part, A&& a) {
  if constexpr (Kind && Expression<std::remove_cvref_t<A>>) {
    if constexpr (Fits::ok)
      return part_node(a, part);
    else
      return checked_node<Fits, Kind>(part, std::forward<A>(a));
  } else {
    return checked_node<Fits, Kind>(part, std::forward<A>(a));
  }
}

/// Whether M is a matrix of run-time extents with one fixed extent 1: a vector, which v[i] reads.
template <class M>
inline constexpr bool run_time_vector = false;
template <RunTimeMatrix M>
inline constexpr bool run_time_vector<M> = M::rows_extent == 1 || M::cols_extent == 1;

/// A part (an element, a row, a column) of a matrix of run-time extents: a node reading it from a node,
/// whose adjoint goes to the part alone (adjoint/structured.hpp); of data (a tl::cref), a constant of
/// its value; of plain data, its value. `value` reads the part from a plain matrix or a view.
template <class Part, class A, class Value>
TAPELESS_BUILD_INLINE constexpr auto run_time_part(const Part& part, A&& a, const Value& value) {
  using E = std::remove_cvref_t<A>;
  if constexpr (!Expression<E>)
    return value(a);
  else if constexpr (!E::is_active)
    return constant<std::remove_cvref_t<decltype(value(a.value()))>>(value(a.value()));
  else
    return make_unary(part, std::forward<A>(a));
}

/// Whether M is a matrix of fixed extents with one column or one row.
template <class M>
inline constexpr bool fixed_vector = false;
template <Matrix M>
inline constexpr bool fixed_vector<M> = M::rows() == 1 || M::cols() == 1;

/// A(i, j) and v[i] of a matrix node, reached from expr/expression.hpp through its tag layer_above.
template <class E>
TAPELESS_BUILD_INLINE constexpr auto element_of(const E& e, std::size_t i, std::size_t j, layer_above) {
  using M = typename E::value_type;
  static_assert(Matrix<M> || RunTimeMatrix<M>,
                "A(i, j): A is a scalar expression; only a matrix expression has elements");
  if constexpr (RunTimeMatrix<M>) {
    check_index(i, e.rows(), index_access::element_row);
    check_index(j, e.cols(), index_access::element_column);
    return run_time_part(ops::element(i * e.cols() + j), e, [&](const auto& x) { return x(i, j); });
  } else if constexpr (Matrix<M>) {
    check_index(i, M::rows(), index_access::element_row);
    check_index(j, M::cols(), index_access::element_column);
    return part_node(e, ops::element(i * M::cols() + j));
  }
}
template <class E>
TAPELESS_BUILD_INLINE constexpr auto element_of(const E& e, std::size_t i, layer_above) {
  using M = typename E::value_type;
  static_assert(run_time_vector<M> || fixed_vector<M>,
                "v[i]: v must be a vector expression (one column or one row); write A(i, j) for a matrix");
  if constexpr (run_time_vector<M>) {
    check_index(i, e.size(), index_access::element);
    return run_time_part(ops::element(i), e, [&](const auto& x) { return x[i]; });
  } else if constexpr (Matrix<M>) {
    check_index(i, M::size(), index_access::element);
    return part_node(e, ops::element(i));
  }
}
}  // namespace detail

/// A plain matrix (or number) of x's type with every element 0: a constant, not a node.
template <Operand X>
constexpr auto zeros_like(const X&) {
  return detail::filled<value_type_of_t<X>>(0.0);
}
/// A plain matrix (or number) of x's type with every element 1: a constant, not a node.
template <Operand X>
constexpr auto ones_like(const X&) {
  return detail::filled<value_type_of_t<X>>(1.0);
}

namespace detail {
/// Whether E is a parameter of a sum as its term reads it: an argument in a parameter's slot.
template <class E>
inline constexpr bool sum_parameter = false;
template <std::size_t Slot, class M>
inline constexpr bool sum_parameter<argument<Slot, M>> = Slot >= parameter_slot;

/// Row (Row) or column `index` of a, whose lines have a run-time length: the formula of those elements
/// (expr/run_time_elementwise.hpp, run_time_slice), one row or one column by its type; of plain values,
/// the plain line. Not of a sum's parameter in its term: a sum over the line there would keep partials
/// of the whole parameter for each term, a pass over all of it per line read.
template <bool Row, class A>
constexpr auto run_time_line(A&& a, std::size_t index) {
  if constexpr (Row)
    static_assert(!sum_parameter<std::remove_cvref_t<A>>,
                  "tl::row(A, i): A has a run-time number of columns and is a parameter of this sum, whose term "
                  "reads it by element: read A(i, j), or fix the columns at compile time (tl::matrix<double, "
                  "tl::dynamic, 3>)");
  else
    static_assert(!sum_parameter<std::remove_cvref_t<A>>,
                  "tl::col(A, j): A has a run-time number of rows and is a parameter of this sum, whose term "
                  "reads it by element: read A(i, j), or fix the rows at compile time (tl::matrix<double, 3, "
                  "tl::dynamic>)");
  const element_extents e = extents_of(a);
  using S = run_time_slice<std::remove_cvref_t<A>, Row ? slice_kind::row : slice_kind::column>;
  S line{
      {}, {}, std::forward<A>(a), Row ? index * e.cols : index, Row ? 1 : e.rows, Row ? e.cols : 1, Row ? 1 : e.cols};
  if constexpr (Differentiable<A> || RunTimeFormula<A>) {
    return line;
  } else {
    using T = scalar_type_of_t<std::remove_cvref_t<A>>;
    matrix<T, Row ? 1 : dynamic, Row ? dynamic : 1> out(line.rows(), line.cols());
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = line.operand[line.start + k * line.stride];
    return out;
  }
}

/// Row (Row) or column `index` of a: of a matrix of run-time extents, its index checked against them
/// at run time; of a fixed shape, against its type's.
template <bool Row, class A>
TAPELESS_BUILD_INLINE constexpr auto line_of(A&& a, std::size_t index) {
  using V = value_type_of_t<A>;
  using Part = std::conditional_t<Row, ops::row, ops::col>;
  constexpr index_access access = Row ? index_access::row : index_access::column;
  if constexpr (RunTimeMatrix<V>) {
    check_index(index, Row ? a.rows() : a.cols(), access);
    if constexpr (fixed_extent(Row ? V::cols_extent : V::rows_extent))
      return run_time_part(Part(index), std::forward<A>(a), [&](const auto& x) { return Part(index).value(x); });
    else
      return run_time_line<Row>(std::forward<A>(a), index);
  } else {
    constexpr bool kind = Matrix<V>;
    if constexpr (Row)
      static_assert(kind || ShapeError<A>, "tl::row(A, i): A must be a matrix or a matrix expression");
    else
      static_assert(kind || ShapeError<A>, "tl::col(A, j): A must be a matrix or a matrix expression");
    if constexpr (kind) check_index(index, Row ? V::rows() : V::cols(), access);
    return part_of<shapes::any_shapes<>, kind>(Part(index), std::forward<A>(a));
  }
}
}  // namespace detail

/// Row i of the matrix a, as a 1 x C matrix.
template <Operand A>
TAPELESS_BUILD_INLINE constexpr auto row(A&& a, std::size_t i) {
  return detail::line_of<true>(std::forward<A>(a), i);
}

/// Column j of the matrix a, as an R x 1 vector.
template <Operand A>
TAPELESS_BUILD_INLINE constexpr auto col(A&& a, std::size_t j) {
  return detail::line_of<false>(std::forward<A>(a), j);
}

/// Elements Start .. Start + Length - 1 of the vector v: a column (row) vector of Length for a column
/// (row) vector v. With it, sums over neighbours are vector operations:
///
///   // Rosenbrock: sum of 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2, i < N - 1
///   auto head = tl::slice<0, N - 1>(x);
///   auto tail = tl::slice<1, N - 1>(x);
///   return tl::sum(100.0 * tl::square(tail - tl::square(head)) + tl::square(1.0 - head));
///
/// Of a vector of run-time extents (tl::vector<double, tl::dynamic>, an Eigen vector), a fixed-size
/// vector read where it lies, after its size is checked (std::out_of_range); of a formula over such
/// vectors, tl::slice(v, Start, Length).
template <std::size_t Start, std::size_t Length, Operand V>
constexpr auto slice(V&& v) {
  using M = value_type_of_t<V>;
  if constexpr (RunTimeMatrix<M> && !detail::RunTimeFormula<V>) {
    // An argument, data or tl::cref of run-time extents: a fixed-size slice of it, its size checked here.
    constexpr bool oriented = M::rows_extent == 1 || M::cols_extent == 1;
    static_assert(oriented,
                  "tl::slice<Start, Length>(v): v has run-time rows and columns, so its slice has no fixed "
                  "orientation; make v a tl::vector (or a 1 x tl::dynamic row), or write "
                  "tl::slice(v, start, length)");
    if constexpr (oriented) {
      const std::size_t size = value_of(v).size();
      if (Start > size || Length > size - Start)
        detail::throw_slice_past(Start, Length, size, "tl::slice<Start, Length>(v)");
      return detail::run_time_part(ops::slice_of_run_time<Start, Length>{}, std::forward<V>(v),
                                   [](const auto& x) { return ops::slice_of_run_time<Start, Length>::value(x); });
    } else {
      return detail::shape_error{};
    }
  } else if constexpr (detail::RunTimeFormula<V>) {
    // A formula over arrays of run-time extents: its elements Start ..., as tl::slice(v, Start, Length).
    return detail::make_run_time_slice(std::forward<V>(v), Start, Length);
  } else {
    constexpr bool kind = Matrix<M>;
    static_assert(kind || ShapeError<V> || !detail::fixed_extents_in<V>(),
                  "tl::slice<Start, Length>(v): v must be a vector or a vector expression");
    return detail::part_of<shapes::slice_shapes<shape_of<M>, Start, Length>, kind>(ops::slice<Start, Length>{},
                                                                                   std::forward<V>(v));
  }
}

/// Elements start .. start + length - 1 of the vector v, start and length known at run time: a vector
/// of run-time length, which the elementwise operations and the reductions (tl::sum, tl::dot, ...)
/// take, read from v in place. A slice past v's end throws std::out_of_range before anything is read.
///
///   const std::size_t n = x.size();
///   const auto head = tl::slice(x, 0, n - 1), tail = tl::slice(x, 1, n - 1);
///   return tl::sum(100.0 * tl::square(tail - tl::square(head)) + tl::square(1.0 - head));
template <Operand V>
constexpr auto slice(V&& v, std::size_t start, std::size_t length) {
  using M = value_type_of_t<V>;
  constexpr bool vector = detail::RunTimeFormula<V> || RunTimeMatrix<M> || detail::fixed_vector<M>;
  static_assert(vector || ShapeError<V>,
                "tl::slice(v, start, length): v must be a vector (one row or one column) or a vector expression");
  if constexpr (vector)
    return detail::make_run_time_slice(std::forward<V>(v), start, length);
  else
    return detail::shape_error{};
}

/// A's elements in row-major order as an R x C matrix; R x C must equal A's size.
template <std::size_t R, std::size_t C, Operand A>
constexpr auto reshape(A&& a) {
  if constexpr (RunTimeMatrix<value_type_of_t<A>> && !detail::RunTimeRecord<A>) {
    // An argument, data or tl::cref of run-time extents: its first R x C elements read where they lie,
    // once its size is checked.
    const std::size_t size = detail::value_of(a).size();
    if (size != R * C)
      throw std::invalid_argument("tl::reshape<R, C>(A): A has " + std::to_string(size) + " elements and " +
                                  detail::shape_text(R, C) + " holds " + std::to_string(R * C));
    using part = ops::slice_of_run_time<0, R * C>;
    return reshape<R, C>(
        detail::run_time_part(part{}, std::forward<A>(a), [](const auto& x) { return part::value(x); }));
  } else {
    constexpr bool kind = Matrix<value_type_of_t<A>>;
    static_assert(kind || ShapeError<A> || !detail::fixed_extents_in<A>(),
                  "tl::reshape<R, C>(A): A must be a matrix or a matrix expression");
    return detail::checked_node<shapes::reshape_shapes<shape_of<value_type_of_t<A>>, shape{R, C}>, kind>(
        ops::reshape<R, C>{}, std::forward<A>(a));
  }
}

/// Rows R0 .. R0 + BR - 1 and columns C0 .. C0 + BC - 1 of the matrix A, a BR x BC matrix. With it,
/// sums over the neighbours of a grid are matrix operations:
///
///   // the differences between each point of an N x N grid X and its right and lower neighbours
///   auto right = tl::block<0, 1, N, N - 1>(X) - tl::block<0, 0, N, N - 1>(X);
///   auto down = tl::block<1, 0, N - 1, N>(X) - tl::block<0, 0, N - 1, N>(X);
template <std::size_t R0, std::size_t C0, std::size_t BR, std::size_t BC, Operand A>
constexpr auto block(A&& a) {
  constexpr bool kind = Matrix<value_type_of_t<A>>;
  static_assert(kind || ShapeError<A> || !detail::fixed_extents_in<A>(),
                "tl::block<R0, C0, BR, BC>(A): A must be a matrix or a matrix expression of extents fixed at "
                "compile time");
  return detail::checked_node<shapes::block_shapes<shape_of<value_type_of_t<A>>, R0, C0, BR, BC>, kind>(
      ops::block<R0, C0, BR, BC>{}, std::forward<A>(a));
}

/// a stacked above b: an (Ra + Rb) x C matrix from an Ra x C and an Rb x C one. A number counts as
/// 1 x 1, so concat(v, 1.0) appends an element to a column vector and concat(x, y, z) of numbers is a
/// 3-vector. With more than two operands, they are stacked in order.
template <Operand A, Operand B>
constexpr auto concat(A&& a, B&& b) {
  constexpr shape sa = shape_of<value_type_of_t<A>>, sb = shape_of<value_type_of_t<B>>;
  return detail::checked_node<shapes::concat_shapes<sa, sb>, true>(ops::concat{}, std::forward<A>(a),
                                                                   std::forward<B>(b));
}
/// a's elements followed by b's where either is an array of run-time extents: column vectors by their
/// types (tl::vector, Eigen::VectorXd) or numbers, each an argument, data or a node. A node of their
/// count of elements that holds its value (one block; none for tl::bounded and fixed operands), and
/// whose adjoint goes back to each in its part. (Of a formula over such arrays, its value held by a
/// node first: transforms/held_formulas.hpp.)
template <Operand A, Operand B>
  requires(detail::RunTimeArray<A> || detail::RunTimeArray<B>)
constexpr auto concat(A&& a, B&& b) {
  constexpr bool columns = detail::fixed_one_along<A, false>() && detail::fixed_one_along<B, false>();
  static_assert(columns,
                "tl::concat(a, b) of arrays of run-time extents: a and b must be column vectors by their types "
                "(tl::vector, Eigen::VectorXd) or numbers");
  if constexpr (columns) {
    const detail::element_extents ea = detail::extents_of(a), eb = detail::extents_of(b);
    const ops::run_time_concat op{{}, ea.rows * ea.cols, eb.rows * eb.cols};
    if constexpr (Differentiable<A> || Differentiable<B>)
      return detail::make_binary(op, std::forward<A>(a), std::forward<B>(b));
    else
      return op.value(a, b);  // of plain values, the plain vector
  } else {
    return detail::shape_error{};  // its static_assert has spoken
  }
}
template <Operand A, Operand B, Operand... Rest>
  requires(sizeof...(Rest) > 0)
constexpr auto concat(A&& a, B&& b, Rest&&... rest) {
  return concat(concat(std::forward<A>(a), std::forward<B>(b)), std::forward<Rest>(rest)...);
}

/// For a vector x (one column or one row), the square matrix with x on its diagonal; for a square
/// matrix x that is not a vector, its diagonal as a column vector.
template <Operand X>
constexpr auto diag(X&& x) {
  using M = value_type_of_t<X>;
  if constexpr (detail::RunTimeArray<X>) {
    return detail::make_run_time_diag(std::forward<X>(x));  // a formula (expr/run_time_elementwise.hpp)
  } else {
    constexpr bool kind = Matrix<M>;
    static_assert(kind || ShapeError<X>, "tl::diag(x): x must be a vector or a square matrix, or an expression of one");
    constexpr shape s = shape_of<M>;
    if constexpr (s.rows == 1 || s.cols == 1)
      return detail::checked_node<shapes::diag_shape<s>, kind>(ops::diag{}, std::forward<X>(x));
    else
      return detail::checked_node<shapes::diag_shape<s>, kind>(ops::diagonal{}, std::forward<X>(x));
  }
}

}  // namespace tapeless
