// SPDX-License-Identifier: BSL-1.0
// Sums that differentiate two or more arrays of run-time extents at once (transforms/sum_over.hpp,
// sum_over_rows_packed; sweep/run_time_rows.hpp): tl::dot(a, b) and a formula over both, a layer's
// weights and bias of run-time extents, a tl::sum_over over tl::indices reading three such parameters
// beside fixed ones and numbers, in every order; against the gradient by hand at the sizes around a
// SIMD batch and 31, 32, 33, 256, the fixed-shape twin at the same values, central differences at
// seeded points; Eigen arguments equal to tl::dynamic's bit for bit; tl::jvp; tl::hessian; a gradient
// inside f beside its argument; the allocations; bounded vectors in a constant expression and without
// allocation.
#include <doctest/doctest.h>
#include <tapeless/interop/eigen.hpp>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <run_time_twin.hpp>

#include <Eigen/Core>

#include <cmath>
#include <cstddef>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

using run_time_twin::dynamic_vector;
using run_time_twin::seeded;
using dynamic_matrix = tl::matrix<double, tl::dynamic, tl::dynamic>;

// ---- two vectors in one formula

/// dot(a, b) + sum((a - b)^2 s) + sum(exp(0.1 a b)): one sum over the elements of both.
constexpr auto two_vectors = [](const auto& a, const auto& b, const auto& s) {
  return tl::dot(a, b) + tl::sum(tl::square(a - b) * s) + tl::sum(tl::exp(0.1 * a * b));
};

template <class V>
void check_two_vectors_by_hand(std::size_t n) {
  CAPTURE(n);
  const V a = seeded<V>(n, 11 + n), b = seeded<V>(n, 12 + n);
  const double s = 0.7;
  const auto [value, g] = tl::value_and_grad(two_vectors)(a, b, s);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(g))>, V>);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<1>(g))>, V>);
  double expected = 0, gs = 0;
  REQUIRE(std::get<0>(g).size() == n);
  REQUIRE(std::get<1>(g).size() == n);
  for (std::size_t k = 0; k < n; ++k) {
    const double d = a[k] - b[k], e = std::exp(0.1 * a[k] * b[k]);
    expected += a[k] * b[k] + d * d * s + e;
    gs += d * d;
    CHECK(fd::rel_error(std::get<0>(g)[k], b[k] + 2 * d * s + 0.1 * b[k] * e) < 1e-13);
    CHECK(fd::rel_error(std::get<1>(g)[k], a[k] - 2 * d * s + 0.1 * a[k] * e) < 1e-13);
  }
  CHECK(fd::rel_error(value, expected) < 1e-12);
  CHECK(fd::rel_error(std::get<2>(g), gs) < 1e-12);
  CHECK(fd::rel_error(two_vectors(a, b, s), value) < 1e-13);
}

TEST_CASE("two differentiated vectors in one formula: the gradient by hand at every size") {
  for (std::size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 256, 5000}) {
    check_two_vectors_by_hand<dynamic_vector>(n);
    if (n <= 256) check_two_vectors_by_hand<tl::vector<double, tl::bounded<256>>>(n);
  }
}

/// check.template operator()<N>() at N = 3, 5, 9 and 33: the twins at a few sizes, each a fixed-shape
/// gradient of its own to compile; the sizes around every batch are those of the checks by hand.
template <class Check>
void at_twin_sizes(const Check& check) {
  run_time_twin::at_each<3, 5, 9, 33>(check);
}

TEST_CASE("two differentiated vectors in one formula: the fixed-shape twin") {
  at_twin_sizes([]<std::size_t N>() {
    CAPTURE(N);
    const auto a = seeded<dynamic_vector>(N, 21 + N), b = seeded<dynamic_vector>(N, 22 + N);
    const auto [value, g] = tl::value_and_grad(two_vectors)(a, b, 1.3);
    const auto [fixed_value, fixed_g] =
        tl::value_and_grad(two_vectors)(run_time_twin::fixed_copy<N>(a), run_time_twin::fixed_copy<N>(b), 1.3);
    CHECK(fd::rel_error(value, fixed_value) < 1e-13);
    CHECK(fd::rel_error(std::get<2>(g), std::get<2>(fixed_g)) < 1e-13);
    for (std::size_t k = 0; k < N; ++k) {
      CHECK(fd::rel_error(std::get<0>(g)[k], std::get<0>(fixed_g)[k]) < 1e-13);
      CHECK(fd::rel_error(std::get<1>(g)[k], std::get<1>(fixed_g)[k]) < 1e-13);
    }
  });
}

