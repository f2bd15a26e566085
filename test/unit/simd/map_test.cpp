// SPDX-License-Identifier: BSL-1.0
// The operations whose matrix loops run in SIMD batches (flag `batched`), against the same operation
// on one number at a time (the scalar path, std's functions): values within 4 ulp and gradients within
// 8, element by element, at matrices that hold NaN, infinities, zeros, subnormals and ordinary numbers
// side by side in one batch, and at shapes that leave a partial last batch. NaN and infinities match
// exactly. Built twice: as is, and with TAPELESS_NO_SIMD (the scalar loops, which must agree too).
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace tl = tapeless;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();

/// Elements for a matrix of N: specials and ordinary numbers of [lo, hi], interleaved, from a seed.
template <std::size_t N>
tl::vector<double, N> elements(std::uint64_t seed, double lo, double hi) {
  static const std::vector<double> specials{qnan, inf, -inf, 0.0, -0.0, 1e-310, -1e-310, 750.0, -750.0, 1e300};
  fd::rng r{seed};
  tl::vector<double, N> x;
  for (std::size_t i = 0; i < N; ++i) x[i] = i % 3 == 1 ? specials[(seed + i) % specials.size()] : r.uniform(lo, hi);
  return x;
}

/// op elementwise on a vector of N against op on each element: value, and the gradient of sum(w * op(x)).
template <std::size_t N, class Op>
void check_batched_at(const std::string& name, const Op& op, double lo, double hi, std::uint64_t seed) {
  using V = tl::vector<double, N>;
  const V x = elements<N>(seed, lo, hi);
  fd::rng r{seed + 1};
  V w;
  for (auto& e : w) e = r.uniform(0.5, 1.5);
  const V y = op(x);
  const V g = tl::grad([&](const auto& v) { return tl::sum(w * op(v)); })(x);
  for (std::size_t i = 0; i < N; ++i) {
    const auto [value, derivative] = tl::value_and_grad(op)(x[i]);
    const double v = value, d = derivative;  // not the bindings: clang 14 cannot capture them (INFO)
    INFO(name << " at N = " << N << ", x = " << fd::str(x[i]) << ": value " << fd::str(y[i]) << " against "
              << fd::str(v) << ", gradient " << fd::str(g[i]) << " against w * " << fd::str(d));
    CHECK(fd::ulp_distance(y[i], v) <= 4);
    CHECK(fd::ulp_distance(g[i], w[i] * d) <= 8);
  }
}

template <class Op>
void check_batched(const std::string& name, const Op& op, double lo, double hi) {
  check_batched_at<1>(name, op, lo, hi, 1);
  check_batched_at<7>(name, op, lo, hi, 2);
  check_batched_at<8>(name, op, lo, hi, 3);
  check_batched_at<23>(name, op, lo, hi, 4);
}

/// Sums in a different order: within 1e-14 relative, or both NaN.
bool close(double a, double b) { return (std::isnan(a) && std::isnan(b)) || fd::rel_error(a, b) < 1e-14; }

