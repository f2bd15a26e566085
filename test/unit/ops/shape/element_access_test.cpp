// SPDX-License-Identifier: BSL-1.0
// Element access (ops/shape.hpp): v[i], A(i, j), and elements of row, col and slice, read from grad's
// arguments, from tl::let names, from elementwise expressions and from matmul, transpose and inverse;
// the same element read several times; second derivatives, jvp and grad of grad through them; tl::var;
// constant expressions; tl::slice<Start, Length> of a vector of run-time size. Each gradient against
// the one written by hand and against finite differences at seeded random points. Folds over many indices are in
// index_folds_test.cpp.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <matrix_check.hpp>
#include <reference/linear_algebra.hpp>

#include <cmath>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

constexpr double fd_tol = 1e-6;
constexpr double exact_tol = 1e-13;
constexpr int points = 5;  // random points per check

using V5 = tl::vector<double, 5>;
using M34 = tl::matrix<double, 3, 4>;
using M33 = tl::matrix<double, 3, 3>;

/// The matrix with `value` at element k (row-major) and 0 elsewhere: the gradient of a function of one element.
template <class M>
M one_hot(std::size_t k, double value) {
  M m{};
  m[k] = value;
  return m;
}

/// A random 3 x 3 matrix far from singular: the identity times 3 plus elements of [-1, 1].
M33 well_conditioned(fd::rng& r) { return mx::random<M33>(r, -1, 1) + M33{{3, 0, 0}, {0, 3, 0}, {0, 0, 3}}; }

}  // namespace

TEST_CASE("v[i] and A(i, j) of arguments") {
  fd::rng r{3301};
  const auto f = [](const auto& x) { return x[1] * x[3] + tl::sin(x[4]) - x[1]; };
  const auto h = [](const auto& X) { return X(0, 1) * X(2, 3) + tl::exp(X(1, 0)) * X(0, 1); };
  const auto w = [](const auto& x) { return x[0] * x[3] / x[2]; };  // a row vector
  for (int p = 0; p < points; ++p) {
    const V5 v = mx::random<V5>(r, -2, 2);
    const auto [value, g] = tl::value_and_grad(f)(v);
    CHECK(fd::rel_error(value, v[1] * v[3] + std::sin(v[4]) - v[1]) < exact_tol);
    mx::check_close("x1 x3 + sin x4 - x1", g, V5{0, v[3] - 1, 0, v[1], std::cos(v[4])}, exact_tol);
    mx::check_fd("x1 x3 + sin x4 - x1", f, fd_tol, v);

    const M34 A = mx::random<M34>(r, -2, 2);
    M34 gh{};
    gh(0, 1) = A(2, 3) + std::exp(A(1, 0));
    gh(2, 3) = A(0, 1);
    gh(1, 0) = std::exp(A(1, 0)) * A(0, 1);
    mx::check_close("A01 A23 + exp(A10) A01", tl::grad(h)(A), gh, exact_tol);
    mx::check_fd("A01 A23 + exp(A10) A01", h, fd_tol, A);

    const auto x = mx::random_away<tl::matrix<double, 1, 4>>(r, -2, 2, {0.0}, 0.25);
    const tl::matrix<double, 1, 4> gw{{x[3] / x[2], 0, -x[0] * x[3] / (x[2] * x[2]), x[0] / x[2]}};
    mx::check_close("x0 x3 / x2 of a row vector", tl::grad(w)(x), gw, exact_tol);
    mx::check_fd("x0 x3 / x2 of a row vector", w, fd_tol, x);
  }
  // Every element at run-time indices: its adjoint lands on it alone.
  const V5 v = mx::random<V5>(r, -2, 2);
  for (std::size_t k = 0; k < 5; ++k)
    CHECK(tl::grad([k](const auto& x) { return tl::square(x[k]); })(v) == one_hot<V5>(k, 2 * v[k]));
  const M34 A = mx::random<M34>(r, -2, 2);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j)
      CHECK(tl::grad([i, j](const auto& X) { return X(i, j) * 3.0; })(A) == one_hot<M34>(i * 4 + j, 3.0));
}

