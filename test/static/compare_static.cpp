// SPDX-License-Identifier: BSL-1.0
// Compile-only: the scalar comparisons of ops/compare.hpp give bools for scalar operands and stay off
// matrix-valued ones, whose orderings are elementwise masks (ops/mask.hpp), even where mask.hpp is not
// included; == compares whole values.
#include <tapeless/expr/leaf.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/ops/compare.hpp>

#include <type_traits>

namespace tl = tapeless;

namespace {
using V = tl::vector<double, 3>;
using X = tl::argument<0, V>;
using S = tl::argument<1, double>;

template <class A, class B>
concept ordered_by_compare = requires(const A& a, const B& b) {
  a < b;
  a > b;
  a <= b;
  a >= b;
};

static_assert(std::is_same_v<decltype(std::declval<const S&>() < 1.0), bool>);
static_assert(std::is_same_v<decltype(2.0 >= std::declval<const S&>()), bool>);
static_assert(ordered_by_compare<S, double> && ordered_by_compare<double, S> && ordered_by_compare<S, S>);
static_assert(!ordered_by_compare<X, double>);
static_assert(!ordered_by_compare<X, V>);
static_assert(!ordered_by_compare<S, X>);
static_assert(std::is_same_v<decltype(std::declval<const X&>() == V{}), bool>);

constexpr V v{1.0, 2.0, 3.0};
static_assert(X(v) == v);
static_assert(!(X(v) == V{1.0, 2.0, 4.0}));
static_assert(S(2.0) > 1.0 && !(S(2.0) < 1.0));
}  // namespace
