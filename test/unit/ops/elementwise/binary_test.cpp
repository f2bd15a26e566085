// SPDX-License-Identifier: BSL-1.0
// Binary scalar operations, every one of the registry (test/support/operations.hpp): on numbers against
// the standard library and the exact partials; between matrices, element by element, between
// two matrices of one shape and with numbers, scalar expressions and constant matrices on either side
// (a number's adjoint is the sum over the elements), against finite differences and the scalar rule.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <matrix_check.hpp>
#include <operations.hpp>
#include <unary_check.hpp>

#include <algorithm>
#include <array>
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
constexpr double fd_tol = 1e-6;      // AD against central differences
constexpr double exact_tol = 1e-14;  // AD against the scalar rule, element by element
const double qnan = std::numeric_limits<double>::quiet_NaN();
}  // namespace

// ---- binary operations ----------------------------------------------------------------------------

namespace {

/// sum(w * op(a, b)) with a matrix beside another operand: two matrix arguments, a matrix and a scalar
/// argument on either side; with Full also a matrix and a plain number, a matrix and a constant matrix,
/// and a matrix and a scalar expression of itself. Against FD; the matrix side's gradient also against
/// the scalar rule element by element, and a scalar side's against the sum of the scalar rule.
template <bool Full, class M, class Op>
void check_binary_at(const std::string& name, const Op& op, double lo, double hi, std::uint64_t seed) {
  fd::rng r{seed};
  const M a = mx::random<M>(r, lo, hi);
  const M b = mx::random<M>(r, lo, hi);
  const M w = mx::random<M>(r, 0.5, 1.5);
  const double s = r.uniform(lo, hi);
  const double c = r.uniform(lo, hi);
  const std::string label = name + " at " + mx::shape_name<M>() + ", a = " + mx::str(a);
  INFO(label << ", b = " << mx::str(b) << ", s = " << fd::str(s) << ", c = " << fd::str(c));

  // The scalar partials of op at (x, y), by tl::grad of the scalar op.
  const auto partials = [&](double x, double y) { return tl::grad(op)(x, y); };

  {  // matrix, matrix
    const auto f = [&](const auto& A, const auto& B) { return tl::sum(w * op(A, B)); };
    const auto [ga, gb] = tl::grad(f)(a, b);
    M ea, eb;
    for (std::size_t k = 0; k < M::size(); ++k) {
      const auto [pa, pb] = partials(a[k], b[k]);
      ea[k] = w[k] * pa;
      eb[k] = w[k] * pb;
    }
    mx::check_close(label + " (A, B): dA", ga, ea, exact_tol);
    mx::check_close(label + " (A, B): dB", gb, eb, exact_tol);
    mx::check_fd(label + " (A, B)", f, fd_tol, a, b);
    CHECK(op(a, b) == op(tl::argument<0, M>(a), tl::argument<1, M>(b)).value());
  }
  {  // matrix, scalar argument; scalar argument, matrix
    const auto f_right = [&](const auto& A, const auto& S) { return tl::sum(w * op(A, S)); };
    const auto f_left = [&](const auto& A, const auto& S) { return tl::sum(w * op(S, A)); };
    const auto [ga, gs] = tl::grad(f_right)(a, s);
    const auto [ga2, gs2] = tl::grad(f_left)(a, s);
    M ea, ea2;
    double es = 0, es2 = 0;
    for (std::size_t k = 0; k < M::size(); ++k) {
      const auto [pa, ps] = partials(a[k], s);
      const auto [ps2, pa2] = partials(s, a[k]);
      ea[k] = w[k] * pa;
      es += w[k] * ps;
      ea2[k] = w[k] * pa2;
      es2 += w[k] * ps2;
    }
    mx::check_close(label + " (A, s): dA", ga, ea, exact_tol);
    mx::check_close(label + " (A, s): ds is the sum over the elements", gs, es, 1e-13);
    mx::check_close(label + " (s, A): dA", ga2, ea2, exact_tol);
    mx::check_close(label + " (s, A): ds is the sum over the elements", gs2, es2, 1e-13);
    mx::check_fd(label + " (A, s)", f_right, fd_tol, a, s);
    mx::check_fd(label + " (s, A)", f_left, fd_tol, a, s);
  }
  if constexpr (Full) {
    {  // matrix, plain number; plain number, matrix
      const auto f_right = [&](const auto& A) { return tl::sum(w * op(A, c)); };
      const auto f_left = [&](const auto& A) { return tl::sum(w * op(c, A)); };
      M ea, ea2;
      for (std::size_t k = 0; k < M::size(); ++k) {
        ea[k] = w[k] * std::get<0>(partials(a[k], c));
        ea2[k] = w[k] * std::get<1>(partials(c, a[k]));
      }
      mx::check_close(label + " (A, c)", tl::grad(f_right)(a), ea, exact_tol);
      mx::check_close(label + " (c, A)", tl::grad(f_left)(a), ea2, exact_tol);
      mx::check_fd(label + " (A, c)", f_right, fd_tol, a);
      mx::check_fd(label + " (c, A)", f_left, fd_tol, a);
    }
    {  // matrix, constant matrix; constant matrix, matrix
      const auto f_right = [&](const auto& A) { return tl::sum(w * op(A, b)); };
      const auto f_left = [&](const auto& A) { return tl::sum(w * op(b, A)); };
      mx::check_fd(label + " (A, constant B)", f_right, fd_tol, a);
      mx::check_fd(label + " (constant B, A)", f_left, fd_tol, a);
    }
    {  // matrix, scalar expression of the same matrix
      const auto f = [&](const auto& A) { return tl::sum(w * op(A, tl::mean(A))) + tl::sum(w * op(tl::mean(A), A)); };
      mx::check_fd(label + " (A, mean(A)) + (mean(A), A)", f, fd_tol, a);
    }
  }
}

/// Every placement at 2 x 5; two matrices and a matrix beside a scalar argument at every shape.
/// Two plain matrices give the plain result of the same operation.
template <class Op>
void check_binary(const std::string& name, const Op& op, double lo, double hi) {
  std::uint64_t seed = 2000;
  check_binary_at<false, tl::matrix<double, 1, 1>>(name, op, lo, hi, ++seed);
  check_binary_at<false, tl::matrix<double, 1, 4>>(name, op, lo, hi, ++seed);
  check_binary_at<false, tl::matrix<double, 4, 1>>(name, op, lo, hi, ++seed);
  check_binary_at<false, tl::matrix<double, 3, 3>>(name, op, lo, hi, ++seed);
  check_binary_at<true, tl::matrix<double, 2, 5>>(name, op, lo, hi, ++seed);
}

}  // namespace

