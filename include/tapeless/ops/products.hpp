// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/products.hpp: matmul, transpose, dot, outer and trace, each a coarse node with the
// closed-form matrix-calculus rule (for C = A B: dL/dA = G B^T, dL/dB = A^T G).
#pragma once

#include <tapeless/adjoint/structured.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/shape.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/ops/arithmetic.hpp>  // ops::multiply, for tl::outer of arrays of run-time extents
#include <tapeless/ops/matrix_op.hpp>
#include <tapeless/simd/batch.hpp>
#include <tapeless/simd/product.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace ops {

struct matmul : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "matmul",
                                           .lhs_vjp_reads = reads{.lhs = false, .rhs = true, .value = false},
                                           .rhs_vjp_reads = reads{.lhs = true, .rhs = false, .value = false}};
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  static constexpr matrix<T, R, C> value(const matrix<T, R, K>& a, const matrix<T, K, C>& b) {
    matrix<T, R, C> c(::tapeless::detail::uninitialized);
    ::tapeless::detail::simd::multiply<R, K, C>(a.data(), b.data(), c.data());
    return c;
  }
  // dA = G B^T
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  static constexpr matrix<T, R, K> vjp_lhs(const matrix<T, R, C>& g, const matrix<T, R, K>&, const matrix<T, K, C>& b,
                                           const matrix<T, R, C>&) {
    matrix<T, R, K> ga(::tapeless::detail::uninitialized);
    ::tapeless::detail::simd::multiply_transposed<R, K, C>(g.data(), b.data(), ga.data());
    return ga;
  }
  // With a uniform G = g 1 (sum and mean send it): dA(i, k) = g sum_j B(k, j), the same row for every
  // i, and dB(k, j) = g sum_i A(i, k), the same column for every j: each is sent as that one line.
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  static constexpr auto vjp_lhs(const ::tapeless::detail::uniform<matrix<T, R, C>>& g, const matrix<T, R, K>&,
                                const matrix<T, K, C>& b, const matrix<T, R, C>&) {
    ::tapeless::detail::repeated<matrix<T, R, K>, true> ga{matrix<T, 1, K>(::tapeless::detail::uninitialized)};
    ::tapeless::detail::simd::sum_rows<K, C>(b.data(), ga.line.data());
    for (auto& e : ga.line) e *= g.value;
    return ga;
  }
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  static constexpr auto vjp_rhs(const ::tapeless::detail::uniform<matrix<T, R, C>>& g, const matrix<T, R, K>& a,
                                const matrix<T, K, C>&, const matrix<T, R, C>&) {
    ::tapeless::detail::repeated<matrix<T, K, C>, false> gb{matrix<T, K, 1>(::tapeless::detail::uninitialized)};
    for (std::size_t k = 0; k < K; ++k) {
      T s(0);
      for (std::size_t i = 0; i < R; ++i) s += a(i, k);
      gb.line[k] = g.value * s;
    }
    return gb;
  }
  // dB = A^T G
  template <class T, std::size_t R, std::size_t K, std::size_t C>
  static constexpr matrix<T, K, C> vjp_rhs(const matrix<T, R, C>& g, const matrix<T, R, K>& a, const matrix<T, K, C>&,
                                           const matrix<T, R, C>&) {
    matrix<T, K, C> gb(::tapeless::detail::uninitialized);
    ::tapeless::detail::simd::transposed_multiply<R, K, C>(a.data(), g.data(), gb.data());
    return gb;
  }
};

struct transpose : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "transpose", .vjp_reads = reads_nothing, .selects_elements = true};
  template <class T, std::size_t R, std::size_t C>
  static constexpr matrix<T, C, R> value(const matrix<T, R, C>& a) {
    matrix<T, C, R> t(::tapeless::detail::uninitialized);
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t j = 0; j < C; ++j) t(j, i) = a(i, j);
    return t;
  }
  template <class T, std::size_t R, std::size_t C>
  static constexpr matrix<T, R, C> vjp(const matrix<T, C, R>& g, const matrix<T, R, C>&, const matrix<T, C, R>&) {
    return value(g);
  }
};

