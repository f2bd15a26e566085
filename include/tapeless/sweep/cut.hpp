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
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/sweep/backward.hpp>
#include <tapeless/sweep/observer.hpp>

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// The store of a cut's sweep: for each leaf of the subtree, whether anything reached it and the sum of
/// what did, in the form expr/cut.hpp chose (Partials). The sums start at -0, which adds exactly; a
/// list starts empty.
template <class Partials, class... Leaves>
struct leaf_partials {
  static_assert((names_one_value<Leaves> && ...), "a cut stands in for its leaves by their types");
  std::array<bool, sizeof...(Leaves)> reached{};
  Partials partials = [] {
    Partials p{};
    [&]<std::size_t... K>(std::index_sequence<K...>) { ((plain_get<K>(p) = start_of(plain_get<K>(p))), ...); }
    (std::index_sequence_for<Leaves...>{});
    return p;
  }();

  template <class Leaf, class G>
  constexpr void accumulate(const Leaf&, const G& g) {
    constexpr std::size_t k = position_in<Leaf, Leaves...>();
    static_assert(k < sizeof...(Leaves), "a leaf reached by the sweep of a cut is missing from its list");
    if constexpr (k < sizeof...(Leaves)) {
      reached[k] = true;
      auto& partial = plain_get<k>(partials);
      if constexpr (is_element_list<std::remove_cvref_t<decltype(partial)>>)
        partial.add(g);
      else
        add_adjoint(partial, g);
    }
  }

 private:
  template <class P>
  static constexpr P start_of(const P&) {
    if constexpr (is_element_list<P>)
      return P{};
    else
      return filled<P>(-0.0);
  }
};

/// The cut_node of the subtree n: its value, and its sweep with seed 1. Called by make_unary and
/// make_binary (expr/make.hpp) through the tag layer_above, since it runs the sweep.
template <class N>
TAPELESS_CUT_INLINE constexpr auto cut(const N& n, layer_above) {
  using T = typename N::value_type;
  return [&]<class... L>(leaf_list<L...>) TAPELESS_CUT_INLINE {
    using Partials = plain_tuple<typename partial_kept<N, L>::type...>;
    const evaluated<N, true> values(n);
    leaf_partials<Partials, L...> store;
    backward_sweep(n, values, T(1), store);
    return cut_node<T, Partials, L...>{{}, T(value_at(n, values)), store.reached, std::move(store.partials)};
  }(typename free_leaves<N>::type{});
}

/// g times d value / d leaf, sent to each leaf the cut's sweep reached, by that leaf's sweep: a kept list
/// of elements as those elements times g (adjoint/structured.hpp, scaled_elements).
template <class T, class P, class... L, bool Need, class G, class Store>
constexpr void backward_sweep(const cut_node<T, P, L...>& n, const evaluated<cut_node<T, P, L...>, Need>& v, const G& g,
                              Store& store) {
  observe(store, [&](auto& o) { o.reached(n, g); });
  const auto send = [&]<std::size_t K, class Leaf>(std::integral_constant<std::size_t, K>, const Leaf& leaf) {
    const auto& partial = plain_get<K>(n.partials);
    const auto c = [&] {
      using Partial = std::remove_cvref_t<decltype(partial)>;
      if constexpr (is_element_list<Partial>)
        return scaled_elements<typename Partial::matrix_type, Partial::capacity>{&partial, T(g)};
      else
        return partial * T(g);
    }();
    observe(store, sent_by(n, v, std::integral_constant<std::size_t, K>{}, leaf, g), c);
    backward_sweep(leaf, evaluated<Leaf>(leaf), c, store);
  };
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    ((n.reached[K] ? send(std::integral_constant<std::size_t, K>{}, leaf_stand_in<L>) : void()), ...);
  }
  (std::index_sequence_for<L...>{});
}

}  // namespace tapeless::detail
