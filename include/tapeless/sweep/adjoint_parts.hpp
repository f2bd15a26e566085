// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/adjoint_parts.hpp: adjoints split into two parts, lines times scale, the factor common
// to every element kept apart.
//
// normal_logpdf, sum(-0.5 square((y - mu) / sigma)), is a fused loop (sweep/fused.hpp) whose adjoints
// are all numbers: mu's and sigma's sums over the elements. Swept node by node, each element's adjoint
// is multiplied by -0.5, by 2, by 1 / sigma and negated before it is summed: eight vector operations
// per batch where a hand-written adjoint does four, summing z and z^2 and multiplying the two sums by
// 1 / sigma once, after the loop. The compiler may not move those factors past the sums itself: IEEE
// addition does not distribute.
//
// So in that loop an element's adjoint is lines * scale: `scale` made only of what is the same for
// every element (the loop's adjoint under sum or mean, the constants and the number inputs: uniform
// leaves), `lines` of the rest. A rule is linear in its adjoint: it applies to the lines and leaves the
// scale as it is; where its factor is uniform (a negation, a subtraction's right side, a product or a
// quotient by a uniform operand, square's 2), the factor goes to the scale instead and the lines are
// untouched. The two parts never mix, so they are two sweeps of the same scalar tree: the lines' in the
// loop, per batch, and the scale's once, before it, on numbers. The loop sums each input's lines and
// multiplies the sum by its scale once (sweep/region_batches.hpp, sweep_region_scaled).
//
// The factors are then applied in another order: the result differs from the node-by-node one by
// roundings (a few ulp), and where the lines alone leave the range of normal numbers, by more (the
// lines z^2 overflow where z^2 / sigma does not). The loop checks each sum and each scale, and where
// one is not comfortably normal (zero, infinite, NaN or near underflow), sweeps again node by node.
#pragma once

#include <tapeless/detail/inline.hpp>
#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/children.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/operation/traits.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace tapeless::detail {

/// One part of an adjoint lines * scale (Scale false: the lines, per element; true: the scale, the same
/// for every element). Uniform has bit K set where the scalar tree's argument K is uniform (a number
/// input of the loop, the same for every element).
template <class T, std::uint64_t Uniform, bool Scale>
struct adjoint_part {
  T value;
};

/// The tags with which a loop's element sweep sweeps one part of scaled adjoints.
struct lines_part {};
struct scale_part {};

/// Whether the value of the scalar tree N is the same for every element: all its leaves are uniform
/// arguments (a constant of the tree is a matrix's element).
template <class N, std::uint64_t Uniform>
constexpr bool uniform_walk() {
  static_assert(known_node_kind<N>,
                "tl: node kind N is not known to the walk uniform_value: declare its children in "
                "expr/children.hpp");
  if constexpr (is_leaf<N> && requires { N::slot; })  // an argument: the loop's input N::slot
    return ((Uniform >> N::slot) & 1U) != 0;
  else if constexpr (!known_node_kind<N> || is_leaf<N>)
    return false;
  else
    return []<class... C>(type_list<C...>) { return (uniform_walk<C, Uniform>() && ...); }(children_t<N>{});
}
template <class N, std::uint64_t Uniform>
inline constexpr bool uniform_value = uniform_walk<N, Uniform>();

/// The part of g times a factor f: the lines' times f where f is per element, the scale's times f
/// where f is uniform; the other part unchanged.
template <bool UniformFactor, class T, std::uint64_t U, bool Scale, class F>
constexpr adjoint_part<T, U, Scale> times(const adjoint_part<T, U, Scale>& g, const F& f) {
  if constexpr (UniformFactor == Scale)
    return {g.value * T(f)};
  else
    return g;
}

