// SPDX-License-Identifier: BSL-1.0
// Unary scalar operations applied element by element to matrices: every one at the shapes 1x1, 1x4,
// 4x1, 3x3, 2x5, against finite differences and against the scalar derivative per element.
// (Binary operations: binary_test.cpp; comparisons and if_else: ops/mask_test.cpp.)
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

constexpr double fd_tol = 1e-6;      // AD against central differences
constexpr double exact_tol = 1e-14;  // AD against the scalar rule, element by element
// A matrix operation's value against the scalar one's: a SIMD loop's functions are within 2 ulp of
// the standard library's (test/unit/math/batch_test.cpp), an operation made of several, 4.
constexpr double value_ulps = 4;

const double qnan = std::numeric_limits<double>::quiet_NaN();

/// sum(w * op(X)) at a random X of shape M in [lo, hi] (away from `avoid`), random weights w:
/// the value of op(X) element by element equals the scalar op's (within value_ulps: SIMD loops), the gradient element k
/// equals w_k op'(x_k) from the scalar rule, and matches finite differences. op also maps a plain matrix.
template <class M, class Op>
void check_elementwise_at(const std::string& name, const Op& op, double lo, double hi,
                          std::initializer_list<double> avoid, double margin, std::uint64_t seed) {
  fd::rng r{seed};
  const M x = mx::random_away<M>(r, lo, hi, avoid, margin);
  const M w = mx::random<M>(r, 0.5, 1.5);
  const auto f = [w, &op](const auto& X) { return tl::sum(w * op(X)); };
  const std::string label = name + " at " + mx::shape_name<M>() + ", x = " + mx::str(x);

  const auto y = op(tl::argument<0, M>(x)).value();
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(y)>, M>);
  const M g = tl::grad(f)(x);
  M expected_g;
  bool values_equal = true;
  for (std::size_t k = 0; k < M::size(); ++k) {
    const auto [v, d] = tl::value_and_grad(op)(x[k]);
    values_equal = values_equal && fd::ulp_distance(y[k], v) <= value_ulps;
    expected_g[k] = w[k] * d;
  }
  INFO(label);
  CHECK(values_equal);
  mx::check_close(label + ": gradient against w * scalar derivative", g, expected_g, exact_tol);
  mx::check_fd(label, f, fd_tol, x);
}

template <class Op>
void check_elementwise(const std::string& name, const Op& op, double lo, double hi,
                       std::initializer_list<double> avoid = {}, double margin = 0.0) {
  std::uint64_t seed = 1000;
  mx::for_shapes(
      [&](auto t) { check_elementwise_at<typename decltype(t)::type>(name, op, lo, hi, avoid, margin, ++seed); });
  // On a plain matrix the operation is the plain elementwise map, equal to the node's value.
  fd::rng r{seed};
  using M = tl::matrix<double, 3, 3>;
  const M x = mx::random_away<M>(r, lo, hi, avoid, margin);
  const M plain = op(x);
  INFO(name << " of a plain matrix");
  CHECK(plain == op(tl::argument<0, M>(x)).value());
}

}  // namespace

// ---- unary operations ---------------------------------------------------------------------------

TEST_CASE("exponential and logarithmic functions, elementwise") {
  check_elementwise(
      "exp", [](const auto& x) { return tl::exp(x); }, -3, 3);
  check_elementwise(
      "exp2", [](const auto& x) { return tl::exp2(x); }, -3, 3);
  check_elementwise(
      "expm1", [](const auto& x) { return tl::expm1(x); }, -3, 3);
  check_elementwise(
      "log", [](const auto& x) { return tl::log(x); }, 0.1, 5);
  check_elementwise(
      "log2", [](const auto& x) { return tl::log2(x); }, 0.1, 5);
  check_elementwise(
      "log10", [](const auto& x) { return tl::log10(x); }, 0.1, 5);
  check_elementwise(
      "log1p", [](const auto& x) { return tl::log1p(x); }, -0.9, 5);
}