/// a op b with a matrix on one side or both and a number on the other: the value, and the adjoint of
/// each side (for a number, the sum of its adjoints over the elements) against one element at a time.
template <class Op>
void check_binary(const std::string& name, const Op& op) {
  constexpr std::size_t n = 11;
  using V = tl::vector<double, n>;
  const V a = elements<n>(5, -3, 3), b = elements<n>(6, 0.5, 4);
  const double s = 1.75;
  // The value and the two partials of op at one pair of numbers (plain doubles: INFO captures them).
  struct at_one {
    double value, dx, dy;
  };
  const auto scalar = [&](double x, double y) {
    const auto [value, d] = tl::value_and_grad(op)(x, y);
    return at_one{value, std::get<0>(d), std::get<1>(d)};
  };
  INFO(name);
  {
    const V z = op(a, b);
    const auto [ga, gb] = tl::grad([&](const auto& u, const auto& v) { return tl::sum(op(u, v)); })(a, b);
    for (std::size_t i = 0; i < n; ++i) {
      const at_one e = scalar(a[i], b[i]);
      INFO("matrix op matrix at " << fd::str(a[i]) << ", " << fd::str(b[i]));
      CHECK(fd::ulp_distance(z[i], e.value) <= 4);
      CHECK(fd::ulp_distance(ga[i], e.dx) <= 8);
      CHECK(fd::ulp_distance(gb[i], e.dy) <= 8);
    }
  }
  {
    const V z = op(a, s);
    const auto [ga, gs] = tl::grad([&](const auto& u, const auto& c) { return tl::sum(op(u, c)); })(a, s);
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const at_one e = scalar(a[i], s);
      INFO("matrix op number at " << fd::str(a[i]));
      CHECK(fd::ulp_distance(z[i], e.value) <= 4);
      CHECK(fd::ulp_distance(ga[i], e.dx) <= 8);
      sum += e.dy;
    }
    CHECK(close(gs, sum));
  }
  {
    const V z = op(s, b);
    const auto [gs, gb] = tl::grad([&](const auto& c, const auto& v) { return tl::sum(op(c, v)); })(s, b);
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const at_one e = scalar(s, b[i]);
      INFO("number op matrix at " << fd::str(b[i]));
      CHECK(fd::ulp_distance(z[i], e.value) <= 4);
      CHECK(fd::ulp_distance(gb[i], e.dy) <= 8);
      sum += e.dx;
    }
    CHECK(close(gs, sum));
  }
}

}  // namespace

#if TAPELESS_SIMD
// The operations this file checks in batches do run in batches (flag `batched`, simd/batch.hpp).
template <class... Op>
constexpr bool all_vectorised = (tl::detail::simd::vectorised<Op, double> && ...);
static_assert(all_vectorised<tl::ops::exp, tl::ops::expm1, tl::ops::exp2, tl::ops::log, tl::ops::log1p, tl::ops::log2,
                             tl::ops::log10, tl::ops::sqrt, tl::ops::sin, tl::ops::cos, tl::ops::asin, tl::ops::acos,
                             tl::ops::atan, tl::ops::sinh, tl::ops::cosh, tl::ops::tanh, tl::ops::asinh, tl::ops::acosh,
                             tl::ops::atanh, tl::ops::sigmoid, tl::ops::softplus, tl::ops::abs, tl::ops::relu,
                             tl::ops::min, tl::ops::max>);
#endif

TEST_CASE("batched unary operations: as one element at a time, specials included") {
  check_batched(
      "exp", [](const auto& x) { return tl::exp(x); }, -750, 720);
  check_batched(
      "expm1", [](const auto& x) { return tl::expm1(x); }, -40, 720);
  check_batched(
      "log", [](const auto& x) { return tl::log(x); }, -1, 1e6);
  check_batched(
      "log1p", [](const auto& x) { return tl::log1p(x); }, -1.5, 1e6);
  check_batched(
      "sqrt", [](const auto& x) { return tl::sqrt(x); }, -1, 1e6);
  check_batched(
      "sin", [](const auto& x) { return tl::sin(x); }, -1e3, 1e3);
  check_batched(
      "cos", [](const auto& x) { return tl::cos(x); }, -1e3, 1e3);
  check_batched(
      "tanh", [](const auto& x) { return tl::tanh(x); }, -30, 30);
  check_batched(
      "sigmoid", [](const auto& x) { return tl::sigmoid(x); }, -800, 800);
  check_batched(
      "softplus", [](const auto& x) { return tl::softplus(x); }, -800, 800);
  check_batched(
      "exp2", [](const auto& x) { return tl::exp2(x); }, -1080, 1030);
  check_batched(
      "log2", [](const auto& x) { return tl::log2(x); }, -1, 1e6);
  check_batched(
      "log10", [](const auto& x) { return tl::log10(x); }, -1, 1e6);
  check_batched(
      "sinh", [](const auto& x) { return tl::sinh(x); }, -720, 720);
  check_batched(
      "cosh", [](const auto& x) { return tl::cosh(x); }, -720, 720);
  check_batched(
      "asinh", [](const auto& x) { return tl::asinh(x); }, -1e6, 1e6);
  check_batched(
      "acosh", [](const auto& x) { return tl::acosh(x); }, 0.5, 1e6);
  check_batched(
      "atanh", [](const auto& x) { return tl::atanh(x); }, -1.2, 1.2);
  check_batched(
      "asin", [](const auto& x) { return tl::asin(x); }, -1.2, 1.2);
  check_batched(
      "acos", [](const auto& x) { return tl::acos(x); }, -1.2, 1.2);
  check_batched(
      "atan", [](const auto& x) { return tl::atan(x); }, -1e3, 1e3);
  check_batched(
      "abs", [](const auto& x) { return tl::abs(x); }, -5, 5);
  check_batched(
      "relu", [](const auto& x) { return tl::relu(x); }, -5, 5);
  check_batched(
      "square", [](const auto& x) { return tl::square(x); }, -1e200, 1e200);
  check_batched(
      "negate", [](const auto& x) { return -x; }, -5, 5);
}

