// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/cut.hpp: computing a cut of a deep tree, and its part of the sweep (expr/cut.hpp says
// when and why trees are cut).
//
// The cut evaluates the subtree and sweeps it with seed 1 into a store of one partial per leaf, at
// once, when the node is built. Later, the sweep sends g times each partial on to its leaf. By the
// chain rule this is the subtree's own sweep with the products grouped the other way; results agree
// with an uncut sweep within rounding.
#pragma once

#include <tapeless/expr/cut.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/inline.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/ops/rules.hpp>
#include <tapeless/sweep/backward.hpp>

#include <cstddef>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

template <class L, class... Ls>
constexpr std::size_t position_in() {
  constexpr bool same[] = {std::is_same_v<L, Ls>..., true};
  std::size_t k = 0;
  while (!same[k]) ++k;
  return k;
}

/// The store of a cut's sweep: for each leaf of the subtree, the sum of what reached it, and the leaf.
/// The sums start at -0, which adds exactly.
template <class... Leaves>
struct leaf_partials {
  std::tuple<std::optional<Leaves>...> leaves{};
  std::tuple<typename Leaves::value_type...> partials{filled<typename Leaves::value_type>(-0.0)...};

  template <class Leaf, class G>
  constexpr void accumulate(const Leaf& leaf, const G& g) {
    constexpr std::size_t k = position_in<Leaf, Leaves...>();
    static_assert(k < sizeof...(Leaves), "a leaf reached by the sweep of a cut is missing from its list");
    if constexpr (k < sizeof...(Leaves)) {
      if (!std::get<k>(leaves)) std::get<k>(leaves).emplace(leaf);
      add_adjoint(std::get<k>(partials), g);
    }
  }
};

/// The cut_node of the subtree n: its value, and its sweep with seed 1.
template <class N>
TAPELESS_CUT_INLINE constexpr auto cut(const N& n) {
  using T = typename N::value_type;
  return [&]<class... L>(leaf_list<L...>) TAPELESS_CUT_INLINE {
    const evaluated<N, true> values(n);
    leaf_partials<L...> store;
    backward_sweep(n, values, T(1), store);
    return cut_node<T, L...>{{}, T(value_at(n, values)), std::move(store.leaves), std::move(store.partials)};
  }(typename free_leaves<N>::type{});
}

/// g times d value / d leaf, sent to each leaf the cut's sweep reached.
template <class T, class... L, bool Need, class G, class Store>
constexpr void backward_sweep(const cut_node<T, L...>& n, const evaluated<cut_node<T, L...>, Need>&, const G& g,
                              Store& store) {
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    auto send = [&](const auto& leaf, const auto& partial) {
      if (leaf) store.accumulate(*leaf, partial * T(g));
    };
    (send(std::get<K>(n.leaves), std::get<K>(n.partials)), ...);
  }
  (std::index_sequence_for<L...>{});
}

}  // namespace tapeless::detail