TEST_CASE("a matrix expression's rows(), cols() and size() are its value's, constants of its type") {
  fd::rng r{3307};
  const M34 a = mx::random<M34>(r, -2, 2);
  const auto f = [](const auto& A) {
    using E = std::remove_cvref_t<decltype(A)>;
    static_assert(E::rows() == 3 && E::cols() == 4 && E::size() == 12);
    const auto t = tl::transpose(A);
    static_assert(decltype(t)::rows() == 4 && decltype(t)::cols() == 3);
    const auto r = tl::row(A, 1);
    static_assert(decltype(r)::rows() == 1 && decltype(r)::size() == 4);
    // Read at run time too: a sum over the indices of the last row, sized by it.
    return tl::sum_over(
        tl::indices(A.cols()), [](std::size_t j, const auto& row) { return tl::square(row[j]); }, r);
  };
  const auto [value, gradient] = tl::value_and_grad(f)(a);
  double expected = 0;
  for (std::size_t j = 0; j < 4; ++j) expected += a(1, j) * a(1, j);
  CHECK(fd::rel_error(value, expected) < exact_tol);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) CHECK(gradient(i, j) == (i == 1 ? 2 * a(i, j) : 0.0));
  mx::check_fd("the squares of a row, over its indices", f, fd_tol, a);
  const auto scalar = [](const auto& A) {
    const auto s = tl::sum(A);
    constexpr bool has_extents = requires { s.size(); };
    static_assert(!has_extents, "a number-valued node has no extents");
    return s;
  };
  CHECK(tl::grad(scalar)(a) == M34::filled(1.0));
}

TEST_CASE("elements of row, col and slice of arguments") {
  fd::rng r{3302};
  const auto f = [](const auto& X) { return tl::row(X, 1)[2] * tl::col(X, 3)[0] + tl::square(tl::row(X, 2)[0]); };
  const auto s = [](const auto& x) { return tl::slice<1, 3>(x)[2] * tl::exp(tl::slice<0, 2>(x)[0]); };
  for (int p = 0; p < points; ++p) {
    const M34 A = mx::random<M34>(r, -2, 2);
    M34 g{};
    g(1, 2) = A(0, 3);
    g(0, 3) = A(1, 2);
    g(2, 0) = 2 * A(2, 0);
    mx::check_close("row(A, 1)[2] col(A, 3)[0] + row(A, 2)[0]^2", tl::grad(f)(A), g, exact_tol);
    mx::check_fd("row(A, 1)[2] col(A, 3)[0] + row(A, 2)[0]^2", f, fd_tol, A);

    const V5 v = mx::random<V5>(r, -2, 2);
    mx::check_close("slice<1, 3>(x)[2] exp(slice<0, 2>(x)[0])", tl::grad(s)(v),
                    V5{v[3] * std::exp(v[0]), 0, 0, std::exp(v[0]), 0}, exact_tol);
    mx::check_fd("slice<1, 3>(x)[2] exp(slice<0, 2>(x)[0])", s, fd_tol, v);
  }
}

TEST_CASE("elements of tl::let names") {
  fd::rng r{3303};
  // P = X * X elementwise, read by element, by row and by column.
  const auto squares = [](const auto& X) {
    return tl::let(X * X, [](const auto& P) { return P(0, 1) * P(2, 3) + tl::row(P, 1)[2] + tl::col(P, 0)[2]; });
  };
  // p = exp(x), read by element and through a slice.
  const auto exps = [](const auto& x) {
    return tl::let(tl::exp(x), [](const auto& p) { return p[0] * p[4] + tl::slice<1, 2>(p)[1]; });
  };
  // A name read inside the body of another let: a = 2 x, b = a + 1.
  const auto nested = [](const auto& x) {
    return tl::let(x * 2.0,
                   [](const auto& a) { return tl::let(a + 1.0, [&a](const auto& b) { return a[0] * b[1] + b[4]; }); });
  };
  for (int p = 0; p < points; ++p) {
    const M34 A = mx::random<M34>(r, -1.5, 1.5);
    M34 g{};
    g(0, 1) = 2 * A(0, 1) * A(2, 3) * A(2, 3);
    g(2, 3) = 2 * A(2, 3) * A(0, 1) * A(0, 1);
    g(1, 2) = 2 * A(1, 2);
    g(2, 0) = 2 * A(2, 0);
    mx::check_close("let P = X * X", tl::grad(squares)(A), g, exact_tol);
    mx::check_fd("let P = X * X", squares, fd_tol, A);

    const V5 v = mx::random<V5>(r, -1.5, 1.5);
    const double e04 = std::exp(v[0] + v[4]);
    mx::check_close("let p = exp(x)", tl::grad(exps)(v), V5{e04, 0, std::exp(v[2]), 0, e04}, exact_tol);
    mx::check_fd("let p = exp(x)", exps, fd_tol, v);
    mx::check_close("nested lets", tl::grad(nested)(v), V5{2 * (2 * v[1] + 1), 4 * v[0], 0, 0, 2}, exact_tol);
    mx::check_fd("nested lets", nested, fd_tol, v);
  }
}

