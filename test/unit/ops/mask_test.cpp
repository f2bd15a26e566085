// SPDX-License-Identifier: BSL-1.0
// Comparisons of matrix expressions (masks, tl/ops/mask.hpp) and the elementwise if_else(mask, a, b):
// only the taken element receives adjoint; a scalar branch the sum over the elements that took it.
#include <doctest/doctest.h>
#include <tapeless/ops/mask.hpp>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <matrix_check.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {
constexpr double fd_tol = 1e-6;  // AD against central differences
const double qnan = std::numeric_limits<double>::quiet_NaN();
}  // namespace

// ---- if_else with masks -----------------------------------------------------------------------------

TEST_CASE("comparisons of matrix expressions give masks of values") {
  using V = tl::vector<double, 4>;
  const V x{-1.0, 0.0, 2.0, 3.0};
  const tl::argument<0, V> X(x);
  CHECK((X > 0.0) == tl::mask<4, 1>{false, false, true, true});
  CHECK((0.0 < X) == (X > 0.0));
  CHECK((X >= 0.0) == tl::mask<4, 1>{false, true, true, true});
  CHECK((X <= 2.0) == tl::mask<4, 1>{true, true, true, false});
  CHECK((X * 2.0 > X + 1.0) == tl::mask<4, 1>{false, false, true, true});
  CHECK((X < V{0.0, 0.0, 3.0, 3.0}) == tl::mask<4, 1>{true, false, true, false});
  CHECK((X > tl::mean(X)) == tl::mask<4, 1>{false, false, true, true});
  CHECK(tl::equal(X, 2.0) == tl::mask<4, 1>{false, false, true, false});
  CHECK(tl::not_equal(X, X) == tl::mask<4, 1>{});
  tl::var<double> t{1.0};
  CHECK((x > t) == tl::mask<4, 1>{false, false, true, true});
  CHECK((t > X) == tl::mask<4, 1>{true, true, false, false});
  // Scalar comparisons are unchanged: plain bools.
  static_assert(std::is_same_v<decltype(X[0] > 0.0), bool>);
  static_assert(std::is_same_v<decltype(X > 0.0), tl::mask<4, 1>>);
  // NaN compares false, as in IEEE.
  const V n{qnan, 1.0, qnan, -1.0};
  CHECK((n > 0.0) == tl::mask<4, 1>{false, true, false, false});
  CHECK((n <= 0.0) == tl::mask<4, 1>{false, false, false, true});
}

TEST_CASE("if_else(mask, a, b): only the taken element receives adjoint") {
  using V = tl::vector<double, 4>;
  const V x{-2.0, -0.5, 0.5, 2.0};

  SUBCASE("leaky relu") {
    const auto leaky = [](const auto& X) { return tl::sum(tl::if_else(X > 0.0, X, 0.01 * X)); };
    CHECK(tl::grad(leaky)(x) == V{0.01, 0.01, 1.0, 1.0});
    mx::check_fd("leaky relu", leaky, fd_tol, x);
    fd::rng r{41};
    mx::for_shapes([&](auto t) {
      using M = typename decltype(t)::type;
      const M a = mx::random_away<M>(r, -3, 3, {0.0}, 0.05);
      const auto f = [](const auto& A) { return tl::sum(tl::square(tl::if_else(A > 0.0, tl::sin(A), A * A * A))); };
      mx::check_fd("if_else at " + mx::shape_name<M>(), f, fd_tol, a);
    });
  }
  SUBCASE("two matrix arguments: if_else(A > B, A, B) is max") {
    const V y{0.0, -1.0, 1.0, 2.0};
    const auto [ga, gb] =
        tl::grad([](const auto& A, const auto& B) { return tl::sum(tl::if_else(A > B, A, B) * 3.0); })(x, y);
    CHECK(ga == V{0.0, 3.0, 0.0, 0.0});
    CHECK(gb == V{3.0, 0.0, 3.0, 3.0});
    const auto v =
        tl::value_and_grad([](const auto& A, const auto& B) { return tl::sum(tl::if_else(A > B, A, B)); })(x, y);
    CHECK(v.first == 0.0 - 0.5 + 1.0 + 2.0);
  }
  SUBCASE("a scalar branch receives the sum over the elements that took it") {
    const auto f = [](const auto& X, const auto& S) { return tl::sum(tl::if_else(X > S, S, X * 3.0)); };
    const auto [gx, gs] = tl::grad(f)(x, 0.0);
    CHECK(gx == V{3.0, 3.0, 0.0, 0.0});
    CHECK(gs == 2.0);
    const auto [gx2, gs2] =
        tl::grad([](const auto& X, const auto& S) { return tl::sum(tl::if_else(X > S, X, S)); })(x, 0.0);
    CHECK(gx2 == V{0.0, 0.0, 1.0, 1.0});
    CHECK(gs2 == 2.0);
    mx::check_fd("if_else(X > S, S, 3 X)", f, fd_tol, x, 0.1);
  }
  SUBCASE("constant branches: a plain mask of numbers, times x, is the sign") {
    const auto f = [](const auto& X) { return tl::sum(tl::if_else(X > 0.0, 1.0, -1.0) * X); };
    CHECK(tl::grad(f)(x) == V{-1.0, -1.0, 1.0, 1.0});
    const auto m = tl::if_else(x > 0.0, 1.0, 0);
    static_assert(std::is_same_v<decltype(m), const V>);
    CHECK(m == V{0.0, 0.0, 1.0, 1.0});
    CHECK(tl::if_else(x > 0.0, x, -x) == V{2.0, 0.5, 0.5, 2.0});
  }
  SUBCASE("with tl::var: a scalar var as a branch") {
    tl::var<double> v{2.0};
    const auto e = tl::sum(tl::if_else(x > 0.0, v, x));
    e.backward();
    CHECK(e.value() == -2.5 + 4.0);
    CHECK(v.grad() == 2.0);
  }
  SUBCASE("masks combined") {
    const auto f = [](const auto& X) { return tl::sum(tl::if_else((X > -1.0) & (X < 1.0), X * X, X)); };
    CHECK(tl::grad(f)(x) == V{1.0, -1.0, 1.0, 1.0});
    const auto g = [](const auto& X) { return tl::sum(tl::if_else(~(X > 0.0), X * 2.0, 0.0)); };
    CHECK(tl::grad(g)(x) == V{2.0, 2.0, 0.0, 0.0});
  }
  SUBCASE("the scalar if_else(bool, a, b) is unchanged, for numbers and whole matrices") {
    const auto f = [](const auto& X) {
      return tl::if_else(X[0] > 0.0, X[0], -X[0]) + tl::sum(tl::if_else(X[3] > 0.0, X, -X));
    };
    CHECK(tl::grad(f)(x) == V{0.0, 1.0, 1.0, 1.0});
  }
  SUBCASE("matrix shapes: 2 x 3") {
    using M = tl::matrix<double, 2, 3>;
    const M a{{1, -2, 3}, {-4, 5, -6}};
    const M g = tl::grad([](const auto& A) { return tl::sum(tl::if_else(A < 0.0, -A, A)); })(a);
    CHECK(g == M{{1, -1, 1}, {-1, 1, -1}});
  }
}
