// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/same_value.hpp: which node types say by themselves that all their nodes have one value.
#pragma once

#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/unary.hpp>

#include <type_traits>

namespace tapeless::detail {

/// Whether every node of type N has the same value within one sweep: an argument or a let's name, or an
/// operation without data of its own (an empty op: exp, slice<0, 3>, matmul; not x[i], whose index is
/// run-time data, nor a constant or a cut) on such nodes. Two such operands are one computation, which
/// the library then does once: `e * e` is square(e), and an elementwise region reads e as one input.
template <class N>
inline constexpr bool one_value_by_type = names_one_value<N>;
template <class Op, class A>
inline constexpr bool one_value_by_type<unary_node<Op, A>> = std::is_empty_v<Op>&& one_value_by_type<A>;
template <class Op, class A, class B>
inline constexpr bool one_value_by_type<binary_node<Op, A, B>> =
    std::is_empty_v<Op>&& one_value_by_type<A>&& one_value_by_type<B>;

}  // namespace tapeless::detail