TEST_CASE("elements of elementwise expressions") {
  fd::rng r{3304};
  const auto diff = [](const auto& x, const auto& y) {
    return tl::square((x - y)[2]) + (x * y)[0] + tl::slice<3, 2>(x / y)[1];
  };
  const auto exps = [](const auto& X) {
    return tl::exp(X)(1, 2) * X(2, 1) + tl::log(X * X + 1.0)(0, 0) + tl::row(tl::sin(X), 2)[3] + tl::col(X * 2.0, 1)[0];
  };
  for (int p = 0; p < points; ++p) {
    const V5 x = mx::random<V5>(r, -2, 2);
    const V5 y = mx::random_away<V5>(r, -2, 2, {0.0}, 0.25);
    const auto [gx, gy] = tl::grad(diff)(x, y);
    const double d = x[2] - y[2];
    mx::check_close("(x - y)[2]^2 + (x y)[0] + slice(x / y)[1]: x", gx, V5{y[0], 0, 2 * d, 0, 1 / y[4]}, exact_tol);
    mx::check_close("(x - y)[2]^2 + (x y)[0] + slice(x / y)[1]: y", gy, V5{x[0], 0, -2 * d, 0, -x[4] / (y[4] * y[4])},
                    exact_tol);
    mx::check_fd("(x - y)[2]^2 + (x y)[0] + slice(x / y)[1]", diff, fd_tol, x, y);

    const M34 A = mx::random<M34>(r, -1.5, 1.5);
    M34 g{};
    g(1, 2) = std::exp(A(1, 2)) * A(2, 1);
    g(2, 1) = std::exp(A(1, 2));
    g(0, 0) = 2 * A(0, 0) / (A(0, 0) * A(0, 0) + 1);
    g(2, 3) = std::cos(A(2, 3));
    g(0, 1) = 2;
    mx::check_close("exp(A)(1, 2) A(2, 1) + ...", tl::grad(exps)(A), g, exact_tol);
    mx::check_fd("exp(A)(1, 2) A(2, 1) + ...", exps, fd_tol, A);
  }
}

TEST_CASE("elements of matmul, transpose and inverse") {
  fd::rng r{3305};
  for (int p = 0; p < points; ++p) {
    const M34 A = mx::random<M34>(r, -2, 2);
    const auto B = mx::random<tl::matrix<double, 4, 2>>(r, -2, 2);
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 2; ++j) {
        // d (A B)(i, j) / dA is row i of B's column j, transposed; / dB is column j of A's row i.
        const auto f = [i, j](const auto& X, const auto& Y) { return tl::matmul(X, Y)(i, j); };
        const auto [ga, gb] = tl::grad(f)(A, B);
        M34 ga_exact{};
        tl::matrix<double, 4, 2> gb_exact{};
        for (std::size_t k = 0; k < 4; ++k) {
          ga_exact(i, k) = B(k, j);
          gb_exact(k, j) = A(i, k);
        }
        const std::string at = "(" + std::to_string(i) + ", " + std::to_string(j) + ")";
        mx::check_close("matmul(A, B)" + at + ": A", ga, ga_exact, exact_tol);
        mx::check_close("matmul(A, B)" + at + ": B", gb, gb_exact, exact_tol);
      }
    const auto products = [](const auto& X, const auto& Y) {
      return tl::matmul(X, Y)(2, 1) * tl::transpose(X)(3, 0) + tl::row(tl::matmul(X, Y), 0)[1] +
             tl::col(tl::transpose(Y), 2)[0];
    };
    mx::check_fd("elements of matmul and transpose", products, fd_tol, A, B);

    // d inverse(A)(i, j) / dA(k, l) = -inverse(A)(i, k) inverse(A)(l, j)
    const M33 S = well_conditioned(r);
    const M33 inv = la::to_mat<3, 3>(la::ld_inverse(la::to_ld(S)));
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 3; ++j) {
        const auto f = [i, j](const auto& X) { return tl::inverse(X)(i, j); };
        M33 g;
        for (std::size_t k = 0; k < 3; ++k)
          for (std::size_t l = 0; l < 3; ++l) g(k, l) = -inv(i, k) * inv(l, j);
        mx::check_close("inverse(A)(" + std::to_string(i) + ", " + std::to_string(j) + ")", tl::grad(f)(S), g,
                        exact_tol);
      }
    const auto inverses = [](const auto& X) {
      return tl::square(tl::inverse(X)(0, 2)) + tl::row(tl::inverse(X * 2.0), 1)[1] * X(1, 1);
    };
    mx::check_fd("elements of inverse", inverses, fd_tol, S);
  }
}

