// SPDX-License-Identifier: BSL-1.0
// Scaled adjoints (sweep/scaled.hpp): a fused loop under sum or mean whose adjoints are all numbers keeps
// the factor common to every element apart and multiplies each number's sum by it once. The gradients
// against the exact ones in long double, within the rounding of the sum of the terms' magnitudes, and
// against the node-by-node sweep; at tiny, infinite and NaN inputs; and the traits that say which inputs
// are kept apart.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <matrix_check.hpp>
#include <normal_logpdf.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>

namespace tl = tapeless;

namespace {

using mx::check_same;
using mx::seeded;

/// The normal log-density's gradient in long double, and beside each component the sum of its terms'
/// magnitudes: a sum that cancels is accurate to that sum's rounding, not its own.
struct exact_normal {
  long double mu = 0, sigma = 0, mu_size = 0, sigma_size = 0;
};
template <class Y>
exact_normal normal_gradient(const Y& y, double mu, double sigma) {
  exact_normal e;
  for (const double v : y) {
    const long double z = (static_cast<long double>(v) - mu) / sigma;
    e.mu += z / sigma;
    e.sigma += (z * z - 1) / sigma;
    e.mu_size += std::abs(z / sigma);
    e.sigma_size += (z * z + 1) / std::abs(static_cast<long double>(sigma));
  }
  return e;
}

/// grad of the normal log-density (with scaled adjoints) against the exact gradient, within 8 roundings
/// of the sum of the terms' magnitudes, and against value_and_grad's node-by-node sweep likewise.
template <std::size_t N>
void check_normal(std::uint64_t seed, double mu, double sigma, double spread = 2) {
  const auto y = seeded<N>(seed, mu - spread, mu + spread);
  const auto f = normal_logpdf::function(y);
  // Plain doubles, not structured bindings: clang 14 cannot capture those in INFO's lambda.
  const auto fused = tl::grad(f)(mu, sigma);
  const auto node_by_node = tl::value_and_grad(f)(mu, sigma).second;
  const double gmu = std::get<0>(fused), gsigma = std::get<1>(fused);
  const double node_mu = std::get<0>(node_by_node), node_sigma = std::get<1>(node_by_node);
  const exact_normal e = normal_gradient(y, mu, sigma);
  const double eps = std::numeric_limits<double>::epsilon();
  INFO("N = " << N << ", mu = " << fd::str(mu) << ", sigma = " << fd::str(sigma) << ": d/dmu " << fd::str(gmu)
              << " (node by node " << fd::str(node_mu) << ", exact " << fd::str(static_cast<double>(e.mu))
              << "), d/dsigma " << fd::str(gsigma) << " (node by node " << fd::str(node_sigma) << ", exact "
              << fd::str(static_cast<double>(e.sigma)) << ")");
  CHECK(std::abs(gmu - e.mu) <= 8 * eps * e.mu_size);
  CHECK(std::abs(gsigma - e.sigma) <= 8 * eps * e.sigma_size);
  CHECK(std::abs(node_mu - e.mu) <= 8 * eps * e.mu_size);
  CHECK(std::abs(node_sigma - e.sigma) <= 8 * eps * e.sigma_size);
}

}  // namespace

