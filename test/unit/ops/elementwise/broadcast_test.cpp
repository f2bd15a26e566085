// SPDX-License-Identifier: BSL-1.0
// Broadcasting in the binary elementwise operations (operation/elementwise.hpp, broadcast_to; the
// shapes: matrix/shape.hpp): a 1 x C row or an R x 1 column beside an R x C matrix, both orders, for
// + - * / min max. Gradients against the same function written with tl::outer(ones, b), which must
// agree to a few ulps, and against finite differences; data, tl::cref and plain matrices on either
// side; shapes that need no broadcast, a 1 x 1 matrix, a column beside a row; plain values; elements,
// rows and columns of a broadcast expression; second derivatives; NaN and infinity.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <matrix_check.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {
using matrix34 = tl::matrix<double, 3, 4>;
using row4 = tl::matrix<double, 1, 4>;
using col3 = tl::matrix<double, 3, 1>;

constexpr double fd_tol = 1e-6;
constexpr int outer_ulps = 4;  // the same sums, in the same order but for the compiler's contractions

const auto add = [](const auto& x, const auto& y) { return x + y; };
const auto subtract = [](const auto& x, const auto& y) { return x - y; };
const auto multiply = [](const auto& x, const auto& y) { return x * y; };
const auto divide = [](const auto& x, const auto& y) { return x / y; };
const auto minimum = [](const auto& x, const auto& y) { return tl::min(x, y); };
const auto maximum = [](const auto& x, const auto& y) { return tl::max(x, y); };

/// Elements in [0.5, 2] (no division by zero), each at least 0.02 from every element of `away`, so
/// that min and max have no tie within a finite difference's step.
template <class M, class A>
M drawn_away(fd::rng& r, const A& away) {
  M m;
  for (auto& e : m) {
    bool near = true;
    while (near) {
      e = r.uniform(0.5, 2.0);
      near = false;
      for (double a : away) near = near || std::abs(e - a) < 0.02;
    }
  }
  return m;
}

/// An operation in both orders, with a row and with a column, weighted so that every element's
/// adjoint differs: sum(w0 op(A, r) + w1 op(r, A) + w2 op(A, c) + w3 op(c, A)).
template <class Op>
auto all_four(const Op& op, const std::array<matrix34, 4>& w) {
  return [&op, &w](const auto& A, const auto& r, const auto& c) {
    return tl::sum(w[0] * op(A, r) + w[1] * op(r, A) + w[2] * op(A, c) + w[3] * op(c, A));
  };
}