TEST_CASE("batched binary operations: matrix and matrix, matrix and number, number and matrix") {
  check_binary("+", [](const auto& a, const auto& b) { return a + b; });
  check_binary("-", [](const auto& a, const auto& b) { return a - b; });
  check_binary("*", [](const auto& a, const auto& b) { return a * b; });
  check_binary("/", [](const auto& a, const auto& b) { return a / b; });
  check_binary("min", [](const auto& a, const auto& b) { return tl::min(a, b); });
  check_binary("max", [](const auto& a, const auto& b) { return tl::max(a, b); });
}

TEST_CASE("batched min and max: the first operand at a tie, zeros' signs included, and NaN wherever it is") {
  using V = tl::vector<double, 6>;
  const V a{1.0, 0.0, -0.0, qnan, 2.0, -inf}, b{1.0, -0.0, 0.0, 1.0, qnan, -inf};
  const auto check_op = [&](const std::string& name, const auto& op) {
    const V z = op(a, b);
    const auto [ga, gb] = tl::grad([&](const auto& u, const auto& v) { return tl::sum(op(u, v)); })(a, b);
    for (std::size_t i = 0; i < V::size(); ++i) {
      const auto [value, d] = tl::value_and_grad(op)(a[i], b[i]);
      const double v = value, da = std::get<0>(d), db = std::get<1>(d);
      INFO(name << " at " << fd::str(a[i]) << ", " << fd::str(b[i]) << ": " << fd::str(z[i]) << " against "
                << fd::str(v));
      CHECK(fd::ulp_distance(z[i], v) == 0);
      CHECK(std::signbit(z[i]) == std::signbit(v));
      CHECK(fd::ulp_distance(ga[i], da) == 0);
      CHECK(fd::ulp_distance(gb[i], db) == 0);
    }
    CHECK(std::signbit(z[1]) == std::signbit(a[1]));  // the tie 0 against -0 goes to the first
    CHECK(std::signbit(z[2]) == std::signbit(a[2]));
    CHECK((ga[0] == 1.0 && gb[0] == 0.0));
    CHECK((std::isnan(z[3]) && std::isnan(ga[3]) && gb[3] == 0.0));
    CHECK((std::isnan(z[4]) && ga[4] == 0.0 && std::isnan(gb[4])));
  };
  check_op("min", [](const auto& x, const auto& y) { return tl::min(x, y); });
  check_op("max", [](const auto& x, const auto& y) { return tl::max(x, y); });
}

