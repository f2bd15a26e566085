// SPDX-License-Identifier: BSL-1.0
// Where the reverse sweep puts the adjoints of leaves (sweep/adjoints.hpp): an argument's or a let
// name's adjoint is the IEEE sum of its contributions from -0, +0 where none arrived; a matrix adjoint
// is summed in the gradient grad returns, the first one made there by the operation that sends it; in
// constant expressions too. A gradient of tl::dynamic extents takes a sum's partials as its elements.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <run_time_twin.hpp>

#include <cmath>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

TEST_CASE("adjoints: an adjoint is the IEEE sum of its contributions from -0; +0 where none arrived") {
  // The first contribution is copied into an argument's (or a let name's) sum, the others added: the
  // sum as if started at -0, the identity of IEEE addition. One contribution of -0 stays -0; an
  // argument that none reaches gets +0.
  CHECK(std::signbit(tl::grad([](auto x) { return x * -0.0; })(1.0)));
  CHECK(!std::signbit(tl::grad([](auto x) { return x * -0.0 + x * 0.0; })(1.0)));  // -0 + +0 is +0
  const auto [gx, gy] = tl::grad([](auto x, auto) { return x * 3.0; })(1.0, 2.0);
  CHECK(gx == 3.0);
  CHECK((gy == 0.0 && !std::signbit(gy)));

  // Matrices: A in sum(A A) is reached twice (dA = G A^T + A^T G), a vector it does not reach is +0,
  // and one reached once through a let gets its one contribution.
  using M = tl::matrix<double, 3, 3>;
  using V = tl::vector<double, 3>;
  const M a{{1, 2, 3}, {-1, 0.5, 2}, {0, 4, -2}};
  const V v{1, -2, 3};
  const auto [ga, gv] = tl::grad([](const auto& m, const auto&) { return tl::sum(tl::matmul(m, m)); })(a, v);
  for (std::size_t p = 0; p < 3; ++p)
    for (std::size_t q = 0; q < 3; ++q) {
      double row = 0, col = 0;  // (G A^T)(p, q) = sum of row q of A; (A^T G)(p, q) = sum of column p
      for (std::size_t k = 0; k < 3; ++k) {
        row += a(q, k);
        col += a(k, p);
      }
      CHECK(ga(p, q) == row + col);
    }
  for (const double e : gv) CHECK((e == 0.0 && !std::signbit(e)));
  const auto gl = tl::grad([](const auto& x) { return tl::let(x * 2.0, [](const auto& y) { return tl::sum(y); }); })(v);
  for (const double e : gl) CHECK(e == 2.0);
  // grad of one matrix argument sums straight into the matrix it returns: the same conventions there,
  // +0 where the sweep reaches nothing (the branch taken is a constant), -0 kept from one contribution
  const V unreached = tl::grad([](const auto& x) { return tl::if_else(false, tl::sum(x), 1.0); })(v);
  for (const double e : unreached) CHECK((e == 0.0 && !std::signbit(e)));
  const V negative_zero = tl::grad([](const auto& x) { return tl::sum(x * -0.0); })(v);
  for (const double e : negative_zero) CHECK((e == 0.0 && std::signbit(e)));
}

