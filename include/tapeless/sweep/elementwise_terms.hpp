// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/elementwise_terms.hpp: functions that are sums of elementwise terms over parts of the
// argument, and the local derivatives of each term, element by element.
//
// Most sparse Hessians come from functions written as sums of one formula over shifted parts of x:
// Rosenbrock's sum(100 (x[1:] - x[:-1]^2)^2 + (1 - x[:-1])^2), a grid's sums of squared differences
// of blocks. Element i of such a term reads a few elements of x, at positions fixed by the types, and
// its second derivatives are those of one scalar formula in those few values. This header recognises
// such functions from their node types, a linear combination of sums of elementwise formulas whose
// inputs gather elements of the argument (its slices, blocks, concatenations with constants), and
// runs, for each element, the region's scalar tree (sweep/region_tree.hpp) forward over reverse, in
// dual numbers with a lane per input: lane s of input r's adjoint is d2/du_r du_s. The seeds are
// constants, so the compiler keeps of each lane only the arithmetic a hand-written second derivative
// has. The Jacobian of an elementwise formula is the forward pass alone. Where the local derivatives
// go is the caller's (transforms/sparse_derivatives.hpp).
// Tests: test/unit/transforms/sparse_derivatives_test.cpp
#pragma once

#include <tapeless/expr/children.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/math/dual.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/meta/type_list.hpp>
#include <tapeless/operation/elementwise.hpp>
#include <tapeless/operation/traits.hpp>
#include <tapeless/ops/arithmetic.hpp>
#include <tapeless/ops/elementwise.hpp>
#include <tapeless/ops/reduction.hpp>
#include <tapeless/sweep/backward.hpp>
#include <tapeless/sweep/region.hpp>
#include <tapeless/sweep/region_tree.hpp>

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

template <class N>
inline constexpr bool is_argument_leaf = false;
template <std::size_t Slot, class T>
inline constexpr bool is_argument_leaf<argument<Slot, T>> = true;

/// Whether every element of N's value is an element of the argument or a constant: the argument
/// itself, a node without adjoint, or an operation that selects elements (operation_traits::
/// selects_elements) of such nodes.
template <class N>
constexpr bool gathers_argument() {
  if constexpr (!N::is_active)
    return true;
  else if constexpr (is_leaf<N>)
    return is_argument_leaf<N>;
  else if constexpr (is_operation_node<N>) {
    if constexpr (traits_of<operation_of_t<N>>().selects_elements)
      return []<class... C>(type_list<C...>) { return (gathers_argument<C>() && ...); }(children_t<N>{});
    else
      return false;
  } else {
    return false;
  }
}

template <class Inputs>
inline constexpr bool all_gather_argument = false;
template <class... In>
inline constexpr bool all_gather_argument<type_list<In...>> = (gathers_argument<In>() && ...);

/// An elementwise formula whose inputs gather elements of the argument: element i of its value is a
/// function of a few elements of the argument, the same function for every i.
template <class N>
concept gathered_formula = is_elementwise_node<N> && all_gather_argument<region_inputs_t<N>>;

/// Whether Op adds up its operand's elements: sum, or mean (their sum over their count).
template <class Op>
inline constexpr bool sums_elements = std::is_same_v<Op, ops::sum> || std::is_same_v<Op, ops::mean>;

/// The terms of N: the elementwise formulas E of the sums sum(E) (or means) that N adds up, as a type_list in the
/// order for_each_term visits them.
template <class N>
struct terms_of {
  using type = type_list<>;
};

