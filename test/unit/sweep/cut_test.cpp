// SPDX-License-Identifier: BSL-1.0
// Deep trees are cut (expr/cut.hpp): a number-valued tree deeper than cut_depth is swept when built
// and stands in the tree as one node. The gradients of deep sums and chains agree with their exact
// forms (recurrences in doubles) and with finite differences at seeded random points, through let,
// if_else (a leaf only in the branch not taken), a matrix argument, float, second derivatives,
// value_and_grad, the trace and constant expressions; and the types stay shallow.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstddef>
#include <random>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tl = tapeless;

namespace {

/// a*b + b*c + c*d + d*a + ... : Terms products of neighbouring arguments, summed left to right (a
/// left fold), so the tree is Terms levels deep.
template <std::size_t Terms>
constexpr auto left_sum = [](const auto& a, const auto& b, const auto& c, const auto& d) {
  const auto v = std::tie(a, b, c, d);
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return (... + (std::get<K % 4>(v) * std::get<(K + 1) % 4>(v)));
  }
  (std::make_index_sequence<Terms>{});
};

/// Its gradient: each product k adds its neighbour to each of its two arguments.
template <std::size_t Terms>
std::array<double, 4> left_sum_gradient(const std::array<double, 4>& x) {
  std::array<double, 4> g{};
  for (std::size_t k = 0; k < Terms; ++k) {
    g[k % 4] += x[(k + 1) % 4];
    g[(k + 1) % 4] += x[k % 4];
  }
  return g;
}

/// e = x, then Steps times e = sin(e) * y + x: a chain Steps * 3 levels deep.
template <int Steps>
constexpr auto chain = [](const auto& x, const auto& y) {
  auto step = [&](auto self, const auto& e, auto left) {
    if constexpr (decltype(left)::value == 0)
      return e;
    else
      return self(self, tl::sin(e) * y + x, std::integral_constant<int, decltype(left)::value - 1>{});
  };
  return step(step, x * 1.0, std::integral_constant<int, Steps>{});
};

/// Its value and gradient by the recurrence de' = cos(e) de y + (d/dx x), de' = cos(e) de y + sin(e).
struct chain_exact {
  double value, dx, dy;
};
chain_exact chain_by_hand(int steps, double x, double y) {
  double e = x, dx = 1, dy = 0;
  for (int k = 0; k < steps; ++k) {
    const double c = std::cos(e), s = std::sin(e);
    dx = c * dx * y + 1;
    dy = c * dy * y + s;
    e = s * y + x;
  }
  return {e, dx, dy};
}

template <class E>
constexpr std::size_t depth = tl::detail::depth_of<E>;

std::mt19937_64 seeded() { return std::mt19937_64(20261123); }

}  // namespace

TEST_CASE("a deep tree's type is cut to at most cut_depth + 1 levels") {
  using tl::detail::cut_depth;
  using A = tl::argument<0, double>;
  using B = tl::argument<1, double>;
  using Sum = decltype(left_sum<100>(A(1.0), B(1.0), tl::argument<2, double>(1.0), tl::argument<3, double>(1.0)));
  using Chain = decltype(chain<40>(A(1.0), B(1.0)));
  static_assert(depth<Sum> <= cut_depth + 1);
  static_assert(depth<Chain> <= cut_depth + 1);
  // Plain values, as every node (integration/no_virtual_test.cpp): g++ 12 moves a node that is not trivially
  // copyable by a call, which it left out of line in long expressions, taking the address of each.
  static_assert(std::is_trivially_copyable_v<Sum> && std::is_trivially_copyable_v<Chain>);
  static_assert(sizeof(tl::cut_node<double, tl::detail::plain_tuple<double, double>, A, B>) ==
                4 * sizeof(double));  // the value, two partials, the flags
  // Shallow trees are left whole.
  using Short = decltype(chain<5>(A(1.0), B(1.0)));
  static_assert(cut_depth == 16 && depth<Short> == 16);
}

TEST_CASE("a deep left sum: the exact gradient and finite differences") {
  auto rng = seeded();
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int point = 0; point < 20; ++point) {
    const std::array<double, 4> x{u(rng), u(rng), u(rng), u(rng)};
    const auto g = tl::grad(left_sum<100>)(x[0], x[1], x[2], x[3]);
    const auto exact = left_sum_gradient<100>(x);
    CHECK(std::get<0>(g) == doctest::Approx(exact[0]).epsilon(1e-13));
    CHECK(std::get<1>(g) == doctest::Approx(exact[1]).epsilon(1e-13));
    CHECK(std::get<2>(g) == doctest::Approx(exact[2]).epsilon(1e-13));
    CHECK(std::get<3>(g) == doctest::Approx(exact[3]).epsilon(1e-13));
    CHECK(tl::check_gradient(left_sum<100>, x[0], x[1], x[2], x[3]));
  }
}

