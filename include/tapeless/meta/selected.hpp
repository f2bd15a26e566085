// SPDX-License-Identifier: BSL-1.0
// tapeless/meta/selected.hpp: the argument positions a transform differentiates, as a type.
// Tests: test/unit/transforms/grad_test.cpp
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// The positions named in grad<I...> (or jacobian, hessian), or all N arguments when none are named.
/// A type rather than a lambda in a decltype: clang 14 crashes reading such a decltype back from a
/// precompiled header.
template <std::size_t N, std::size_t... I>
using selected_sequence = std::conditional_t<sizeof...(I) == 0, std::make_index_sequence<N>, std::index_sequence<I...>>;

}  // namespace tapeless::detail