template <class Op>
void check_operation(const std::string& name, const Op& op, std::uint64_t seed) {
  fd::rng rng{seed};
  const matrix34 a = mx::random<matrix34>(rng, 0.5, 2.0);
  const row4 r = drawn_away<row4>(rng, a);
  const col3 c = drawn_away<col3>(rng, a);
  std::array<matrix34, 4> w;  // f reads it by reference: the checks below swap in other weights
  for (auto& wk : w) wk = mx::random<matrix34>(rng, 0.5, 1.5);
  INFO(name << ": A = " << mx::str(a) << ", r = " << mx::str(r) << ", c = " << mx::str(c));

  // Broadcast, against the same function with the row and the column replicated by tl::outer.
  const auto f = all_four(op, w);
  const tl::vector<double, 3> ones3 = tl::vector<double, 3>::filled(1.0);
  const tl::vector<double, 4> ones4 = tl::vector<double, 4>::filled(1.0);
  const auto f_outer = [&](const auto& A, const auto& rt, const auto& cv) {
    const auto rows = tl::outer(tl::cref(ones3), rt);  // every row rt^T
    const auto cols = tl::outer(cv, tl::cref(ones4));  // every column cv
    return tl::sum(w[0] * op(A, rows) + w[1] * op(rows, A) + w[2] * op(A, cols) + w[3] * op(cols, A));
  };
  const tl::vector<double, 4> rt = tl::reshape<4, 1>(r);
  const auto [fa, fr, fc] = tl::grad(f)(a, r, c);
  const auto [oa, ort, oc] = tl::grad(f_outer)(a, rt, c);
  CHECK(fd::ulp_distance(mx::value_at(f, a, r, c), mx::value_at(f_outer, a, rt, c)) <= outer_ulps);
  mx::check_same(name + ": dA", fa, oa, outer_ulps);
  mx::check_same(name + ": dr", fr, row4(tl::reshape<1, 4>(ort)), outer_ulps);
  mx::check_same(name + ": dc", fc, oc, outer_ulps);
  mx::check_fd(name, f, fd_tol, a, r, c);

  // Constant operands on either side, a plain matrix captured and tl::cref: each term has one argument,
  // so its adjoints are those of f with the other terms' weights 0.
  const auto g = [&](const auto& A, const auto& rv, const auto& cv) {
    return tl::sum(w[0] * op(A, tl::cref(r)) + w[1] * op(rv, a) + w[2] * op(tl::cref(a), cv) + w[3] * op(c, A));
  };
  const auto [ga, gr, gc] = tl::grad(g)(a, r, c);
  const matrix34 zero{};
  std::array<matrix34, 4> w_a{w[0], zero, zero, w[3]}, w_r{zero, w[1], zero, zero}, w_c{zero, zero, w[2], zero};
  std::swap(w, w_a);
  mx::check_same(name + ": dA beside constants", ga, std::get<0>(tl::grad(f)(a, r, c)), outer_ulps);
  std::swap(w, w_a);
  std::swap(w, w_r);
  mx::check_same(name + ": dr beside a constant", gr, std::get<1>(tl::grad(f)(a, r, c)), outer_ulps);
  std::swap(w, w_r);
  std::swap(w, w_c);
  mx::check_same(name + ": dc beside a constant", gc, std::get<2>(tl::grad(f)(a, r, c)), outer_ulps);
  std::swap(w, w_c);

  // Plain values broadcast as expressions do: element (i, j) of op(A, r) is op(A(i, j), r[j]).
  const matrix34 plain_row = op(a, r), plain_col = op(c, a);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      CHECK(plain_row(i, j) == op(a(i, j), r[j]));
      CHECK(plain_col(i, j) == op(c[i], a(i, j)));
    }
}
}  // namespace

TEST_CASE("broadcast: + - * / min max of a 3 x 4 matrix and a 1 x 4 row or a 3 x 1 column, both orders") {
  check_operation("+", add, 1);
  check_operation("-", subtract, 2);
  check_operation("*", multiply, 3);
  check_operation("/", divide, 4);
  check_operation("min", minimum, 5);
  check_operation("max", maximum, 6);
}

TEST_CASE("broadcast: a bias row as tl::outer(ones, b) gives it, to a few ulps") {
  fd::rng rng{7};
  using data = tl::matrix<double, 40, 4>;
  const data x = mx::random<data>(rng, -1.0, 1.0), y = mx::random<data>(rng, -1.0, 1.0);
  const row4 w = mx::random<row4>(rng, -1.0, 1.0), b = mx::random<row4>(rng, -1.0, 1.0);
  const tl::vector<double, 40> ones = tl::vector<double, 40>::filled(1.0);
  const auto f = [&](const auto& wv, const auto& bv) { return tl::sum(tl::square(x * wv + bv - y)); };
  const auto f_outer = [&](const auto& wv, const auto& bv) {
    return tl::sum(tl::square(x * tl::outer(tl::cref(ones), wv) + tl::outer(tl::cref(ones), bv) - y));
  };
  const auto [gw, gb] = tl::grad(f)(w, b);
  const auto [ow, ob] = tl::grad(f_outer)(tl::reshape<4, 1>(w), tl::reshape<4, 1>(b));
  mx::check_same("dw", gw, row4(tl::reshape<1, 4>(ow)), outer_ulps);
  mx::check_same("db", gb, row4(tl::reshape<1, 4>(ob)), outer_ulps);
}