TEST_CASE("batched reductions: sum, log_sum_exp and softmax as one element at a time") {
  using V = tl::vector<double, 13>;
  fd::rng r{7};
  V x;
  for (auto& e : x) e = r.uniform(-5, 5);
  double m = x[0];
  for (const double e : x) m = std::max(m, e);
  double s = 0, plain = 0;
  for (const double e : x) {
    s += std::exp(e - m);
    plain += e;
  }
  CHECK(fd::rel_error(tl::sum(x), plain) < 1e-15);
  CHECK(fd::rel_error(tl::log_sum_exp(x), m + std::log(s)) < 1e-15);
  const V p = tl::softmax(x);
  const V g = tl::grad([](const auto& v) { return tl::log_sum_exp(v); })(x);
  const V w = tl::grad([](const auto& v) { return tl::softmax(v)[2]; })(x);
  for (std::size_t i = 0; i < V::size(); ++i) {
    const double expected = std::exp(x[i] - m) / s;
    CHECK(fd::rel_error(p[i], expected) < 1e-15);
    CHECK(fd::rel_error(g[i], expected) < 1e-15);
    const double p2 = std::exp(x[2] - m) / s;
    CHECK(fd::rel_error(w[i], (i == 2 ? p2 : 0.0) - p2 * expected) < 1e-15);
  }
}

TEST_CASE("batched reductions: squared_norm, norm and log_softmax as one element at a time") {
  using V = tl::vector<double, 13>;
  fd::rng r{8};
  V x, w;
  for (auto& e : x) e = r.uniform(-5, 5);
  for (auto& e : w) e = r.uniform(0.5, 1.5);
  long double squares = 0;
  for (const double e : x) squares += static_cast<long double>(e) * e;
  CHECK(fd::rel_error(tl::squared_norm(x), static_cast<double>(squares)) < 1e-15);
  CHECK(fd::rel_error(tl::norm(x), static_cast<double>(std::sqrt(squares))) < 1e-15);
  const V gn = tl::grad([](const auto& v) { return tl::norm(v); })(x);
  for (std::size_t i = 0; i < V::size(); ++i) CHECK(fd::rel_error(gn[i], x[i] / std::sqrt(squares)) < 1e-15);

  // log_softmax: the value x_i - m - log(sum of exp(x_j - m)) and the gradient of sum(w * log_softmax(x)),
  // w_i - softmax_i sum(w), in long double.
  long double m = x[0], s = 0, wsum = 0;
  for (const double e : x) m = std::max<long double>(m, e);
  for (const double e : x) s += std::exp(e - m);
  for (const double e : w) wsum += e;
  const V y = tl::log_softmax(x);
  const V g = tl::grad([&](const auto& v) { return tl::sum(w * tl::log_softmax(v)); })(x);
  for (std::size_t i = 0; i < V::size(); ++i) {
    INFO("element " << i);
    CHECK(fd::rel_error(y[i], static_cast<double>(x[i] - m - std::log(s))) < 1e-14);
    CHECK(fd::rel_error(g[i], static_cast<double>(w[i] - std::exp(x[i] - m) / s * wsum)) < 1e-14);
  }

  // NaN anywhere makes everything NaN; a +inf element takes the limit (log_softmax 0 there, -inf elsewhere).
  V bad = x;
  bad[5] = qnan;
  for (const double e : tl::log_softmax(bad)) CHECK(std::isnan(e));
  CHECK(std::isnan(tl::squared_norm(bad)));
  bad[5] = inf;
  const V limit = tl::log_softmax(bad);
  for (std::size_t i = 0; i < V::size(); ++i) CHECK(limit[i] == (i == 5 ? 0.0 : -inf));
  CHECK(tl::squared_norm(bad) == inf);
}

/// The product a b, element by element, summed over k from 0 up as matmul's loops do, and the sum of
/// the terms' magnitudes: the loops differ from it by their roundings (a fused multiply-add or not),
/// and A x, a matrix times a vector, by the order of its sums too (in lanes).
template <std::size_t R, std::size_t K, std::size_t C>
std::pair<tl::matrix<double, R, C>, tl::matrix<double, R, C>> product_and_bound(const tl::matrix<double, R, K>& a,
                                                                                const tl::matrix<double, K, C>& b) {
  tl::matrix<double, R, C> c, bound;
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j)
      for (std::size_t k = 0; k < K; ++k) {
        c(i, j) += a(i, k) * b(k, j);
        bound(i, j) += std::abs(a(i, k) * b(k, j));
      }
  return {c, bound};
}

