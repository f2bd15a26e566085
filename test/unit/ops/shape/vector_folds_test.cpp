// SPDX-License-Identifier: BSL-1.0
// Folds over indices of a vector, as a user transcribes a formula with a sum over i: n terms that each
// read elements by index (v[i], slice<i, 2>(v)), from an argument, a let name and an elementwise
// expression, for n = 3, 16, 64 and 128. Such a fold is n levels deep, so beyond 16 terms it is cut
// (expr/cut.hpp), and each cut passes on the partials of the elements its terms read: at n = 128 a
// chain of cuts whose first keep lists of those elements (up to a quarter of the vector) and the later
// ones a dense gradient. Each gradient against the one written by hand and against finite differences
// at seeded random points; the Rosenbrock fold also against the same function written with slices, its
// Hessian, jvp and grad of grad against their closed forms; a 256-term fold, sixteen times the cut
// depth, compiles and sweeps, and a deep fold in a constant expression and of tl::vars. A fold's compile
// time grows with its length (every term is a node of its own type), and a longer sum over elements is
// a sum over tl::indices(n), one loop node (transforms/sum_over/indices_test), so the folds here are as
// long as the kinds of cut need and no longer.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <matrix_check.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

namespace tl = tapeless;

namespace {

constexpr double fd_tol = 1e-6;
constexpr double exact_tol = 1e-12;  // sums of up to 256 terms, against the same sums by hand

/// sum over i of v[i] v[(3 i + 1) mod N] + sin(v[i]): terms that read two elements, often far apart.
template <std::size_t N>
constexpr auto scattered = [](const auto& v) {
  return mx::index_sum<N>([&](std::size_t i) { return v[i] * v[(3 * i + 1) % N] + tl::sin(v[i]); });
};
template <std::size_t N>
tl::vector<double, N> scattered_gradient(const tl::vector<double, N>& v) {
  tl::vector<double, N> g{};
  for (std::size_t i = 0; i < N; ++i) {
    g[i] += v[(3 * i + 1) % N] + std::cos(v[i]);
    g[(3 * i + 1) % N] += v[i];
  }
  return g;
}

/// The Rosenbrock function as its formula is written: sum over i < N - 1 of
/// 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2.
template <std::size_t N>
constexpr auto rosenbrock_by_element = [](const auto& x) {
  return mx::index_sum<N - 1>(
      [&](std::size_t i) { return 100.0 * tl::square(x[i + 1] - tl::square(x[i])) + tl::square(1.0 - x[i]); });
};
/// The same with slices (ops/shape.hpp's example).
constexpr auto rosenbrock_by_slices = [](const auto& x) {
  constexpr std::size_t n = tl::value_type_of_t<decltype(x)>::size();
  return tl::sum(100.0 * tl::square(tl::slice<1, n - 1>(x) - tl::square(tl::slice<0, n - 1>(x))) +
                 tl::square(1.0 - tl::slice<0, n - 1>(x)));
};
/// Its gradient and Hessian (tridiagonal) by hand.
template <std::size_t N>
std::pair<tl::vector<double, N>, tl::matrix<double, N, N>> rosenbrock_derivatives(const tl::vector<double, N>& x) {
  tl::vector<double, N> g{};
  tl::matrix<double, N, N> h{};
  for (std::size_t i = 0; i + 1 < N; ++i) {
    const double d = x[i + 1] - x[i] * x[i];
    g[i] += -400 * x[i] * d - 2 * (1 - x[i]);
    g[i + 1] += 200 * d;
    h(i, i) += 1200 * x[i] * x[i] - 400 * x[i + 1] + 2;
    h(i, i + 1) = h(i + 1, i) = -400 * x[i];
    h(i + 1, i + 1) += 200;
  }
  return {g, h};
}

/// p = 2 x + 1 named by tl::let, and the sum over i of p[i] p[(i + 1) mod N].
template <std::size_t N>
constexpr auto named_neighbours = [](const auto& x) {
  return tl::let(x * 2.0 + 1.0,
                 [](const auto& p) { return mx::index_sum<N>([&](std::size_t i) { return p[i] * p[(i + 1) % N]; }); });
};
template <std::size_t N>
tl::vector<double, N> named_neighbours_gradient(const tl::vector<double, N>& x) {
  tl::vector<double, N> g{};
  for (std::size_t i = 0; i < N; ++i) {
    g[i] += 2 * (2 * x[(i + 1) % N] + 1);
    g[(i + 1) % N] += 2 * (2 * x[i] + 1);
  }
  return g;
}

/// The sum over i of (x - y)[i] x[i]: each term an element of an elementwise expression of two arguments.
template <std::size_t N>
constexpr auto differences =
    [](const auto& x, const auto& y) { return mx::index_sum<N>([&](std::size_t i) { return (x - y)[i] * x[i]; }); };

/// The sum over i < N - 1 of sum(slice<i, 2>(v)^2): each element but the ends in two slices.
template <std::size_t N>
constexpr auto pairs = [](const auto& v) {
  return mx::index_sum<N - 1>([&](auto i) { return tl::sum(tl::square(tl::slice<decltype(i)::value, 2>(v))); });
};

/// Every fold at n = N: by hand and by finite differences at `points` random points.
template <std::size_t N>
void check_folds(std::uint64_t seed, int points) {
  using V = tl::vector<double, N>;
  const std::string n = " (n = " + std::to_string(N) + ")";
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const V x = mx::random<V>(r, -2, 2);
    mx::check_close("v[i] v[3i + 1] + sin v[i]" + n, tl::grad(scattered<N>)(x), scattered_gradient(x), exact_tol);
    mx::check_fd_at_size<N>("v[i] v[3i + 1] + sin v[i]" + n, scattered<N>, fd_tol, x);

    const auto [value, g] = tl::value_and_grad(rosenbrock_by_element<N>)(x);
    double expected = 0;
    for (std::size_t i = 0; i + 1 < N; ++i)
      expected += 100 * std::pow(x[i + 1] - x[i] * x[i], 2) + std::pow(1 - x[i], 2);
    CHECK(fd::rel_error(value, expected) < exact_tol);
    mx::check_close("Rosenbrock by element" + n, g, rosenbrock_derivatives(x).first, exact_tol);
    mx::check_close("Rosenbrock by element against slices" + n, g, tl::grad(rosenbrock_by_slices)(x), exact_tol);
    mx::check_fd_at_size<N>("Rosenbrock by element" + n, rosenbrock_by_element<N>, fd_tol, x);

    mx::check_close("let p = 2 x + 1, p[i] p[i + 1]" + n, tl::grad(named_neighbours<N>)(x),
                    named_neighbours_gradient(x), exact_tol);
    mx::check_fd_at_size<N>("let p = 2 x + 1, p[i] p[i + 1]" + n, named_neighbours<N>, fd_tol, x);

    const V y = mx::random<V>(r, -2, 2);
    const auto [gx, gy] = tl::grad(differences<N>)(x, y);
    mx::check_close("(x - y)[i] x[i], x" + n, gx, 2.0 * x - y, exact_tol);
    mx::check_close("(x - y)[i] x[i], y" + n, gy, -1.0 * x, exact_tol);
    mx::check_fd_at_size<N>("(x - y)[i] x[i]" + n, differences<N>, fd_tol, x, y);

    V twice = 4.0 * x;
    twice[0] = 2 * x[0];
    twice[N - 1] = 2 * x[N - 1];
    mx::check_close("sum(slice<i, 2>(v)^2)" + n, tl::grad(pairs<N>)(x), twice, exact_tol);
    mx::check_fd_at_size<N>("sum(slice<i, 2>(v)^2)" + n, pairs<N>, fd_tol, x);
  }
}

}  // namespace