/// a . b of two vectors of one length.
struct dot : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "dot",
                                           .lhs_vjp_reads = reads{.lhs = false, .rhs = true, .value = false},
                                           .rhs_vjp_reads = reads{.lhs = true, .rhs = false, .value = false},
                                           .batches_rows = true};
  template <class M>
  static constexpr auto value(const M& a, const M& b) {
    using T = typename M::value_type;
    if constexpr (::tapeless::detail::simd::is_batch<T> && M::size() >= 4) {
      // Vectors of batches (a batch of rows of a sum over rows, sweep/sum_over_rows.hpp): four sums, not one
      // chain of dependent additions, which would be the critical path of the rows' terms.
      std::array<T, 4> s{T(0), T(0), T(0), T(0)};
      std::size_t i = 0;
      for (; i + 4 <= M::size(); i += 4)
        for (std::size_t k = 0; k < 4; ++k) s[k] += a[i + k] * b[i + k];
      for (; i < M::size(); ++i) s[0] += a[i] * b[i];
      return (s[0] + s[1]) + (s[2] + s[3]);
    } else {
      T s(0);
      for (std::size_t i = 0; i < M::size(); ++i) s += a[i] * b[i];
      return s;
    }
  }
  // g may be of a wider type than the vectors (a float dot inside a double expression).
  template <class G, class M, class T>
  static constexpr M vjp_lhs(G g, const M&, const M& b, T) {
    return b * static_cast<typename M::value_type>(g);
  }
  template <class G, class M, class T>
  static constexpr M vjp_rhs(G g, const M& a, const M&, T) {
    return a * static_cast<typename M::value_type>(g);
  }
};

/// y = row `row` of a dotted with column `col` of b, a and b of run-time extents (read transposed where
/// TransA, TransB say; a's columns b's rows): element (row, col) of a b, computed where a product of two
/// such arrays is read (transforms/run_time_reduction.hpp), so that no product is stored. Its adjoint in
/// a is g times b's column in a's row, and in b g times a's row in b's column, written where they lie
/// (scaled_line).
template <bool TransA = false, bool TransB = false>
struct line_dot : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "matmul",
                                           .lhs_vjp_reads = reads{.lhs = false, .rhs = true, .value = false},
                                           .rhs_vjp_reads = reads{.lhs = true, .rhs = false, .value = false},
                                           .takes_run_time_extents = true};
  std::size_t row, col;
  constexpr line_dot(std::size_t i, std::size_t j) : row(i), col(j) {}
  // A and B are tl::matrix types of run-time extents, or views of them (an Eigen matrix read in place),
  // of one number type or of data's beside a dual number's (forward mode: data is not lifted).
  template <class A, class B>
  constexpr auto value(const A& a, const B& b) const {
    std::remove_cvref_t<decltype(a(0, 0) * b(0, 0))> s(0);
    const std::size_t inner = TransA ? a.rows() : a.cols();
    for (std::size_t c = 0; c < inner; ++c) s += (TransA ? a(c, row) : a(row, c)) * (TransB ? b(col, c) : b(c, col));
    return s;
  }
  // The adjoint's numbers are g's: the differentiated side's, where the other is data of another type.
  template <class G, class T, std::size_t R, std::size_t C, template <class, std::size_t, std::size_t> class A, class B,
            class Y>
  constexpr auto vjp_lhs(G g, const A<T, R, C>& a, const B& b, Y) const {
    using part = ::tapeless::detail::scaled_line<matrix<G, R, C>, B, TransB>;
    return TransA ? part{&b, row, a.cols(), a.rows(), col, g, a.rows(), a.cols()}
                  : part{&b, row * a.cols(), 1, a.cols(), col, g, a.rows(), a.cols()};
  }
  template <class G, class A, class T, std::size_t R, std::size_t C, template <class, std::size_t, std::size_t> class B,
            class Y>
  constexpr auto vjp_rhs(G g, const A& a, const B<T, R, C>& b, Y) const {
    using part = ::tapeless::detail::scaled_line<matrix<G, R, C>, A, !TransA>;
    return TransB ? part{&a, col * b.cols(), 1, b.cols(), row, g, b.rows(), b.cols()}
                  : part{&a, col, b.cols(), b.rows(), row, g, b.rows(), b.cols()};
  }
};