/// Each element within `roundings` roundings of the sum of its terms' magnitudes: 4 in the scalar
/// loop's order, and for a sum of n terms in any order n + 2.
template <std::size_t R, std::size_t C>
void check_product_elements(const std::string& what, const tl::matrix<double, R, C>& got,
                            const std::pair<tl::matrix<double, R, C>, tl::matrix<double, R, C>>& expected,
                            double roundings = 4) {
  const auto& [c, bound] = expected;
  for (std::size_t i = 0; i < R * C; ++i) {
    const double e = c[i], g = got[i], tolerance = roundings * std::numeric_limits<double>::epsilon() * bound[i];
    INFO(what << ": element " << i << " is " << fd::str(g) << ", the scalar sum " << fd::str(e));
    if (std::isnan(e) || std::isinf(e))
      CHECK(fd::ulp_distance(g, e) == 0);  // NaN where NaN, the same infinity where one
    else
      CHECK(std::abs(g - e) <= tolerance);
  }
}

/// An R x C matrix of numbers from [-2, 2] with a few specials, so that most sums stay finite.
template <std::size_t R, std::size_t C>
tl::matrix<double, R, C> sprinkled(fd::rng& r, const std::vector<double>& specials) {
  tl::matrix<double, R, C> m;
  for (auto& e : m) e = r.uniform(-2, 2);
  for (std::size_t i = 0; i < specials.size(); ++i) m[(i * 7 + 1) % (R * C)] = specials[i];
  return m;
}

/// matmul's value, A^T G and G B^T at shapes that run in batches (rows of b or g a multiple of the
/// width; or g a vector and a's rows a multiple of it) and that do not, with specials in a and b.
template <std::size_t R, std::size_t K, std::size_t C>
void check_matmul_at(std::uint64_t seed) {
  fd::rng r{seed};
  const auto a = sprinkled<R, K>(r, {qnan, 1e-310});
  // an infinite element of a vector b makes every element of a b infinite or NaN: specials in a only
  const auto b = sprinkled<K, C>(r, C == 1 ? std::vector<double>{} : std::vector<double>{-inf, 1e300});
  const auto w = sprinkled<R, C>(r, {});
  INFO("matmul of " << R << " x " << K << " by " << K << " x " << C);
  check_product_elements("a b", tl::matmul(a, b), product_and_bound(a, b), C == 1 ? K + 2.0 : 4.0);
  const auto [ga, gb] = tl::grad([&w](const auto& x, const auto& y) { return tl::sum(w * tl::matmul(x, y)); })(a, b);
  check_product_elements("A^T W", gb, product_and_bound(tl::transpose(a), w));
  check_product_elements("W B^T", ga, product_and_bound(w, tl::transpose(b)));
}

TEST_CASE("matmul in batches: each element is the scalar loop's sum, NaN and infinities included") {
  check_matmul_at<5, 3, 8>(11);   // a b and A^T G along rows of 8
  check_matmul_at<3, 7, 4>(12);   // rows of one batch
  check_matmul_at<16, 8, 1>(13);  // b and G vectors: A b and A^T G along the rows of a
  check_matmul_at<7, 4, 1>(18);   // rows of a left over after the blocks of w rows
  check_matmul_at<1, 12, 1>(14);
  check_matmul_at<4, 6, 1>(15);  // a's rows not whole batches: the scalar loops
  check_matmul_at<2, 3, 5>(16);
  check_matmul_at<64, 8, 1>(17);
  check_matmul_at<3, 8, 12>(19);  // A^T G of more batches than registers: summed in place
  check_matmul_at<5, 80, 1>(20);
}

