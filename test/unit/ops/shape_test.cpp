// SPDX-License-Identifier: BSL-1.0
// Taking matrices apart and putting them together (ops/shape.hpp): zeros_like, ones_like, row, col,
// slice, reshape, block, concat, diag; values, exact gradients (each moves elements, so its adjoint moves
// them back), finite differences at several shapes; the Rosenbrock function written with slices; a
// run-time index past the extent, which throws std::out_of_range naming the index and the extent.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <matrix_check.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

constexpr double fd_tol = 1e-6;

using M23 = tl::matrix<double, 2, 3>;
using V3 = tl::vector<double, 3>;

const M23 a23{{1, 2, 3}, {4, 5, 6}};

/// A smooth, nonlinear function of a matrix-valued expression: its gradient depends on every element.
template <class E>
auto smooth(const E& e) {
  return tl::sum(tl::sin(e) * tl::exp(e * 0.5));
}

}  // namespace

TEST_CASE("zeros_like and ones_like are plain constants of the operand's type") {
  static_assert(std::is_same_v<decltype(tl::zeros_like(a23)), M23>);
  CHECK(tl::zeros_like(a23) == M23{});
  CHECK(tl::ones_like(a23) == M23::filled(1.0));
  const tl::argument<0, M23> A(a23);
  static_assert(std::is_same_v<decltype(tl::ones_like(A)), M23>);
  static_assert(std::is_same_v<decltype(tl::ones_like(A * 2.0)), M23>);
  static_assert(std::is_same_v<decltype(tl::zeros_like(tl::sum(A))), double>);
  static_assert(std::is_same_v<decltype(tl::ones_like(tl::matrix<float, 2, 2>{})), tl::matrix<float, 2, 2>>);
  tl::var<double> v{3.0};
  CHECK(tl::ones_like(v) == 1.0);
  CHECK(tl::zeros_like(2.5) == 0.0);
  // Used in an expression, they receive no adjoint and pass none on.
  const auto f = [](const auto& X) { return tl::sum(X * tl::ones_like(X) + tl::zeros_like(X) * 5.0); };
  CHECK(tl::grad(f)(a23) == M23::filled(1.0));
}

TEST_CASE("row(A, i) and col(A, j): values and exact gradients") {
  const tl::argument<0, M23> A(a23);
  CHECK(tl::row(A, 0).value() == tl::matrix<double, 1, 3>{{1, 2, 3}});
  CHECK(tl::row(A, 1).value() == tl::matrix<double, 1, 3>{{4, 5, 6}});
  CHECK(tl::col(A, 2).value() == tl::vector<double, 2>{3.0, 6.0});
  CHECK(tl::row(a23, 1) == tl::matrix<double, 1, 3>{{4, 5, 6}});  // plain matrices give plain matrices
  CHECK(tl::col(a23, 0) == tl::vector<double, 2>{1.0, 4.0});
  for (std::size_t i = 0; i < 2; ++i) {
    const tl::matrix<double, 1, 3> w{{1.0, 10.0, 100.0}};
    const M23 g = tl::grad([i, w](const auto& X) { return tl::sum(w * tl::row(X, i)); })(a23);
    M23 expected{};
    for (std::size_t j = 0; j < 3; ++j) expected(i, j) = w[j];
    CHECK(g == expected);
  }
  for (std::size_t j = 0; j < 3; ++j) {
    const tl::vector<double, 2> w{1.0, 10.0};
    const M23 g = tl::grad([j, w](const auto& X) { return tl::sum(w * tl::col(X, j)); })(a23);
    M23 expected{};
    for (std::size_t i = 0; i < 2; ++i) expected(i, j) = w[i];
    CHECK(g == expected);
  }
  // A row of a row vector and a column of a column vector are the whole.
  CHECK(tl::grad([](const auto& X) { return tl::sum(tl::col(X, 0)); })(V3{1.0, 2.0, 3.0}) == V3::filled(1.0));
}

TEST_CASE("row, col at several shapes, against finite differences") {
  fd::rng r{81};
  mx::for_shapes([&](auto t) {
    using M = typename decltype(t)::type;
    const M x = mx::random<M>(r, -2, 2);
    for (std::size_t i = 0; i < M::rows(); ++i)
      mx::check_fd(
          "row " + std::to_string(i) + " at " + mx::shape_name<M>(),
          [i](const auto& X) { return smooth(tl::row(X, i)) + smooth(tl::row(X, i) * 2.0); }, fd_tol, x);
    for (std::size_t j = 0; j < M::cols(); ++j)
      mx::check_fd(
          "col " + std::to_string(j) + " at " + mx::shape_name<M>(),
          [j](const auto& X) { return smooth(tl::col(X, j)); }, fd_tol, x);
  });
}

