// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/adjoints.hpp: where the reverse sweep puts the adjoints of leaves.
//
// The sweep hands each leaf's adjoint to a chain of stores: a let_scope per enclosing let (it keeps
// the adjoint of its own bound<Tag> name), ending in the store of the transform being run
// (argument_adjoints for grad, var_adjoints for backward()). Everything is resolved at compile time.
#pragma once

#include <tapeless/adjoint/structured.hpp>
#include <tapeless/detail/inline.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/sweep/observer.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

template <class Leaf>
inline constexpr bool is_argument = false;
template <std::size_t S, class T>
inline constexpr bool is_argument<argument<S, T>> = true;

template <class>
inline constexpr bool always_false = false;

/// The sum of the adjoints that reach one leaf. The first is copied in and the others added, as if
/// the sum started at -0, the identity of IEEE addition: a matrix is not filled first and then added
/// to, which would be two passes over it where one serves. Whether one
/// has arrived is known where the sweep is inlined, so that test folds away.
/// Held is T, or T& for a sum kept in its destination (argument_adjoints_into).
/// With TakesSpare, a sum of a matrix on the heap (tl::dynamic) is allocated only when it needs room
/// of its own: a first adjoint that carries spare values (a scaled one, adjoint/structured.hpp) gives
/// it their elements instead. Only a store whose forward pass's values are swept once and then dropped
/// takes them: grad's.
template <class T, class Held = T, bool TakesSpare = false>
struct adjoint_sum {
  static constexpr bool sized_late = TakesSpare && elements_on_heap<T> && std::is_same_v<Held, T>;
  struct extents {
    std::size_t rows = 0, cols = 0;
  };
  struct no_extents {};
  Held value;
  bool written = false;
  [[no_unique_address]] std::conditional_t<sized_late, extents, no_extents> late;  // of a sum sized late

  // The matrix constructed uninitialized here, not returned by a constexpr function: g++ folds such a
  // call into a constant whose uninitialized elements are zeros, and fills the matrix with them.
  constexpr adjoint_sum() requires Matrix<T> && std::is_same_v<Held, T> : value(uninitialized) {}
  constexpr adjoint_sum() requires(!Matrix<T> && !RunTimeMatrix<T>) && std::is_same_v<Held, T> : value(0) {}
  /// The sum of a matrix of run-time extents, those of `like`, the argument: its total has them even
  /// where no adjoint arrives. Of any other type, `like` says nothing the type does not.
  template <class Like>
    requires(RunTimeMatrix<T>&& std::is_same_v<Held, T> && !sized_late)
  constexpr explicit adjoint_sum(const Like& like) : value(like.rows(), like.cols()) {}
  template <class Like>
    requires(sized_late)
  constexpr explicit adjoint_sum(const Like& like) : late{like.rows(), like.cols()} {}
  template <class Like>
    requires(!RunTimeMatrix<T> && std::is_same_v<Held, T>)
  constexpr explicit adjoint_sum(const Like&) : adjoint_sum() {}
  constexpr explicit adjoint_sum(T& destination) requires std::is_same_v<Held, T&> : value(destination) {}

  // Inlined where the sweep is, the test of `written` folds away and the copy or addition fuses with
  // the loop that made g; clang leaves it out of line unless made to (detail/inline.hpp).
  template <class G>
  TAPELESS_SWEEP_INLINE constexpr void add(const G& g) {
    if (written) {
      add_adjoint(value, g);
    } else {
      if constexpr (sized_late && requires { requires std::is_same_v<decltype(*g.spare), T&>; }) {
        if (g.spare != nullptr) {
          value = g.taken();
          written = true;
          return;
        }
      }
      assign_adjoint(sized(), g);
      written = true;
    }
  }

  /// The sum itself, for a caller to write the first adjoint into, as add() would copy it; nullptr
  /// once one has arrived. A loop that writes its adjoints there spares the copy (a region's loop
  /// into a let's name).
  constexpr T* claim() {
    if (written) return nullptr;
    written = true;
    return &sized();
  }

  /// The sum, or `none` (every element) if no adjoint arrived.
  constexpr const T& total(double none) {
    if (!written) {
      if constexpr (RunTimeMatrix<T>) {
        for (auto& e : sized()) e = none;
        written = true;
      } else {
        add(filled<T>(none));
      }
    }
    return value;
  }

 private:
  // The sum with room for its elements, before anything is written into it.
  constexpr Held& sized() {
    if constexpr (sized_late) value = T(late.rows, late.cols);
    return value;
  }
};

/// Where the first adjoint of leaf may be written in place (adjoint_sum::claim): a pointer to its sum
/// in the store, or nullptr, also for a store that keeps no sums (a cut's, backward()'s).
template <class Store, class Leaf>
constexpr auto claim_sum(Store& store, const Leaf& leaf) {
  if constexpr (requires { store.claim(leaf); })
    return store.claim(leaf);
  else
    return nullptr;
}