TEST_CASE("broadcast: shapes that need none, a 1 x 1 matrix, and a column beside a row") {
  fd::rng rng{8};
  const row4 p = mx::random<row4>(rng, 0.5, 2.0), q = mx::random<row4>(rng, 0.5, 2.0);
  const col3 c = mx::random<col3>(rng, 0.5, 2.0), d = mx::random<col3>(rng, 0.5, 2.0);
  const matrix34 a = mx::random<matrix34>(rng, 0.5, 2.0);
  const tl::matrix<double, 1, 1> s{{1.5}};

  SUBCASE("1 x C with 1 x C and R x 1 with R x 1: one shape, element by element, no broadcast node") {
    const auto f = [](const auto& x, const auto& y) { return x * y - y / x; };
    const auto fr = f(tl::argument<0, row4>(p), tl::argument<1, row4>(q));
    const auto fc = f(tl::argument<0, col3>(c), tl::argument<1, col3>(d));
    static_assert(std::is_same_v<decltype(fr)::value_type, row4>);
    static_assert(std::is_same_v<decltype(fc)::value_type, col3>);
    const auto summed = [&](const auto& x, const auto& y) { return tl::sum(f(x, y)); };
    using product = decltype(tl::argument<0, row4>(p) * tl::argument<1, row4>(q));
    static_assert(
        std::is_same_v<tl::detail::child_t<1, product>, std::remove_cvref_t<decltype(tl::argument<1, row4>(q))>>);
    for (std::size_t k = 0; k < 4; ++k) CHECK(fr.value()[k] == p[k] * q[k] - q[k] / p[k]);
    mx::check_fd("1 x 4", summed, fd_tol, p, q);
  }
  SUBCASE("a 1 x 1 matrix is used for every element; its adjoint is the sum of all") {
    const auto f = [&](const auto& A, const auto& S) { return tl::sum(a * A / S - S); };
    using quotient = decltype(a * tl::argument<0, matrix34>(a) / tl::argument<1, decltype(s)>(s));
    static_assert(
        std::is_same_v<tl::detail::operation_of_t<tl::detail::child_t<1, quotient>>, tl::detail::broadcast_to<3, 4>>);
    mx::check_fd("1 x 1", f, fd_tol, a, s);
  }
  SUBCASE("an R x 1 column beside a 1 x C row gives R x C, as NumPy's broadcasting") {
    const auto f = [&](const auto& x, const auto& y) { return tl::sum(a * tl::exp(x - y)); };
    const auto v = (tl::argument<0, col3>(c) - tl::argument<1, row4>(p)).value();
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(v)>, matrix34>);
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 4; ++j) CHECK(v(i, j) == c[i] - p[j]);
    mx::check_fd("3 x 1 with 1 x 4", f, fd_tol, c, p);
    const matrix34 plain = c - p;
    CHECK(plain == v);
  }
}

