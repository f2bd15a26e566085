// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/held_formulas.hpp: tl::concat and tl::reshape of a formula over arrays of run-time
// extents.
//
// Both rearrange whole arrays, which a formula is not: it has elements only where something reads them.
// So a formula's value is held by a node first (stored_formula, as a product's or a factorisation's
// operand: one allocation of its size for tl::dynamic extents, none for tl::bounded), and that node is
// concatenated or reshaped as an array is (ops/shape.hpp); its rule sends the adjoint through the
// formula. A formula of data alone is computed into data.
// Tests: test/unit/transforms/held_formulas_test.cpp
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/run_time_elementwise.hpp>
#include <tapeless/ops/shape.hpp>
#include <tapeless/transforms/run_time_reduction.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless {

/// a's elements followed by b's where a or b is a formula over column vectors of run-time extents (a
/// slice, an elementwise formula): the formula's value held first, then concatenated as vectors are.
template <Operand A, Operand B>
  requires((detail::RunTimeArray<A> || detail::RunTimeArray<B>)&&(detail::RunTimeRecord<std::remove_cvref_t<A>> ||
                                                                  detail::RunTimeRecord<std::remove_cvref_t<B>>))
constexpr auto concat(A&& a, B&& b) {
  return concat(detail::whole_array_operand(std::forward<A>(a)), detail::whole_array_operand(std::forward<B>(b)));
}

/// A formula's elements in row-major order as an R x C matrix, R x C its size (else
/// std::invalid_argument): its value held first, then reshaped as an array is.
template <std::size_t R, std::size_t C, Operand A>
  requires detail::RunTimeRecord<std::remove_cvref_t<A>>
constexpr auto reshape(A&& a) { return reshape<R, C>(detail::whole_array_operand(std::forward<A>(a))); }

}  // namespace tapeless