namespace {

/// Where both operands of a binary operation of the registry are drawn: both operands' points, each
/// operand's kink (div's divisor at 0) kept below.
registry::interval points_of(const registry::binary_info& info) {
  registry::interval p{-registry::inf, registry::inf};
  for (const registry::operand_domain& d : info.domain) {
    const registry::interval s = registry::sampled(d);
    p = {std::max(p.lo, s.lo), std::min(p.hi, s.hi)};
    if (d.kink) p.lo = std::max(p.lo, *d.kink + d.margin);
  }
  return p;
}

}  // namespace

TEST_CASE("every binary operation of the registry on numbers: value and partials") {
  fd::rng r{3000};
  registry::for_each_binary([&r](const auto& op) {
    const registry::binary_info& info = op.info;
    const registry::interval p = points_of(info);
    for (int i = 0; i < fd::unary_points; ++i) {
      const double x = r.uniform(p.lo, p.hi), y = r.uniform(p.lo, p.hi);
      const auto [value, partials] = tl::value_and_grad(op.apply)(x, y);
      const std::array<double, 2> exact = info.partials(x, y);
      INFO(info.name << " at " << fd::str(x) << ", " << fd::str(y));
      CHECK(fd::rel_error(value, info.reference(x, y)) < 1e-14);
      CHECK(fd::rel_error(std::get<0>(partials), exact[0]) < 1e-12);
      CHECK(fd::rel_error(std::get<1>(partials), exact[1]) < 1e-12);
    }
  });
}

TEST_CASE("every binary operation of the registry elementwise, a number beside a matrix broadcast") {
  registry::for_each_binary([](const auto& op) {
    const registry::interval p = points_of(op.info);
    check_binary(std::string(op.info.name), op.apply, p.lo, p.hi);
  });
}

