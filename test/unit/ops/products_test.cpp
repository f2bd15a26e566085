// SPDX-License-Identifier: BSL-1.0
// Products (ops/products.hpp): matmul, transpose, dot, outer and trace. Each gradient against central
// finite differences and the closed form in long double (test/support/reference/linear_algebra.hpp) on seeded
// random inputs at many shapes, those of whole and partial SIMD batches among them; the repeated rows and
// columns of matmul's adjoint under sum or mean; the order of the sums in the SIMD loops; float operands.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <linear_algebra_check.hpp>
#include <matrix_check.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;
using namespace la;  // the checks and long double references of test/support

TEST_CASE("matmul: gradients against finite differences and G B^T, A^T G") {
  check_matmul<1, 1, 1>(701);
  check_matmul<2, 2, 2>(702);
  check_matmul<3, 3, 3>(703);
  check_matmul<4, 4, 4>(704);
  check_matmul<2, 3, 4>(705);
  check_matmul<4, 2, 1>(706);
  check_matmul<1, 3, 2>(707);
  check_matmul<1, 4, 1>(708);  // a row times a column: 1 x 1
  check_matmul<4, 1, 3>(709);  // a column times a row: rank 1
  check_matmul<1, 1, 4>(710);
  check_matmul<3, 5, 2>(700);
  check_matmul<16, 8, 1>(711);  // shapes of SIMD batches (simd/product.hpp): G a vector, A^T G along rows of A
  check_matmul<3, 4, 8>(712);   // and along rows of B
}

TEST_CASE("transpose: the gradient is the adjoint transposed") {
  check_transpose<1, 1>(711);
  check_transpose<2, 3>(712);
  check_transpose<3, 3>(713);
  check_transpose<4, 1>(714);
  check_transpose<1, 4>(715);
  check_transpose<5, 2>(716);
}

TEST_CASE("dot: d(a . b) = (b, a)") {
  check_dot<1>(721);
  check_dot<3>(722);
  check_dot<4>(723);
  check_dot<5>(724);
}

TEST_CASE("outer: a b^T, with da = G b and db = G^T a") {
  check_outer<1, 1>(731);
  check_outer<3, 2>(732);
  check_outer<2, 4>(733);
  check_outer<4, 3>(734);
  check_outer<1, 4>(735);
  check_outer<4, 1>(736);
}

TEST_CASE("trace: the gradient is the identity") {
  check_trace<1>(741);
  check_trace<2>(742);
  check_trace<3>(743);
  check_trace<4>(744);
  check_trace<5>(745);
}

TEST_CASE("dot of float vectors inside a double expression: the adjoint is brought to float") {
  using V = tl::vector<float, 2>;
  const auto [gs, gv] = tl::grad([](auto s, const auto& v) { return s * tl::dot(v, v); })(2.0, V{1.0f, 3.0f});
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(gv)>, V>);
  CHECK(gs == 10.0);            // v . v
  CHECK(gv == V{4.0f, 12.0f});  // 2 s v
}

