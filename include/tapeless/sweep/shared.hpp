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
#include <tapeless/expr/children.hpp>
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
  requires(fixed_extent(N))  // a matrix of run-time extents has no LU of its own
inline constexpr bool takes_shared_lu<Op, argument<S, matrix<T, N, N>>, B...> =
    requires(const Op& op, const matrix<T, N, N>& a, const typename B::value_type&... b, linalg::shared_lu<T, N>& s) {
  op.forward(a, b..., s);
};

/// How many nodes of the tree N take the LU factors of the argument A: an operation whose first child
/// is A and takes them, and so on down the children that the sweep's forward pass evaluates. The
/// children a node evaluates when it is built (a let's bound expression) are left out: they were
/// evaluated then, outside any sweep.
template <class A, class N>
struct lu_walk {
  static_assert(known_node_kind<N>,
                "tl: node kind N is not known to the walk lu_uses: declare its children in "
                "expr/children.hpp");
  static constexpr std::size_t value = 0;
};
template <class A, class N>
inline constexpr std::size_t lu_uses = lu_walk<A, N>::value;
/// Whether child k of a node that evaluates its first `built` children when it is built is evaluated
/// by the sweep.
constexpr bool evaluated_in_sweep(std::size_t k, std::size_t built) { return k >= built; }
template <class A, known_node_kind N>
struct lu_walk<A, N> {
  static constexpr std::size_t value = []<class... C>(type_list<C...>) {
    std::size_t uses = 0, k = 0;
    ((uses += (k == 0 && std::is_same_v<A, C> && takes_shared_lu<operation_of_t<N>, C...> ? 1 : 0) +
              (evaluated_in_sweep(k, node_traits<N>::evaluated_when_built) ? lu_uses<A, C> : 0),
      ++k),
     ...);
    return uses;
  }(children_t<N>{});
};

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
