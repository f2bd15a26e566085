// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/shared.hpp: work that several nodes of one sweep share: the LU factors of an argument.
//
// det(A) (N >= 4), inverse(A) and solve(A, b) each factorise A. Where two or more of them take the
// same argument, the sweep keeps one set of LU factors for all of them, made by whichever runs first,
// and det's rule reads det(A) A^-T off the inverse when inverse(A) made one: log(det(A)) +
// sum(inverse(A)) factorises A once, as a hand-written adjoint does, not twice with the cofactors
// formed besides.
//
// An operation takes part by stating forward(operands..., linalg::shared_lu<T, N>&) beside its
// forward(operands...), returning the same type (operation/protocol.hpp, forward_sharing). Only arguments are
// keys: a let name may be bound anew by a let in its body, and two constants of one type may hold
// different values. Where nothing shares, nothing is stored: a sweep of numbers never looks.
// Tests: test/unit/ops/factorisations/shared_factors_test.cpp
#pragma once

#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/let.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/matrix/matrix.hpp>

#include <cstddef>
#include <type_traits>

namespace tapeless::detail {

namespace linalg {
template <class T, std::size_t N>
struct shared_lu;  // linalg/lu.hpp
}  // namespace linalg

/// Whether Op, at the operand A (and B), takes the sweep's LU factors of A.
template <class Op, class A, class... B>
inline constexpr bool takes_shared_lu = false;
template <class Op, std::size_t S, class T, std::size_t N, class... B>
inline constexpr bool takes_shared_lu<Op, argument<S, matrix<T, N, N>>, B...> =
    requires(const Op& op, const matrix<T, N, N>& a, const typename B::value_type&... b, linalg::shared_lu<T, N>& s) {
  op.forward(a, b..., s);
};

/// How many nodes of the tree N take the LU factors of the argument A. The bound expression of a let
/// is left out: the let evaluated it when it was built, outside any sweep.
template <class A, class N>
inline constexpr std::size_t lu_uses = 0;
template <class A, template <class...> class Node, class... C>
inline constexpr std::size_t lu_uses<A, Node<C...>> = (std::size_t{0} + ... + lu_uses<A, C>);
template <class A, class Op, class X>
inline constexpr std::size_t lu_uses<A, unary_node<Op, X>> =
    std::size_t{std::is_same_v<A, X> && takes_shared_lu<Op, X>} + lu_uses<A, X>;
template <class A, class Op, class X, class Y>
inline constexpr std::size_t lu_uses<A, binary_node<Op, X, Y>> =
    std::size_t{std::is_same_v<A, X> && takes_shared_lu<Op, X, Y>} + lu_uses<A, X> + lu_uses<A, Y>;
template <class A, class Tag, class Bound, class Body>
inline constexpr std::size_t lu_uses<A, let_node<Tag, Bound, Body>> = lu_uses<A, Body>;

/// The LU factors a sweep of Root shares for the argument A: stored where two or more nodes take them.
template <class A, class Root>
struct lu_entry {};
template <std::size_t S, class T, std::size_t N, class Root>
  requires(lu_uses<argument<S, matrix<T, N, N>>, Root> >= 2)
struct lu_entry<argument<S, matrix<T, N, N>>, Root> {
  linalg::shared_lu<T, N> lu;
};

template <class A, class Root>
inline constexpr bool has_lu_entry = !std::is_empty_v<lu_entry<A, Root>>;

/// What the nodes of one sweep of Root share, for its arguments A...: made before the forward pass,
/// alive until the end of the reverse one (det's and solve's evaluations point into it).
template <class Root, class... A>
struct shared_work : lu_entry<A, Root>... {
  /// The shared LU factors of the operand node X, or null.
  template <class X>
  constexpr auto lu_for(const X&) noexcept {
    if constexpr ((std::is_same_v<X, A> || ...)) {
      if constexpr (has_lu_entry<X, Root>)
        return &static_cast<lu_entry<X, Root>&>(*this).lu;
      else
        return nullptr;
    } else {
      return nullptr;
    }
  }
};

}  // namespace tapeless::detail