template <class Op, class A, bool Need, class T, std::uint64_t U, bool Scale, class Store>
TAPELESS_SWEEP_INLINE constexpr void backward_sweep(const unary_node<Op, A>& n,
                                                    const evaluated<unary_node<Op, A>, Need>& v,
                                                    const adjoint_part<T, U, Scale>& g, Store& store) {
  using P = adjoint_part<T, U, Scale>;
  if constexpr (A::is_active) {
    if constexpr (partials_of<Op> == partials_form::negation)
      backward_sweep(n.arg, v.arg, times<true>(g, -1), store);
    else if constexpr (partials_of<Op> == partials_form::square)  // 2 x g: x to the lines, 2 to the scale
      backward_sweep(n.arg, v.arg, times<true>(times<false>(g, value_at(n.arg, v.arg)), 2), store);
    else if constexpr (Scale)
      backward_sweep(n.arg, v.arg, g, store);
    else
      backward_sweep(n.arg, v.arg, P{unary_vjp(n.op, g.value, value_at(n.arg, v.arg), v.out())}, store);
  }
}

template <class Op, class A, class C, bool Need, class T, std::uint64_t U, bool Scale, class Store>
TAPELESS_SWEEP_INLINE constexpr void backward_sweep(const binary_node<Op, A, C>& n,
                                                    const evaluated<binary_node<Op, A, C>, Need>& v,
                                                    const adjoint_part<T, U, Scale>& g, Store& store) {
  using P = adjoint_part<T, U, Scale>;
  constexpr bool uniform_x = uniform_value<A, U>, uniform_y = uniform_value<C, U>;
  constexpr partials_form form = partials_of<Op>;
  if constexpr (form == partials_form::sum || form == partials_form::difference) {
    if constexpr (A::is_active) backward_sweep(n.lhs, v.lhs, g, store);
    if constexpr (C::is_active)
      backward_sweep(n.rhs, v.rhs, form == partials_form::sum ? g : times<true>(g, -1), store);
  } else if constexpr (form == partials_form::product) {
    if constexpr (A::is_active) backward_sweep(n.lhs, v.lhs, times<uniform_y>(g, value_at(n.rhs, v.rhs)), store);
    if constexpr (C::is_active) backward_sweep(n.rhs, v.rhs, times<uniform_x>(g, value_at(n.lhs, v.lhs)), store);
  } else if constexpr (form == partials_form::quotient && uniform_y) {
    // z = x / y: g / y to x, -g z / y to y: 1 / y to the scale, z to the lines.
    const auto inverse = [&] { return T(1) / T(value_at(n.rhs, v.rhs)); };
    if constexpr (A::is_active) backward_sweep(n.lhs, v.lhs, Scale ? P{g.value * inverse()} : g, store);
    if constexpr (C::is_active)
      backward_sweep(n.rhs, v.rhs, Scale ? P{-(g.value * inverse())} : P{g.value * T(v.value())}, store);
  } else if constexpr (Scale) {
    if constexpr (A::is_active) backward_sweep(n.lhs, v.lhs, g, store);
    if constexpr (C::is_active) backward_sweep(n.rhs, v.rhs, g, store);
  } else {
    const auto [gx, gy] = n.op.vjp(g.value, T(value_at(n.lhs, v.lhs)), T(value_at(n.rhs, v.rhs)), v.value());
    if constexpr (A::is_active) backward_sweep(n.lhs, v.lhs, P{gx}, store);
    if constexpr (C::is_active) backward_sweep(n.rhs, v.rhs, P{gy}, store);
  }
}

/// Where a scalar tree swept with one part of scaled adjoints puts its arguments': one slot per
/// argument K, which the tree reaches once (its leaves are distinct inputs of the loop). Assigned, not
/// added to a -0 (element_adjoints): the additions would make the loop too large for g++ to inline
/// where the gradient is taken.
template <class T, std::size_t I>
struct adjoint_parts {
  std::array<T, I> slot{};
  template <class Leaf, std::uint64_t U, bool Scale>
  TAPELESS_SWEEP_INLINE constexpr void accumulate(const Leaf&, const adjoint_part<T, U, Scale>& g) {
    slot[Leaf::slot] = g.value;
  }
};

/// Whether a sum of lines, or a scale, may be multiplied apart from the others: finite, and far enough
/// from underflow (2^-968, 2^54 above the smallest normal number) that the parts of it that underflowed
/// weigh less than its rounding. Else the loop is swept again node by node.
template <class T>
bool comfortably_normal(T x) {
  const T magnitude = std::abs(x);
  return magnitude >= std::numeric_limits<T>::min() * T(18014398509481984.0) &&  // 2^54
         magnitude <= std::numeric_limits<T>::max();
}

}  // namespace tapeless::detail