TEST_CASE(
    "adjoints: matrix adjoints are summed in the gradient returned, made there by the operation that sends them") {
  // grad without value or aux returns the matrix, or the tuple, in which the sweep sums; the first dense
  // matrix adjoint an operation sends to an argument or a let's name is constructed in its sum, the
  // others added. The same gradients in a constant expression, where nothing is constructed in place.
  using M = tl::matrix<double, 2, 2>;
  const auto product = [](const M& x, const M& y) {
    M p;
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < 2; ++j) p(i, j) = x(i, 0) * y(0, j) + x(i, 1) * y(1, j);
    return p;
  };
  const auto transposed = [](const M& x) { return M{{x(0, 0), x(1, 0)}, {x(0, 1), x(1, 1)}}; };

  // sum((A A)^2) s: G = 2 s A A, dense; dA = G A^T + A^T G, two adjoints, the first made in place.
  const auto f = [](const auto& m, const auto& s, const auto&) { return tl::sum(tl::square(tl::matmul(m, m))) * s; };
  const M a{{1, 2}, {3, 4}};
  const M g = product(a, a) * 4.0;
  const M expected = product(g, transposed(a)) + product(transposed(a), g);  // [[316, 548], [532, 964]]
  const auto [ga, gs, gt] = tl::grad(f)(a, 2.0, 5.0);
  CHECK(ga == expected);
  CHECK(gs == 858.0);  // sum((A A)^2) = 49 + 100 + 225 + 484
  CHECK((gt == 0.0 && !std::signbit(gt)));
  constexpr auto cg = tl::grad(f)(M{{1, 2}, {3, 4}}, 2.0, 5.0);
  static_assert(std::get<0>(cg) == M{{316, 548}, {532, 964}});
  static_assert(std::get<1>(cg) == 858.0 && std::get<2>(cg) == 0.0);
  // value_and_grad: the same gradient, the value beside it; in a constant expression too.
  const auto vg = tl::value_and_grad(f)(a, 2.0, 5.0);
  CHECK(vg.first == 2 * 858.0);
  CHECK(std::get<0>(vg.second) == expected);
  CHECK(std::get<1>(vg.second) == 858.0);
  CHECK((std::get<2>(vg.second) == 0.0 && !std::signbit(std::get<2>(vg.second))));
  constexpr auto cvg = tl::value_and_grad(f)(M{{1, 2}, {3, 4}}, 2.0, 5.0);
  static_assert(cvg.first == 2 * 858.0 && std::get<0>(cvg.second) == M{{316, 548}, {532, 964}});
  const auto [value_alone, gradient_alone] =
      tl::value_and_grad([](const auto& m) { return tl::sum(tl::square(tl::matmul(m, m))); })(a);
  static_assert(std::is_same_v<decltype(gradient_alone), const M>);
  CHECK(value_alone == 858.0);
  CHECK(gradient_alone == expected / 2.0);

  // Two matrix arguments reached once each, and a let's name reached first by matmul: its sum is made
  // there, then added to and swept into x.
  const M b{{-1, 0.5}, {2, -3}};
  const auto [gx, gy] =
      tl::grad([](const auto& x, const auto& y) { return tl::sum(tl::square(tl::matmul(x, y))); })(a, b);
  const M h = product(a, b) * 2.0;
  CHECK(gx == product(h, transposed(b)));
  CHECK(gy == product(transposed(a), h));
  const M gl = tl::grad([](const auto& x) {
    return tl::let(x * 2.0, [](const auto& y) { return tl::sum(tl::square(tl::matmul(y, y))) + tl::sum(y); });
  })(a);
  const M y = a * 2.0, k = product(y, y) * 2.0;
  CHECK(gl == (product(k, transposed(y)) + product(transposed(y), k) + M{{1, 1}, {1, 1}}) * 2.0);
}

TEST_CASE("adjoints: a gradient of tl::dynamic extents takes a sum's partials, and allocates nothing else") {
  // The sum's partials, scaled by its adjoint, are the first adjoint of the argument: grad's store takes
  // their elements instead of copying them into a matrix of its own. One allocation per gradient, as a
  // hand-written adjoint's; the bits of a tl::bounded vector's gradient, whose store copies them.
  using run_time_twin::dynamic_vector;
  const auto x = run_time_twin::seeded<dynamic_vector>(33, 7);
  const tl::vector<double, tl::bounded<64>> xb(x);
  const auto same_bits = [](const auto& g, const auto& expected) {
    REQUIRE(g.size() == expected.size());
    for (std::size_t k = 0; k < g.size(); ++k) {
      CAPTURE(k);
      CHECK((g[k] == expected[k] && std::signbit(g[k]) == std::signbit(expected[k])));
    }
  };
  const auto check = [&](std::string name, const auto& f, long allocations) {
    CAPTURE(name);
    const auto g = tl::grad(f)(x);
    same_bits(g, tl::grad(f)(xb));
    same_bits(tl::value_and_grad(f)(x).second, g);
    CHECK(test_support::allocations_during([&] { (void)tl::grad(f)(x); }) == allocations);
  };
  const auto rosenbrock = [](const auto& v) {
    return tl::sum_over(
        tl::indices(v.size() - 1),
        [](std::size_t i, const auto& w) {
          return 100.0 * tl::square(w[i + 1] - w[i] * w[i]) + tl::square(1.0 - w[i]);
        },
        v);
  };
  check("rosenbrock", rosenbrock, 1);
  check(
      "a sum times 0.25", [](const auto& v) { return 0.25 * tl::sum(v * v); }, 1);
  check(
      "log_sum_exp", [](const auto& v) { return tl::log_sum_exp(v); }, 1);
  // Two sums: the first adjoint to arrive is taken, the other added into it.
  check(
      "two sums", [](const auto& v) { return tl::sum(v) * tl::sum(v * v); }, 2);
  // The sweep reaches the left operand first: where that is an element, the gradient takes room of its
  // own and the partials are added; where it is the sum, they are taken and the element added.
  check(
      "an element, then a sum", [](const auto& v) { return v[3] * v[0] + tl::sum(tl::exp(v)); }, 2);
  check(
      "a sum, then an element", [](const auto& v) { return tl::sum(tl::exp(v)) + v[3] * v[0]; }, 1);
  check(
      "zeros of both signs", [](const auto& v) { return tl::sum(tl::slice(v, 1, 5) * -0.0); }, 1);
  // Exactly: 0.25 * (2 v) is v / 2, and an element's partials are taken with their bits.
  const auto half = tl::grad([](const auto& v) { return 0.25 * tl::sum(v * v); })(x);
  for (std::size_t k = 0; k < x.size(); ++k) CHECK(half[k] == x[k] / 2);
}
