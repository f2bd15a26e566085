// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/formula_elements.hpp: v[k] and A(i, j) of a formula over arrays of run-time
// extents (`tl::log_softmax(z)[label]`).
//
// The element is the formula's term at k (transforms/run_time_reduction.hpp), with f's own nodes where the
// term reads the sum's parameters: a read of an argument there is the argument's element node
// (ops/shape.hpp), a number node (a softmax's sum) is itself. So it is a node of fixed shape, as
// x[k] of the argument is: no sum over the elements, no allocation.
// Tests: test/unit/transforms/formula_elements_test.cpp
#pragma once

#include <tapeless/transforms/run_time_reduction.hpp>

#include <cstddef>
#include <tuple>

namespace tapeless::detail {

/// Element k of a formula e (formula_elements): its term at k, f's nodes in place of the sum's
/// parameters, so that a read of an argument there is that argument's element node (ops/shape.hpp).
/// The node outlives the term, which a product of two arrays of run-time extents is told
/// (element_outlives_term): the data the term holds is copied into it.
template <class E>
constexpr auto formula_element_at(const E& e, std::size_t k) {
  const auto term = term_formula<E, 0>(e);
  return with_parameters<E>(node_reads(e), [&](const auto&... p) {
    return element_at(term, k, std::forward_as_tuple(p..., element_outlives_term{}));
  });
}
/// v[k] of a formula of a vector (its type fixes one row or one column), past its size std::out_of_range.
template <class E>
constexpr auto formula_element_of(const E& e, std::size_t k, layer_above /*tag*/) {
  static_assert(fixed_one_along<E, true>() || fixed_one_along<E, false>(),
                "v[i]: v is a formula of a matrix of run-time rows and columns, not a vector; write v(i, j)");
  check_index(k, e.size(), index_access::element);
  return formula_element_at(e, k);
}
/// A(i, j) of a formula, past its rows or columns std::out_of_range.
template <class E>
constexpr auto formula_element_of(const E& e, std::size_t i, std::size_t j, layer_above /*tag*/) {
  check_index(i, e.rows(), index_access::element_row);
  check_index(j, e.cols(), index_access::element_column);
  return formula_element_at(e, i * e.cols() + j);
}

}  // namespace tapeless::detail
