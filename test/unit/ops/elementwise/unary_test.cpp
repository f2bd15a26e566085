// SPDX-License-Identifier: BSL-1.0
// Unary scalar operations, every one of the registry (test/support/operations.hpp): on numbers, against
// the standard library's function and the exact derivative, and outside its domain; element by element
// on matrices at the shapes 1x1, 1x4, 4x1, 3x3, 2x5, against finite differences and against the scalar
// derivative per element.
// (Binary operations: binary_test.cpp; comparisons and if_else: ops/mask_test.cpp.)
#include <doctest/doctest.h>
#include <tapeless/ops/mask.hpp>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <matrix_check.hpp>
#include <operations.hpp>
#include <unary_check.hpp>

#include <algorithm>
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

namespace {

/// The points of an operation of the registry: where it draws them, away from its kink (by at least
/// 0.05: finite differences across a kink are no test).
struct sampled_points {
  double lo, hi;
  std::initializer_list<double> avoid;
  double margin;
};
sampled_points points_of(const registry::operand_domain& d) {
  static constexpr std::initializer_list<double> none{}, zero{0.0};
  const registry::interval i = registry::sampled(d);
  if (!d.kink) return {i.lo, i.hi, none, 0};
  REQUIRE(*d.kink == 0.0);  // the lists below name 0 only
  return {i.lo, i.hi, zero, std::max(d.margin, 0.05)};
}

}  // namespace

TEST_CASE("every unary operation of the registry on numbers: value, derivative, bad input") {
  std::uint64_t seed = 500;
  registry::for_each_unary([&seed](const auto& op) {
    const registry::unary_info& info = op.info;
    const sampled_points p = points_of(info.domain);
    const auto sample = [&p](fd::rng& r) { return r.uniform_away(p.lo, p.hi, p.avoid, p.margin); };
    // The standard library's functions and the library's own may differ by a few ulps.
    fd::check_unary(std::string(info.name), op.apply, info.reference, info.derivative, sample, ++seed,
                    {.value = 1e-14});
    // Outside where it is defined, a NaN value and a NaN gradient.
    const registry::interval defined = info.domain.defined;
    if (defined.lo > -registry::inf) fd::check_domain_error(std::string(info.name), op.apply, defined.lo - 0.5);
    if (defined.hi < registry::inf) fd::check_domain_error(std::string(info.name), op.apply, defined.hi + 0.5);
  });
}

TEST_CASE("every unary operation of the registry: its second derivative") {
  // grad of grad runs the value and the rule on dual numbers: against finite differences of the exact
  // derivative. A branch on the value that returns a constant would give 0 here (doc/extending.md).
  fd::rng r{700};
  registry::for_each_unary([&r](const auto& op) {
    const registry::unary_info& info = op.info;
    const sampled_points p = points_of(info.domain);
    const auto first = [&op](const auto& x) { return tl::grad(op.apply)(x); };
    for (int i = 0; i < 20; ++i) {
      const double x = r.uniform_away(p.lo, p.hi, p.avoid, p.margin);
      const double second = tl::grad(first)(x);
      const double expected = fd::derivative(info.derivative, x);
      INFO(info.name << "'' at " << fd::str(x) << ": " << fd::str(second) << ", differences " << fd::str(expected));
      CHECK(std::abs(second - expected) <= 1e-6 * std::max(1.0, std::abs(expected)));
    }
  });
}

TEST_CASE("every unary operation of the registry, elementwise") {
  registry::for_each_unary([](const auto& op) {
    const sampled_points p = points_of(op.info.domain);
    check_elementwise(std::string(op.info.name), op.apply, p.lo, p.hi, p.avoid, p.margin);
  });
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