/// y = the sum of row `index` (Row) or column `index` of a of run-time extents: a factor of the sum of a
/// product of two such arrays, sum(A B) = the sum over c of (A's column c summed) (B's row c summed)
/// (transforms/run_time_reduction.hpp), which reads each operand once. Its adjoint is g along that line
/// (filled_line).
template <bool Row>
struct line_sum : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{
      .name = Row ? "row sum" : "column sum", .vjp_reads = reads_nothing, .takes_run_time_extents = true};
  std::size_t index;
  constexpr explicit line_sum(std::size_t i) : index(i) {}
  template <class A>
  constexpr auto value(const A& a) const {
    typename A::value_type s(0);
    const std::size_t length = Row ? a.cols() : a.rows();
    for (std::size_t k = 0; k < length; ++k) s += Row ? a(index, k) : a(k, index);
    return s;
  }
  template <class G, class T, std::size_t R, std::size_t C, template <class, std::size_t, std::size_t> class A, class Y>
  constexpr auto vjp(G g, const A<T, R, C>& a, Y) const {
    using part = ::tapeless::detail::filled_line<matrix<G, R, C>>;
    return Row ? part{index * a.cols(), 1, a.cols(), g, a.rows(), a.cols()}
               : part{index, a.cols(), a.rows(), g, a.rows(), a.cols()};
  }
};

/// Z = a b^T of an N-vector and an M-vector: da = G b, db = G^T a.
struct outer : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "outer",
                                           .lhs_vjp_reads = reads{.lhs = false, .rhs = true, .value = false},
                                           .rhs_vjp_reads = reads{.lhs = true, .rhs = false, .value = false}};
  template <class T, std::size_t N, std::size_t M>
  static constexpr matrix<T, N, M> value(const matrix<T, N, 1>& a, const matrix<T, M, 1>& b) {
    matrix<T, N, M> z;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < M; ++j) z(i, j) = a[i] * b[j];
    return z;
  }
  template <class T, std::size_t N, std::size_t M>
  static constexpr matrix<T, N, 1> vjp_lhs(const matrix<T, N, M>& g, const matrix<T, N, 1>&, const matrix<T, M, 1>& b,
                                           const matrix<T, N, M>&) {
    matrix<T, N, 1> ga;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < M; ++j) ga[i] += g(i, j) * b[j];
    return ga;
  }
  template <class T, std::size_t N, std::size_t M>
  static constexpr matrix<T, M, 1> vjp_rhs(const matrix<T, N, M>& g, const matrix<T, N, 1>& a, const matrix<T, M, 1>&,
                                           const matrix<T, N, M>&) {
    matrix<T, M, 1> gb;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < M; ++j) gb[j] += g(i, j) * a[i];
    return gb;
  }
};

/// y = tr A: dA = g I.
struct trace : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "trace", .vjp_reads = reads_nothing};
  template <class T, std::size_t N>
  static constexpr T value(const matrix<T, N, N>& a) {
    T s(0);
    for (std::size_t i = 0; i < N; ++i) s += a(i, i);
    return s;
  }
  template <class T, std::size_t N>
  static constexpr matrix<T, N, N> vjp(T g, const matrix<T, N, N>&, T) {
    matrix<T, N, N> ga;
    for (std::size_t i = 0; i < N; ++i) ga(i, i) = g;
    return ga;
  }
};

}  // namespace ops

