// SPDX-License-Identifier: BSL-1.0
// Reductions over all the elements (sum, mean, prod, squared_norm, norm, max_element, min_element,
// log_sum_exp) and the matrix-to-matrix softmax and log_softmax: at the shapes 1x1, 1x4, 4x1, 3x3, 2x5
// against finite differences and the closed forms; their conventions (ties, zeros, NaN, infinities,
// overflow); and compositions with matmul: log_sum_exp(W x + b) and det(A A^T) at every shape, the
// logistic loss, the seed check.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <matrix_check.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

constexpr double fd_tol = 1e-6;      // AD against central differences
constexpr double exact_tol = 1e-13;  // AD against the closed form

const double qnan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

/// Random elements at least `gap` apart, so that a finite-difference step never changes the arg-max.
template <class M>
M random_distinct(fd::rng& r, double lo, double hi, double gap) {
  for (;;) {
    M m = mx::random<M>(r, lo, hi);
    M sorted = m;
    std::sort(sorted.begin(), sorted.end());
    bool ok = true;
    for (std::size_t i = 1; i < M::size(); ++i) ok = ok && sorted[i] - sorted[i - 1] >= gap;
    if (ok) return m;
  }
}

template <class M>
std::size_t index_of_max(const M& x) {
  return static_cast<std::size_t>(std::max_element(x.begin(), x.end()) - x.begin());
}
template <class M>
std::size_t index_of_min(const M& x) {
  return static_cast<std::size_t>(std::min_element(x.begin(), x.end()) - x.begin());
}

/// The reference softmax, in long double.
template <class M>
M softmax_reference(const M& x) {
  const long double m = *std::max_element(x.begin(), x.end());
  long double s = 0;
  for (const double e : x) s += std::exp(static_cast<long double>(e) - m);
  M y;
  for (std::size_t i = 0; i < M::size(); ++i)
    y[i] = static_cast<double>(std::exp(static_cast<long double>(x[i]) - m) / s);
  return y;
}