TEST_CASE("broadcast: an element, a row or a column of a broadcast expression reads the line's part") {
  fd::rng rng{10};
  const matrix34 a = mx::random<matrix34>(rng, 0.5, 2.0);
  const row4 r = mx::random<row4>(rng, 0.5, 2.0);
  const col3 c = mx::random<col3>(rng, 0.5, 2.0);
  using element_node = decltype((tl::argument<0, matrix34>(a) + tl::argument<1, row4>(r))(1, 2));
  static_assert(std::is_same_v<tl::detail::operation_of_t<tl::detail::child_t<1, element_node>>, tl::ops::element>);
  const auto f = [&](const auto& rv, const auto& cv) {
    const auto e = a * rv + cv;
    return e(1, 2) * e(2, 3) + (rv - a)(2, 1) / (cv * rv)(0, 0) +
           tl::sum(tl::row(e, 1)) * tl::sum(tl::col(rv - cv, 2)) + tl::sum(tl::row(cv * rv, 2)) +
           tl::sum(tl::col(cv * rv, 3));
  };
  double expected = (a(1, 2) * r[2] + c[1]) * (a(2, 3) * r[3] + c[2]) + (r[1] - a(2, 1)) / (c[0] * r[0]);
  double row1 = 0.0, col2 = 0.0;
  for (std::size_t j = 0; j < 4; ++j) row1 += a(1, j) * r[j] + c[1];
  for (std::size_t i = 0; i < 3; ++i) col2 += r[2] - c[i];
  expected += row1 * col2;
  for (std::size_t j = 0; j < 4; ++j) expected += c[2] * r[j];
  for (std::size_t i = 0; i < 3; ++i) expected += c[i] * r[3];
  CHECK(fd::rel_error(mx::value_at(f, r, c), expected) < 1e-14);
  mx::check_fd("parts", f, fd_tol, r, c);
}

TEST_CASE("broadcast: second derivatives through tl::hessian, against the closed form") {
  fd::rng rng{9};
  const matrix34 a = mx::random<matrix34>(rng, 0.5, 2.0);
  const row4 r = mx::random<row4>(rng, 0.5, 2.0);
  // f(b) = sum over i, j of exp(a_ij b_j) + a_ij / b_j: each b_j reaches its own column only, so the
  // Hessian is diagonal, with d2f/db_j2 = sum over i of a_ij^2 exp(a_ij b_j) + 2 a_ij / b_j^3.
  const auto f = [&](const auto& b) { return tl::sum(tl::exp(a * b) + a / b); };
  const auto h = tl::hessian(f)(r);
  for (std::size_t j = 0; j < 4; ++j)
    for (std::size_t k = 0; k < 4; ++k) {
      double expected = 0.0;
      for (std::size_t i = 0; i < 3 && j == k; ++i)
        expected += a(i, j) * a(i, j) * std::exp(a(i, j) * r[j]) + 2.0 * a(i, j) / (r[j] * r[j] * r[j]);
      CHECK(fd::rel_error(h(j, k), expected) < 1e-13);
    }
}

TEST_CASE("broadcast: NaN and infinity in a row or a matrix reach the elements and adjoints they touch") {
  const double inf = std::numeric_limits<double>::infinity();
  const double qnan = std::numeric_limits<double>::quiet_NaN();
  matrix34 a = matrix34::filled(1.0);
  a(1, 2) = qnan;
  row4 r = row4::filled(2.0);
  r[0] = inf;
  const auto f = [&](const auto& A, const auto& b) { return tl::sum(A * b); };
  const auto v = (tl::argument<0, matrix34>(a) + tl::argument<1, row4>(r)).value();
  CHECK(std::isnan(v(1, 2)));
  CHECK(v(2, 0) == inf);
  CHECK(v(0, 1) == 3.0);
  const auto [ga, gr] = tl::grad(f)(a, r);
  CHECK(ga(0, 0) == inf);  // d/dA = b
  CHECK(ga(1, 2) == 2.0);
  CHECK(std::isnan(gr[2]));  // d/db_j = sum_i A(i, j), NaN in the column of the NaN
  CHECK(gr[1] == 3.0);
  CHECK(gr[0] == 3.0);
}

// In a constant expression: the gradient of a broadcast row, and a plain broadcast column.
namespace {
constexpr tl::matrix<double, 2, 3> cx_a{{1, 2, 3}, {4, 5, 6}};
constexpr auto cx_grad =
    tl::grad([](const auto& b) { return tl::sum(cx_a * b - b); })(tl::matrix<double, 1, 3>{{1, 1, 1}});
static_assert(cx_grad[0] == 3.0 && cx_grad[1] == 5.0 && cx_grad[2] == 7.0);
static_assert((cx_a + tl::matrix<double, 2, 1>{{1}, {2}})(1, 2) == 8.0);
}  // namespace
