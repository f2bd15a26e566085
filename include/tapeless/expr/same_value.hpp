// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/same_value.hpp: which node types say by themselves that all their nodes have one value.
#pragma once

#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/children.hpp>
#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/run_time_elementwise.hpp>
#include <tapeless/expr/unary.hpp>

#include <type_traits>

namespace tapeless::detail {

/// Whether every node of type N has the same value within one sweep: an argument or a let's name, or an
/// operation without data of its own (an empty op: exp, slice<0, 3>, matmul; not x[i], whose index is
/// run-time data, nor a constant or a cut) on such nodes. Two such operands are one computation, which
/// the library then does once: `e * e` is square(e), and an elementwise region reads e as one input.
///
/// Derived from what each kind states (expr/children.hpp): a leaf names one value by its type or not;
/// an operation node is one value where its operation is empty and its children are one value each;
/// if_else (its condition) and let (the values it keeps) hold data of their own. Anything that is not
/// a node (a tl::var, a number) is not.
template <class N, bool Node = Expression<N>>
inline constexpr bool one_value_by_type = false;  // not a node
template <class N>
inline constexpr bool one_value_by_type<N, true> = [] {
  static_assert(known_node_kind<N>,
                "tl: node kind N is not known to the walk one_value_by_type: declare its children in "
                "expr/children.hpp");
  return false;
}();
/// A formula over arrays of run-time extents is not a node (expr/run_time_elementwise.hpp): its operands
/// are data of their own.
template <RunTimeFormula N>
inline constexpr bool one_value_by_type<N, true> = false;
template <class Op, class Children>
inline constexpr bool one_value_below = false;  // if_else, let
template <class Op, class... C>
  requires(!std::is_same_v<Op, no_operation>)
inline constexpr bool one_value_below<Op, type_list<C...>> = std::is_empty_v<Op> && (one_value_by_type<C> && ...);
template <known_node_kind N>
inline constexpr bool one_value_by_type<N, true> =
    is_leaf<N> ? names_one_value<N> : one_value_below<operation_of_t<N>, children_t<N>>;

}  // namespace tapeless::detail
