// SPDX-License-Identifier: BSL-1.0
// tapeless/meta/type_list.hpp: a list of types, joined without instantiating std::tuple.
//
// Compile-time walks that only collect types (a fused region's inputs and operations) use this:
// std::tuple and std::tuple_cat cost a dozen class instantiations per element, and these walks run
// once per region of every gradient.
#pragma once

#include <cstddef>

namespace tapeless::detail {

template <class... T>
struct type_list {
  static constexpr std::size_t size = sizeof...(T);
};

template <class... Lists>
struct joined_types;
template <class... A>
struct joined_types<type_list<A...>> {
  using type = type_list<A...>;
};
template <class... A, class... B, class... Rest>
struct joined_types<type_list<A...>, type_list<B...>, Rest...> : joined_types<type_list<A..., B...>, Rest...> {};

/// The types of the lists, in order, in one list.
template <class... Lists>
using join_t = typename joined_types<Lists...>::type;

}  // namespace tapeless::detail