TEST_CASE("slice<Start, Length>(v) of column and row vectors") {
  using V5 = tl::vector<double, 5>;
  const V5 v{1.0, 2.0, 3.0, 4.0, 5.0};
  static_assert(std::is_same_v<decltype(tl::slice<1, 3>(v)), tl::vector<double, 3>>);
  CHECK(tl::slice<1, 3>(v) == V3{2.0, 3.0, 4.0});
  CHECK(tl::slice<0, 5>(v) == v);
  CHECK(tl::slice<4, 1>(v) == tl::vector<double, 1>{{5.0}});
  const tl::matrix<double, 1, 5> row{{1.0, 2.0, 3.0, 4.0, 5.0}};
  static_assert(std::is_same_v<decltype(tl::slice<3, 2>(row)), tl::matrix<double, 1, 2>>);
  CHECK(tl::slice<3, 2>(row) == tl::matrix<double, 1, 2>{{4.0, 5.0}});

  const V5 g = tl::grad([](const auto& X) { return tl::sum(tl::slice<1, 3>(X) * V3{1.0, 10.0, 100.0}); })(v);
  CHECK(g == V5{0.0, 1.0, 10.0, 100.0, 0.0});
  // Overlapping slices add their adjoints.
  const V5 h = tl::grad([](const auto& X) { return tl::sum(tl::slice<0, 3>(X)) + tl::sum(tl::slice<2, 3>(X)); })(v);
  CHECK(h == V5{1.0, 1.0, 2.0, 1.0, 1.0});

  fd::rng r{82};
  const V5 x = mx::random<V5>(r, -2, 2);
  mx::check_fd(
      "slices", [](const auto& X) { return smooth(tl::slice<1, 4>(X) * tl::slice<0, 4>(X)); }, fd_tol, x);
  const auto rx = mx::random<tl::matrix<double, 1, 4>>(r, -2, 2);
  mx::check_fd(
      "slices of a row vector", [](const auto& X) { return smooth(tl::slice<0, 3>(X) - tl::slice<1, 3>(X)); }, fd_tol,
      rx);
  const auto one = mx::random<tl::matrix<double, 1, 1>>(r, -2, 2);
  mx::check_fd(
      "slice of a 1 x 1", [](const auto& X) { return smooth(tl::slice<0, 1>(X)); }, fd_tol, one);
}

TEST_CASE("slice's adjoint, its part among zeros, reaches every kind of operand") {
  using V5 = tl::vector<double, 5>;
  const V5 v{0.5, -1.0, 2.0, 0.25, -0.75};
  const V3 w{1.0, 10.0, 100.0};
  // an argument, first alone (zeros around the part) then with a second slice added
  CHECK(tl::grad([&w](const auto& x) { return tl::sum(tl::slice<1, 3>(x) * w); })(v) == V5{0, 1, 10, 100, 0});
  CHECK(tl::grad([&w](const auto& x) { return tl::sum(tl::slice<2, 3>(x) * w) + tl::sum(tl::slice<0, 2>(x)); })(v) ==
        V5{1, 1, 1, 10, 100});
  // a let name, through the let's adjoint sum, and on to the argument through x * 2
  const auto named = [&w](const auto& x) {
    return tl::let(x * 2.0,
                   [&w](const auto& p) { return tl::sum(tl::slice<1, 3>(p) * w) + tl::sum(tl::slice<4, 1>(p)); });
  };
  CHECK(tl::grad(named)(v) == V5{0, 2, 20, 200, 2});
  // an operation's rule, which takes it dense: exp, and a slice of a slice
  const V5 ge = tl::grad([](const auto& x) { return tl::sum(tl::slice<1, 3>(tl::exp(x))); })(v);
  CHECK(ge == V5{0, std::exp(v[1]), std::exp(v[2]), std::exp(v[3]), 0});
  CHECK(tl::grad([&w](const auto& x) { return tl::sum(tl::slice<1, 3>(tl::slice<1, 4>(x)) * w); })(v) ==
        V5{0, 0, 1, 10, 100});
  // a cut (a number chain deeper than the cut depth), tl::trace, and second derivatives
  const auto deep = [&w](const auto& x) { return mx::affine_chain<20>(tl::sum(tl::slice<1, 3>(x) * w)); };
  const double scale = std::ldexp(1.0, -20);
  CHECK(tl::grad(deep)(v) == V5{0, scale, 10 * scale, 100 * scale, 0});
  const auto squares = [](const auto& x) {
    return tl::sum(tl::square(tl::slice<1, 3>(x))) + tl::sum(tl::slice<0, 2>(x));
  };
  CHECK(tl::trace(squares, v).gradient() == tl::grad(squares)(v));
  const auto h = tl::hessian(squares)(v);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 5; ++j) CHECK(h(i, j) == (i == j && i >= 1 && i <= 3 ? 2.0 : 0.0));
}