TEST_CASE("a deep chain: value and gradient against the recurrence, and finite differences") {
  auto rng = seeded();
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  std::uniform_real_distribution<double> v(0.2, 0.9);  // |y| < 1: the chain contracts, the gradient stays O(1)
  for (int point = 0; point < 20; ++point) {
    const double x = u(rng), y = v(rng);
    const auto [value, g] = tl::value_and_grad(chain<40>)(x, y);
    const auto exact = chain_by_hand(40, x, y);
    CHECK(value == doctest::Approx(exact.value).epsilon(1e-14));
    CHECK(std::get<0>(g) == doctest::Approx(exact.dx).epsilon(1e-12));
    CHECK(std::get<1>(g) == doctest::Approx(exact.dy).epsilon(1e-12));
    CHECK(tl::check_gradient(chain<40>, x, y));
  }
}

TEST_CASE("a deep chain over a vector of run-time size: its term, which reads the vector by element, is not cut") {
  // The term of the sum over the elements is the chain at x[k], 30 levels deep; a cut would keep a
  // partial of the vector's run-time type, which has no fixed room.
  const auto f = [](const auto& x, const auto& y) { return tl::sum(chain<10>(x, y)); };
  const tl::vector<double, tl::dynamic> x{-1.2, 0.3, 0.9, 1.4, -0.1};
  const tl::vector<double, 5> xf{-1.2, 0.3, 0.9, 1.4, -0.1};
  const auto [value, g] = tl::value_and_grad(f)(x, 0.6);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(f)(xf, 0.6);
  double dy = 0, sum = 0;
  for (std::size_t k = 0; k < 5; ++k) {
    const auto exact = chain_by_hand(10, x[k], 0.6);
    sum += exact.value;
    dy += exact.dy;
    CHECK(std::get<0>(g)[k] == doctest::Approx(exact.dx).epsilon(1e-13));
    CHECK(std::get<0>(g)[k] == doctest::Approx(std::get<0>(fixed_g)[k]).epsilon(1e-14));
  }
  CHECK(value == doctest::Approx(sum).epsilon(1e-14));
  CHECK(value == doctest::Approx(fixed_value).epsilon(1e-14));
  CHECK(std::get<1>(g) == doctest::Approx(dy).epsilon(1e-13));
}

TEST_CASE("a deep chain in float: the cut keeps the arguments' type") {
  const auto [value, g] = tl::value_and_grad(chain<40>)(0.5f, 0.7f);
  static_assert(std::is_same_v<decltype(value), const float>);
  static_assert(std::is_same_v<decltype(g), const std::tuple<float, float>>);
  const auto exact = chain_by_hand(40, 0.5, 0.7);
  CHECK(value == doctest::Approx(exact.value).epsilon(1e-5));
  CHECK(std::get<0>(g) == doctest::Approx(exact.dx).epsilon(1e-4));
  CHECK(std::get<1>(g) == doctest::Approx(exact.dy).epsilon(1e-4));
}

TEST_CASE("a deep chain reading a matrix argument: the partial is a matrix") {
  // e = 0, then 60 times e = sin(e) * 0.5 + sum(x): de/dx_i follows d' = cos(e) d 0.5 + 1.
  auto f = [](const auto& x) {
    auto step = [&](auto self, const auto& e, auto left) {
      if constexpr (decltype(left)::value == 0)
        return e;
      else
        return self(self, tl::sin(e) * 0.5 + tl::sum(x), std::integral_constant<int, decltype(left)::value - 1>{});
    };
    return step(step, tl::sum(x) * 0.0, std::integral_constant<int, 60>{});
  };
  auto rng = seeded();
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int point = 0; point < 10; ++point) {
    const tl::vector<double, 3> x{u(rng), u(rng), u(rng)};
    const double total = x[0] + x[1] + x[2];
    double e = 0, d = 0;
    for (int k = 0; k < 60; ++k) {
      d = std::cos(e) * d * 0.5 + 1;
      e = std::sin(e) * 0.5 + total;
    }
    const tl::vector<double, 3> g = tl::grad(f)(x);
    for (std::size_t i = 0; i < 3; ++i) CHECK(g[i] == doctest::Approx(d).epsilon(1e-12));
    CHECK(tl::check_gradient(f, x));
  }
}

TEST_CASE("let around and inside deep trees") {
  // The bound expression is a deep chain, and the body a deep chain of the name: both are cut, and the
  // name's adjoint is summed in the let's scope as before.
  auto shared = [](const auto& x, const auto& y) {
    return tl::let(chain<40>(x, y), [&](const auto& t) { return chain<40>(t, y) + t * t; });
  };
  auto copied = [](const auto& x, const auto& y) {
    const auto t = chain<40>(x, y);
    return chain<40>(t, y) + t * t;
  };
  auto rng = seeded();
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_real_distribution<double> v(0.2, 0.9);
  for (int point = 0; point < 10; ++point) {
    const double x = u(rng), y = v(rng);
    const auto a = tl::grad(shared)(x, y);
    const auto b = tl::grad(copied)(x, y);
    CHECK(std::get<0>(a) == doctest::Approx(std::get<0>(b)).epsilon(1e-13));
    CHECK(std::get<1>(a) == doctest::Approx(std::get<1>(b)).epsilon(1e-13));
  }
}