// Under sum or mean, matmul's rules send a repeated row (G B^T) or column (A^T G), which an
// argument's or a let name's adjoint sum adds without forming the matrix (ops/rules.hpp, repeated);
// every other operand's sweep receives it dense. Each case against the same function with G made
// dense by a weight matrix of ones (the general rules), whose gradient is the same sums.
template <std::size_t R, std::size_t K, std::size_t C>
void check_repeated_adjoints(std::uint64_t seed) {
  fd::rng r{seed};
  const mat<R, C> ones = mat<R, C>::filled(1.0);
  const auto dense = [&ones](const auto& m) { return tl::sum(tl::cref(ones) * m); };
  const auto check_pair = [](const char* name, const auto& f, const auto& g, const auto&... x) {
    INFO(name << " at " << R << " x " << K << " by " << K << " x " << C);
    const auto a = tl::grad(f)(x...), b = tl::grad(g)(x...);
    if constexpr (sizeof...(x) == 1) {
      CHECK(max_rel_error(a, b) < 1e-14);
    } else {
      CHECK(max_rel_error(std::get<0>(a), std::get<0>(b)) < 1e-14);
      CHECK(max_rel_error(std::get<1>(a), std::get<1>(b)) < 1e-14);
    }
  };
  const mat<R, K> a = random_matrix<R, K>(r);
  const mat<K, C> b = random_matrix<K, C>(r);
  // arguments on both sides, under sum and under mean
  check_pair(
      "sum(A B)", [](const auto& x, const auto& y) { return tl::sum(tl::matmul(x, y)); },
      [&](const auto& x, const auto& y) { return dense(tl::matmul(x, y)); }, a, b);
  check_pair(
      "mean(A B)", [](const auto& x, const auto& y) { return 3.0 * tl::mean(tl::matmul(x, y)); },
      [&](const auto& x, const auto& y) { return 3.0 * dense(tl::matmul(x, y)) / double(R * C); }, a, b);
  // operands that are not leaves: an elementwise region, a transpose, a let name
  check_pair(
      "sum(exp(A) B)", [](const auto& x, const auto& y) { return tl::sum(tl::matmul(tl::exp(x), y)); },
      [&](const auto& x, const auto& y) { return dense(tl::matmul(tl::exp(x), y)); }, a, b);
  check_pair(
      "sum(transpose(A^T) B)",
      [](const auto& x, const auto& y) { return tl::sum(tl::matmul(tl::transpose(tl::transpose(x)), y)); },
      [&](const auto& x, const auto& y) { return dense(tl::matmul(x, y)); }, a, b);
  check_pair(
      "let p = 2 A: sum(p B)",
      [](const auto& x, const auto& y) { return tl::let(x * 2.0, [&y](auto p) { return tl::sum(tl::matmul(p, y)); }); },
      [&](const auto& x, const auto& y) { return dense(tl::matmul(x * 2.0, y)); }, a, b);
  if constexpr (R == K && K == C) {
    // one argument on both sides: the repeated row and the repeated column summed in one pass
    // (sum_of_repeated), into A's sum or added to what it holds; a let's name likewise
    check_pair(
        "sum(A A)", [](const auto& x) { return tl::sum(tl::matmul(x, x)); },
        [&](const auto& x) { return dense(tl::matmul(x, x)); }, a);
    check_pair(
        "sum(A) + sum(A A)", [](const auto& x) { return tl::sum(x) + tl::sum(tl::matmul(x, x)); },
        [&](const auto& x) { return tl::sum(x) + dense(tl::matmul(x, x)); }, a);
    check_pair(
        "let p = 2 A: sum(p p)",
        [](const auto& x) { return tl::let(x * 2.0, [](auto p) { return tl::sum(tl::matmul(p, p)); }); },
        [&](const auto& x) { return dense(tl::matmul(x * 2.0, x * 2.0)); }, a);
    const auto f = [](const auto& x) { return tl::sum(tl::matmul(x, x)); };
    CHECK(tl::trace(f, a).gradient() == tl::grad(f)(a));  // the trace's sweep receives them dense
    // exact: d sum(A A) / dA(p, q) = sum_j A(q, j) + sum_i A(i, p)
    const mat<R, C> g = tl::grad(f)(a);
    for (std::size_t p = 0; p < R; ++p)
      for (std::size_t q = 0; q < C; ++q) {
        double row = 0, col = 0;
        for (std::size_t j = 0; j < C; ++j) row += a(q, j);
        for (std::size_t i = 0; i < R; ++i) col += a(i, p);
        CHECK(fd::rel_error(g(p, q), row + col) < 1e-14);
      }
  }
}

TEST_CASE("matmul under sum or mean: repeated rows and columns reach every kind of operand") {
  // sum(A A) in a constant expression: A's two adjoints summed in the scalar loop
  constexpr auto exact = tl::grad([](const auto& x) { return tl::sum(tl::matmul(x, x)); })(mat<2, 2>{{1, 2}, {3, 4}});
  static_assert(exact == mat<2, 2>{{7, 11}, {9, 13}});
  check_repeated_adjoints<8, 8, 8>(731);  // rows of whole SIMD batches
  check_repeated_adjoints<4, 4, 4>(736);
  check_repeated_adjoints<3, 3, 3>(732);
  check_repeated_adjoints<2, 5, 4>(733);
  check_repeated_adjoints<4, 6, 1>(734);
  check_repeated_adjoints<1, 4, 8>(735);
}

