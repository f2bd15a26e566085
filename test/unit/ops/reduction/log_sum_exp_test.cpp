// SPDX-License-Identifier: BSL-1.0
// log_sum_exp, softmax and log_softmax: stable for large and infinite elements, as accurate unshifted as
// shifted, their rule's scaling without overflow or underflow, the log skipped where nothing reads it,
// the adjoint reaching every kind of operand.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <matrix_check.hpp>
#include <reduction_check.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace tl = tapeless;
using reduction_check::inf;
using reduction_check::qnan;
using reduction_check::softmax_reference;

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