namespace {
/// The Rosenbrock function: sum over i < N - 1 of 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2, as vector ops.
constexpr auto rosenbrock = [](const auto& x) {
  constexpr std::size_t n = tl::value_type_of_t<decltype(x)>::size();
  const auto head = tl::slice<0, n - 1>(x);
  const auto tail = tl::slice<1, n - 1>(x);
  return tl::sum(100.0 * tl::square(tail - tl::square(head)) + tl::square(1.0 - head));
};

template <std::size_t N>
tl::vector<double, N> rosenbrock_gradient(const tl::vector<double, N>& x) {
  tl::vector<double, N> g{};
  for (std::size_t i = 0; i + 1 < N; ++i) {
    const double d = x[i + 1] - x[i] * x[i];
    g[i] += -400.0 * x[i] * d - 2.0 * (1.0 - x[i]);
    g[i + 1] += 200.0 * d;
  }
  return g;
}
}  // namespace

TEST_CASE("the Rosenbrock function with slices: 100 variables") {
  using V = tl::vector<double, 100>;
  const auto [v1, g1] = tl::value_and_grad(rosenbrock)(V::filled(1.0));
  CHECK(v1 == 0.0);
  CHECK(g1 == V{});
  fd::rng r{83};
  for (int rep = 0; rep < 3; ++rep) {
    const V x = mx::random<V>(r, -2, 2);
    const auto [v, g] = tl::value_and_grad(rosenbrock)(x);
    double expected = 0;
    for (std::size_t i = 0; i + 1 < 100; ++i)
      expected += 100.0 * (x[i + 1] - x[i] * x[i]) * (x[i + 1] - x[i] * x[i]) + (1.0 - x[i]) * (1.0 - x[i]);
    CHECK(fd::rel_error(v, expected) < 1e-13);
    mx::check_close("Rosenbrock gradient", g, rosenbrock_gradient(x), 1e-13);
    mx::check_fd("Rosenbrock", rosenbrock, fd_tol, x);
  }
}

TEST_CASE("reshape<R, C>(A): row-major, and back") {
  const tl::argument<0, M23> A(a23);
  CHECK(tl::reshape<3, 2>(A).value() == tl::matrix<double, 3, 2>{{1, 2}, {3, 4}, {5, 6}});
  CHECK(tl::reshape<6, 1>(a23) == tl::vector<double, 6>{1.0, 2.0, 3.0, 4.0, 5.0, 6.0});
  CHECK(tl::reshape<1, 6>(a23) == tl::matrix<double, 1, 6>{{1, 2, 3, 4, 5, 6}});
  CHECK(tl::reshape<2, 3>(tl::reshape<3, 2>(a23)) == a23);
  const tl::matrix<double, 3, 2> w{{1, 2}, {3, 4}, {5, 6}};
  CHECK(tl::grad([w](const auto& X) { return tl::sum(w * tl::reshape<3, 2>(X)); })(a23) == a23);

  fd::rng r{84};
  mx::check_fd(
      "reshape 2x3 -> 3x2", [](const auto& X) { return smooth(tl::matmul(tl::reshape<3, 2>(X), X)); }, fd_tol,
      mx::random<M23>(r, -1, 1));
  mx::check_fd(
      "reshape 2x5 -> 5x2", [](const auto& X) { return smooth(tl::reshape<5, 2>(X) * 2.0); }, fd_tol,
      mx::random<tl::matrix<double, 2, 5>>(r, -1, 1));
  mx::check_fd(
      "reshape 4x1 -> 2x2",
      [](const auto& X) { return smooth(tl::matmul(tl::reshape<2, 2>(X), tl::reshape<2, 2>(X))); }, fd_tol,
      mx::random<tl::vector<double, 4>>(r, -1, 1));
  mx::check_fd(
      "reshape 1x1 -> 1x1", [](const auto& X) { return smooth(tl::reshape<1, 1>(X)); }, fd_tol,
      mx::random<tl::matrix<double, 1, 1>>(r, -1, 1));
  mx::check_fd(
      "reshape 1x4 -> 4x1", [](const auto& X) { return smooth(tl::matmul(tl::reshape<4, 1>(X), X)); }, fd_tol,
      mx::random<tl::matrix<double, 1, 4>>(r, -1, 1));
  mx::check_fd(
      "reshape 4x1 -> 1x4", [](const auto& X) { return smooth(tl::matmul(tl::reshape<1, 4>(X), X)); }, fd_tol,
      mx::random<tl::vector<double, 4>>(r, -1, 1));
  mx::check_fd(
      "reshape 3x3 -> 1x9", [](const auto& X) { return smooth(tl::reshape<1, 9>(tl::matmul(X, X))); }, fd_tol,
      mx::random<tl::matrix<double, 3, 3>>(r, -1, 1));
}