/// Whether the number N is a linear combination of sums (or means) of gathered formulas (and of sums
/// of gathers and constants, which add nothing to a Hessian): sums, differences, negations, products with and
/// quotients by numbers without adjoint.
template <class N>
constexpr bool sum_of_terms() {
  if constexpr (!N::is_active) {
    return true;
  } else if constexpr (!is_operation_node<N> || Matrix<typename N::value_type>) {
    return false;
  } else {
    using Op = operation_of_t<N>;
    if constexpr (sums_elements<Op>)
      return gathered_formula<child_t<0, N>> || gathers_argument<child_t<0, N>>();
    else if constexpr (std::is_same_v<Op, ops::negate>)
      return sum_of_terms<child_t<0, N>>();
    else if constexpr (std::is_same_v<Op, ops::add> || std::is_same_v<Op, ops::subtract>)
      return sum_of_terms<child_t<0, N>>() && sum_of_terms<child_t<1, N>>();
    else if constexpr (std::is_same_v<Op, ops::multiply>)
      return (!child_t<0, N>::is_active && sum_of_terms<child_t<1, N>>()) ||
             (!child_t<1, N>::is_active && sum_of_terms<child_t<0, N>>());
    else if constexpr (std::is_base_of_v<ops::divide, Op>)
      return !child_t<1, N>::is_active && sum_of_terms<child_t<0, N>>();
    else
      return false;
  }
}

template <class N>
  requires(N::is_active&& is_operation_node<N> && !Matrix<typename N::value_type>)
struct terms_of<N> {
  template <class... C>
  static auto of(type_list<C...>) -> join_t<typename terms_of<C>::type...>;
  static auto own() {
    if constexpr (sums_elements<operation_of_t<N>>) {
      if constexpr (gathered_formula<child_t<0, N>>)
        return type_list<child_t<0, N>>{};
      else
        return type_list<>{};
    } else {
      return decltype(of(children_t<N>{})){};
    }
  }
  using type = decltype(own());
};

template <class N>
using terms_of_t = typename terms_of<N>::type;

/// Term K of a type_list of terms.
template <std::size_t K, class Terms>
struct term_at;
template <std::size_t K, class... E>
struct term_at<K, type_list<E...>> {
  using type = std::tuple_element_t<K, std::tuple<E...>>;
};
template <std::size_t K, class Terms>
using term_at_t = typename term_at<K, Terms>::type;

/// The value of a node without adjoint: a number a term is scaled by.
template <class N>
constexpr auto constant_value(const N& n) {
  const evaluated<N, true> e(n);
  return value_at(n, e);
}

/// Calls visit(term, e, w) for each term of the sum of terms n, in the order of terms_of: term an
/// std::integral_constant counting from First, e the elementwise formula, w the factor its sum is
/// multiplied by in n (times w0).
template <std::size_t First = 0, class N, class W, class Visit>
constexpr void for_each_term(const N& n, const W& w0, const Visit& visit) {
  if constexpr (N::is_active) {
    using Op = operation_of_t<N>;
    constexpr std::size_t lhs_terms = [] {
      if constexpr (child_count<N> == 2)
        return terms_of_t<child_t<0, N>>::size;
      else
        return std::size_t{0};
    }();
    if constexpr (sums_elements<Op>) {
      using E = child_t<0, N>;
      if constexpr (gathered_formula<E> && std::is_same_v<Op, ops::mean>)
        visit(std::integral_constant<std::size_t, First>{}, child<0>(n),
              w0 / static_cast<scalar_of_t<typename E::value_type>>(E::value_type::size()));
      else if constexpr (gathered_formula<E>)
        visit(std::integral_constant<std::size_t, First>{}, child<0>(n), w0);
    } else if constexpr (std::is_same_v<Op, ops::negate>) {
      for_each_term<First>(child<0>(n), -w0, visit);
    } else if constexpr (std::is_same_v<Op, ops::add> || std::is_same_v<Op, ops::subtract>) {
      for_each_term<First>(child<0>(n), w0, visit);
      for_each_term<First + lhs_terms>(child<1>(n), std::is_same_v<Op, ops::add> ? w0 : -w0, visit);
    } else if constexpr (std::is_same_v<Op, ops::multiply>) {
      if constexpr (child_t<0, N>::is_active)
        for_each_term<First>(child<0>(n), w0 * constant_value(child<1>(n)), visit);
      else
        for_each_term<First>(child<1>(n), constant_value(child<0>(n)) * w0, visit);
    } else {
      static_assert(std::is_base_of_v<ops::divide, Op>, "for_each_term: n is not a sum of terms");
      for_each_term<First>(child<0>(n), w0 / constant_value(child<1>(n)), visit);
    }
  }
}