/// The adjoints of the arguments a gradient is taken with respect to, one sum each; +0 for an argument
/// no adjoint reached.
/// What the stores of grad's arguments share: an argument's adjoint goes to Derived's sum_of<slot>(),
/// and no other leaf may reach them.
template <class Derived>
struct argument_store {
  template <class Leaf, class G>
  TAPELESS_SWEEP_INLINE constexpr void accumulate(const Leaf&, const G& g) {  // as adjoint_sum::add
    if constexpr (is_argument<Leaf>)
      self().template sum_of<Leaf::slot>().add(g);
    else
      static_assert(always_false<Leaf>, "a name bound by tl::let was used outside the body of its let");
  }
  template <class Leaf>
  constexpr auto claim(const Leaf&) {
    if constexpr (is_argument<Leaf>)
      return self().template sum_of<Leaf::slot>().claim();
    else
      return nullptr;
  }

 private:
  constexpr Derived& self() { return static_cast<Derived&>(*this); }
};

/// TakesSpare: whether a sum takes the spare values of the forward pass (adjoint_sum), which grad's
/// store does and an observed sweep's (inspect/record.hpp), which shows each adjoint after it is added,
/// does not.
template <bool TakesSpare, class... T>
struct argument_adjoints_of : argument_store<argument_adjoints_of<TakesSpare, T...>> {
  plain_tuple<adjoint_sum<T, T, TakesSpare>...> slots;

  constexpr argument_adjoints_of() = default;
  /// The sums of the arguments `like...`, each of its argument's extents where they are run-time ones.
  template <class... Like>
    requires(sizeof...(Like) == sizeof...(T))
  constexpr explicit argument_adjoints_of(const Like&... like) : slots{{adjoint_sum<T, T, TakesSpare>(like)}...} {}

  template <std::size_t S>
  constexpr auto& sum_of() {
    return plain_get<S>(slots);
  }

  /// The adjoint of argument S, complete once the sweep is done.
  template <std::size_t S>
  constexpr const auto& slot() {
    return plain_get<S>(slots).total(0.0);
  }

  /// The gradient, once the sweep is done: the one slot, or a std::tuple of them.
  [[nodiscard]] constexpr auto gradient() {
    if constexpr (sizeof...(T) == 1 && (RunTimeMatrix<T> && ...))
      return (slot<0>(), std::move(plain_get<0>(slots).value));  // its elements, not a copy of them
    else if constexpr (sizeof...(T) == 1)
      return slot<0>();
    else
      return all_slots(std::index_sequence_for<T...>{});
  }

 private:
  /// Each slot complete, a run-time matrix's elements moved into the tuple, not copied.
  template <std::size_t... S>
  constexpr std::tuple<T...> all_slots(std::index_sequence<S...>) {
    return std::tuple<T...>([&]() -> decltype(auto) {
      if constexpr (RunTimeMatrix<T>)
        return (slot<S>(), std::move(plain_get<S>(slots).value));
      else
        return slot<S>();
    }()...);
  }
};

/// The store of tl::grad: it takes the spare values of the forward pass it sweeps once.
template <class... T>
using argument_adjoints = argument_adjoints_of<true, T...>;
/// The store of a sweep that is watched (inspect/record.hpp): every adjoint stays readable.
template <class... T>
using observed_argument_adjoints = argument_adjoints_of<false, T...>;

/// The adjoints of the arguments of a gradient, each summed in its part of grad's result itself (the
/// matrix, or the tuple's elements): copied out of a store, the gradient would take a pass of its own
/// over every matrix argument.
template <class... T>
struct argument_adjoints_into : argument_store<argument_adjoints_into<T...>> {
  plain_tuple<adjoint_sum<T, T&>...> sums;
  constexpr explicit argument_adjoints_into(T&... destination) : sums{{adjoint_sum<T, T&>(destination)}...} {}

  template <std::size_t S>
  constexpr auto& sum_of() {
    return plain_get<S>(sums);
  }
  /// Once the sweep is done: +0 where no adjoint arrived.
  constexpr void finish() {
    apply_plain([](auto&... sum) { ((void)sum.total(0.0), ...); }, sums);
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
  adjoint_sum<T> sum;
  Parent& parent;

  constexpr explicit let_scope(Parent& p) : parent(p) {}

  template <class Leaf, class G>
  TAPELESS_SWEEP_INLINE constexpr void accumulate(const Leaf& leaf, const G& g) {  // as adjoint_sum::add
    if constexpr (is_bound_to<Leaf, Tag>)
      sum.add(g);
    else
      parent.accumulate(leaf, g);
  }
  template <class Leaf>
  constexpr auto claim(const Leaf& leaf) {
    if constexpr (is_bound_to<Leaf, Tag>)
      return sum.claim();
    else
      return claim_sum(parent, leaf);
  }
  /// The observer of the sweep, if the store it ends in has one (sweep/observer.hpp).
  constexpr auto& observer() const requires observed<Parent> { return parent.observer(); }
};

}  // namespace tapeless::detail