TEST_CASE("block<R0, C0, BR, BC>(A): a rectangle of A, its adjoint in its place") {
  const tl::matrix<double, 3, 4> a{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
  CHECK(tl::block<1, 1, 2, 2>(a) == tl::matrix<double, 2, 2>{{6, 7}, {10, 11}});
  CHECK(tl::block<0, 3, 3, 1>(a) == tl::vector<double, 3>{4.0, 8.0, 12.0});
  CHECK(tl::block<0, 0, 3, 4>(a) == a);
  static_assert(tl::block<2, 1, 1, 3>(tl::matrix<double, 3, 4>{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}}) ==
                tl::matrix<double, 1, 3>{{10, 11, 12}});
  // The exact gradient: w in the block's place, 0 elsewhere.
  const tl::matrix<double, 2, 2> w{{1, 2}, {3, 4}};
  CHECK(tl::grad([w](const auto& X) { return tl::sum(w * tl::block<1, 2, 2, 2>(X)); })(a) ==
        tl::matrix<double, 3, 4>{{0, 0, 0, 0}, {0, 0, 1, 2}, {0, 0, 3, 4}});
  // Overlapping blocks add their adjoints where they overlap: the differences of a grid's neighbours.
  const auto neighbours = [](const auto& X) {
    return tl::sum(tl::block<0, 1, 3, 3>(X) - tl::block<0, 0, 3, 3>(X)) +
           tl::sum(tl::block<1, 0, 2, 4>(X) * tl::block<0, 0, 2, 4>(X));
  };
  tl::matrix<double, 3, 4> expected{};
  for (std::size_t i = 0; i < 3; ++i) {
    expected(i, 3) += 1.0;
    expected(i, 0) -= 1.0;
  }
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      expected(i + 1, j) += a(i, j);
      expected(i, j) += a(i + 1, j);
    }
  CHECK(tl::grad(neighbours)(a) == expected);

  fd::rng r{85};
  mx::check_fd(
      "block 2x2 of 3x4", [](const auto& X) { return smooth(tl::block<1, 1, 2, 2>(X)); }, fd_tol,
      mx::random<tl::matrix<double, 3, 4>>(r, -1, 1));
  mx::check_fd(
      "block 1x1 of 1x1", [](const auto& X) { return smooth(tl::block<0, 0, 1, 1>(X)); }, fd_tol,
      mx::random<tl::matrix<double, 1, 1>>(r, -1, 1));
  mx::check_fd(
      "blocks of a product",
      [](const auto& X) { return smooth(tl::matmul(tl::block<0, 0, 3, 2>(X), tl::block<1, 2, 2, 2>(X))); }, fd_tol,
      mx::random<tl::matrix<double, 4, 4>>(r, -1, 1));
}

