// SPDX-License-Identifier: BSL-1.0
// let shares a subtree: a chain of k lets, each using the previous value three times, is a graph
// whose size grows linearly in k, where the same chain written with copies grows as 3^k.
// The sweep visits each node of the graph once, so its cost follows the size.
#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;

namespace {

template <int K, class Y>
constexpr auto let_chain(Y y) {
  if constexpr (K == 0)
    return y;
  else
    return let_chain<K - 1>(tl::let(y, [](auto t) { return t * t + t; }));
}

template <int K, class Y>
constexpr auto copy_chain(Y y) {
  if constexpr (K == 0)
    return y;
  else
    return copy_chain<K - 1>(y * y + y);
}

using leaf = tl::argument<0, double>;
template <int K>
constexpr std::size_t let_size = sizeof(decltype(let_chain<K>(leaf(0.5))));
template <int K>
constexpr std::size_t copy_size = sizeof(decltype(copy_chain<K>(leaf(0.5))));

// Each let adds the same fixed number of bytes: linear. (The first adds less: the values a let keeps
// of its bound expression are none when that expression is a leaf.)
static_assert(let_size<3> - let_size<2> == let_size<2> - let_size<1>);
static_assert(let_size<12> - let_size<11> == let_size<2> - let_size<1>);
// Copies double: exponential. (y * y is square(y), one copy of y: expr/same_value.hpp.)
static_assert(copy_size<6> >= 2 * copy_size<5> && copy_size<5> >= 2 * copy_size<4>);

// And the let chain is right: y' = (2y + 1) y' per step.
constexpr double chain_derivative(double y, int k) {
  double d = 1.0;
  for (int i = 0; i < k; ++i) {
    d *= 2 * y + 1;
    y = y * y + y;
  }
  return d;
}
static_assert(tl::grad([](auto x) { return let_chain<6>(x); })(0.01) == chain_derivative(0.01, 6));
// The copied tree sums the same terms in another order: equal to rounding.
constexpr double copy_error = tl::grad([](auto x) { return copy_chain<4>(x); })(0.01) - chain_derivative(0.01, 4);
static_assert(copy_error < 1e-15 && copy_error > -1e-15);

}  // namespace
