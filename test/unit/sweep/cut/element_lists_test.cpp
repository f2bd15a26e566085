// SPDX-License-Identifier: BSL-1.0
// A cut of a deep tree that reads a few elements of a large matrix keeps partials for those elements
// only (expr/cut.hpp, adjoint/structured.hpp: element_list): the expression stays small, and the
// gradient agrees with its exact form (a recurrence in doubles) and with central differences at seeded
// random points, through element accesses, rows and columns, cuts of cuts, a read of the whole matrix
// beside them, second derivatives and constant expressions.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include "finite_difference.hpp"
#include "matrix_check.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

/// e = v[a] v[b], then Steps times e = sin(e) * v[b] + v[a]: a chain Steps * 3 levels deep, cut every
/// 16 levels, each cut reading two elements of v (and the cut before it).
template <int Steps>
constexpr auto chain_of_two = [](const auto& v, std::size_t a, std::size_t b) {
  auto e = v[a] * v[b];
  auto step = [&](auto self, const auto& x, auto left) {
    if constexpr (decltype(left)::value == 0)
      return x;
    else
      return self(self, tl::sin(x) * v[b] + v[a], std::integral_constant<int, decltype(left)::value - 1>{});
  };
  return step(step, e, std::integral_constant<int, Steps>{});
};

/// Its gradient by the recurrence: de' = cos(e) de v[b] + (d v[a]) + sin(e) (d v[b]).
template <std::size_t N>
std::array<double, N> chain_of_two_gradient(int steps, const std::array<double, N>& v, std::size_t a, std::size_t b) {
  double e = v[a] * v[b], da = v[b], db = v[a];
  for (int k = 0; k < steps; ++k) {
    const double c = std::cos(e), s = std::sin(e);
    da = c * da * v[b] + 1;
    db = c * db * v[b] + s;
    e = s * v[b] + v[a];
  }
  std::array<double, N> g{};
  g[a] += da;
  g[b] += db;
  return g;
}

template <std::size_t N>
tl::vector<double, N> as_vector(const std::array<double, N>& a) {
  tl::vector<double, N> v;
  for (std::size_t i = 0; i < N; ++i) v[i] = a[i];
  return v;
}

}  // namespace

TEST_CASE("a cut reading two elements of a 4096-vector keeps two partials, not 4096") {
  constexpr std::size_t n = 4096;
  using V = tl::vector<double, n>;
  const auto f = [](const auto& v) { return chain_of_two<20>(v, 7, 4000); };
  using E = decltype(f(tl::argument<0, V>(V{})));
  static_assert(tl::detail::depth_of<E> <= tl::detail::cut_depth + 1);
  static_assert(sizeof(E) < sizeof(V) / 8, "a cut holds no dense partial of the 4096-vector");

  fd::rng rng{20261127};
  for (int point = 0; point < 10; ++point) {
    std::array<double, n> x{};
    for (auto& e : x) e = rng.uniform(-1.0, 1.0);
    const auto g = tl::grad(f)(as_vector(x));
    const auto exact = chain_of_two_gradient(20, x, 7, 4000);
    for (std::size_t i = 0; i < n; ++i) {
      if (i == 7 || i == 4000)
        CHECK(fd::rel_error(g[i], exact[i]) < 1e-12);
      else
        CHECK((g[i] == 0.0 && !std::signbit(g[i])));  // +0 where nothing was read
    }
    // Central differences in the two elements read.
    const auto along = [&](std::size_t k) {
      return fd::derivative(
          [&](double t) {
            auto y = as_vector(x);
            y[k] = t;
            return tl::value_and_grad(f)(y).first;
          },
          x[k]);
    };
    CHECK(fd::rel_error(g[7], along(7)) < 1e-8);
    CHECK(fd::rel_error(g[4000], along(4000)) < 1e-8);
  }
}

