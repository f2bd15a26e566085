// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/blocks.hpp: the shapes of Jacobians and Hessians, and filling them a row or a
// column at a time.
//
// The derivative of a value of type Y with respect to an argument of type X is one block: a number
// when both are numbers, else a matrix with one row per element of Y and one column per element of X
// (elements counted row-major). With several arguments, a transform returns a tuple of blocks.
// Tests: test/unit/transforms/jacobian_test.cpp test/unit/transforms/hessian_test.cpp
#pragma once

#include <tapeless/expr/expression.hpp>
#include <tapeless/interop/eigen.hpp>
#include <tapeless/math/dual.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/meta/selected.hpp>
#include <tapeless/transforms/tangent.hpp>

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

template <class V>
struct scalar_or_self {
  using type = V;
};
template <class M>
  requires Matrix<M> || RunTimeMatrix<M>
struct scalar_or_self<M> {
  using type = typename M::value_type;
};

template <class V>
inline constexpr bool is_number = !Matrix<V> && !RunTimeMatrix<V>;

/// The block d Y / d X: tl::dynamic extents along a value of run-time extents.
template <class Y, class X>
using block_t = std::conditional_t<is_number<Y> && is_number<X>, typename scalar_or_self<Y>::type,
                                   matrix<typename scalar_or_self<Y>::type, size_of<Y>, size_of<X>>>;

/// A zero block d Y / d X for values y and x, of their element counts.
template <class Y, class X>
constexpr block_t<Y, X> zero_block(const Y& y, const X& x) {
  if constexpr (RunTimeMatrix<block_t<Y, X>>)
    return block_t<Y, X>(element_count(y), element_count(x));
  else
    return block_t<Y, X>{};
}

/// A gradient as a tuple: one selected argument's gradient alone, several already a tuple.
template <std::size_t Selected, class G>
constexpr auto as_tuple(G&& g) {
  if constexpr (Selected == 1)
    return std::tuple{std::forward<G>(g)};
  else
    return std::forward<G>(g);
}

/// The one block, or the tuple of blocks, of a result with `Count` blocks.
template <std::size_t Count, class Blocks>
constexpr auto unwrap(Blocks&& blocks) {
  if constexpr (Count == 1)
    return std::get<0>(std::forward<Blocks>(blocks));
  else
    return std::forward<Blocks>(blocks);
}

/// The number of directions one forward evaluation or sweep carries at once: up to this many columns
/// of a Jacobian or Hessian come from one pass, in tangents<T, C> lanes the compiler vectorises.
inline constexpr std::size_t chunk_size = 8;

/// Columns c0 ... c0 + C - 1 of block b from the lanes of the tangents of v, a dual number or matrix
/// of them carrying C directions (a plain v, which did not depend on the arguments, leaves them 0).
template <class B, class V>
constexpr void set_columns(B& b, std::size_t c0, const V& v) {
  if constexpr (is_dual<scalar_of_t<V>>) {
    for (std::size_t r = 0; r < element_count(v); ++r) {
      const auto& lanes = element_at(v, r).tangent.lane;
      for (std::size_t l = 0; l < lanes.size(); ++l) {
        if constexpr (!is_number<B>) {
          if (c0 + l < b.cols()) b(r, c0 + l) = lanes[l];
        } else if (l == 0) {
          b = lanes[0];
        }
      }
    }
  }
}

/// Row r of block b set to the elements of v (a number or a matrix).
template <class B, class V>
constexpr void set_row(B& b, std::size_t r, const V& v) {
  if constexpr (!is_number<B>)
    for (std::size_t j = 0; j < element_count(v); ++j) b(r, j) = element_at(v, j);
  else
    b = v;
}

/// v as dual numbers carrying C directions: when `moving`, element c0 + l moves along lane l.
template <std::size_t C, class V>
constexpr auto chunk_seeded(const V& v, std::size_t c0, bool moving) {
  using T = scalar_of_t<V>;
  return with_tangents(v, [&](std::size_t i) {
    tangents<T, C> t{};
    if (moving && i >= c0 && i - c0 < C) t.lane[i - c0] = T(1);
    return t;
  });
}

/// The arguments as dual numbers carrying C directions: elements c0 ... c0 + C - 1 of the one at
/// position K move, one along each lane; the others stand still.
template <std::size_t K, std::size_t C, std::size_t... P, class... Args>
constexpr auto chunk_seeded_at(std::size_t c0, std::index_sequence<P...>, const Args&... args) {
  return std::tuple{chunk_seeded<C>(args, c0, P == K)...};
}

/// A value of type Y that is 0 but for a 1 at element r: the seed of row r of a reverse Jacobian.
template <class Y>
constexpr Y unit_element(std::size_t r) {
  Y y{};
  element_at(y, r) = 1;
  return y;
}

/// Blocks whose rows are the elements of *row and whose columns are those of the arguments at
/// positions S... of args (one block, or a tuple of them), as the caller's types count them
/// (interop/eigen.hpp): an Eigen matrix where either side is an Eigen argument.
template <std::size_t... S, class Blocks, class Row, class... Args>
constexpr auto blocks_as_caller(std::index_sequence<S...>, const Blocks& blocks, const Row* row, const Args&... args) {
  const std::tuple<const Args&...> arg_refs{args...};
  if constexpr (sizeof...(S) == 1)
    return block_as_caller(blocks, row, &std::get<S>(arg_refs)...);
  else
    return std::apply(
        [&](const auto&... block) { return std::tuple{block_as_caller(block, row, &std::get<S>(arg_refs))...}; },
        blocks);
}

}  // namespace tapeless::detail
