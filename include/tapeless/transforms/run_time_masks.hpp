// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/run_time_masks.hpp: tl::if_else, tl::any, tl::all and tl::count of formulas of
// bools, the comparisons of arrays of run-time extents (`x > 0.0`, expr/run_time_elementwise.hpp).
//
// A comparison of such arrays gives no array of bools, which would cost an allocation per comparison:
// it is a formula of bools, compared element by element where it is read. tl::if_else of one is a
// formula of numbers whose element k is the scalar if_else of the condition's bool at k and the
// branches' elements there, so that a sum over it reads the condition in the same loop, and the branch
// not taken receives nothing. tl::any, tl::all and tl::count read its elements until they know.
// Tests: test/unit/transforms/run_time_masks_test.cpp
#pragma once

#include <tapeless/transforms/run_time_reduction.hpp>

#include <cstddef>
#include <utility>

namespace tapeless {

namespace detail {

/// tl::if_else(cond, a, b) where cond is a formula of bools, or one bool beside arrays of run-time
/// extents: the formula of the choice, element by element; of branches that are plain values, its value.
template <class C, class A, class B>
constexpr auto run_time_if_else(C&& cond, A&& a, B&& b, layer_above /*tag*/ = {}) {
  auto choice =
      make_run_time_elementwise(select_elements{}, std::forward<C>(cond), std::forward<A>(a), std::forward<B>(b));
  if constexpr (Differentiable<A> || Differentiable<B>)
    return choice;
  else
    return formula_value(choice);
}

}  // namespace detail

/// Elementwise cond ? a : b, cond a formula of bools (a comparison of arrays of run-time extents,
/// `x > 0.0`): a formula of cond's shape whose element k is a's where cond holds at k, else b's; a and b
/// have that shape (a row or a column repeats) or are numbers. Only the branch taken at k receives
/// element k's adjoint. Of plain branches, a matrix.
template <detail::RunTimeMaskFormula C, Operand A, Operand B>
constexpr auto if_else(C&& cond, A&& a, B&& b) {
  return detail::run_time_if_else(std::forward<C>(cond), std::forward<A>(a), std::forward<B>(b));
}
/// Whether any element of a formula of bools holds: false for no elements. Reads them until one does.
template <detail::RunTimeMaskFormula M>
constexpr bool any(const M& m) {
  bool found = false;
  detail::each_element_value(m, [&](std::size_t /*k*/, bool v) { return !(found = v); });
  return found;
}
/// Whether every element of a formula of bools holds: true for no elements.
template <detail::RunTimeMaskFormula M>
constexpr bool all(const M& m) {
  bool every = true;
  detail::each_element_value(m, [&](std::size_t /*k*/, bool v) { return (every = v); });
  return every;
}
/// How many elements of a formula of bools hold.
template <detail::RunTimeMaskFormula M>
constexpr std::size_t count(const M& m) {
  std::size_t n = 0;
  detail::each_element_value(m, [&](std::size_t /*k*/, bool v) { return (n += v ? 1 : 0, true); });
  return n;
}

}  // namespace tapeless
