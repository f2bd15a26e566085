// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/same_value.hpp: which node types say by themselves that all their nodes have one value.
#pragma once

#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/children.hpp>
#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/leaf.hpp>
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
template <class N>
constexpr bool one_value_walk() {
  if constexpr (!Expression<N>) {
    return false;
  } else {
    static_assert(known_node_kind<N>,
                  "tl: a node kind (N above) is not known to the walk one_value_by_type: declare its children in "
                  "expr/children.hpp");
    if constexpr (!known_node_kind<N>)
      return false;
    else if constexpr (is_leaf<N>)
      return names_one_value<N>;
    else if constexpr (is_operation_node<N>)
      return std::is_empty_v<operation_of_t<N>> &&
             []<class... C>(type_list<C...>) { return (one_value_walk<C>() && ...); }(children_t<N>{});
    else
      return false;
  }
}
template <class N>
inline constexpr bool one_value_by_type = one_value_walk<N>();

}  // namespace tapeless::detail