TEST_CASE("a loop whose adjoints are all numbers keeps their factor common to every element apart") {
  // sweep/scaled.hpp: under sum or mean, where every input with an adjoint is a number, the loop sums each
  // number's lines (z and z^2 for the normal log-density) and multiplies each sum by its scale (-1 / sigma,
  // made of the constants, the numbers and the root's adjoint) once.
  namespace d = tl::detail;
  using V = tl::vector<double, 8>;
  const V v = seeded<8>(81, -1, 1);
  const tl::argument<0, double> t(0.5), u(2.0);
  const tl::argument<2, V> x(v);
  using U = d::uniform<V>;
  using normal = decltype(-0.5 * tl::square((tl::cref(v) - t) / u) - tl::log(u) - 0.9);
  static_assert(d::uniform_inputs<normal> == 0b111101);                                 // all but the data
  static_assert(d::sums_over_elements<normal, 2> && d::sums_over_elements<normal, 3>);  // t, u
  static_assert(!d::sums_over_elements<normal, 4>);  // log(u): the same adjoint at every element
  static_assert(d::scales_apart<normal, U> && !d::scales_apart<normal, V>);  // under sum, not a dense adjoint
  using matrix_input = decltype(tl::exp(x) - t);  // x receives a matrix of adjoints: nothing to keep apart
  static_assert(!d::scales_apart<matrix_input, U>);
  using uniform_only = decltype(tl::exp(tl::cref(v)) - t);  // t's adjoint is -1 everywhere: nothing summed
  static_assert(!d::scales_apart<uniform_only, U>);
  // Which parts of the scalar tree have the same value at every element: bit K for argument K.
  static_assert(d::uniform_value<tl::argument<1, double>, 0b10> && !d::uniform_value<tl::argument<0, double>, 0b10>);

  // Sizes with no whole batch, partial last batches and none; data spread wide and narrow around mu.
  check_normal<1>(1, 0.3, 1.7);
  check_normal<3>(2, 0.3, 1.7);
  check_normal<7>(3, -2.0, 0.25);
  check_normal<8>(4, 0.3, 1.7);
  check_normal<23>(5, 5.0, 30.0, 100);
  check_normal<63>(6, 0.3, 1.7);
  check_normal<64>(7, 1e-3, 1e-4, 1e-3);
  check_normal<257>(8, -1e5, 3e4, 1e5);
  // The lines leave the normal range where the gradient does not, and the loop runs again node by node:
  // (y - mu)^2 overflows at z = 1e155 where z^2 / sigma = 1e300 does not; z^2 = 1e-340 underflows where
  // z^2 / sigma = 1e-240 does not.
  check_normal<23>(9, 0.0, 1e10, 1e165);
  check_normal<23>(10, 0.0, 1e-100, 1e-270);  // where -n / sigma outweighs the sum of z^2 / sigma
  const auto tiny = seeded<23>(14, -1e-270, 1e-270);
  const auto squares = [&tiny](const auto& mu, const auto& sigma) {
    return tl::sum(tl::square((tl::cref(tiny) - mu) / sigma));
  };
  const auto [q0, q1] = tl::grad(squares)(0.0, 1e-100);
  long double sum_z = 0, sum_zz = 0;
  for (const double e : tiny) {
    sum_z += e / 1e-100L;
    sum_zz += (e / 1e-100L) * (e / 1e-100L);
  }
  // (doctest::Approx adds 1 to the scale of its tolerance: relative errors by hand.)
  CHECK(std::abs(q0 / static_cast<double>(-2 * sum_z / 1e-100L) - 1) <= 1e-14);
  CHECK(std::abs(q1 / static_cast<double>(-2 * sum_zz / 1e-100L) - 1) <= 1e-14);  // about -5e-239
  // Data symmetric about mu: the sum of the lines z is 0, checked by the plain loop as well.
  tl::vector<double, 16> symmetric;
  for (std::size_t i = 0; i < 8; ++i) symmetric[2 * i] = -(symmetric[2 * i + 1] = 0.25 * static_cast<double>(i + 1));
  const auto [g0, g1] = tl::grad(normal_logpdf::function(symmetric))(0.0, 1.5);
  CHECK(g0 == 0.0);
  CHECK(g1 == doctest::Approx(static_cast<double>(normal_gradient(symmetric, 0.0, 1.5).sigma)).epsilon(1e-14));

  // NaN and infinity in the data or the numbers propagate as node by node.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  auto y = seeded<23>(11, -2, 2);
  y[17] = nan;
  const auto [a0, a1] = tl::grad(normal_logpdf::function(y))(0.3, 1.7);
  CHECK((std::isnan(a0) && std::isnan(a1)));
  y[17] = inf;
  const auto [b0, b1] = tl::grad(normal_logpdf::function(y))(0.3, 1.7);
  const auto [c0, c1] = tl::value_and_grad(normal_logpdf::function(y))(0.3, 1.7).second;
  CHECK((b0 == c0 && b1 == c1 && b0 == inf && b1 == inf));
  const auto [s0, s1] = tl::grad(normal_logpdf::function(seeded<23>(12, -2, 2)))(0.3, inf);
  const auto [n0, n1] = tl::value_and_grad(normal_logpdf::function(seeded<23>(12, -2, 2)))(0.3, inf).second;
  check_same("sigma = inf, d/dmu", s0, n0, 0);
  check_same("sigma = inf, d/dsigma", s1, n1, 0);

  // A number used twice is one slot that sums both uses: sum((y - t) t) has d/dt = sum(y) - 2 n t; under
  // mean, the root's adjoint 1 / n is in the scale.
  const auto w = seeded<23>(13, -2, 2);
  long double sum_w = 0;
  for (const double e : w) sum_w += e;
  const auto twice = [&w](const auto& t) { return tl::sum((tl::cref(w) - t) * t); };
  CHECK(tl::grad(twice)(0.7) == doctest::Approx(static_cast<double>(sum_w - 2 * 23 * 0.7L)).epsilon(1e-14));
  const auto mean = [&w](const auto& t, const auto& s) { return tl::mean(tl::square(tl::cref(w) * s - t)); };
  const auto [m0, m1] = tl::grad(mean)(0.7, 1.3);
  long double e0 = 0, e1 = 0;
  for (const double e : w) {
    e0 += -2 * (e * 1.3L - 0.7L) / 23;
    e1 += 2 * (e * 1.3L - 0.7L) * e / 23;
  }
  CHECK(m0 == doctest::Approx(static_cast<double>(e0)).epsilon(1e-14));
  CHECK(m1 == doctest::Approx(static_cast<double>(e1)).epsilon(1e-14));
  // Operations with no factor to keep apart (exp, a product of two per-element values) keep theirs in the
  // lines: d/ds sum(exp(s y) y) = sum(exp(s y) y^2), d/dt sum(t exp(y) / t^2) = -sum(exp(y)) / t^2.
  long double e2 = 0, e3 = 0;
  for (const double e : w) {
    e2 += std::exp(0.4L * e) * e * e;
    e3 -= std::exp(static_cast<long double>(e)) / (1.5L * 1.5L);
  }
  CHECK(tl::grad([&w](const auto& s) { return tl::sum(tl::exp(s * tl::cref(w)) * tl::cref(w)); })(0.4) ==
        doctest::Approx(static_cast<double>(e2)).epsilon(1e-14));
  CHECK(tl::grad([&w](const auto& t) { return tl::sum(t * tl::exp(tl::cref(w)) / (t * t)); })(1.5) ==
        doctest::Approx(static_cast<double>(e3)).epsilon(1e-14));
}