/// The matrix product A B (`*` is elementwise).
template <Operand A, Operand B>
constexpr auto matmul(A&& a, B&& b) {
  return detail::matrix_op<shapes::matmul_shapes>(ops::matmul{}, std::forward<A>(a), std::forward<B>(b));
}
/// A B of an array A of run-time extents (data, an argument, or a formula over them) and a matrix B of
/// fixed shape: a formula of A's rows and B's columns (expr/run_time_elementwise.hpp), which the
/// elementwise operations, the reductions and element access take. A's columns must be B's rows
/// (std::invalid_argument naming both shapes).
template <Operand A, Operand B>
  requires(detail::RunTimeArray<A>&& Matrix<value_type_of_t<B>>)
constexpr auto matmul(A&& a, B&& b) {
  return detail::make_run_time_matmul<false>(std::forward<A>(a), std::forward<B>(b));
}
/// A B of a matrix A of fixed shape and an array B of run-time extents, likewise.
template <Operand A, Operand B>
  requires(Matrix<value_type_of_t<A>>&& detail::RunTimeArray<B>)
constexpr auto matmul(A&& a, B&& b) {
  return detail::make_run_time_matmul<true>(std::forward<B>(b), std::forward<A>(a));
}

/// A B of two arrays of run-time extents, each an argument, data (tl::cref, an Eigen matrix), a node or
/// the transpose of one: a formula whose element (i, j), A's row i dotted with B's column j, is computed
/// where it is read (by a reduction, an elementwise operation, element access), so that the product is
/// never stored. A's columns must be B's rows (std::invalid_argument naming both shapes). Where either is
/// a formula, transforms/run_time_reduction.hpp holds its value in a node first.
template <Operand A, Operand B>
  requires(detail::RunTimeArray<A>&& detail::RunTimeArray<B>)
constexpr auto matmul(A&& a, B&& b) {
  constexpr bool arrays =
      detail::read_in_place<std::remove_cvref_t<A>> && detail::read_in_place<std::remove_cvref_t<B>>;
  static_assert(arrays,
                "tl::matmul(A, B) of two arrays of run-time extents, one of them a formula, stores the formula's "
                "value: include <tapeless/tapeless.hpp>, whose reductions hold it");
  if constexpr (arrays)
    return detail::make_run_time_matmul<false>(std::forward<A>(a), std::forward<B>(b));
  else
    return detail::shape_error{};  // its static_assert has spoken
}

template <Operand A>
constexpr auto transpose(A&& a) {
  return detail::matrix_op<shapes::any_shapes>(ops::transpose{}, std::forward<A>(a));
}
/// Aᵀ of an array of run-time extents: a formula that reads A's element (j, i) as its (i, j).
template <Operand A>
  requires detail::RunTimeArray<A>
constexpr auto transpose(A&& a) { return detail::make_run_time_transpose(std::forward<A>(a)); }

/// a . b of two vectors of one length.
template <Operand A, Operand B>
constexpr auto dot(A&& a, B&& b) {
  return detail::matrix_op<shapes::dot_shapes>(ops::dot{}, std::forward<A>(a), std::forward<B>(b));
}

/// a b^T of two column vectors (N x 1 and M x 1): an N x M matrix.
template <Operand A, Operand B>
constexpr auto outer(A&& a, B&& b) {
  return detail::matrix_op<shapes::outer_shapes>(ops::outer{}, std::forward<A>(a), std::forward<B>(b));
}
/// a bᵀ where either column vector has run-time extents: a times the row bᵀ, each repeated over the
/// other's length (a formula of a.size() x b.size()).
template <Operand A, Operand B>
  requires(detail::RunTimeArray<A> || detail::RunTimeArray<B>)
constexpr auto outer(A&& a, B&& b) {
  constexpr bool columns = detail::fixed_one_along<A, false>() && detail::fixed_one_along<B, false>();
  static_assert(columns,
                "tl::outer(a, b): a and b must be column vectors by their types (tl::vector, Eigen::VectorXd)");
  return detail::make_binary(ops::multiply{}, std::forward<A>(a), transpose(std::forward<B>(b)));
}

/// The sum of the diagonal of a square matrix.
template <Operand A>
constexpr auto trace(A&& a) {
  return detail::matrix_op<shapes::square_shape>(ops::trace{}, std::forward<A>(a));
}

}  // namespace tapeless