TEST_CASE("concat(a, b) stacks b below a") {
  using R13 = tl::matrix<double, 1, 3>;
  const tl::argument<0, M23> A(a23);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(tl::concat(A, R13{}).value())>, tl::matrix<double, 3, 3>>);
  CHECK(tl::concat(A, R13{{7, 8, 9}}).value() == tl::matrix<double, 3, 3>{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}});
  CHECK(tl::concat(R13{{7, 8, 9}}, a23) == tl::matrix<double, 3, 3>{{7, 8, 9}, {1, 2, 3}, {4, 5, 6}});
  // Column vectors give a longer vector; a number counts as 1 x 1; several operands stack in order.
  CHECK(tl::concat(V3{1.0, 2.0, 3.0}, tl::vector<double, 2>{4.0, 5.0}) ==
        tl::vector<double, 5>{1.0, 2.0, 3.0, 4.0, 5.0});
  CHECK(tl::concat(V3{1.0, 2.0, 3.0}, 4.0) == tl::vector<double, 4>{1.0, 2.0, 3.0, 4.0});
  CHECK(tl::concat(0.0, V3{1.0, 2.0, 3.0}) == tl::vector<double, 4>{0.0, 1.0, 2.0, 3.0});
  CHECK(tl::concat(1.0, 2.0, 3) == V3{1.0, 2.0, 3.0});
  CHECK(tl::concat(a23, a23, R13{}) == tl::matrix<double, 5, 3>{{1, 2, 3}, {4, 5, 6}, {1, 2, 3}, {4, 5, 6}, {0, 0, 0}});

  SUBCASE("each side's adjoint is its own part") {
    const auto f = [](const auto& X, const auto& Y) {
      return tl::sum(tl::concat(X, Y) * tl::matrix<double, 3, 3>{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}});
    };
    const auto [gx, gy] = tl::grad(f)(a23, R13{{0, 0, 0}});
    CHECK(gx == M23{{1, 2, 3}, {4, 5, 6}});
    CHECK(gy == R13{{7, 8, 9}});
  }
  SUBCASE("numbers and scalar expressions build vectors") {
    const auto f = [](const auto& x, const auto& y) {
      return tl::sum(tl::concat(x, y * 2.0, x * y) * V3{1.0, 10.0, 100.0});
    };
    const auto [gx, gy] = tl::grad(f)(3.0, 5.0);
    CHECK(gx == 1.0 + 100.0 * 5.0);
    CHECK(gy == 20.0 + 100.0 * 3.0);
    const auto h = [](const auto& v, const auto& s) {
      return tl::sum(tl::concat(v, s) * tl::vector<double, 4>{1.0, 2.0, 3.0, 4.0});
    };
    const auto [gv, gs] = tl::grad(h)(V3{1.0, 1.0, 1.0}, 7.0);
    CHECK(gv == V3{1.0, 2.0, 3.0});
    CHECK(gs == 4.0);
    // The elements of a vector expression, put back together, are the vector.
    const auto f3 = [](const auto& v) { return smooth(tl::concat(v[0], v[1], v[2])); };
    const auto f1 = [](const auto& v) { return smooth(v); };
    mx::check_close("concat(v[0], v[1], v[2]) is v", tl::grad(f3)(V3{0.1, 0.2, 0.3}), tl::grad(f1)(V3{0.1, 0.2, 0.3}),
                    1e-15);
  }
  SUBCASE("against finite differences at several shapes") {
    fd::rng r{85};
    mx::check_fd(
        "concat 2x3, 1x3", [](const auto& X, const auto& Y) { return smooth(tl::concat(X, Y) * 1.5); }, fd_tol,
        mx::random<M23>(r, -1, 1), mx::random<R13>(r, -1, 1));
    mx::check_fd(
        "concat 4x1, 1x1, number",
        [](const auto& X, const auto& Y, const auto& s) { return smooth(tl::concat(X, Y, s)); }, fd_tol,
        mx::random<tl::vector<double, 4>>(r, -1, 1), mx::random<tl::matrix<double, 1, 1>>(r, -1, 1), 0.3);
    mx::check_fd(
        "concat 3x3, 1x3 of itself",
        [](const auto& X) { return smooth(tl::concat(X, tl::slice<2, 3>(tl::reshape<1, 9>(X)))); }, fd_tol,
        mx::random<tl::matrix<double, 3, 3>>(r, -1, 1));
    mx::check_fd(
        "concat 1x4, 1x4", [](const auto& X) { return smooth(tl::concat(X, X * X)); }, fd_tol,
        mx::random<tl::matrix<double, 1, 4>>(r, -1, 1));
    mx::check_fd(
        "concat 2x5, 3x5",
        [](const auto& X, const auto& Y) { return smooth(tl::matmul(tl::concat(X, Y), tl::transpose(Y))); }, fd_tol,
        mx::random<tl::matrix<double, 2, 5>>(r, -1, 1), mx::random<tl::matrix<double, 3, 5>>(r, -1, 1));
    mx::check_fd(
        "concat 4x1, 2x1", [](const auto& X, const auto& Y) { return smooth(tl::concat(X, Y) * 2.0); }, fd_tol,
        mx::random<tl::vector<double, 4>>(r, -1, 1), mx::random<tl::vector<double, 2>>(r, -1, 1));
  }
}