TEST_CASE("cuts of cuts add their lists up; rows, columns and a whole read beside them") {
  constexpr std::size_t r = 16, c = 16;
  using M = tl::matrix<double, r, c>;
  fd::rng rng{20261128};
  M a;
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = rng.uniform(-1.0, 1.0);

  // Elements, a row and a column in a chain deep enough for three cuts.
  const auto parts = [](const auto& m) {
    auto e = m(1, 2) * m(3, 4);
    auto step = [&](auto self, const auto& x, auto left) {
      if constexpr (decltype(left)::value == 0)
        return x;
      else
        return self(self, tl::sin(x) * m(5, 6) + tl::sum(tl::row(m, 2)) * 0.01 + tl::sum(tl::col(m, 9)) * 0.02,
                    std::integral_constant<int, decltype(left)::value - 1>{});
    };
    return step(step, e, std::integral_constant<int, 12>{});
  };
  // The same chain plus a read of the whole matrix: the cut keeps a dense partial.
  const auto whole = [&](const auto& m) { return parts(m) + 0.5 * tl::sum(m); };

  mx::check_close("parts", tl::grad(parts)(a), std::get<0>(mx::fd_grad(parts, a)), 1e-7);
  const auto gw = tl::grad(whole)(a);
  const auto fd_w = std::get<0>(mx::fd_grad(whole, a));
  mx::check_close("whole", gw, fd_w, 1e-7);
  // The whole read adds 0.5 to every element's gradient, on top of the parts' gradient.
  const auto gp = tl::grad(parts)(a);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(fd::rel_error(gw[i], gp[i] + 0.5) < 1e-13);
}

TEST_CASE("second derivatives through a cut with element lists") {
  constexpr std::size_t n = 64;
  std::array<double, n> x{};
  fd::rng rng{20261129};
  for (auto& e : x) e = rng.uniform(-1.0, 1.0);
  const auto f = [](const auto& v) { return chain_of_two<8>(v, 3, 60); };
  const auto h = tl::hessian(f)(as_vector(x));
  // Against central differences of the exact gradient.
  for (std::size_t i : {std::size_t{3}, std::size_t{60}})
    for (std::size_t j : {std::size_t{3}, std::size_t{60}}) {
      const double want = fd::derivative(
          [&](double t) {
            auto y = x;
            y[j] = t;
            return chain_of_two_gradient(8, y, 3, 60)[i];
          },
          x[j]);
      CHECK(fd::rel_error(h(i, j), want) < 1e-8);
    }
  CHECK(h(0, 0) == 0.0);
}

TEST_CASE("a gradient through a cut with element lists in a constant expression") {
  constexpr auto g = [] {
    tl::vector<double, 64> v{};
    for (std::size_t i = 0; i < 64; ++i) v[i] = 0.01 * static_cast<double>(i);
    return tl::grad([](const auto& x) {
      auto e = x[1] * x[2];
      auto step = [&](auto self, const auto& y, auto left) {
        if constexpr (decltype(left)::value == 0)
          return y;
        else
          return self(self, y * x[2] + x[1], std::integral_constant<int, decltype(left)::value - 1>{});
      };
      return step(step, e, std::integral_constant<int, 20>{});
    })(v);
  }();
  // e_k = e_{k-1} b + a from e_0 = a b: d/da = b^20 + sum_{k<20} b^k, d/db by the recurrence below.
  constexpr double a = 0.01, b = 0.02;
  constexpr auto exact = [] {
    double e = a * b, da = b, db = a;
    for (int k = 0; k < 20; ++k) {
      da = da * b + 1;
      db = db * b + e;
      e = e * b + a;
    }
    return std::pair{da, db};
  }();
  static_assert(g[1] - exact.first < 1e-15 && exact.first - g[1] < 1e-15);
  static_assert(g[2] - exact.second < 1e-15 && exact.second - g[2] < 1e-15);
  static_assert(g[0] == 0.0 && g[63] == 0.0);
  CHECK(g[1] == doctest::Approx(exact.first).epsilon(1e-14));
}