TEST_CASE("folds over indices of a vector, n = 3") { check_folds<3>(3401, 5); }
TEST_CASE("folds over indices of a vector, n = 16") { check_folds<16>(3402, 5); }
TEST_CASE("folds over indices of a vector, n = 64: cut into parts of 16 levels") { check_folds<64>(3403, 3); }
TEST_CASE("folds over indices of a vector, n = 128: element lists, then dense gradients") { check_folds<128>(3404, 1); }

TEST_CASE("a fold of 256 element accesses compiles and sweeps") {
  const auto x = mx::seeded<256>(3405, -2, 2);
  mx::check_close("Rosenbrock by element (n = 256)", tl::grad(rosenbrock_by_element<256>)(x),
                  rosenbrock_derivatives(x).first, exact_tol);
}

TEST_CASE("the Rosenbrock fold: Hessian, jvp and grad of grad") {
  fd::rng r{3406};
  for (int p = 0; p < 3; ++p) {
    using V = tl::vector<double, 16>;
    const V x = mx::random<V>(r, -2, 2);
    const auto [g, h] = rosenbrock_derivatives(x);
    mx::check_close("Hessian of the Rosenbrock fold (n = 16)", tl::hessian(rosenbrock_by_element<16>)(x), h, exact_tol);
    mx::check_close("jacobian of its gradient", tl::jacobian(tl::grad(rosenbrock_by_element<16>))(x), h, exact_tol);
    const V d = mx::random<V>(r, -1, 1);
    const auto [value, tangent] = tl::jvp(rosenbrock_by_element<16>, std::tuple{x}, std::tuple{d});
    CHECK(value == tl::value_and_grad(rosenbrock_by_element<16>)(x).first);
    CHECK(fd::rel_error(tangent, tl::sum(g * d)) < exact_tol);
    // d/dx sum(grad(f)(x) * x) = g + H x
    const auto through = [](const auto& y) { return tl::sum(tl::grad(rosenbrock_by_element<16>)(y) * y); };
    mx::check_close("grad of sum(grad(f)(x) x)", tl::grad(through)(x), g + tl::matmul(h, x), exact_tol);
  }
}