TEST_CASE("the same element read several times: its adjoints add up") {
  fd::rng r{3306};
  // v[2] four ways: as v[2], and through a slice, a row and a column of the vector.
  const auto four = [](const auto& x) {
    return x[2] * x[2] * tl::slice<2, 1>(x)[0] + tl::row(x, 2)[0] + tl::col(x, 0)[2] * x[1];
  };
  // exp(x)[1] twice, as two nodes; a let name's element three times; A(1, 1) of an argument and of A A^T.
  const auto expression = [](const auto& x) { return tl::exp(x)[1] + tl::exp(x)[1] * x[0]; };
  const auto named = [](const auto& x) { return tl::let(x * x, [](const auto& p) { return p[3] * p[3] * p[3]; }); };
  const auto gram = [](const auto& X) { return X(1, 1) * tl::matmul(X, tl::transpose(X))(1, 1); };
  for (int p = 0; p < points; ++p) {
    const V5 v = mx::random<V5>(r, -2, 2);
    mx::check_close("v[2] four times", tl::grad(four)(v), V5{0, v[2], 3 * v[2] * v[2] + 1 + v[1], 0, 0}, exact_tol);
    mx::check_fd("v[2] four times", four, fd_tol, v);
    const double e1 = std::exp(v[1]);
    mx::check_close("exp(x)[1] twice", tl::grad(expression)(v), V5{e1, e1 * (1 + v[0]), 0, 0, 0}, exact_tol);
    mx::check_fd("exp(x)[1] twice", expression, fd_tol, v);
    mx::check_close("a let name's element three times", tl::grad(named)(v), one_hot<V5>(3, 6 * std::pow(v[3], 5)),
                    exact_tol);
    mx::check_fd("a let name's element three times", named, fd_tol, v);

    // X(1, 1) (X X^T)(1, 1) = X(1, 1) sum_k X(1, k)^2
    const M34 A = mx::random<M34>(r, -2, 2);
    double row_norm = 0;
    for (std::size_t k = 0; k < 4; ++k) row_norm += A(1, k) * A(1, k);
    M34 g{};
    for (std::size_t k = 0; k < 4; ++k) g(1, k) = 2 * A(1, 1) * A(1, k);
    g(1, 1) += row_norm;
    mx::check_close("A(1, 1) (A A^T)(1, 1)", tl::grad(gram)(A), g, exact_tol);
    mx::check_fd("A(1, 1) (A A^T)(1, 1)", gram, fd_tol, A);
  }
}

