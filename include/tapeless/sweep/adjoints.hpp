// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/adjoints.hpp: where the reverse sweep puts the adjoints of leaves.
//
// The sweep hands each leaf's adjoint to a chain of stores: a let_scope per enclosing let (it keeps
// the adjoint of its own bound<Tag> name), ending in the store of the transform being run
// (argument_adjoints for grad, var_adjoints for backward()). Everything is resolved at compile time.
#pragma once

#include <tapeless/expr/leaf.hpp>
#include <tapeless/ops/rules.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>

namespace tapeless::detail {

template <class Leaf>
inline constexpr bool is_argument = false;
template <std::size_t S, class T>
inline constexpr bool is_argument<argument<S, T>> = true;

template <class>
inline constexpr bool always_false = false;

/// The adjoints of the arguments a gradient is taken with respect to, one slot each.
template <class... T>
struct argument_adjoints {
  std::tuple<T...> slots{};

  template <class Leaf, class G>
  constexpr void accumulate(const Leaf&, const G& g) {
    if constexpr (is_argument<Leaf>)
      add_adjoint(std::get<Leaf::slot>(slots), g);
    else
      static_assert(always_false<Leaf>, "a name bound by tl::let was used outside the body of its let");
  }
};

/// The store of backward(): tl::var leaves write through their own pointer; nothing else may appear.
struct var_adjoints {
  template <class Leaf, class G>
  constexpr void accumulate(const Leaf&, const G&) {
    static_assert(!is_argument<Leaf>,
                  "backward(): this expression contains an argument of tl::grad; call backward() only on expressions "
                  "built from tl::var, and use tl::grad / tl::value_and_grad for functions");
    static_assert(is_argument<Leaf>, "a name bound by tl::let was used outside the body of its let");
  }
};

/// The adjoint of one let's bound name, summed over all its uses; other leaves go to the parent store.
template <class Tag, class T, class Parent>
struct let_scope {
  T adjoint;
  Parent& parent;

  template <class Leaf, class G>
  constexpr void accumulate(const Leaf& leaf, const G& g) {
    if constexpr (is_bound_to<Leaf, Tag>)
      add_adjoint(adjoint, g);
    else
      parent.accumulate(leaf, g);
  }
};

}  // namespace tapeless::detail