/// Every reduction at shape M: value against a direct computation, gradient against the closed form and FD.
template <class M>
void check_reductions_at(std::uint64_t seed) {
  fd::rng r{seed};
  const M x = random_distinct<M>(r, -3, 3, 0.01);
  const M w = mx::random<M>(r, 0.5, 1.5);
  const double n = static_cast<double>(M::size());
  const std::string at = " at " + mx::shape_name<M>() + ", x = " + mx::str(x);
  INFO(at);

  double sum = 0, prod = 1, sq = 0;
  for (const double e : x) {
    sum += e;
    prod *= e;
    sq += e * e;
  }
  const M sm = softmax_reference(x);

  {
    const auto f = [](const auto& X) { return tl::sum(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    CHECK(fd::rel_error(v, sum) < 1e-15);
    CHECK(g == M::filled(1.0));
    mx::check_fd("sum" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::mean(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    CHECK(fd::rel_error(v, sum / n) < 1e-15);
    mx::check_close("mean" + at, g, M::filled(1.0 / n), 1e-15);
    mx::check_fd("mean" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::prod(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    CHECK(fd::rel_error(v, prod) < 1e-15);
    M expected;
    for (std::size_t i = 0; i < M::size(); ++i) expected[i] = prod / x[i];
    mx::check_close("prod" + at, g, expected, exact_tol);
    mx::check_fd("prod" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::squared_norm(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    CHECK(fd::rel_error(v, sq) < 1e-15);
    CHECK(g == x * 2.0);
    mx::check_fd("squared_norm" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::norm(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    CHECK(fd::rel_error(v, std::sqrt(sq)) < 1e-15);
    mx::check_close("norm" + at, g, x / std::sqrt(sq), exact_tol);
    mx::check_fd("norm" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::max_element(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    const std::size_t k = index_of_max(x);
    CHECK(v == x[k]);
    M expected{};
    expected[k] = 1.0;
    CHECK(g == expected);
    mx::check_fd("max_element" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::min_element(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    const std::size_t k = index_of_min(x);
    CHECK(v == x[k]);
    M expected{};
    expected[k] = 1.0;
    CHECK(g == expected);
    mx::check_fd("min_element" + at, f, fd_tol, x);
  }
  {
    const auto f = [](const auto& X) { return tl::log_sum_exp(X); };
    const auto [v, g] = tl::value_and_grad(f)(x);
    long double s = 0;
    for (const double e : x) s += std::exp(static_cast<long double>(e));
    CHECK(fd::rel_error(v, static_cast<double>(std::log(s))) < 1e-15);
    mx::check_close("log_sum_exp: its gradient is softmax" + at, g, sm, exact_tol);
    mx::check_fd("log_sum_exp" + at, f, fd_tol, x);
  }
  {
    const auto f = [w](const auto& X) { return tl::sum(w * tl::softmax(X)); };
    const auto y = tl::softmax(tl::argument<0, M>(x)).value();
    mx::check_close("softmax value" + at, y, sm, 1e-15);
    double wy = 0;
    for (std::size_t i = 0; i < M::size(); ++i) wy += w[i] * sm[i];
    M expected;
    for (std::size_t i = 0; i < M::size(); ++i) expected[i] = sm[i] * (w[i] - wy);
    mx::check_close("softmax: y (g - sum(g y))" + at, tl::grad(f)(x), expected, exact_tol);
    mx::check_fd("softmax" + at, f, fd_tol, x);
  }
  {
    const auto f = [w](const auto& X) { return tl::sum(w * tl::log_softmax(X)); };
    const auto y = tl::log_softmax(tl::argument<0, M>(x)).value();
    M log_sm;
    for (std::size_t i = 0; i < M::size(); ++i) log_sm[i] = std::log(sm[i]);
    mx::check_close("log_softmax value" + at, y, log_sm, 1e-14);
    double ws = 0;
    for (const double e : w) ws += e;
    mx::check_close("log_softmax: g - softmax sum(g)" + at, tl::grad(f)(x), w - sm * ws, exact_tol);
    mx::check_fd("log_softmax" + at, f, fd_tol, x);
  }
}

}  // namespace

TEST_CASE("every reduction at every shape, against the closed form and finite differences") {
  std::uint64_t seed = 3000;
  mx::for_shapes([&](auto t) {
    for (int rep = 0; rep < 3; ++rep) check_reductions_at<typename decltype(t)::type>(++seed);
  });
}

TEST_CASE("reductions of plain matrices are plain numbers and matrices") {
  using M = tl::matrix<double, 2, 2>;
  const M a{{1, 2}, {3, 4}};
  static_assert(std::is_same_v<decltype(tl::sum(a)), double>);
  static_assert(std::is_same_v<decltype(tl::softmax(a)), M>);
  CHECK(tl::sum(a) == 10.0);
  CHECK(tl::mean(a) == 2.5);
  CHECK(tl::prod(a) == 24.0);
  CHECK(tl::squared_norm(a) == 30.0);
  CHECK(tl::norm(a) == std::sqrt(30.0));
  CHECK(tl::max_element(a) == 4.0);
  CHECK(tl::min_element(a) == 1.0);
  CHECK(tl::log_sum_exp(a) == tl::log_sum_exp(tl::argument<0, M>(a)).value());
  CHECK(tl::softmax(a) == tl::softmax(tl::argument<0, M>(a)).value());
  CHECK(tl::log_softmax(a) == tl::log_softmax(tl::argument<0, M>(a)).value());
}

TEST_CASE("prod: exact gradients where elements are 0") {
  using V = tl::vector<double, 4>;
  const auto f = [](const auto& X) { return tl::prod(X); };
  CHECK(tl::grad(f)(V{2.0, 0.0, 3.0, 4.0}) == V{0.0, 24.0, 0.0, 0.0});
  CHECK(tl::grad(f)(V{2.0, 0.0, 3.0, 0.0}) == V{0.0, 0.0, 0.0, 0.0});
  CHECK(tl::grad(f)(V{2.0, 5.0, 3.0, 4.0}) == V{60.0, 24.0, 40.0, 30.0});
  CHECK(tl::grad(f)(tl::matrix<double, 1, 1>{{7.0}}) == tl::matrix<double, 1, 1>{{1.0}});
  // With an adjoint other than 1.
  CHECK(tl::grad([](const auto& X) { return 3.0 * tl::prod(X); })(V{2.0, 0.0, 3.0, 4.0}) == V{0.0, 72.0, 0.0, 0.0});
}

TEST_CASE("norm: gradient 0 at the zero matrix; no overflow or underflow") {
  using V = tl::vector<double, 2>;
  const auto f = [](const auto& X) { return tl::norm(X); };
  const auto z = tl::value_and_grad(f)(V{0.0, 0.0});
  CHECK(z.first == 0.0);
  CHECK(z.second == V{0.0, 0.0});
  const auto big = tl::value_and_grad(f)(V{3e200, 4e200});
  CHECK(fd::rel_error(big.first / 5e200, 1.0) < 1e-15);
  mx::check_close("norm of huge elements", big.second, V{0.6, 0.8}, 1e-15);
  const auto tiny = tl::value_and_grad(f)(V{3e-200, 4e-200});
  CHECK(fd::strict_rel_error(tiny.first, 5e-200) < 1e-15);
  mx::check_close("norm of tiny elements", tiny.second, V{0.6, 0.8}, 1e-15);
  const auto sub = tl::value_and_grad(f)(V{-3e-320, 0.0});
  CHECK(sub.first == 3e-320);
  CHECK(tl::norm(V{inf, 1.0}) == inf);
  CHECK(tl::norm(V{-inf, qnan}) != tl::norm(V{-inf, qnan}));
  CHECK(std::isnan(tl::norm(V{1.0, qnan})));
  // squared_norm and norm of a single element.
  CHECK(tl::value_and_grad(f)(tl::matrix<double, 1, 1>{{-2.0}}).first == 2.0);
  CHECK(tl::grad(f)(tl::matrix<double, 1, 1>{{-2.0}}) == tl::matrix<double, 1, 1>{{-1.0}});
}

TEST_CASE("max_element and min_element: first at a tie, NaN propagates") {
  using V = tl::vector<double, 4>;
  const auto fmax = [](const auto& X) { return tl::max_element(X); };
  const auto fmin = [](const auto& X) { return tl::min_element(X); };
  CHECK(tl::grad(fmax)(V{1.0, 3.0, 3.0, 2.0}) == V{0.0, 1.0, 0.0, 0.0});
  CHECK(tl::grad(fmin)(V{2.0, 1.0, 1.0, 1.0}) == V{0.0, 1.0, 0.0, 0.0});
  CHECK(tl::grad(fmax)(V{5.0, 5.0, 5.0, 5.0}) == V{1.0, 0.0, 0.0, 0.0});
  CHECK(tl::grad(fmax)(V{-inf, -inf, -1.0, -inf}) == V{0.0, 0.0, 1.0, 0.0});
  CHECK(tl::max_element(V{1.0, inf, 2.0, 3.0}) == inf);
  // A NaN wins, the first one: NaN value, NaN adjoint at that element, 0 elsewhere.
  for (const auto& x : {V{1.0, qnan, 3.0, qnan}, V{qnan, 1.0, 3.0, 2.0}, V{1.0, 2.0, 3.0, qnan}}) {
    const std::size_t k = x[0] != x[0] ? 0 : x[1] != x[1] ? 1 : 3;
    for (const auto& vg : {tl::value_and_grad(fmax)(x), tl::value_and_grad(fmin)(x)}) {
      CHECK(std::isnan(vg.first));
      for (std::size_t i = 0; i < 4; ++i) {
        CAPTURE(i);
        if (i == k)
          CHECK(std::isnan(vg.second[i]));
        else
          CHECK(vg.second[i] == 0.0);
      }
    }
  }
  // Adjoints other than 1 reach the element.
  CHECK(tl::grad([](const auto& X) { return -2.0 * tl::min_element(X); })(V{4.0, 3.0, 2.0, 1.0}) ==
        V{0.0, 0.0, 0.0, -2.0});
}

TEST_CASE("log_sum_exp, softmax, log_softmax: stable for large and infinite elements") {
  using V = tl::vector<double, 2>;
  const auto lse = [](const auto& X) { return tl::log_sum_exp(X); };

  SUBCASE("large elements do not overflow, very negative ones do not underflow to -inf") {
    const auto a = tl::value_and_grad(lse)(V{1000.0, 1000.0});
    CHECK(fd::rel_error(a.first, 1000.0 + std::log(2.0)) < 1e-15);
    CHECK(a.second == V{0.5, 0.5});
    // softmax{0, 1} = {1 / (1 + e), e / (1 + e)}, shifted by -1000 and +1000 (exact inputs).
    const double e = std::exp(1.0);
    const V expected{1.0 / (1.0 + e), e / (1.0 + e)};
    const auto b = tl::value_and_grad(lse)(V{-1000.0, -999.0});
    CHECK(fd::rel_error(b.first, -999.0 + std::log1p(1.0 / e)) < 1e-15);
    mx::check_close("lse at -1000", b.second, expected, 1e-15);
    mx::check_close("softmax at 1000", tl::softmax(V{1000.0, 1001.0}), expected, 1e-15);
    // log_softmax keeps the digits softmax loses to underflow.
    const auto ls = tl::log_softmax(V{0.0, -2000.0});
    CHECK(ls[0] == 0.0);
    CHECK(ls[1] == -2000.0);
    const V g = tl::grad([](const auto& X) { return tl::sum(tl::log_softmax(X) * V{1.0, 2.0}); })(V{0.0, -2000.0});
    CHECK(g == V{-2.0, 2.0});  // g - softmax sum(g), softmax = {1, 0}
  }
  SUBCASE("infinite elements: the limits") {
    const auto a = tl::value_and_grad(lse)(V{0.0, -inf});
    CHECK(a.first == 0.0);
    CHECK(a.second == V{1.0, 0.0});
    const auto b = tl::value_and_grad(lse)(V{-inf, -inf});
    CHECK(b.first == -inf);
    CHECK(b.second == V{0.5, 0.5});
    const auto c = tl::value_and_grad(lse)(V{inf, 1.0});
    CHECK(c.first == inf);
    CHECK(c.second == V{1.0, 0.0});
    CHECK(tl::softmax(V{inf, inf}) == V{0.5, 0.5});
    CHECK(tl::softmax(V{-inf, 3.0}) == V{0.0, 1.0});
    CHECK(tl::log_softmax(V{-inf, 3.0}) == V{-inf, 0.0});
  }
  SUBCASE("NaN propagates") {
    const auto a = tl::value_and_grad(lse)(V{1.0, qnan});
    CHECK(std::isnan(a.first));
    CHECK(std::isnan(a.second[0]));
    CHECK(std::isnan(a.second[1]));
    CHECK(std::isnan(tl::softmax(V{qnan, 1.0})[1]));
    CHECK(std::isnan(tl::log_softmax(V{qnan, 1.0})[1]));
  }
  SUBCASE("softmax sums to 1; log_softmax is x - log_sum_exp(x)") {
    fd::rng r{51};
    using M = tl::matrix<double, 3, 4>;
    const M x = mx::random<M>(r, -50, 50);
    CHECK(fd::rel_error(tl::sum(tl::softmax(x)), 1.0) < 1e-15);
    mx::check_close("log_softmax", tl::log_softmax(x), x - tl::log_sum_exp(x), 1e-14);
    // Cross-entropy: d/dz (-sum(y log_softmax(z))) = softmax(z) sum(y) - y.
    const M y = mx::random<M>(r, 0, 1);
    const M g = tl::grad([&y](const auto& Z) { return -tl::sum(y * tl::log_softmax(Z)); })(x);
    mx::check_close("cross-entropy", g, tl::softmax(x) * tl::sum(y) - y, 1e-14);
  }
}

namespace {
/// log_sum_exp's reference at x in long double, by the shifted formula: {its value, softmax}.
template <std::size_t N>
std::pair<long double, std::array<long double, N>> log_sum_exp_reference(const tl::vector<double, N>& x) {
  using L = long double;
  L m = x[0];
  for (const double v : x) m = std::max<L>(m, v);
  L s = 0;
  for (const double v : x) s += std::exp(L(v) - m);
  std::array<L, N> softmax{};
  for (std::size_t i = 0; i < N; ++i) softmax[i] = std::exp(L(x[i]) - m) / s;
  return {m + std::log(s), softmax};
}

/// Whether a is within rel of a reference b, relatively; absolutely (1e-300) where b is subnormal.
bool close_to(double a, long double b, double rel) {
  return std::abs(a - double(b)) <= rel * std::abs(double(b)) + 1e-300;
}

/// log_sum_exp's value and gradient and softmax at x, against the shifted formula in long double.
template <std::size_t N>
void check_against_long_double(const tl::vector<double, N>& x, const std::string& what) {
  const auto [reference, softmax_reference] = log_sum_exp_reference(x);
  const auto [value, g] = tl::value_and_grad([](const auto& a) { return tl::log_sum_exp(a); })(x);
  const auto alone = tl::grad([](const auto& a) { return tl::log_sum_exp(a); })(x);
  const auto softmax = tl::softmax(x);
  INFO(what << ", n = " << N);
  CHECK(fd::rel_error(value, double(reference)) < 1e-14);
  bool close = true;
  for (std::size_t i = 0; i < N; ++i)
    close = close && close_to(g[i], softmax_reference[i], 1e-13) && alone[i] == g[i] &&
            close_to(softmax[i], softmax_reference[i], 1e-13);
  CHECK(close);
}

/// The gradient of exp(log_sum_exp(x) + c), g softmax(x) with g = exp(log_sum_exp(x) + c): an adjoint
/// far from 1 reaching log_sum_exp's rule, which scales its exps by g / (their sum).
template <std::size_t N>
void check_scaled_adjoint(const tl::vector<double, N>& x, double c, const std::string& what) {
  const auto [reference, softmax_reference] = log_sum_exp_reference(x);
  const long double g = std::exp(reference + c);
  const auto gradient = tl::grad([c](const auto& a) { return tl::exp(tl::log_sum_exp(a) + c); })(x);
  INFO(what << ", n = " << N << ", adjoint " << double(g));
  bool close = true;
  // exp amplifies the rounding of log_sum_exp(x) + c: |x| ulps of it, 1e-13 at x = 700
  for (std::size_t i = 0; i < N; ++i) close = close && close_to(gradient[i], g * softmax_reference[i], 1e-12);
  CHECK(close);
}
}  // namespace

TEST_CASE("log_sum_exp and softmax: unshifted where every exp is normal, shifted beyond, both as accurate") {
  // At run time the exps are first taken unshifted, in one pass; where every one is normal (x >= -708.39)
  // and their sum at most 2^64, they stay, scaled by a power of 2 into [1, 2) where the sum is below 1
  // (exp_scaled, ops/reduction.hpp). Else (an element below, a larger sum, an infinite or NaN element),
  // the shifted path.
  using V2 = tl::vector<double, 2>;
  check_against_long_double(V2{-708.0, -708.0}, "unshifted, scaled up by 2^1020");
  check_against_long_double(V2{-708.0, -1.0}, "unshifted, scaled up by 2");
  check_against_long_double(V2{-708.5, -700.0}, "an exp flushed to 0 unshifted: shifted");
  check_against_long_double(tl::vector<double, 5>{-700.0, -701.0, -702.0, -703.0, -720.0},
                            "an exp flushed to 0 in the last, partial batch: shifted");
  check_against_long_double(V2{-708.5, 0.0}, "an exp flushed to 0 unshifted, a subnormal softmax: shifted");
  check_against_long_double(V2{43.0, 43.0}, "a sum below 2^64: unshifted");
  check_against_long_double(V2{44.0, 44.4}, "a sum above 2^64: shifted");
  check_against_long_double(V2{709.0, 0.0}, "a sum near the largest number: shifted");
  check_against_long_double(V2{710.0, 0.0}, "an exp that overflows: shifted");
  fd::rng r{52};
  using V5 = tl::vector<double, 5>;
  using V16 = tl::vector<double, 16>;
  using V256 = tl::vector<double, 256>;
  for (int k = 0; k < 20; ++k) {
    check_against_long_double(mx::random<V5>(r, -700, 40), "a spread, unshifted");
    check_against_long_double(mx::random<V5>(r, -700, -5), "a small sum, scaled up");
    check_against_long_double(mx::random<V16>(r, -3, 3), "near 0");
    check_against_long_double(mx::random<V256>(r, -708, 38), "a spread, unshifted");
    check_against_long_double(mx::random<V256>(r, -708, 700), "a spread, shifted");
    check_against_long_double(mx::random<V256>(r, -708, -700), "a sum near the smallest normal, scaled up");
    V256 beyond = mx::random<V256>(r, -2, 2);
    beyond[static_cast<std::size_t>(k) * 13 % 256] = 800.0;
    check_against_long_double(beyond, "one element beyond");
    beyond[static_cast<std::size_t>(k) * 13 % 256] = -800.0;
    check_against_long_double(beyond, "one element below");
  }
  V256 with_nan = mx::random<V256>(r, -2, 2), with_inf = with_nan;
  with_nan[200] = qnan;
  with_inf[77] = inf;
  CHECK(std::isnan(tl::log_sum_exp(with_nan)));
  const auto g = tl::grad([](const auto& a) { return tl::log_sum_exp(a); })(with_inf);
  CHECK(tl::log_sum_exp(with_inf) == inf);
  CHECK(g[77] == 1.0);
  CHECK(g[76] == 0.0);
}

TEST_CASE("log_sum_exp's rule scales by g / (the sum of its exps) without overflow or underflow") {
  // The sum lies within [1, 2^64] on either path, so g / sum keeps g's range. Unshifted exps with a sum of
  // 1e-299 made g / sum inf for g = 1e10 (a finite gradient of 1e10 came out inf), and a sum of 1e260
  // made it subnormal for g = 1e-61.
  using V4 = tl::vector<double, 4>;
  check_scaled_adjoint(V4{-689.0, -689.0, -689.5, -689.9}, 712.0, "a sum of 1e-299, adjoint 1e10");
  check_scaled_adjoint(V4{-689.0, -689.0, -689.5, -720.0}, 712.0, "the same, shifted");
  check_scaled_adjoint(V4{600.0, 599.0, 598.0, 1.0}, -740.0, "a sum of 1e260, adjoint 1e-61");
  check_scaled_adjoint(V4{40.0, 39.0, 38.0, 1.0}, -700.0, "a sum of 4e17, adjoint 1e-287");
  fd::rng r{53};
  using V16 = tl::vector<double, 16>;
  for (int k = 0; k < 20; ++k) {
    check_scaled_adjoint(mx::random<V16>(r, -690, -680), 712.0, "a small sum, a large adjoint");
    check_scaled_adjoint(mx::random<V16>(r, 550, 600), -740.0, "a large sum, a small adjoint");
    check_scaled_adjoint(mx::random<V16>(r, -10, 40), -700.0, "a sum below 2^64, a small adjoint");
  }
}

TEST_CASE("log_sum_exp under grad skips its log only where nothing reads its value") {
  // Under grad, a root log_sum_exp, or one scaled by a constant, keeps only its exps (no log); where
  // a parent's rule reads its value (exp, square, a division by it) it computes the log as well.
  const tl::vector<double, 5> x{0.5, -1.25, 2.0, 0.75, -0.5};
  double sum_exp = 0;
  for (const double e : x) sum_exp += std::exp(e);
  const double lse = std::log(sum_exp);
  const auto check = [&](const std::string& what, const auto& f, double scale) {
    INFO(what);
    const auto g = tl::grad(f)(x);
    const auto [value, g_too] = tl::value_and_grad(f)(x);
    (void)value;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double exact = scale * std::exp(x[i]) / sum_exp;
      CHECK(g[i] == doctest::Approx(exact).epsilon(1e-14));
      CHECK(g_too[i] == doctest::Approx(exact).epsilon(1e-14));
    }
  };
  check(
      "log_sum_exp", [](const auto& v) { return tl::log_sum_exp(v); }, 1.0);
  check(
      "3 log_sum_exp", [](const auto& v) { return 3.0 * tl::log_sum_exp(v); }, 3.0);
  check(
      "exp(log_sum_exp)", [](const auto& v) { return tl::exp(tl::log_sum_exp(v)); }, sum_exp);
  check(
      "log_sum_exp^2", [](const auto& v) { return tl::square(tl::log_sum_exp(v)); }, 2 * lse);
  check(
      "1 / log_sum_exp", [](const auto& v) { return 1.0 / tl::log_sum_exp(v); }, -1 / (lse * lse));
  CHECK(tl::value_and_grad([](const auto& v) { return tl::log_sum_exp(v); })(x).first ==
        doctest::Approx(lse).epsilon(1e-15));
  CHECK(tl::value_and_grad([](const auto& v) { return 2.0 * tl::log_sum_exp(v); })(x).first ==
        doctest::Approx(2 * lse).epsilon(1e-15));
}

TEST_CASE("log_sum_exp's adjoint, its exps scaled, reaches every kind of operand") {
  using V5 = tl::vector<double, 5>;
  const V5 v{0.5, -1.0, 2.0, 0.25, -0.75};
  const auto softmax_at = [](const V5& x, double scale) {
    double s = 0;
    for (const double e : x) s += std::exp(e);
    V5 out;
    for (std::size_t i = 0; i < 5; ++i) out[i] = scale * std::exp(x[i]) / s;
    return out;
  };
  const auto check = [](const std::string& what, const V5& g, const V5& exact) {
    mx::check_close(what, g, exact, 1e-14);
  };
  // an argument, alone (written into the gradient) and then with a second adjoint added
  check("alone", tl::grad([](const auto& x) { return tl::log_sum_exp(x); })(v), softmax_at(v, 1));
  check("added", tl::grad([](const auto& x) { return tl::sum(x) + 2.0 * tl::log_sum_exp(x); })(v),
        softmax_at(v, 2) + 1.0);
  const auto [ga, gb] = tl::grad([](const auto& x, const auto& y) { return tl::log_sum_exp(x) * tl::sum(y); })(v, v);
  check("one of two arguments", ga, softmax_at(v, tl::sum(v)));
  check("the other", gb, V5::filled(tl::log_sum_exp(v)));
  // a let name, then through 3 x into the argument
  const auto named = [](const auto& x) {
    return tl::let(3.0 * x, [](const auto& p) { return tl::log_sum_exp(p) + tl::log_sum_exp(p); });
  };
  check("a let name", tl::grad(named)(v), softmax_at(3.0 * v, 6));
  // an operation's rule, which takes it dense: x * x (a region), and matmul
  V5 two_x_softmax = softmax_at(v * v, 1);
  for (std::size_t i = 0; i < 5; ++i) two_x_softmax[i] *= 2 * v[i];
  check("a region", tl::grad([](const auto& x) { return tl::log_sum_exp(x * x); })(v), two_x_softmax);
  tl::matrix<double, 5, 5> twice{};
  for (std::size_t i = 0; i < 5; ++i) twice(i, i) = 2.0;
  check("matmul", tl::grad([&twice](const auto& x) { return tl::log_sum_exp(tl::matmul(tl::cref(twice), x)); })(v),
        softmax_at(2.0 * v, 2));
  // a cut (a number chain deeper than the cut depth), tl::trace, and second derivatives
  const auto deep = [](const auto& x) { return mx::affine_chain<20>(tl::log_sum_exp(x)); };
  check("a cut", tl::grad(deep)(v), softmax_at(v, std::ldexp(1.0, -20)));
  const auto lse = [](const auto& x) { return tl::log_sum_exp(x); };
  CHECK(tl::trace(lse, v).gradient() == tl::grad(lse)(v));
  const auto h = tl::hessian(lse)(v);
  const V5 s = softmax_at(v, 1);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 5; ++j)
      CHECK(h(i, j) == doctest::Approx((i == j ? s[i] : 0.0) - s[i] * s[j]).epsilon(1e-13));
}

TEST_CASE("reductions of float matrices, beside double scalars") {
  using F = tl::matrix<float, 2, 2>;
  const F a{{1.0f, 2.0f}, {3.0f, 4.0f}};
  const auto [ga, gs] = tl::grad([](const auto& A, const auto& S) { return tl::sum(A) * S + tl::norm(A) * S; })(a, 2.0);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(ga)>, F>);
  for (std::size_t i = 0; i < 4; ++i) CHECK(fd::rel_error(ga[i], 2.0 + 2.0 * a[i] / std::sqrt(30.0)) < 1e-6);
  CHECK(fd::rel_error(gs, 10.0 + std::sqrt(30.0)) < 1e-6);
  const F gm =
      tl::grad([](const auto& A) { return tl::log_sum_exp(A) + tl::max_element(A) + tl::mean(tl::softmax(A)); })(a);
  CHECK(gm[3] > 1.0f);
}

// ---- compositions -----------------------------------------------------------------------------------

TEST_CASE("the seed check: grad of sum(matmul(A, A)) at [[1, 2], [3, 4]]") {
  using M = tl::matrix<double, 2, 2>;
  const auto f = [](const auto& A) { return tl::sum(tl::matmul(A, A)); };
  const M a{{1, 2}, {3, 4}};
  const M g = tl::grad(f)(a);
  CHECK(g == M{{7, 11}, {9, 13}});
  mx::check_fd("sum(matmul(A, A))", f, fd_tol, a);
  CHECK(tl::value_and_grad(f)(a).first == 54.0);
}

TEST_CASE("the gradient of a vector argument is a vector of the same type") {
  tl::matrix<double, 3, 1> x{1.0, 2.0, 3.0};
  tl::matrix<double, 3, 1> g = tl::grad([](const auto& v) { return tl::sum(tl::pow(v, 2.0)); })(x);
  CHECK(g == tl::matrix<double, 3, 1>{{2}, {4}, {6}});
  static_assert(
      std::is_same_v<decltype(tl::grad([](const auto& v) { return tl::norm(v); })(x)), tl::matrix<double, 3, 1>>);
}

namespace {

/// log_sum_exp(W x + b) with W of shape W_t (R x K), x a K-vector, b an R-vector: against finite
/// differences and the closed form dW = s x^T, dx = W^T s, db = s with s = softmax(W x + b).
template <class W_t>
void check_log_sum_exp_affine(std::uint64_t seed) {
  constexpr std::size_t rows = W_t::rows(), cols = W_t::cols();
  using X_t = tl::vector<double, cols>;
  using B_t = tl::vector<double, rows>;
  const auto f = [](const auto& W, const auto& x, const auto& b) { return tl::log_sum_exp(tl::matmul(W, x) + b); };
  fd::rng r{seed};
  for (int rep = 0; rep < 5; ++rep) {
    const W_t w = mx::random<W_t>(r, -2, 2);
    const X_t x = mx::random<X_t>(r, -2, 2);
    const B_t b = mx::random<B_t>(r, -2, 2);
    const std::string at = "log_sum_exp(W x + b), W " + mx::shape_name<W_t>();
    mx::check_fd(at, f, fd_tol, w, x, b);
    const auto [gw, gx, gb] = tl::grad(f)(w, x, b);
    const B_t s = tl::softmax(tl::matmul(w, x) + b);
    W_t ew;
    X_t ex{};
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) {
        ew(i, j) = s[i] * x[j];
        ex[j] += w(i, j) * s[i];
      }
    mx::check_close(at + ": dW", gw, ew, exact_tol);
    mx::check_close(at + ": dx", gx, ex, exact_tol);
    mx::check_close(at + ": db", gb, s, exact_tol);
  }
}

}  // namespace

TEST_CASE("log_sum_exp(matmul(W, x) + b)") {
  check_log_sum_exp_affine<tl::matrix<double, 4, 3>>(61);
  std::uint64_t seed = 62;
  mx::for_shapes([&](auto t) { check_log_sum_exp_affine<typename decltype(t)::type>(seed++); });
}

TEST_CASE("det(matmul(A, transpose(A))) at every shape: the Gram determinant") {
  const auto f = [](const auto& A) { return tl::det(tl::matmul(A, tl::transpose(A))); };
  std::uint64_t seed = 65;
  mx::for_shapes([&](auto t) {
    using M = typename decltype(t)::type;
    fd::rng r{seed++};
    for (int rep = 0; rep < 5; ++rep) {
      const M a = mx::random<M>(r, -1, 1);
      mx::check_fd("det(A A^T) at " + mx::shape_name<M>(), f, fd_tol, a);
      // One row: A A^T = |a|^2, gradient 2 a. One column of n > 1: rank 1, det 0, gradient 0.
      if constexpr (M::rows() == 1) {
        CHECK(fd::rel_error(f(a), tl::squared_norm(a)) < 1e-15);
        mx::check_close("d det(a a^T) = 2 a", tl::grad(f)(a), a * 2.0, 1e-15);
      } else if constexpr (M::cols() == 1) {
        CHECK(std::abs(f(a)) < 1e-15);
        mx::check_close("d det(a a^T) = 0", tl::grad(f)(a), M{}, 1e-15);
      }
    }
  });
}

TEST_CASE("the logistic loss -mean(y log p + (1 - y) log(1 - p)), p = sigmoid(X beta)") {
  using X_t = tl::matrix<double, 8, 3>;
  using B_t = tl::vector<double, 3>;
  using Y_t = tl::vector<double, 8>;
  fd::rng r{71};
  const X_t X = mx::random<X_t>(r, -2, 2);
  Y_t y;
  for (auto& e : y) e = r.uniform(0, 1) < 0.5 ? 0.0 : 1.0;
  const auto loss = [&X, &y](const auto& beta) {
    const auto p = tl::sigmoid(tl::matmul(X, beta));
    return -tl::mean(y * tl::log(p) + (1.0 - y) * tl::log(1.0 - p));
  };
  for (int rep = 0; rep < 5; ++rep) {
    const B_t beta = mx::random<B_t>(r, -1, 1);
    mx::check_fd("logistic loss", loss, fd_tol, beta);
    // Closed form: X^T (p - y) / n.
    const Y_t p = tl::sigmoid(tl::matmul(X, beta));
    B_t expected{};
    for (std::size_t i = 0; i < 8; ++i)
      for (std::size_t j = 0; j < 3; ++j) expected[j] += X(i, j) * (p[i] - y[i]) / 8.0;
    mx::check_close("logistic loss: X^T (p - y) / n", tl::grad(loss)(beta), expected, 1e-12);
  }
}