TEST_CASE("second derivatives, jvp and grad of grad through element access") {
  fd::rng r{3307};
  // f = x0 x1 x2 + x3^2 exp(x4), by element and through a let name.
  const auto f = [](const auto& x) { return x[0] * x[1] * x[2] + tl::square(x[3]) * tl::exp(x[4]); };
  const auto f_named = [](const auto& x) {
    return tl::let(x, [](const auto& p) { return p[0] * p[1] * p[2] + tl::square(p[3]) * tl::exp(p[4]); });
  };
  for (int p = 0; p < points; ++p) {
    const V5 x = mx::random<V5>(r, -1.5, 1.5);
    const double e4 = std::exp(x[4]);
    tl::matrix<double, 5, 5> h{};
    h(0, 1) = h(1, 0) = x[2];
    h(0, 2) = h(2, 0) = x[1];
    h(1, 2) = h(2, 1) = x[0];
    h(3, 3) = 2 * e4;
    h(3, 4) = h(4, 3) = 2 * x[3] * e4;
    h(4, 4) = x[3] * x[3] * e4;
    mx::check_close("hessian by element", tl::hessian(f)(x), h, exact_tol);
    mx::check_close("hessian by element of a let name", tl::hessian(f_named)(x), h, exact_tol);
    mx::check_close("jacobian of grad by element", tl::jacobian(tl::grad(f))(x), h, exact_tol);

    const V5 d = mx::random<V5>(r, -1, 1);
    const V5 g{x[1] * x[2], x[0] * x[2], x[0] * x[1], 2 * x[3] * e4, x[3] * x[3] * e4};
    double directional = 0;
    for (std::size_t k = 0; k < 5; ++k) directional += g[k] * d[k];
    const auto [value, tangent] = tl::jvp(f, std::tuple{x}, std::tuple{d});
    CHECK(fd::rel_error(value, x[0] * x[1] * x[2] + x[3] * x[3] * e4) < exact_tol);
    CHECK(fd::rel_error(tangent, directional) < exact_tol);

    // grad of a function of grad: d/dx sum(grad(f)(x) * x) = g + H x
    const auto through = [&f](const auto& y) { return tl::sum(tl::grad(f)(y) * y); };
    V5 expected = g;
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t k = 0; k < 5; ++k) expected[i] += h(i, k) * x[k];
    mx::check_close("grad of sum(grad(f)(x) x)", tl::grad(through)(x), expected, exact_tol);
    // and an element of an inner gradient: d/dx grad(f)(x)[0] = row 0 of H
    const auto first = [&f](const auto& y) { return tl::grad(f)(y)[0]; };
    mx::check_close("grad of grad(f)(x)[0]", tl::grad(first)(x), tl::transpose(tl::row(h, 0)), exact_tol);
  }
  // Numbers stacked into a vector and read back by element, differentiated twice:
  // f(s) = s * s^2 + sin(s), f''(s) = 6 s - sin(s).
  const auto stacked = [](const auto& s) {
    const auto v = tl::concat(s, s * s, tl::sin(s));
    return v[0] * v[1] + v[2];
  };
  for (int p = 0; p < points; ++p) {
    const double s = r.uniform(-2, 2);
    CHECK(fd::rel_error(tl::grad(tl::grad(stacked))(s), 6 * s - std::sin(s)) < exact_tol);
  }
}

TEST_CASE("tl::var: elements of a vector of vars, and backward()") {
  fd::rng r{3308};
  for (int p = 0; p < points; ++p) {
    const double a0 = r.uniform(-2, 2), b0 = r.uniform(-2, 2), c0 = r.uniform(-2, 2);
    tl::var<double> a{a0}, b{b0}, c{c0};
    const auto v = tl::concat(a, b * 2.0, c);
    const auto e = v[0] * v[1] + tl::exp(v[2]) * v[0] + tl::slice<1, 2>(v)[1];
    e.backward();
    const auto same = [](const auto& x, const auto& y, const auto& z) {
      const auto w = tl::concat(x, y * 2.0, z);
      return w[0] * w[1] + tl::exp(w[2]) * w[0] + tl::slice<1, 2>(w)[1];
    };
    const auto [ga, gb, gc] = tl::grad(same)(a0, b0, c0);
    CHECK(e.value() == mx::value_at(same, a0, b0, c0));
    CHECK(a.grad() == ga);
    CHECK(b.grad() == gb);
    CHECK(c.grad() == gc);
    CHECK(fd::rel_error(a.grad(), 2 * b0 + std::exp(c0)) < exact_tol);
    CHECK(fd::rel_error(b.grad(), 2 * a0) < exact_tol);
    CHECK(fd::rel_error(c.grad(), std::exp(c0) * a0 + 1) < exact_tol);
  }
}

namespace {
constexpr auto weighted = [](const auto& v) { return v[0] * v[1] + 3.0 * v[2] * v[2] - tl::slice<1, 2>(v)[0]; };
constexpr auto corners = [](const auto& A) { return A(0, 0) * A(1, 1) - A(0, 1) * A(1, 0) + tl::row(A, 1)[0]; };
}  // namespace

TEST_CASE("element access in a constant expression") {
  constexpr tl::vector<double, 3> g = tl::grad(weighted)(tl::vector<double, 3>{1.0, 2.0, 4.0});
  static_assert(g[0] == 2.0 && g[1] == 0.0 && g[2] == 24.0);
  constexpr tl::matrix<double, 2, 2> h = tl::grad(corners)(tl::matrix<double, 2, 2>{{1, 2}, {3, 4}});
  static_assert(h(0, 0) == 4.0 && h(0, 1) == -3.0 && h(1, 0) == -1.0 && h(1, 1) == 1.0);
  CHECK(g == tl::vector<double, 3>{2.0, 0.0, 24.0});
  CHECK(h == tl::matrix<double, 2, 2>{{4, -3}, {-1, 1}});
}