/// Reads element i of one input of a region: of its value, computed once (a number: copied, so that
/// the stores of the caller's loop do not make the compiler read it again); of a leaf's matrix in place;
/// of a slice of a leaf in place, from the slice's start.
template <class In>
struct input_reader {
  typename In::value_type value;
  constexpr explicit input_reader(const In& n) : value(constant_value(n)) {}
  constexpr auto operator()(std::size_t i) const { return broadcast_element(value, i); }
};
template <class In>
  requires(is_leaf<In>&& Matrix<typename In::value_type>)
struct input_reader<In> {
  const typename In::value_type* value;
  constexpr explicit input_reader(const In& n) : value(&n.value()) {}
  constexpr auto operator()(std::size_t i) const { return broadcast_element(*value, i); }
};
template <class In>
  requires slices_a_leaf<In>
struct input_reader<In> {
  const typename std::remove_cvref_t<child_t<0, In>>::value_type* value;
  constexpr explicit input_reader(const In& n) : value(&child<0>(n).value()) {}
  constexpr auto operator()(std::size_t i) const { return (*value)[slice_of_leaf<In>::start + i]; }
};

/// A reader of each input of the region rooted at e, in a tuple.
template <class E>
constexpr auto input_readers(const E& e) {
  const auto inputs = region_inputs(e);
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::tuple<input_reader<region_input_t<E, K>>...>(
        input_reader<region_input_t<E, K>>(*plain_get<K>(inputs))...);
  }
  (std::make_index_sequence<region_size<E>>{});
}

/// The dual numbers of element i of the inputs of the region rooted at E: input K's value there, with
/// tangent 1 in the lane of its slot (input_slot) where it has an adjoint.
template <class E, class T, class Readers>
constexpr auto seeded_inputs(const Readers& readers, std::size_t i) {
  using Inputs = region_inputs_t<E>;
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::array<T, sizeof...(K)>{[&] {
      T u(std::get<K>(readers)(i));
      if constexpr (region_input_t<E, K>::is_active) u.tangent.lane[input_slot<Inputs, K>] = 1;
      return u;
    }()...};
  }
  (std::make_index_sequence<region_size<E>>{});
}

/// The dual numbers local derivatives of the region rooted at E are taken in, for elements of type V:
/// a lane per input.
template <class E, class V>
using local_dual = dual<V, tangents<V, region_size<E>>>;

/// For each element i of the gathered formula e: use(i, adjoints), where adjoints[r].tangent.lane[s] is
/// w d2 e_i / du_r du_s, u_r the value of the inputs of slot r at element i (one forward pass and one
/// reverse sweep of e's scalar tree, in local_dual numbers).
template <class E, class W, class Use>
constexpr void local_hessians(const E& e, const W& w, const Use& use) {
  using T = local_dual<E, W>;
  const auto readers = input_readers(e);
  const T weight(w);  // a copy: the caller's stores may not change it
  for (std::size_t i = 0; i < E::value_type::size(); ++i) {
    const auto tree = element_tree<region_inputs_t<E>, 0>(e, seeded_inputs<E, T>(readers, i));
    const evaluated<std::remove_cvref_t<decltype(tree)>, false> values(tree);
    element_adjoints<T, region_size<E>> adjoints;
    backward_sweep(tree, values, weight, adjoints);
    use(i, adjoints.slot);
  }
}

/// For each element i of the gathered formula e: use(i, u), where u.tangent.lane[s] is d e_i / du_s
/// (one forward pass of e's scalar tree, in local_dual numbers).
template <class E, class Use>
constexpr void local_jacobians(const E& e, const Use& use) {
  using T = local_dual<E, scalar_of_t<typename E::value_type>>;
  const auto readers = input_readers(e);
  for (std::size_t i = 0; i < E::value_type::size(); ++i) {
    const auto tree = element_tree<region_inputs_t<E>, 0>(e, seeded_inputs<E, T>(readers, i));
    const evaluated<std::remove_cvref_t<decltype(tree)>, true> values(tree);
    use(i, value_at(tree, values));
  }
}

}  // namespace tapeless::detail