TEST_CASE("matmul under sum: the row sums of B start from +0, in SIMD batches as in the scalar loop") {
  // dA(i, k) = g sum_j B(k, j). Rows of 8 and 4 sum in batches at run time (simd::row_sums), rows of
  // 3 and constant evaluation in the scalar loop; each starts from +0, so a row of -0 gives +0.
  const auto f = [](const auto& a, const auto& b) { return tl::sum(tl::matmul(a, b)); };
  const auto check_zero_rows = [&f]<std::size_t C>(std::integral_constant<std::size_t, C>) {
    INFO("rows of " << C);
    const mat<5, 4> a = mat<5, 4>::filled(0.25);
    mat<4, C> b = mat<4, C>::filled(-0.0);
    for (std::size_t j = 0; j < C; ++j) b(2, j) = double(j + 1);  // one row that is not zero
    const auto g = std::get<0>(tl::grad(f)(a, b));
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t k = 0; k < 4; ++k) {
        CHECK(g(i, k) == (k == 2 ? double(C * (C + 1) / 2) : 0.0));
        CHECK(!std::signbit(g(i, k)));
      }
  };
  check_zero_rows(std::integral_constant<std::size_t, 8>{});
  check_zero_rows(std::integral_constant<std::size_t, 4>{});
  check_zero_rows(std::integral_constant<std::size_t, 3>{});
  constexpr auto gc = [] {
    const auto f = [](const auto& a, const auto& b) { return tl::sum(tl::matmul(a, b)); };
    return std::get<0>(tl::grad(f)(mat<1, 2>{{1.0, 2.0}}, mat<2, 4>{{-0.0, -0.0, -0.0, -0.0}, {1.0, 2.0, 3.0, 4.0}}));
  }();
  static_assert(gc(0, 0) == 0.0 && gc(0, 1) == 10.0);
  CHECK(!std::signbit(gc(0, 0)));
  // Random rows of 8, 4 and 12, 7 of them (whole batches of rows and one left): the sums in lanes
  // against the sums in long double, within the bound of any order of C - 1 additions.
  fd::rng r{741};
  const mat<2, 7> a = random_matrix<2, 7>(r);
  const auto check_random = [&]<std::size_t C>(std::integral_constant<std::size_t, C>) {
    INFO("rows of " << C);
    const mat<7, C> b = random_matrix<7, C>(r);
    const auto g = std::get<0>(tl::grad(f)(a, b));
    for (std::size_t k = 0; k < 7; ++k) {
      long double row = 0, magnitude = 0;
      for (std::size_t j = 0; j < C; ++j) {
        row += b(k, j);
        magnitude += std::abs(b(k, j));
      }
      const long double bound = (C - 1) * std::numeric_limits<double>::epsilon() / 2 * magnitude;
      CHECK(std::abs(g(1, k) - row) <= bound);
    }
  };
  check_random(std::integral_constant<std::size_t, 8>{});
  check_random(std::integral_constant<std::size_t, 4>{});
  check_random(std::integral_constant<std::size_t, 12>{});
}

/// Whether s, a sum of the n products term(0), ..., term(n - 1) computed in double, is within the bound
/// of any order of its n - 1 additions and n roundings of products, each within half an ulp, of their
/// sum in long double.
template <class Term>
bool within_any_order(double s, std::size_t n, const Term& term) {
  long double exact = 0, magnitude = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const long double t = term(j);
    exact += t;
    magnitude += std::abs(t);
  }
  return std::abs(s - exact) <= (2 * n - 1) * std::numeric_limits<double>::epsilon() / 2 * magnitude;
}