TEST_CASE("broadcast adjoints: exact sums") {
  using V = tl::vector<double, 3>;
  const V x{1.0, 2.0, 3.0};
  // d/ds sum(x * s) = sum(x); d/dx = s.
  const auto [gx, gs] = tl::grad([](const auto& X, const auto& S) { return tl::sum(X * S); })(x, 2.0);
  CHECK(gx == V{2.0, 2.0, 2.0});
  CHECK(gs == 6.0);
  // x - mean(x): the deviations sum to 0, so d/dx sum((x - mean)^2) = 2 (x - mean).
  const V gd = tl::grad([](const auto& X) { return tl::sum(tl::square(X - tl::mean(X))); })(x);
  mx::check_close("sum((x - mean(x))^2)", gd, V{-2.0, 0.0, 2.0}, 1e-15);
  // A number on the left, and a scalar argument used on both sides.
  const auto [gx2, gs2] = tl::grad([](const auto& X, const auto& S) { return tl::sum(S - X / S); })(x, 2.0);
  CHECK(gx2 == V{-0.5, -0.5, -0.5});
  CHECK(gs2 == 3.0 + 6.0 / 4.0);
  // Unary plus is the identity on a matrix expression.
  CHECK(tl::grad([](const auto& X) { return tl::sum(+X); })(x) == V{1.0, 1.0, 1.0});
  // A tl::var beside a plain matrix: backward() sums its adjoint over the elements.
  tl::var<double> v{2.0};
  const auto e = tl::sum(x * v) + tl::norm(x - v);
  e.backward();
  CHECK(fd::rel_error(e.value(), 12.0 + std::sqrt(2.0)) < 1e-15);
  CHECK(v.grad() == 6.0);  // sum(x), plus -sum(x - v) / norm = 0
  // A let-bound matrix: each use's adjoint, summed; a scalar beside it broadcast to the 3 elements.
  const V gl = tl::grad(
      [](const auto& X) { return tl::let(X * 2.0, [](auto t) { return tl::sum(t * t + tl::softmax(t) + t[1]); }); })(x);
  mx::check_close("let", gl, V{8.0, 16.0 + 6.0, 24.0}, 1e-15);
}