// ---- a layer of run-time width: weights and bias

/// sum((tanh(W x + bias) - y)^2) + s |bias|^2 for data x and y: W (m x n) and bias (m) differentiated
/// together, in the order (W, bias, s) or (bias, s, W).
template <class X, class Y>
auto layer(const X& x, const Y& y) {
  return [&x, &y](const auto& w, const auto& bias, const auto& s) {
    return tl::sum(tl::square(tl::tanh(tl::matmul(w, tl::cref(x)) + bias) - tl::cref(y))) + s * tl::squared_norm(bias);
  };
}
template <class X, class Y>
auto layer_bias_first(const X& x, const Y& y) {
  return [f = layer(x, y)](const auto& bias, const auto& s, const auto& w) { return f(w, bias, s); };
}

template <std::size_t M, std::size_t N>
void check_layer_against_twin() {
  CAPTURE(M);
  CAPTURE(N);
  const auto wf = run_time_twin::drawn<tl::matrix<double, M, N>>(31 + M);
  const auto xf = run_time_twin::drawn<tl::vector<double, N>>(32 + N);
  const auto yf = run_time_twin::drawn<tl::vector<double, M>>(33 + M);
  const auto bf = run_time_twin::drawn<tl::vector<double, M>>(34 + M);
  const auto w = run_time_twin::copy_of<dynamic_matrix>(wf);
  const auto x = run_time_twin::copy_of<dynamic_vector>(xf), y = run_time_twin::copy_of<dynamic_vector>(yf);
  const auto bias = run_time_twin::copy_of<dynamic_vector>(bf);
  const double s = 0.4;
  const auto [fixed_value, fixed_g] = tl::value_and_grad(layer(xf, yf))(wf, bf, s);
  {
    const auto [value, g] = tl::value_and_grad(layer(x, y))(w, bias, s);
    CHECK(fd::rel_error(value, fixed_value) < 1e-13);
    run_time_twin::check_elements_against_twin(std::get<0>(g), std::get<0>(fixed_g));
    run_time_twin::check_elements_against_twin(std::get<1>(g), std::get<1>(fixed_g));
    CHECK(fd::rel_error(std::get<2>(g), std::get<2>(fixed_g)) < 1e-13);
  }
  {
    // bias first: W read through a view of the other parameters stacked in one vector
    const auto [value, g] = tl::value_and_grad(layer_bias_first(x, y))(bias, s, w);
    CHECK(fd::rel_error(value, fixed_value) < 1e-13);
    run_time_twin::check_elements_against_twin(std::get<2>(g), std::get<0>(fixed_g));
    run_time_twin::check_elements_against_twin(std::get<0>(g), std::get<1>(fixed_g));
    CHECK(fd::rel_error(std::get<1>(g), std::get<2>(fixed_g)) < 1e-13);
  }
}

TEST_CASE("a layer's weights and bias of run-time extents: the fixed-shape twin, in either order") {
  check_layer_against_twin<1, 1>();
  check_layer_against_twin<4, 5>();
  check_layer_against_twin<9, 33>();
}

TEST_CASE("a layer's weights and bias as Eigen matrices: tl::dynamic's gradient bit for bit") {
  const std::size_t m = 7, n = 5;
  const auto w = seeded<dynamic_vector>(m * n, 41), x = seeded<dynamic_vector>(n, 42),
             y = seeded<dynamic_vector>(m, 43), bias = seeded<dynamic_vector>(m, 44);
  dynamic_matrix wm(m, n);
  Eigen::MatrixXd we(m, n);  // column-major: read through its strides
  Eigen::VectorXd be(m);
  for (std::size_t i = 0; i < m; ++i) {
    be(Eigen::Index(i)) = bias[i];
    for (std::size_t j = 0; j < n; ++j) wm(i, j) = we(Eigen::Index(i), Eigen::Index(j)) = w[i * n + j];
  }
  const auto g = tl::grad(layer(x, y))(wm, bias, 0.4);
  const auto ge = tl::grad(layer(x, y))(we, be, 0.4);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(ge))>, Eigen::MatrixXd>);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<1>(ge))>, Eigen::VectorXd>);
  for (std::size_t i = 0; i < m; ++i) {
    CHECK(std::get<1>(ge)(Eigen::Index(i)) == std::get<1>(g)[i]);
    for (std::size_t j = 0; j < n; ++j)
      CHECK(std::get<0>(ge)(Eigen::Index(i), Eigen::Index(j)) == std::get<0>(g)(i, j));
  }
  CHECK(std::get<2>(ge) == std::get<2>(g));
  // The same with the bias first, W then a view of the stacked others.
  const auto gb = tl::grad(layer_bias_first(x, y))(be, 0.4, we);
  for (std::size_t i = 0; i < m; ++i) {
    CHECK(std::get<0>(gb)(Eigen::Index(i)) == std::get<1>(g)[i]);
    for (std::size_t j = 0; j < n; ++j)
      CHECK(std::get<2>(gb)(Eigen::Index(i), Eigen::Index(j)) == std::get<0>(g)(i, j));
  }
}