TEST_CASE("powers and roots, elementwise") {
  check_elementwise(
      "sqrt", [](const auto& x) { return tl::sqrt(x); }, 0.1, 5);
  check_elementwise(
      "cbrt", [](const auto& x) { return tl::cbrt(x); }, -5, 5, {0.0}, 0.1);
  check_elementwise(
      "square", [](const auto& x) { return tl::square(x); }, -3, 3);
}

TEST_CASE("trigonometric functions, elementwise") {
  check_elementwise(
      "sin", [](const auto& x) { return tl::sin(x); }, -3, 3);
  check_elementwise(
      "cos", [](const auto& x) { return tl::cos(x); }, -3, 3);
  check_elementwise(
      "tan", [](const auto& x) { return tl::tan(x); }, -1.4, 1.4);
  check_elementwise(
      "asin", [](const auto& x) { return tl::asin(x); }, -0.9, 0.9);
  check_elementwise(
      "acos", [](const auto& x) { return tl::acos(x); }, -0.9, 0.9);
  check_elementwise(
      "atan", [](const auto& x) { return tl::atan(x); }, -5, 5);
}

TEST_CASE("hyperbolic functions, elementwise") {
  check_elementwise(
      "sinh", [](const auto& x) { return tl::sinh(x); }, -3, 3);
  check_elementwise(
      "cosh", [](const auto& x) { return tl::cosh(x); }, -3, 3);
  check_elementwise(
      "tanh", [](const auto& x) { return tl::tanh(x); }, -3, 3);
  check_elementwise(
      "asinh", [](const auto& x) { return tl::asinh(x); }, -5, 5);
  check_elementwise(
      "acosh", [](const auto& x) { return tl::acosh(x); }, 1.1, 5);
  check_elementwise(
      "atanh", [](const auto& x) { return tl::atanh(x); }, -0.9, 0.9);
}

TEST_CASE("special and piecewise functions and unary minus, elementwise") {
  check_elementwise(
      "abs", [](const auto& x) { return tl::abs(x); }, -3, 3, {0.0}, 0.05);
  check_elementwise(
      "erf", [](const auto& x) { return tl::erf(x); }, -3, 3);
  check_elementwise(
      "erfc", [](const auto& x) { return tl::erfc(x); }, -3, 3);
  check_elementwise(
      "sigmoid", [](const auto& x) { return tl::sigmoid(x); }, -5, 5);
  check_elementwise(
      "softplus", [](const auto& x) { return tl::softplus(x); }, -5, 5);
  check_elementwise(
      "relu", [](const auto& x) { return tl::relu(x); }, -3, 3, {0.0}, 0.05);
  check_elementwise(
      "negate", [](const auto& x) { return -x; }, -3, 3);
}

TEST_CASE("the kink conventions hold per element") {
  using M = tl::matrix<double, 1, 3>;
  const M x{{-1.0, 0.0, 2.0}};
  CHECK(tl::grad([](const auto& X) { return tl::sum(tl::abs(X)); })(x) == M{{-1.0, 0.0, 1.0}});
  CHECK(tl::grad([](const auto& X) { return tl::sum(tl::relu(X)); })(x) == M{{0.0, 0.0, 1.0}});
  // NaN propagates into its own element only.
  const M n{{1.0, qnan, 2.0}};
  const M gn = tl::grad([](const auto& X) { return tl::sum(tl::exp(X) * 0.0 + X); })(n);
  CHECK(gn[0] == 1.0);
  CHECK(std::isnan(gn[1]));
  CHECK(gn[2] == 1.0);
}

TEST_CASE("float matrices stay float") {
  using F = tl::matrix<float, 2, 2>;
  const F a{{1.0f, 2.0f}, {3.0f, 4.0f}};
  const auto g = tl::grad([](const auto& A) { return tl::sum(tl::exp(A) * 2.0f + A * A); })(a);
  static_assert(std::is_same_v<decltype(g), const F>);
  for (std::size_t k = 0; k < 4; ++k) CHECK(fd::rel_error(g[k], 2.0 * std::exp(double(a[k])) + 2.0 * a[k]) < 1e-6);
}