TEST_CASE("sum(w .* (A b)): A^T w and A b, each sum within any order's bound, with +0, NaN and inf") {
  // Its gradient is A^T w in b and A b in w. At run time, with rows of A in whole batches:
  // - A^T w: row i goes to chain i mod c (simd::transposed_matrix_vector), c up to 8 / (batches per
  //   row): 4 for rows of 8 in batches of 4, 8 for rows of 4; the rows left over (37 = 9 rounds of 4
  //   and 1) go to the first;
  // - A b: the rows' sums come out a batch of rows at a time (simd::sum_lanes_of_rows), two batches in
  //   one store where the build's vectors are twice as wide as its batches (AVX-512 with batches of 4:
  //   simd::store_pair), then the rows left over.
  // Each sum is within the bound of any order of the long double sum, starts from +0 as the scalar
  // loop does, and carries a NaN or an infinity of its terms.
  fd::rng r{742};
  const auto check = [&r]<std::size_t R, std::size_t K>(std::integral_constant<std::size_t, R>,
                                                        std::integral_constant<std::size_t, K>) {
    INFO(R << " x " << K);
    const auto f = [](const mat<R, K>& a) {
      return [&a](const auto& w, const auto& b) { return tl::sum(w * tl::matmul(tl::cref(a), b)); };
    };
    const mat<R, K> a = random_matrix<R, K>(r);
    const mat<R, 1> w = random_matrix<R, 1>(r);
    const mat<K, 1> b = random_matrix<K, 1>(r);
    const auto [a_b, a_t_w] = tl::grad(f(a))(w, b);
    for (std::size_t k = 0; k < K; ++k)
      CHECK(within_any_order(a_t_w[k], R, [&](std::size_t i) { return static_cast<long double>(a(i, k)) * w[i]; }));
    for (std::size_t i = 0; i < R; ++i)
      CHECK(within_any_order(a_b[i], K, [&](std::size_t k) { return static_cast<long double>(a(i, k)) * b[k]; }));
    // -0 terms only: +0, as 0 + -0 in the scalar loop
    const auto [zero_b, zero_w] = tl::grad(f(a))(mat<R, 1>::filled(-0.0), mat<K, 1>::filled(-0.0));
    for (std::size_t k = 0; k < K; ++k) CHECK((zero_w[k] == 0.0 && !std::signbit(zero_w[k])));
    for (std::size_t i = 0; i < R; ++i) CHECK((zero_b[i] == 0.0 && !std::signbit(zero_b[i])));
    // an infinity in the last row (the rows left over, where there are any), a NaN in the first
    mat<R, K> special = a;
    special(R - 1, 0) = std::numeric_limits<double>::infinity();
    special(0, K - 1) = std::numeric_limits<double>::quiet_NaN();
    const auto [special_b, special_w] = tl::grad(f(special))(mat<R, 1>::filled(0.5), mat<K, 1>::filled(0.5));
    CHECK(special_w[0] == std::numeric_limits<double>::infinity());
    CHECK(std::isnan(special_w[K - 1]));
    CHECK(std::isnan(special_b[0]));
    CHECK(special_b[R - 1] == std::numeric_limits<double>::infinity());
  };
  using std::integral_constant;
  check(integral_constant<std::size_t, 256>{}, integral_constant<std::size_t, 8>{});  // S6
  check(integral_constant<std::size_t, 37>{}, integral_constant<std::size_t, 8>{});
  check(integral_constant<std::size_t, 100>{}, integral_constant<std::size_t, 4>{});
  check(integral_constant<std::size_t, 21>{}, integral_constant<std::size_t, 4>{});
  check(integral_constant<std::size_t, 7>{}, integral_constant<std::size_t, 8>{});  // too few rows for chains
  check(integral_constant<std::size_t, 50>{}, integral_constant<std::size_t, 16>{});
  check(integral_constant<std::size_t, 30>{}, integral_constant<std::size_t, 64>{});  // batches enough already
  check(integral_constant<std::size_t, 13>{}, integral_constant<std::size_t, 3>{});   // no whole batches
  check(integral_constant<std::size_t, 16>{}, integral_constant<std::size_t, 8>{});   // S8's W1 x: two pairs
  check(integral_constant<std::size_t, 12>{}, integral_constant<std::size_t, 8>{});   // a pair and a batch
  check(integral_constant<std::size_t, 27>{}, integral_constant<std::size_t, 4>{});   // and 3 rows left
  check(integral_constant<std::size_t, 3>{}, integral_constant<std::size_t, 16>{});
}

TEST_CASE("matmul under sum: a deep number chain (a cut) and second derivatives") {
  using M = mat<2, 2>;
  const M a{{0.3, -0.7}, {1.1, 0.4}};
  const M ones = M::filled(1.0);
  // a chain deeper than the cut depth over sum(A A): the cut's sweep adds repeated lines
  const auto deep = [](const auto& x) { return mx::affine_chain<20>(tl::sum(tl::matmul(x, x))); };
  const auto deep_dense = [&ones](const auto& x) {
    return mx::affine_chain<20>(tl::sum(tl::cref(ones) * tl::matmul(x, x)));
  };
  CHECK(max_rel_error(tl::grad(deep)(a), tl::grad(deep_dense)(a)) < 1e-14);
  // second derivatives run the rules in dual numbers: the same Hessian either way
  const auto f = [](const auto& x) { return tl::sum(tl::matmul(x, x)); };
  const auto f_dense = [&ones](const auto& x) { return tl::sum(tl::cref(ones) * tl::matmul(x, x)); };
  CHECK(max_rel_error(tl::hessian(f)(a), tl::hessian(f_dense)(a)) < 1e-14);
}