// ---- tl::sum_over over tl::indices with three parameters of run-time extents

/// sum_i q[i % 3] (a[i] - b[i])^2 + s a[i] c[i + 1] + c[i]^2 b[i], i < n - 1, with a and b of n elements,
/// c of n + 1, q a fixed 3-vector and s a number, in the order given.
constexpr auto three_arrays = [](const auto& a, const auto& q, const auto& b, const auto& s, const auto& c) {
  return tl::sum_over(
      tl::indices(a.size() > 0 ? a.size() - 1 : 0),
      [](std::size_t i, const auto& a, const auto& q, const auto& b, const auto& s, const auto& c) {
        return q[i % 3] * tl::square(a[i] - b[i]) + s * a[i] * c[i + 1] + tl::square(c[i]) * b[i];
      },
      a, q, b, s, c);
};

TEST_CASE("tl::sum_over reading three parameters of run-time extents beside fixed ones: the twin") {
  at_twin_sizes([]<std::size_t N>() {
    CAPTURE(N);
    const auto a = seeded<dynamic_vector>(N, 51 + N), b = seeded<dynamic_vector>(N, 52 + N),
               c = seeded<dynamic_vector>(N + 1, 53 + N);
    const auto q = run_time_twin::drawn<tl::vector<double, 3>>(54 + N);
    const double s = -0.6;
    const auto [value, g] = tl::value_and_grad(three_arrays)(a, q, b, s, c);
    const auto [fixed_value, fixed_g] = tl::value_and_grad(three_arrays)(
        run_time_twin::fixed_copy<N>(a), q, run_time_twin::fixed_copy<N>(b), s, run_time_twin::fixed_copy<N + 1>(c));
    CHECK(fd::rel_error(value, fixed_value) < 1e-13);
    for (std::size_t k = 0; k < N; ++k) {
      CHECK(fd::rel_error(std::get<0>(g)[k], std::get<0>(fixed_g)[k]) < 1e-13);
      CHECK(fd::rel_error(std::get<2>(g)[k], std::get<2>(fixed_g)[k]) < 1e-13);
    }
    for (std::size_t k = 0; k < N + 1; ++k) CHECK(fd::rel_error(std::get<4>(g)[k], std::get<4>(fixed_g)[k]) < 1e-13);
    for (std::size_t k = 0; k < 3; ++k) CHECK(fd::rel_error(std::get<1>(g)[k], std::get<1>(fixed_g)[k]) < 1e-12);
    CHECK(fd::rel_error(std::get<3>(g), std::get<3>(fixed_g)) < 1e-12);
    CHECK(fd::rel_error(three_arrays(a, q, b, s, c), value) < 1e-13);
  });
}

TEST_CASE("tl::sum_over reading three parameters of run-time extents: the gradient by hand at every size") {
  // Past 4096 rows a sum runs in blocks, a later one's adjoints in list-keeping sums of each parameter.
  for (std::size_t n : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 256, 4097, 9000}) {
    CAPTURE(n);
    const auto a = seeded<dynamic_vector>(n, 131 + n), b = seeded<dynamic_vector>(n, 132 + n),
               c = seeded<dynamic_vector>(n + 1, 133 + n);
    const tl::vector<double, 3> q{0.5, -1.25, 2.0};
    const double s = 0.9;
    const auto g = tl::grad(three_arrays)(a, q, b, s, c);
    dynamic_vector ga(n), gb(n), gc(n + 1);
    tl::vector<double, 3> gq{};
    double gs = 0;
    for (std::size_t i = 0; i + 1 < n; ++i) {
      const double d = a[i] - b[i], w = q[i % 3];
      ga[i] = 2 * w * d + s * c[i + 1];
      gb[i] = -2 * w * d + c[i] * c[i];
      gc[i] += 2 * c[i] * b[i];
      gc[i + 1] += s * a[i];
      gq[i % 3] += d * d;
      gs += a[i] * c[i + 1];
    }
    for (std::size_t k = 0; k < n; ++k) {
      CHECK(fd::rel_error(std::get<0>(g)[k], ga[k]) < 1e-13);
      CHECK(fd::rel_error(std::get<2>(g)[k], gb[k]) < 1e-13);
    }
    for (std::size_t k = 0; k <= n; ++k) CHECK(fd::rel_error(std::get<4>(g)[k], gc[k]) < 1e-13);
    for (std::size_t k = 0; k < 3; ++k) CHECK(fd::rel_error(std::get<1>(g)[k], gq[k]) < 1e-12);
    CHECK(fd::rel_error(std::get<3>(g), gs) < 1e-12);
  }
}

