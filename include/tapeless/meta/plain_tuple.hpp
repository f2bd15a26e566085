// SPDX-License-Identifier: BSL-1.0
// tapeless/meta/plain_tuple.hpp: a tuple that stays trivially copyable when its elements are.
//
// Nodes are plain values, copied bitwise (test/integration/no_virtual_test.cpp checks it); std::tuple is never
// trivially copyable, so a node that keeps several values of different types keeps them in this.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

template <std::size_t I, class T>
struct plain_slot {
  T value;
};

template <class Indices, class... T>
struct plain_tuple_of;
template <std::size_t... I, class... T>
struct plain_tuple_of<std::index_sequence<I...>, T...> : plain_slot<I, T>... {
  static constexpr std::size_t size = sizeof...(T);
};

/// An aggregate: plain_tuple<A, B> t{{a}, {b}}; plain_get<0>(t).
template <class... T>
using plain_tuple = plain_tuple_of<std::index_sequence_for<T...>, T...>;

template <std::size_t I, class T>
constexpr T& plain_get(plain_slot<I, T>& s) noexcept {
  return s.value;
}
template <std::size_t I, class T>
constexpr const T& plain_get(const plain_slot<I, T>& s) noexcept {
  return s.value;
}

/// f(plain_get<0>(t), plain_get<1>(t), ...).
template <class F, class Tuple>
constexpr decltype(auto) apply_plain(F&& f, Tuple&& t) {
  // clang-format 14 would write `)->decltype(auto)` after a template parameter pack.
  // clang-format off
  const auto call = [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
    return std::forward<F>(f)(plain_get<I>(t)...);
  };
  // clang-format on
  return call(std::make_index_sequence<std::remove_cvref_t<Tuple>::size>{});
}

}  // namespace tapeless::detail
