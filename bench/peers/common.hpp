// SPDX-License-Identifier: BSL-1.0
// bench/peers/common.hpp: what every peer library of the benchmarks shares.
//
// A peer is a struct with the library's name and one static function computing a gradient:
//
//   struct some_peer {
//     static constexpr const char* name = "some_peer";            // the <library> of "<case>/<library>"
//     static constexpr tolerance agreement = exact;               // optional: how close to hand-written
//     template <class R, std::size_t N, class F>
//     static R gradient(int case_id, const std::array<double, N>& x, const F& f);
//     template <std::size_t N, class F>                           // optional: run once before the checks
//     static void prepare(int case_id, const std::array<double, N>& x, const F& f);
//   };
//
// gradient returns the gradient at x of f, a generic callable from a const std::array<T, N>& of the
// library's number type T to a T, as R: a number, a tl::matrix or a tuple of them whose components in
// order are those of x. case_id is unique per case in one executable (ADOL-C names its tapes by it).
#pragma once

#include "../suite.hpp"

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless_bench {

namespace detail {

/// How many numbers a value holds: 1 for a number, size() for a tl::matrix, the sum over a tuple.
template <class P>
constexpr std::size_t count() {
  if constexpr (std::is_arithmetic_v<P>)
    return 1;
  else if constexpr (argument_list<P>)
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (std::size_t{0} + ... + count<std::tuple_element_t<I, P>>());
    }
  (std::make_index_sequence<std::tuple_size_v<P>>{});
  else return P::size();
}

/// Fills a number, a matrix (row-major) or a tuple of them from consecutive numbers at g.
template <class R>
void assign(R& r, const double*& g) {
  if constexpr (std::is_arithmetic_v<R>)
    r = *g++;
  else if constexpr (argument_list<R>)
    std::apply([&g](auto&... part) { (assign(part, g), ...); }, r);
  else
    for (auto& e : r) e = *g++;
}

}  // namespace detail

/// The differentiated inputs of a case, in order (numbers, and matrices row-major): the x of a peer.
template <class... P>
std::array<double, (detail::count<P>() + ...)> numbers(const P&... p) {
  std::array<double, (detail::count<P>() + ...)> out;
  std::size_t i = 0;
  auto add = [&](const auto& x) {
    if constexpr (std::is_arithmetic_v<std::remove_cvref_t<decltype(x)>>)
      out[i++] = x;
    else
      for (double e : x) out[i++] = e;
  };
  (add(p), ...);
  return out;
}

/// The components g, in order, as the gradient type R (a number, a tl::matrix or a tuple of them).
template <class R, std::size_t N>
R as_gradient(const std::array<double, N>& g) {
  static_assert(detail::count<R>() == N, "the gradient type holds as many numbers as the inputs");
  R r;
  const double* p = g.data();
  detail::assign(r, p);
  return r;
}

/// The gradient at x of f in one forward pass of a forward-mode number type, whose numbers carry
/// their N partial derivatives: seed(x_i, i) is x_i with the derivatives e_i, derivative(y, i) reads
/// dy/dx_i. The pass costs about N function evaluations.
template <class Number, class R, std::size_t N, class F, class Seed, class Derivative>
R forward_mode_gradient(const std::array<double, N>& x, const F& f, Seed seed, Derivative derivative) {
  std::array<Number, N> ax;
  for (std::size_t i = 0; i < N; ++i) ax[i] = seed(x[i], static_cast<int>(i));
  const Number y = f(std::as_const(ax));
  std::array<double, N> g;
  for (std::size_t i = 0; i < N; ++i) g[i] = derivative(y, static_cast<int>(i));
  return as_gradient<R>(g);
}

/// The value of a number of any peer, for a function that branches on values (a pivot's choice).
template <class T>
double value_of(const T& x) {
  if constexpr (std::is_arithmetic_v<T>)
    return x;
  else if constexpr (requires { x.getValue(); })  // ADOL-C
    return x.getValue();
  else if constexpr (requires { x.val(); })  // Sacado
    return x.val();
  else  // Eigen
    return x.value();
}

}  // namespace tapeless_bench