TEST_CASE("three parameters of run-time extents: central differences at seeded points") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    CAPTURE(seed);
    const std::size_t n = 6 + seed;
    const auto a = seeded<dynamic_vector>(n, 61 * seed), b = seeded<dynamic_vector>(n, 62 * seed),
               c = seeded<dynamic_vector>(n + 1, 63 * seed);
    const auto q = run_time_twin::drawn<tl::vector<double, 3>>(64 * seed);
    const double s = 0.3 * double(seed);
    const auto g = tl::grad(three_arrays)(a, q, b, s, c);
    for (std::size_t k = 0; k < n; ++k) {
      CHECK(fd::rel_error(std::get<0>(g)[k],
                          fd::partial([&](const auto& x) { return three_arrays(x, q, b, s, c); }, a, k)) < 1e-8);
      CHECK(fd::rel_error(std::get<2>(g)[k],
                          fd::partial([&](const auto& x) { return three_arrays(a, q, x, s, c); }, b, k)) < 1e-8);
    }
    for (std::size_t k = 0; k <= n; ++k)
      CHECK(fd::rel_error(std::get<4>(g)[k],
                          fd::partial([&](const auto& x) { return three_arrays(a, q, b, s, x); }, c, k)) < 1e-8);
    for (std::size_t k = 0; k < 3; ++k)
      CHECK(fd::rel_error(std::get<1>(g)[k],
                          fd::partial([&](const auto& x) { return three_arrays(a, x, b, s, c); }, q, k)) < 1e-8);
    CHECK(fd::rel_error(std::get<3>(g), fd::derivative([&](double x) { return three_arrays(a, q, b, x, c); }, s)) <
          1e-8);
  }
}

TEST_CASE("two vectors of tl::dynamic extents: the two gradients allocated, and nothing else") {
  const auto a = seeded<dynamic_vector>(100, 111), b = seeded<dynamic_vector>(100, 112);
  const long two = test_support::allocations_during([&] {
    const auto g = tl::grad([](const auto& a, const auto& b) { return tl::dot(a, b); })(a, b);
    CHECK(std::get<0>(g).size() == 100);
  });
  CHECK(two == 2);
  // With a third, the others stacked in one vector: a few blocks of their size.
  const auto c = seeded<dynamic_vector>(100, 113);
  const long three = test_support::allocations_during([&] {
    const auto g = tl::grad([](const auto& a, const auto& b, const auto& c) { return tl::sum(a * b * c); })(a, b, c);
    CHECK(std::get<2>(g).size() == 100);
  });
  CHECK(three <= 9);
}

TEST_CASE("two parameters of run-time extents, one of them data: only the other differentiated") {
  const auto a = seeded<dynamic_vector>(9, 71), b = seeded<dynamic_vector>(9, 72);
  const auto g = tl::grad<1>(two_vectors)(a, b, 0.7);
  const auto both = tl::grad(two_vectors)(a, b, 0.7);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(g)>, dynamic_vector>);
  for (std::size_t k = 0; k < 9; ++k) CHECK(g[k] == std::get<1>(both)[k]);
  const auto gc = tl::grad([&](const auto& x) {
    return three_arrays(x, tl::vector<double, 3>{1, 2, 3}, tl::cref(b), 0.5, tl::cref(a));
  })(a);
  REQUIRE(gc.size() == 9);
  // a read twice, as a parameter and as data: the parameter's derivative alone.
  for (std::size_t k = 0; k + 1 < 9; ++k) {
    const double expected = 2.0 * (1.0 + double(k % 3)) * (a[k] - b[k]) + 0.5 * a[k + 1];
    CHECK(fd::rel_error(gc[k], expected) < 1e-13);
  }
}

