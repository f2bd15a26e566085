// SPDX-License-Identifier: BSL-1.0
// Broadcasting in the binary elementwise operations (operation/elementwise.hpp, broadcast_to; the
// shapes: matrix/shape.hpp): a 1 x C row or an R x 1 column beside an R x C matrix, both orders, for
// + - * / min max. Gradients against the same function written with tl::outer(ones, b), which must
// agree to a few ulps, and against finite differences; data, tl::cref and plain matrices on either
// side; shapes that need no broadcast, a 1 x 1 matrix, a column beside a row; plain values; second
// derivatives; NaN and infinity.
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
  std::array<matrix34, 4> w;
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
  const auto [fa, fr, fc] = tl::value_and_grad(f)(a, r, c).second;
  const auto [oa, ort, oc] = tl::value_and_grad(f_outer)(a, rt, c).second;
  CHECK(fd::ulp_distance(tl::value_and_grad(f)(a, r, c).first, tl::value_and_grad(f_outer)(a, rt, c).first) <=
        outer_ulps);
  mx::check_same(name + ": dA", fa, oa, outer_ulps);
  mx::check_same(name + ": dr", fr, row4(tl::reshape<1, 4>(ort)), outer_ulps);
  mx::check_same(name + ": dc", fc, oc, outer_ulps);
  mx::check_fd(name, f, fd_tol, a, r, c);

  // Constant operands on either side: a plain matrix captured, and tl::cref.
  const auto f_matrix = [&](const auto& A) {
    return tl::sum(w[0] * op(A, r) + w[1] * op(tl::cref(r), A) + w[2] * op(A, tl::cref(c)) + w[3] * op(c, A));
  };
  const auto f_lines = [&](const auto& rv, const auto& cv) {
    return tl::sum(w[0] * op(a, rv) + w[1] * op(rv, tl::cref(a)) + w[2] * op(tl::cref(a), cv) + w[3] * op(cv, a));
  };
  mx::check_same(name + ": dA, constant lines", tl::grad(f_matrix)(a), fa, outer_ulps);
  const auto [lr, lc] = tl::grad(f_lines)(r, c);
  mx::check_same(name + ": dr, constant matrix", lr, fr, outer_ulps);
  mx::check_same(name + ": dc, constant matrix", lc, fc, outer_ulps);
  mx::check_fd(name + ", constant lines", f_matrix, fd_tol, a);
  mx::check_fd(name + ", constant matrix", f_lines, fd_tol, r, c);

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
  mx::check_fd("bias", f, fd_tol, w, b);
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
    CHECK(tl::to_dot(summed, p, q).find("broadcast") == std::string::npos);
    for (std::size_t k = 0; k < 4; ++k) CHECK(fr.value()[k] == p[k] * q[k] - q[k] / p[k]);
    mx::check_fd("1 x 4", summed, fd_tol, p, q);
  }
  SUBCASE("a 1 x 1 matrix is used for every element; its adjoint is the sum of all") {
    const auto f = [&](const auto& A, const auto& S) { return tl::sum(a * A / S - S); };
    CHECK(tl::to_dot(f, a, s).find("broadcast") != std::string::npos);
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

TEST_CASE("broadcast: second derivatives through tl::hessian, against the same function with tl::outer") {
  fd::rng rng{9};
  const matrix34 a = mx::random<matrix34>(rng, 0.5, 2.0);
  const row4 r = mx::random<row4>(rng, 0.5, 2.0);
  const tl::vector<double, 3> ones = tl::vector<double, 3>::filled(1.0);
  const auto f = [&](const auto& b) { return tl::sum(tl::exp(a * b) + a / b); };
  const auto f_outer = [&](const auto& b) {
    const auto rows = tl::outer(tl::cref(ones), b);
    return tl::sum(tl::exp(a * rows) + a / rows);
  };
  const auto h = tl::hessian(f)(r);
  const auto ho = tl::hessian(f_outer)(tl::vector<double, 4>(tl::reshape<4, 1>(r)));
  for (std::size_t k = 0; k < 16; ++k) CHECK(fd::rel_error(h[k], ho[k]) < 1e-14);
  CHECK(h(0, 1) == 0.0);  // each element of b reaches only its own column
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