namespace {
/// The sum over i < 24 of v[i mod 4] v[(i + 1) mod 4]: 24 levels, so cut, in a constant expression.
constexpr auto cyclic = [](const auto& v) {
  return mx::index_sum<24>([&](std::size_t i) { return v[i % 4] * v[(i + 1) % 4]; });
};
}  // namespace

TEST_CASE("a deep fold in a constant expression, and of tl::vars") {
  // Each index k is read six times beside k + 1 and six times beside k - 1: g[k] = 6 (v[k+1] + v[k-1]).
  constexpr tl::vector<double, 4> g = tl::grad(cyclic)(tl::vector<double, 4>{1.0, 2.0, 3.0, 4.0});
  static_assert(g[0] == 36.0 && g[1] == 24.0 && g[2] == 36.0 && g[3] == 24.0);
  CHECK(g == tl::vector<double, 4>{36.0, 24.0, 36.0, 24.0});

  tl::var<double> a{0.5}, b{-1.5}, c{2.0};
  const auto e = cyclic(tl::concat(a, b, c, a * b));
  e.backward();
  const auto same = [](const auto& x, const auto& y, const auto& z) { return cyclic(tl::concat(x, y, z, x * y)); };
  const auto [ga, gb, gc] = tl::grad(same)(0.5, -1.5, 2.0);
  CHECK(e.value() == mx::value_at(same, 0.5, -1.5, 2.0));
  CHECK(a.grad() == ga);
  CHECK(b.grad() == gb);
  CHECK(c.grad() == gc);
  // v = (a, b, c, a b) and g_v[k] = 6 (v[k+1] + v[k-1]), so d/da = g_v[0] + b g_v[3], d/db = g_v[1] + a g_v[3].
  const double ab = 0.5 * -1.5;
  const double gv0 = 6 * (-1.5 + ab), gv1 = 6 * (2.0 + 0.5), gv2 = 6 * (ab + -1.5), gv3 = 6 * (0.5 + 2.0);
  CHECK(fd::rel_error(a.grad(), gv0 + gv3 * -1.5) < exact_tol);
  CHECK(fd::rel_error(b.grad(), gv1 + gv3 * 0.5) < exact_tol);
  CHECK(fd::rel_error(c.grad(), gv2) < exact_tol);
}