TEST_CASE("tl::jvp through a sum of two parameters of run-time extents: the gradient's product") {
  const std::size_t n = 13;
  const auto a = seeded<dynamic_vector>(n, 81), b = seeded<dynamic_vector>(n, 82), va = seeded<dynamic_vector>(n, 83),
             vb = seeded<dynamic_vector>(n, 84);
  const auto g = tl::grad(two_vectors)(a, b, 0.7);
  const auto [value, tangent] = tl::jvp(two_vectors, std::tuple{a, b, 0.7}, std::tuple{va, vb, 0.25});
  double expected = 0.25 * std::get<2>(g);
  for (std::size_t k = 0; k < n; ++k) expected += std::get<0>(g)[k] * va[k] + std::get<1>(g)[k] * vb[k];
  CHECK(fd::rel_error(value, two_vectors(a, b, 0.7)) < 1e-13);
  CHECK(fd::rel_error(tangent, expected) < 1e-12);
}

TEST_CASE("tl::hessian in two vectors of run-time extents: the blocks by hand") {
  const std::size_t n = 6;
  const auto a = seeded<dynamic_vector>(n, 121), b = seeded<dynamic_vector>(n, 122);
  const auto f = [](const auto& a, const auto& b) { return tl::dot(a, b) + tl::sum(tl::exp(a * b)); };
  const auto h = tl::hessian(f)(a, b);
  const auto& [haa, hab] = std::get<0>(h);
  const auto& [hba, hbb] = std::get<1>(h);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const double e = std::exp(a[i] * b[i]), same = i == j ? 1.0 : 0.0;
      CHECK(fd::rel_error(haa(i, j), same * b[i] * b[i] * e) < 1e-13);
      CHECK(fd::rel_error(hbb(i, j), same * a[i] * a[i] * e) < 1e-13);
      CHECK(fd::rel_error(hab(i, j), same * (1 + e * (1 + a[i] * b[i]))) < 1e-13);
      CHECK(fd::rel_error(hba(i, j), hab(j, i)) < 1e-13);
    }
}

TEST_CASE("a gradient inside f beside its argument: two nodes of run-time extents in one sum") {
  // f(x) = x . grad(g)(x) for g(x) = sum(x^3) / 3: sum(x^3), whose gradient is 3 x^2.
  const auto f = [](const auto& x) {
    return tl::dot(x, tl::grad([](const auto& y) { return tl::sum(y * y * y) / 3.0; })(x));
  };
  const auto x = seeded<dynamic_vector>(11, 91);
  const auto [value, g] = tl::value_and_grad(f)(x);
  double expected = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    expected += x[k] * x[k] * x[k];
    CHECK(fd::rel_error(g[k], 3 * x[k] * x[k]) < 1e-13);
  }
  CHECK(fd::rel_error(value, expected) < 1e-13);
}

TEST_CASE("bounded vectors: a constant expression, and no allocation") {
  using V = tl::vector<double, tl::bounded<8>>;
  static constexpr auto g = [] {
    V a(3), b(3);
    for (std::size_t k = 0; k < 3; ++k) {
      a[k] = 1.0 + double(k);
      b[k] = 2.0 - double(k);
    }
    return tl::grad([](const auto& a, const auto& b) { return tl::dot(a, b) + tl::sum(tl::square(a - b)); })(a, b);
  }();
  // d/da = b + 2 (a - b), d/db = a - 2 (a - b)
  static_assert(std::get<0>(g)[0] == 2.0 + 2 * (1.0 - 2.0));
  static_assert(std::get<1>(g)[2] == 3.0 - 2 * (3.0 - 0.0));
  const V a = seeded<V>(8, 101), b = seeded<V>(8, 102);
  const auto q = run_time_twin::drawn<tl::vector<double, 3>>(103);
  const V c = seeded<V>(8, 104);
  // a of 8, c of 8 read to element a.size() - 1 + 1: within it.
  const long count = test_support::allocations_during([&] {
    const auto r = tl::grad(two_vectors)(a, b, 0.7);
    const auto r3 = tl::grad(three_arrays)(a, q, b, 0.7, c);
    CHECK(std::get<0>(r).size() == 8);
    CHECK(std::get<4>(r3).size() == 8);
  });
  CHECK(count == 0);
}

}  // namespace
