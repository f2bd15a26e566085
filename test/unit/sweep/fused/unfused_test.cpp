// SPDX-License-Identifier: BSL-1.0
// TAPELESS_FUSE=0 (CMake option TAPELESS_FUSE=OFF) turns fused regions (sweep/fused.hpp) off: every
// elementwise tree is then swept node by node, by grad as by value_and_grad, so the two give the same
// bits, and both agree with finite differences and with the exact gradient. The other tests run
// with fusion on, the default.
#define TAPELESS_FUSE 0  // NOLINT(cppcoreguidelines-macro-usage)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <normal_logpdf.hpp>

#include <cmath>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

TEST_CASE("with fusion off no tree is a region") {
  using V = tl::vector<double, 64>;
  const tl::argument<0, V> x(V::filled(0.5));
  const tl::argument<1, double> s(2.0);
  namespace d = tl::detail;
  static_assert(!d::fusion_enabled);
  // Each would be a region with fusion on (regions_test.cpp): one with a batch form, and plain
  // arithmetic that sums the adjoint of a number.
  using E = decltype(tl::exp(x) * x + 2.0);
  using S = decltype((x - s) / s);
  static_assert(d::is_elementwise_node<E> && !d::fused_region<E>);
  static_assert(d::is_elementwise_node<S> && !d::fused_region<S>);
  static_assert(!std::is_base_of_v<d::region_evaluated<E, std::make_index_sequence<3>>, d::evaluated<E, false>>);
}

TEST_CASE("with fusion off grad and value_and_grad sweep alike, and both are right") {
  tl::vector<double, 40> y;
  fd::rng r{17};
  for (auto& e : y) e = r.uniform(-2, 2);
  // The normal log-density of benchmark case S5, and exp and tanh over a vector.
  const auto normal = normal_logpdf::function(y);
  const auto [gmu, gsigma] = tl::grad(normal)(0.3, 1.7);
  const auto [node_mu, node_sigma] = tl::value_and_grad(normal)(0.3, 1.7).second;
  CHECK(gmu == node_mu);
  CHECK(gsigma == node_sigma);
  const auto [exact_mu, exact_sigma] = normal_logpdf::exact_gradient(y, 0.3, 1.7);
  CHECK(gmu == doctest::Approx(exact_mu).epsilon(1e-14));
  CHECK(gsigma == doctest::Approx(exact_sigma).epsilon(1e-14));
  CHECK(tl::check_gradient(normal, 0.3, 1.7));

  const auto f = [](const auto& x) { return tl::sum(tl::exp(x) * x + tl::tanh(x) / 3.0); };
  const auto g = tl::grad(f)(y);
  const auto node = tl::value_and_grad(f)(y).second;
  for (std::size_t i = 0; i < y.size(); ++i) {
    INFO("element " << i);
    CHECK(g[i] == node[i]);
    // d/dx (exp(x) x + tanh(x) / 3) = exp(x) (x + 1) + (1 - tanh(x)^2) / 3
    const double t = std::tanh(y[i]);
    CHECK(g[i] == doctest::Approx(std::exp(y[i]) * (y[i] + 1) + (1 - t * t) / 3).epsilon(1e-13));
  }
  CHECK(tl::check_gradient(f, y));
}