TEST_CASE("diag: vector to diagonal matrix, square matrix to its diagonal") {
  const V3 v{1.0, 2.0, 3.0};
  using M33 = tl::matrix<double, 3, 3>;
  CHECK(tl::diag(v) == M33{{1, 0, 0}, {0, 2, 0}, {0, 0, 3}});
  CHECK(tl::diag(tl::matrix<double, 1, 3>{{1.0, 2.0, 3.0}}) == M33{{1, 0, 0}, {0, 2, 0}, {0, 0, 3}});
  CHECK(tl::diag(M33{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}) == V3{1.0, 5.0, 9.0});
  CHECK(tl::diag(tl::matrix<double, 1, 1>{{4.0}}) == tl::matrix<double, 1, 1>{{4.0}});
  CHECK(tl::diag(tl::diag(v)) == v);

  const V3 g = tl::grad([](const auto& x) { return tl::sum(tl::diag(x) * M33{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}); })(v);
  CHECK(g == V3{1.0, 5.0, 9.0});
  const M33 h = tl::grad([](const auto& A) { return tl::sum(tl::diag(A) * V3{1.0, 2.0, 3.0}); })(M33{});
  CHECK(h == M33{{1, 0, 0}, {0, 2, 0}, {0, 0, 3}});
  const auto gr = tl::grad([](const auto& x) { return tl::sum(tl::matmul(tl::diag(x), M33::filled(1.0))); })(
      tl::matrix<double, 1, 3>{{1.0, 2.0, 3.0}});
  CHECK(gr == tl::matrix<double, 1, 3>{{3.0, 3.0, 3.0}});

  fd::rng r{86};
  mx::check_fd(
      "diag of a 4-vector", [](const auto& x) { return smooth(tl::matmul(tl::diag(x), x)); }, fd_tol,
      mx::random<tl::vector<double, 4>>(r, -1, 1));
  mx::check_fd(
      "diag of a 3x3", [](const auto& A) { return smooth(tl::diag(tl::matmul(A, A))); }, fd_tol,
      mx::random<M33>(r, -1, 1));
  mx::check_fd(
      "diag of a 1x1", [](const auto& A) { return smooth(tl::diag(A) * 3.0); }, fd_tol,
      mx::random<tl::matrix<double, 1, 1>>(r, -1, 1));
  mx::check_fd(
      "diag of a 1x4 row", [](const auto& x) { return smooth(tl::matmul(x, tl::diag(x))); }, fd_tol,
      mx::random<tl::matrix<double, 1, 4>>(r, -1, 1));
}

TEST_CASE("a run-time index past the extent throws std::out_of_range naming the index and the extent") {
  const V3 v{1.0, 2.0, 3.0};
  std::size_t past = 3;  // known at run time only
  const auto message = [](const auto& f) -> std::string {
    try {
      f();
    } catch (const std::out_of_range& e) {
      return e.what();
    }
    return "";
  };
  CHECK(message([&] { (void)tl::grad([&](const auto& x) { return x[past]; })(v); }) ==
        "tl: index 3 is past the extent 3 of v[i]");
  CHECK(message([&] { (void)tl::grad([&](const auto& A) { return A(past - 2, past); })(a23); }) ==
        "tl: column index 3 is past the extent 3 of A(i, j)");
  CHECK(message([&] { (void)tl::grad([&](const auto& A) { return A(past - 1, 0); })(a23); }) ==
        "tl: row index 2 is past the extent 2 of A(i, j)");
  CHECK(message([&] { (void)tl::grad([&](const auto& A) { return tl::sum(tl::row(A, past)); })(a23); }) ==
        "tl: index 3 is past the extent 2 of tl::row(A, i)");
  CHECK(message([&] { (void)tl::grad([&](const auto& A) { return tl::sum(tl::col(A, past)); })(a23); }) ==
        "tl: index 3 is past the extent 3 of tl::col(A, j)");
  // In range, the same calls read their elements.
  past = 2;
  CHECK(tl::grad([&](const auto& x) { return x[past]; })(v)[2] == 1.0);
  CHECK(tl::grad([&](const auto& A) { return tl::sum(tl::col(A, past)); })(a23)(1, 2) == 1.0);
}