TEST_CASE("pow of a matrix: integer, real and expression exponents") {
  using V = tl::vector<double, 3>;
  const V x{1.0, 2.0, 3.0};
  // The gradient of a vector argument is a vector of the same type.
  const tl::matrix<double, 3, 1> g = tl::grad([](const auto& X) { return tl::sum(tl::pow(X, 2.0)); })(x);
  CHECK(g == tl::matrix<double, 3, 1>{{2.0}, {4.0}, {6.0}});
  CHECK(tl::grad([](const auto& X) { return tl::sum(tl::pow(X, 2)); })(x) == V{2.0, 4.0, 6.0});
  CHECK(tl::grad([](const auto& X) { return tl::sum(tl::pow(X, 3)); })(x) == V{3.0, 12.0, 27.0});
  CHECK(tl::grad([](const auto& X) { return tl::sum(tl::pow(X, -1)); })(x) == V{-1.0, -0.25, -1.0 / 9.0});
  CHECK(tl::grad([](const auto& X) { return tl::sum(tl::pow(X, 0)); })(x) == V{0.0, 0.0, 0.0});
  CHECK(tl::value_and_grad([](const auto& X) { return tl::sum(tl::pow(X, 2)); })(x).first == 14.0);

  fd::rng r{31};
  using M = tl::matrix<double, 2, 5>;
  const M a = mx::random<M>(r, 0.5, 2.5);
  mx::check_fd(
      "pow(A, 0.5)", [](const auto& A) { return tl::sum(tl::pow(A, 0.5)); }, fd_tol, a);
  mx::check_fd(
      "pow(A, 3)", [](const auto& A) { return tl::sum(tl::pow(A, 3)); }, fd_tol, a);
  mx::check_fd(
      "pow(2.0, A)", [](const auto& A) { return tl::sum(tl::pow(2.0, A)); }, fd_tol, a);
  mx::check_fd(
      "pow(A, A)", [](const auto& A) { return tl::sum(tl::pow(A, A)); }, fd_tol, a);
  mx::check_fd(
      "pow(A, sum(A) / 10)", [](const auto& A) { return tl::sum(tl::pow(A, tl::sum(A) / 10.0)); }, fd_tol, a);
  mx::check_fd(
      "pow(mean(A), A)", [](const auto& A) { return tl::sum(tl::pow(tl::mean(A), A)); }, fd_tol, a);

  // A plain matrix on either side is a constant of the elementwise pow, beside a matrix or a scalar.
  const M c = mx::random<M>(r, 0.5, 2.5);
  mx::check_fd(
      "pow(A, C)", [&c](const auto& A) { return tl::sum(tl::pow(A, c)); }, fd_tol, a);
  mx::check_fd(
      "pow(C, A)", [&c](const auto& A) { return tl::sum(tl::pow(c, A)); }, fd_tol, a);
  const double s = 1.7;
  const double gs = tl::grad([&c](const auto& t) { return tl::sum(tl::pow(c, t)); })(s);
  const double gt = tl::grad([&c](const auto& t) { return tl::sum(tl::pow(t, c)); })(s);
  double want_s = 0.0, want_t = 0.0;
  for (std::size_t i = 0; i < M::size(); ++i) {
    want_s += std::pow(c[i], s) * std::log(c[i]);
    want_t += c[i] * std::pow(s, c[i] - 1.0);
  }
  CHECK(fd::rel_error(gs, want_s) < 1e-14);
  CHECK(fd::rel_error(gt, want_t) < 1e-14);
  // Plain operands give plain matrices.
  const M p = tl::pow(a, c);
  const M q = tl::pow(2.0, a);
  const M i2 = tl::pow(a, 2);
  for (std::size_t i = 0; i < M::size(); ++i) {
    CHECK(p[i] == std::pow(a[i], c[i]));
    CHECK(q[i] == std::pow(2.0, a[i]));
    CHECK(i2[i] == a[i] * a[i]);
  }
}

TEST_CASE("min and max of matrices: the first operand at a tie, NaN propagates") {
  using V = tl::vector<double, 4>;
  const V x{1.0, 2.0, 3.0, 4.0};
  const V y{2.0, 2.0, 2.0, qnan};
  const auto [gx, gy] = tl::grad([](const auto& X, const auto& Y) { return tl::sum(tl::max(X, Y)); })(x, y);
  CHECK(gx == V{0.0, 1.0, 1.0, 0.0});  // tie at element 1: the first operand
  CHECK(gy[0] == 1.0);
  CHECK(gy[1] == 0.0);
  CHECK(gy[2] == 0.0);
  // The NaN operand receives what the scalar rule gives it (and the other operand 0).
  const auto same = [](double u, double v) { return u == v || (u != u && v != v); };
  const auto max_partials = tl::grad([](const auto& p, const auto& q) { return tl::max(p, q); })(4.0, qnan);
  const auto min_partials = tl::grad([](const auto& p, const auto& q) { return tl::min(p, q); })(4.0, qnan);
  CHECK(same(gy[3], std::get<1>(max_partials)));
  CHECK(std::get<1>(max_partials) != 0.0);
  const auto [hx, hy] = tl::grad([](const auto& X, const auto& Y) { return tl::sum(tl::min(X, Y)); })(x, y);
  CHECK(hx == V{1.0, 1.0, 0.0, 0.0});
  CHECK(hy[2] == 1.0);
  CHECK(same(hy[3], std::get<1>(min_partials)));
  const auto v = tl::value_and_grad([](const auto& X, const auto& Y) { return tl::sum(tl::min(X, Y)); })(x, y);
  CHECK(std::isnan(v.first));
  // Against a number: clamping.
  const V gc = tl::grad([](const auto& X) { return tl::sum(tl::min(tl::max(X, 1.5), 3.5)); })(x);
  CHECK(gc == V{0.0, 1.0, 1.0, 0.0});
  // Plain matrices give plain matrices.
  CHECK(tl::max(x, 2.5) == V{2.5, 2.5, 3.0, 4.0});
}