TEST_CASE("if_else in a deep chain; a leaf only in the branch not taken gets nothing") {
  // y is read only where x > 100: never, at these points. Its gradient is exactly 0.
  auto f = [](const auto& x, const auto& y) {
    auto step = [&](auto self, const auto& e, auto left) {
      if constexpr (decltype(left)::value == 0)
        return e;
      else
        return self(self, tl::if_else(x > 100.0, e * y, tl::sin(e) * 0.5) + x,
                    std::integral_constant<int, decltype(left)::value - 1>{});
    };
    return step(step, x * 1.0, std::integral_constant<int, 50>{});
  };
  auto rng = seeded();
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int point = 0; point < 10; ++point) {
    const double x = u(rng), y = u(rng);
    double e = x, d = 1;
    for (int k = 0; k < 50; ++k) {
      d = std::cos(e) * d * 0.5 + 1;
      e = std::sin(e) * 0.5 + x;
    }
    const auto g = tl::grad(f)(x, y);
    CHECK(std::get<0>(g) == doctest::Approx(d).epsilon(1e-12));
    CHECK(std::get<1>(g) == 0.0);
  }
}

TEST_CASE("second derivatives of a deep chain") {
  auto f = [](const auto& x) { return chain<20>(x, x * 0.5); };  // 60 levels and more
  auto df = tl::grad(f);
  auto rng = seeded();
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int point = 0; point < 10; ++point) {
    const double x = u(rng);
    CHECK(tl::check_gradient(df, x));
    const double h = tl::hessian(f)(x);
    CHECK(h == doctest::Approx(tl::grad(df)(x)).epsilon(1e-12));
  }
}

TEST_CASE("the trace of a deep function shows the cuts and gives grad's gradient") {
  const auto t = tl::trace(left_sum<100>, 0.5, -1.0, 1.5, 2.0);
  CHECK(t.gradient() == tl::grad(left_sum<100>)(0.5, -1.0, 1.5, 2.0));
  std::size_t cuts = 0;
  for (const auto& n : t.graph().nodes)
    if (n.op == "cut") {
      ++cuts;
      CHECK(n.expression == "cut(x1, x2, x3, x4)");
    }
  CHECK(cuts == 1);  // the last cut took the earlier ones in: it reads x1 to x4 directly
}

TEST_CASE("the trace of two lets of one tag, their bodies cut: each name gets its own adjoint") {
  // One function makes both lets, so they share a tag, and the cuts of their bodies send to one
  // stand-in for both names (expr/cut.hpp); the trace still tells the names apart.
  const auto g = [](const auto& e) { return tl::let(e, [](const auto& u) { return left_sum<20>(u, u, u, u); }); };
  const auto f = [&g](const auto& x) { return g(x - 1.0) + g(x - 2.0); };
  const double x = 0.75;  // f = 20 (x - 1)^2 + 20 (x - 2)^2: each name's adjoint is 40 times its value
  const auto t = tl::trace(f, x);
  CHECK(t.gradient() == doctest::Approx(40 * (x - 1) + 40 * (x - 2)));
  std::size_t names = 0;
  for (const auto& n : t.graph().nodes)
    if (n.uses > 0) {
      ++names;
      REQUIRE(n.adjoint);
      CHECK(static_cast<double>(n.adjoint->number()) == doctest::Approx(40 * static_cast<double>(n.value.number())));
    }
  CHECK(names == 2);
  const auto& graph = t.graph();
  for (const auto& step : graph.sweep) {
    if (graph.at(step.source).op == "cut") CHECK(graph.at(step.source).inputs == std::vector{step.target});
    if (step.kind == tl::inspect::step_kind::total) CHECK(step.count == graph.at(step.target).uses);
  }
}

TEST_CASE("a deep gradient in a constant expression") {
  // At 1, 2, 3, 4, every product and sum is an exact integer: the gradient equals its exact form.
  constexpr auto g = tl::grad(left_sum<100>)(1.0, 2.0, 3.0, 4.0);
  static_assert(std::get<0>(g) == 25 * (2.0 + 4.0));
  static_assert(std::get<1>(g) == 25 * (1.0 + 3.0));
  static_assert(std::get<2>(g) == 25 * (2.0 + 4.0));
  static_assert(std::get<3>(g) == 25 * (3.0 + 1.0));
  CHECK(std::get<0>(g) == 150.0);
}