namespace {
/// tl::slice<Start, Length> of a vector of run-time size N against the same function of a tl::vector<N>:
/// the slices feed fixed-shape operations (a matmul by a fixed matrix, a prod, a squared norm).
template <std::size_t N>
void check_fixed_slices_of_run_time_vector() {
  CAPTURE(N);
  const tl::matrix<double, 2, 3> W{{0.5, -1.0, 2.0}, {1.5, 0.25, -0.75}};
  const auto f = [&W](const auto& v) {
    return tl::sum(tl::square(tl::matmul(W, tl::slice<1, 3>(v)))) + tl::prod(tl::slice<0, 2>(v)) +
           tl::squared_norm(tl::slice<N - 2, 2>(v));
  };
  fd::rng u(N);
  tl::vector<double, tl::dynamic> x(N);
  tl::vector<double, N> xf;
  for (std::size_t k = 0; k < N; ++k) xf[k] = x[k] = u.uniform(-1.5, 1.5);
  const auto [value, g] = tl::value_and_grad(f)(x);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(f)(xf);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(g)>, tl::vector<double, tl::dynamic>>);
  CHECK(fd::rel_error(value, fixed_value) < 1e-14);
  REQUIRE(g.size() == N);
  for (std::size_t k = 0; k < N; ++k) {
    CAPTURE(k);
    CHECK(fd::rel_error(g[k], fixed_g[k]) < 1e-14);
    CHECK(fd::rel_error(g[k], fd::partial(f, x, k)) < 1e-7);
  }
  CHECK(fd::rel_error(f(x), value) < 1e-14);  // on plain values
  const auto h = tl::hessian(f)(x);
  const auto fixed_h = tl::hessian(f)(xf);
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < N; ++j) CHECK(fd::rel_error(h(i, j), fixed_h(i, j)) < 1e-13);
}
}  // namespace

TEST_CASE("tl::slice<Start, Length> of a vector of run-time size: a fixed-size vector read in place") {
  check_fixed_slices_of_run_time_vector<5>();
  check_fixed_slices_of_run_time_vector<33>();
  // A column gives a column, a row a row, plain values a plain fixed vector.
  const tl::vector<double, tl::dynamic> x{1.0, 2.0, 3.0, 4.0, 5.0};
  const tl::matrix<double, 1, tl::dynamic> r{{1.0, 2.0, 3.0, 4.0, 5.0}};
  static_assert(std::is_same_v<decltype(tl::slice<1, 3>(x)), tl::vector<double, 3>>);
  static_assert(std::is_same_v<decltype(tl::slice<1, 3>(r)), tl::matrix<double, 1, 3>>);
  CHECK(tl::slice<1, 3>(x) == tl::vector<double, 3>{2.0, 3.0, 4.0});
  CHECK((tl::grad([](const auto& v) { return tl::sum(tl::slice<3, 2>(v) * 2.0); })(r) ==
         tl::matrix<double, 1, tl::dynamic>{{0.0, 0.0, 0.0, 2.0, 2.0}}));
  // Of a formula over run-time vectors: tl::slice(v, Start, Length).
  CHECK((tl::grad([](const auto& v) { return tl::sum(tl::slice<1, 2>(v * 3.0)); })(x) ==
         tl::vector<double, tl::dynamic>{0.0, 3.0, 3.0, 0.0, 0.0}));
  // Past the end: std::out_of_range before anything is read; a slice of all of it is fine.
  CHECK_THROWS_WITH_AS(tl::grad([](const auto& v) { return tl::sum(tl::slice<3, 3>(v)); })(x),
                       "tl::slice<Start, Length>(v): elements 3 to 3 + 3 are past the size 5 of v", std::out_of_range);
  CHECK((tl::grad([](const auto& v) { return tl::sum(tl::slice<0, 5>(v)); })(x) ==
         tl::vector<double, tl::dynamic>{1.0, 1.0, 1.0, 1.0, 1.0}));
  // A bounded vector: in a constant expression.
  constexpr auto g = tl::grad([](const auto& v) { return tl::prod(tl::slice<1, 2>(v)); })(
      tl::vector<double, tl::bounded<4>>{2.0, 3.0, 5.0});
  static_assert(g[0] == 0.0 && g[1] == 5.0 && g[2] == 3.0);
}
