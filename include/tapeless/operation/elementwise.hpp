// SPDX-License-Identifier: BSL-1.0
// tapeless/operation/elementwise.hpp: a scalar operation applied element by element to matrices.
// Tests: test/unit/ops/elementwise/
//
// exp(A), A + B, A * 2.0, x - mean(x): every scalar operation of ops/ works on matrices through these
// two wrappers, with the scalar's own value and derivative rules per element. In a binary operation a
// number (or scalar expression) beside a matrix is used for every element, and its adjoint is the sum
// of the adjoints of all those uses. They sit below the nodes, which make them (expr/make.hpp), and
// know nothing of nodes.
//
// At run time, an operation written for SIMD batches too (its option `batched`, operation/traits.hpp)
// runs these loops a batch of elements at a time (simd/map.hpp, simd/reduce.hpp); in a constant
// expression, and for the others, one at a time.
#pragma once

#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/shape.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/simd/batch.hpp>
#include <tapeless/simd/map.hpp>
#include <tapeless/simd/reduce.hpp>

#include <cstddef>
#include <tuple>  // std::get
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// Operations on matrices as a whole (matmul, sum, det ...) derive from this; every other operation
/// is a scalar one, applied element by element when an operand is a matrix (below).
struct matrix_operation {};
template <class Op>
inline constexpr bool is_matrix_operation = std::is_base_of_v<matrix_operation, Op>;

/// Element i of a matrix, or the number itself: a number beside a matrix is used for every element.
/// (Not named `element`: tapeless::detail is an associated namespace of tl::matrix, through its base
/// class, so an unqualified call element(m, i) in user code would find it.)
template <class V>
constexpr auto broadcast_element(const V& v, std::size_t i) {
  if constexpr (Matrix<V>)
    return v[i];
  else
    return v;
}

/// What a loop (simd/map.hpp) reads of an operand: a matrix's elements, or the number used for every element.
template <class T, class V>
constexpr auto simd_operand(const V& v) {
  if constexpr (Matrix<V>)
    return v.data();
  else
    return static_cast<T>(v);
}

template <class Op>
struct elementwise_unary : matrix_operation {
  // Named after the scalar operation; its rule reads what the scalar rule reads, and it runs on batches
  // of rows where the scalar operation does.
  static constexpr operation_traits traits{
      .name = operation_name<Op>, .vjp_reads = vjp_reads<Op, 0>(), .batches_rows = runs_on_row_batches<Op>};
  [[no_unique_address]] Op op;
  constexpr explicit elementwise_unary(Op o) : op(o) {}

  template <class M>
  constexpr M value(const M& x) const {
    M y(uninitialized);
    simd::map<M::size(), simd::vectorised_map<Op, typename M::value_type>>(
        y.data(), [this](const auto& xi) { return op.value(xi); }, x.data());
    return y;
  }
  template <class M>
  constexpr M vjp(const M& g, const M& x, const M& y) const {
    M gx(uninitialized);
    const auto rule = [this](const auto& gi, const auto& xi, const auto& yi) { return unary_vjp(op, gi, xi, yi); };
    simd::map<M::size(), simd::vectorised_map<Op, typename M::value_type>>(gx.data(), rule, g.data(), x.data(),
                                                                           y.data());
    return gx;
  }
};

template <class Op>
struct elementwise_binary : matrix_operation {
  static constexpr operation_traits traits{.name = operation_name<Op>,
                                           .lhs_vjp_reads = vjp_reads<Op, 0>(),
                                           .rhs_vjp_reads = vjp_reads<Op, 1>(),
                                           .batches_rows = runs_on_row_batches<Op>};
  [[no_unique_address]] Op op;
  constexpr explicit elementwise_binary(Op o) : op(o) {}

  template <class A, class B>
  constexpr auto value(const A& a, const B& b) const {
    using M = std::conditional_t<Matrix<A>, A, B>;  // make_binary checks the shapes
    using T = typename M::value_type;
    M z(uninitialized);
    const auto value = [this](const auto& ai, const auto& bi) { return op.value(ai, bi); };
    simd::map<M::size(), simd::vectorised_map<Op, T>>(z.data(), value, simd_operand<T>(a), simd_operand<T>(b));
    return z;
  }
  template <class M, class A, class B>
  constexpr A vjp_lhs(const M& g, const A& a, const B& b, const M& z) const {
    return side<0, A>(g, a, b, z);
  }
  template <class M, class A, class B>
  constexpr B vjp_rhs(const M& g, const A& a, const B& b, const M& z) const {
    return side<1, B>(g, a, b, z);
  }

 private:
  // The adjoint of one side: per element for a matrix, summed over the elements for a number.
  template <int Side, class S, class M, class A, class B>
  constexpr S side(const M& g, const A& a, const B& b, const M& z) const {
    using T = typename M::value_type;
    const auto partial = [this](const auto& gi, const auto& ai, const auto& bi, const auto& zi) {
      return std::get<Side>(op.vjp(gi, ai, bi, zi));
    };
    const auto a_in = simd_operand<T>(a);
    const auto b_in = simd_operand<T>(b);
    if constexpr (Matrix<S>) {
      // Declared here, not returned by a lambda: g++ folds that call into a constant whose
      // uninitialized elements are zeros, and fills s with them first.
      S s(uninitialized);  // every element is written below
      simd::map<M::size(), simd::vectorised_map<Op, T>>(s.data(), partial, g.data(), a_in, b_in, z.data());
      return s;
    } else {
      return simd::map_sum<M::size(), simd::vectorised<Op, T>, T, S>(partial, g.data(), a_in, b_in, z.data());
    }
  }
};

/// y = x replicated to R x C: a 1 x C row used for every row, an R x 1 column for every column, a
/// 1 x 1 matrix for every element (NumPy's broadcasting of two shapes). make_binary inserts it where a
/// binary operation's two matrices differ in shape along axes where one of them is 1, so that the
/// elementwise operation, its fused loop and its rule see two matrices of one shape. Each element of x
/// is used for a whole line of y, so its adjoint is the sum of g over that line: the sum over the axes
/// it replicates. The rule takes g as a matrix: it reads nothing of x and y but their shapes.
template <std::size_t R, std::size_t C>
struct broadcast_to : matrix_operation {
  static constexpr operation_traits traits{.name = "broadcast", .vjp_reads = reads_nothing, .selects_elements = true};

  template <class T, std::size_t Rx, std::size_t Cx>
  static constexpr matrix<T, R, C> value(const matrix<T, Rx, Cx>& x) {
    return broadcast_value<R, C>(x);
  }
  // Summed along i, then j, in the order tl::outer's rule sums a row's or a column's adjoint, so that
  // the same function written with tl::outer(ones, b) adds the same terms in the same order.
  template <class T, std::size_t Rx, std::size_t Cx>
  static constexpr matrix<T, Rx, Cx> vjp(const matrix<T, R, C>& g, const matrix<T, Rx, Cx>&, const matrix<T, R, C>&) {
    matrix<T, Rx, Cx> gx;  // every element 0
    for (std::size_t i = 0; i < R; ++i)
      for (std::size_t j = 0; j < C; ++j) gx(Rx == 1 ? 0 : i, Cx == 1 ? 0 : j) += g(i, j);
    return gx;
  }
};

/// Whether Op is a broadcast_to (ops/shape.hpp reads a part of its value from the line).
template <class Op>
inline constexpr bool is_broadcast = false;
template <std::size_t R, std::size_t C>
inline constexpr bool is_broadcast<broadcast_to<R, C>> = true;

}  // namespace tapeless::detail