/// X = A^-1 B by Gaussian elimination with partial pivoting in long double, independent of the library.
template <std::size_t N, std::size_t K>
tl::matrix<double, N, K> solved_in_long_double(const tl::matrix<double, N, N>& a, const tl::matrix<double, N, K>& b) {
  long double m[N][N + K];
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < N + K; ++j) m[i][j] = j < N ? a(i, j) : b(i, j - N);
  for (std::size_t k = 0; k < N; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < N; ++i)
      if (std::abs(m[i][k]) > std::abs(m[p][k])) p = i;
    for (std::size_t j = 0; j < N + K; ++j) std::swap(m[k][j], m[p][j]);
    for (std::size_t i = 0; i < N; ++i)
      if (i != k) {
        const long double f = m[i][k] / m[k][k];
        for (std::size_t j = k; j < N + K; ++j) m[i][j] -= f * m[k][j];
      }
  }
  tl::matrix<double, N, K> x;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t c = 0; c < K; ++c) x(i, c) = static_cast<double>(m[i][N + c] / m[i][i]);
  return x;
}

/// solve(A, B), inverse(A) and the adjoint of B, A^-T W, whose substitutions run a row of B (K
/// elements) at a time in batches where K splits into them: against long double, at a diagonally
/// dominant A. A NaN in one column of B stays in that column of X (the lanes do not mix).
template <std::size_t N, std::size_t K>
void check_solve_at(std::uint64_t seed) {
  fd::rng r{seed};
  auto a = sprinkled<N, N>(r, {});
  for (std::size_t i = 0; i < N; ++i) a(i, i) += 3.0 * static_cast<double>(N);
  const auto b = sprinkled<N, K>(r, {});
  const auto w = sprinkled<N, K>(r, {});
  INFO("solve of " << N << " x " << N << " with " << K << " columns");
  const auto near = [](const auto& got, const auto& expected) {
    for (std::size_t i = 0; i < got.size(); ++i)
      CHECK(std::abs(got[i] - expected[i]) <= 1e-14 * (1.0 + std::abs(expected[i])));
  };
  near(tl::solve(a, b), solved_in_long_double(a, b));
  tl::matrix<double, N, N> identity;
  for (std::size_t i = 0; i < N; ++i) identity(i, i) = 1.0;
  near(tl::inverse(a), solved_in_long_double(a, identity));
  const auto gb = tl::grad<1>([&w](const auto& x, const auto& y) { return tl::sum(w * tl::solve(x, y)); })(a, b);
  near(gb, solved_in_long_double(tl::transpose(a), w));
  auto with_nan = b;
  with_nan(N / 2, K - 1) = qnan;
  const auto x = tl::solve(a, with_nan);
  for (std::size_t i = 0; i < N; ++i) {
    CHECK(std::isnan(x(i, K - 1)));
    for (std::size_t c = 0; c + 1 < K; ++c) CHECK(std::isfinite(x(i, c)));
  }
}

TEST_CASE("LU solves in batches: solve, inverse and A^-T W as long double, NaN kept to its column") {
  check_solve_at<4, 4>(31);  // S9's inverse: rows of one AVX2 batch
  check_solve_at<5, 8>(32);
  check_solve_at<3, 2>(33);  // rows of one SSE2 batch
  check_solve_at<4, 3>(34);  // rows that are not whole batches: the scalar loops
  check_solve_at<8, 8>(35);
}

// The SIMD path is a run-time path: in a constant expression the same loops run one element at a time.
constexpr auto constant_gradient = tl::grad([](const auto& v) {
  return tl::sum(tl::sigmoid(v) * tl::exp(v) + tl::softplus(v) - tl::log1p(tl::square(v)) / 2.0 + tl::tanh(v));
})(tl::vector<double, 5>{-2, -0.5, 0.25, 1, 3});
static_assert(constant_gradient[0] > 0 && constant_gradient[4] > 0);

TEST_CASE("the gradient computed in a constant expression equals the one at run time within 8 ulp") {
  const auto at_run_time = tl::grad([](const auto& v) {
    return tl::sum(tl::sigmoid(v) * tl::exp(v) + tl::softplus(v) - tl::log1p(tl::square(v)) / 2.0 + tl::tanh(v));
  })(tl::vector<double, 5>{-2, -0.5, 0.25, 1, 3});
  for (std::size_t i = 0; i < 5; ++i) CHECK(fd::ulp_distance(constant_gradient[i], at_run_time[i]) <= 8);
}
