// SPDX-License-Identifier: BSL-1.0
// test/random/build.hpp: a composition as tapeless code, one function per node chosen at compile time.
//
//   rdt::function<I>{}(x0, x1)   // composition I of generate(I), applied to numbers, vars or grad's arguments
//
// Each node of composition I is one instantiation of build<I, node>, whose `if constexpr` chain keeps
// only that node's operation: the compiler sees the same straight-line expression a user would write.
#pragma once

#include "composition.hpp"

#include <tapeless/tapeless.hpp>

#include <cstddef>
#include <tuple>

namespace rdt {

namespace tl = tapeless;

template <int I>
inline constexpr composition spec = generate(I);

template <std::size_t N>
constexpr tl::matrix<double, N, N> identity() {
  tl::matrix<double, N, N> m{};
  for (std::size_t i = 0; i < N; ++i) m(i, i) = 1.0;
  return m;
}

/// m mᵀ + I: symmetric positive definite, its eigenvalues at least 1.
template <std::size_t N, class M>
constexpr auto spd(const M& m) {
  return tl::matmul(m, tl::transpose(m)) + identity<N>();
}

template <int I, int K, class... X>
constexpr auto build(const X&... x);

/// The elements of a column vector of length L shifted up by one, the first last.
template <std::size_t L, class V>
constexpr auto rotate(const V& v) {
  return tl::concat(tl::slice<1, L - 1>(v), tl::slice<0, 1>(v));
}

/// Operand `Side` of node K, adapted: (x + shift) or x * scale.
template <int I, int K, int Side, class... X>
constexpr auto operand(const X&... x) {
  constexpr node n = spec<I>.nodes[K];
  constexpr double shift = n.shift[Side], scale = n.scale[Side];
  auto e = build < I, Side == 0 ? n.a : n.b > (x...);
  if constexpr (shift != 0)
    return e + shift;
  else if constexpr (scale != 1)
    return e * scale;
  else
    return e;
}

template <int I, int K, class A>
constexpr auto unary(const A& a) {
  constexpr node n = spec<I>.nodes[K];
  constexpr std::size_t N = static_cast<std::size_t>(spec<I>.n);
  constexpr kind k = n.k;
  if constexpr (k == kind::unary)
    return std::get<n.op>(registry::unary_operations).apply(a);
  else if constexpr (k == kind::pow_real)
    return tl::pow(a, n.c);
  else if constexpr (k == kind::pow_base)
    return tl::pow(n.c, a);
  else if constexpr (k == kind::sum)
    return tl::sum(a);
  else if constexpr (k == kind::mean)
    return tl::mean(a);
  else if constexpr (k == kind::prod)
    return tl::prod(a);
  else if constexpr (k == kind::norm)
    return tl::norm(a);
  else if constexpr (k == kind::squared_norm)
    return tl::squared_norm(a);
  else if constexpr (k == kind::log_sum_exp)
    return tl::log_sum_exp(a);
  else if constexpr (k == kind::max_element)
    return tl::max_element(a);
  else if constexpr (k == kind::min_element)
    return tl::min_element(a);
  else if constexpr (k == kind::element && spec<I>.nodes[n.a].s == shape::vector)
    return a[n.index];
  else if constexpr (k == kind::element)
    return a(n.index / N, n.index % N);
  else if constexpr (k == kind::trace)
    return tl::trace(a);
  else if constexpr (k == kind::det)
    return tl::det(a);
  else if constexpr (k == kind::log_det)
    return tl::log_det(spd<N>(a));
  else if constexpr (k == kind::transpose)
    return tl::transpose(a);
  else if constexpr (k == kind::inverse)
    return tl::inverse(spd<N>(a));
  else if constexpr (k == kind::cholesky)
    return tl::cholesky(spd<N>(a));
  else if constexpr (k == kind::softmax)
    return tl::softmax(a);
  else if constexpr (k == kind::log_softmax)
    return tl::log_softmax(a);
  else if constexpr (k == kind::col)
    return tl::col(a, n.index);
  else if constexpr (k == kind::diag)
    return tl::diag(a);
  else if constexpr (k == kind::row)
    return tl::transpose(tl::row(a, n.index));
  else if constexpr (k == kind::rotate && n.s == shape::vector)
    return rotate<N>(a);
  else if constexpr (k == kind::rotate)
    return tl::reshape<N, N>(rotate<N * N>(tl::reshape<N * N, 1>(a)));
}

template <int I, int K, class A, class B>
constexpr auto binary(const A& a, const B& b) {
  constexpr std::size_t N = static_cast<std::size_t>(spec<I>.n);
  constexpr kind k = spec<I>.nodes[K].k;
  if constexpr (k == kind::binary)
    return std::get<spec<I>.nodes[K].op>(registry::binary_operations).apply(a, b);
  else if constexpr (k == kind::let)
    return tl::let(a, [b](auto t) { return t * b + tl::sin(t); });
  else if constexpr (k == kind::select)
    return tl::if_else(a > b, a, b);
  else if constexpr (k == kind::dot)
    return tl::dot(a, b);
  else if constexpr (k == kind::matmul)
    return tl::matmul(a, b);
  else if constexpr (k == kind::solve)
    return tl::solve(spd<N>(a), b);
  else if constexpr (k == kind::outer)
    return tl::outer(a, b);
}

template <int I, int K, class... X>
constexpr auto build(const X&... x) {
  constexpr node n = spec<I>.nodes[K];
  if constexpr (n.k == kind::argument) {
    return std::get<n.index>(std::tie(x...));
  } else if constexpr (n.k == kind::constant) {
    return n.c;
  } else {
    auto r = [&] {
      if constexpr (is_binary(n.k))
        return binary<I, K>(operand<I, K, 0>(x...), operand<I, K, 1>(x...));
      else
        return unary<I, K>(operand<I, K, 0>(x...));
    }();
    if constexpr (n.post != 1)
      return r * n.post;
    else
      return r;
  }
}

/// Composition I as a function of its arguments.
template <int I>
struct function {
  template <class... X>
  constexpr auto operator()(const X&... x) const {
    return build<I, spec<I>.root>(x...);
  }
};

}  // namespace rdt
