// SPDX-License-Identifier: BSL-1.0
// tl::det, tl::inverse, tl::log_det, tl::cholesky and tl::solve of square matrices of run-time extents
// (ops/run_time_factorisations.hpp, transforms/run_time_factorisations.hpp): values and gradients
// against the fixed-shape twin at the same values, central differences at seeded points, each rule
// against its closed form at sizes 0, 1, 2, around a SIMD batch, 31, 32, 33; a formula operand (held
// by a node first), an Eigen matrix read in place, plain values; the shape errors; bounded matrices in
// a constant expression and without allocation; singular and indefinite matrices.
#include <doctest/doctest.h>
#include <tapeless/interop/eigen.hpp>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <linear_algebra_check.hpp>
#include <run_time_twin.hpp>

#include <Eigen/Core>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

using run_time_twin::copy_of;
using run_time_twin::drawn;
using dynamic_matrix = tl::matrix<double, tl::dynamic, tl::dynamic>;
using dynamic_vector = tl::vector<double, tl::dynamic>;

/// det(A) + sum(W inverse(A)) + log_det(S) + sum(W cholesky(S)) + c . solve(A, b): every factorisation,
/// W and c data.
template <class W, class C>
auto every_factorisation(const W& w, const C& c) {
  return [&w, &c](const auto& A, const auto& S, const auto& b) {
    return tl::det(A) + tl::sum(tl::cref(w) * tl::inverse(A)) + tl::log_det(S) +
           tl::sum(tl::cref(w) * tl::cholesky(S)) + tl::dot(tl::cref(c), tl::solve(A, b));
  };
}

/// a with 3 added on its diagonal: well-conditioned where a's elements are drawn from [-1.5, 1.5).
template <class M>
M diagonal_plus_three(M a) {
  for (std::size_t i = 0; i < a.rows(); ++i) a(i, i) += 3.0;
  return a;
}
template <std::size_t N>
tl::matrix<double, N, N> general(std::uint64_t seed) {
  return diagonal_plus_three(drawn<tl::matrix<double, N, N>>(seed));
}

/// B B^T + I of a drawn B: symmetric positive definite.
template <std::size_t N>
tl::matrix<double, N, N> positive_definite(std::uint64_t seed) {
  return la::gram_plus_diagonal(drawn<tl::matrix<double, N, N>>(seed), 1.0);
}

/// An n x n matrix of values drawn from [-1.5, 1.5) with the seed given.
dynamic_matrix seeded_matrix(std::size_t n, std::uint64_t seed) {
  const auto v = run_time_twin::seeded<dynamic_vector>(n * n, seed);
  dynamic_matrix m(n, n);
  for (std::size_t k = 0; k < n * n; ++k) m.data()[k] = v[k];
  return m;
}

/// general<N> and positive_definite<N> of run-time extents n.
dynamic_matrix general_at(std::size_t n, std::uint64_t seed) { return diagonal_plus_three(seeded_matrix(n, seed)); }
dynamic_matrix positive_definite_at(std::size_t n, std::uint64_t seed) {
  return la::gram_plus_diagonal(seeded_matrix(n, seed), 1.0);
}

/// A gradient of run-time extents against its fixed twin's (det by minors against LU up to 3 x 3).
template <class M, class F>
void check_twin(const M& g, const F& fixed_g) {
  run_time_twin::check_elements_against_twin(g, fixed_g, 1e-11);
}

TEST_CASE("run-time factorisations: value and gradients against the fixed-shape twin") {
  run_time_twin::at_each<1, 2, 3, 4, 5, 8, 9>([]<std::size_t N>() {
    CAPTURE(N);
    const auto a = general<N>(10 + N), s = positive_definite<N>(20 + N);
    const auto w = drawn<tl::matrix<double, N, N>>(30 + N);
    const auto c = drawn<tl::vector<double, N>>(40 + N), b = drawn<tl::vector<double, N>>(50 + N);
    const auto [fixed_value, fixed_g] = tl::value_and_grad(every_factorisation(w, c))(a, s, b);
    const auto wd = copy_of<dynamic_matrix>(w);
    const auto cd = copy_of<dynamic_vector>(c);
    const auto [value, g] = tl::value_and_grad(every_factorisation(wd, cd))(
        copy_of<dynamic_matrix>(a), copy_of<dynamic_matrix>(s), copy_of<dynamic_vector>(b));
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(g))>, dynamic_matrix>);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<2>(g))>, dynamic_vector>);
    CHECK(fd::rel_error(value, fixed_value) < 1e-12);
    check_twin(std::get<0>(g), std::get<0>(fixed_g));
    check_twin(std::get<1>(g), std::get<1>(fixed_g));
    check_twin(std::get<2>(g), std::get<2>(fixed_g));
    // Of plain values, the same number; bounded extents, the same gradients.
    const auto f = every_factorisation(wd, cd);
    CHECK(fd::rel_error(f(copy_of<dynamic_matrix>(a), copy_of<dynamic_matrix>(s), copy_of<dynamic_vector>(b)),
                        fixed_value) < 1e-12);
    using bounded_matrix = tl::matrix<double, tl::bounded<9>, tl::bounded<9>>;
    const auto gb = tl::grad(every_factorisation(wd, cd))(copy_of<bounded_matrix>(a), copy_of<bounded_matrix>(s),
                                                          copy_of<dynamic_vector>(b));
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(gb))>, bounded_matrix>);
    check_twin(std::get<0>(gb), std::get<0>(fixed_g));
    check_twin(std::get<1>(gb), std::get<1>(fixed_g));
  });
}

TEST_CASE("run-time factorisations: central differences at seeded points") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const std::size_t n = 3 + 2 * seed;
    CAPTURE(n);
    const dynamic_matrix A = general_at(n, 60 + seed), s = positive_definite_at(n, 70 + seed);
    const dynamic_matrix w = seeded_matrix(n, 80 + seed);
    const auto c = run_time_twin::seeded<dynamic_vector>(n, 90 + seed);
    const auto b = run_time_twin::seeded<dynamic_vector>(n, 95 + seed);
    const auto f = every_factorisation(w, c);
    const auto g = tl::grad(f)(A, s, b);
    for (std::size_t k = 0; k < n * n; ++k) {
      CHECK(fd::rel_error(std::get<0>(g)[k], fd::partial([&](const auto& x) { return f(x, s, b); }, A, k)) < 1e-7);
      // Each element of S on its own: cholesky reads the lower triangle, log_det the symmetric part.
      CHECK(fd::rel_error(std::get<1>(g)[k], fd::partial([&](const auto& x) { return f(A, x, b); }, s, k)) < 1e-7);
    }
    for (std::size_t k = 0; k < n; ++k)
      CHECK(fd::rel_error(std::get<2>(g)[k], fd::partial([&](const auto& x) { return f(A, s, x); }, b, k)) < 1e-7);
  }
}

TEST_CASE("run-time factorisations: each rule against its closed form at every size") {
  for (std::size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33}) {
    CAPTURE(n);
    const dynamic_matrix a = general_at(n, 100 + n), s = positive_definite_at(n, 200 + n);
    const dynamic_vector c = run_time_twin::seeded<dynamic_vector>(n, 300 + n);
    const dynamic_vector b = run_time_twin::seeded<dynamic_vector>(n, 400 + n);
    const dynamic_matrix inv = tl::inverse(a);  // of plain values, the plain inverse
    REQUIRE(inv.rows() == n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double v = 0;
        for (std::size_t k = 0; k < n; ++k) v += a(i, k) * inv(k, j);
        CHECK(std::abs(v - (i == j ? 1.0 : 0.0)) < 1e-12);
      }
    // d det(A) / dA = det(A) A^-T; of 0 x 0, det 1 and no elements.
    const auto [d, gd] = tl::value_and_grad([](const auto& x) { return tl::det(x); })(a);
    if (n == 0) CHECK(d == 1.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) CHECK(fd::rel_error(gd(i, j), d * inv(j, i)) < 1e-10);
    // sum(A^-1): -(column sums of Y)(row sums of Y), Y = A^-1.
    const auto gi = tl::grad([](const auto& x) { return tl::sum(tl::inverse(x)); })(a);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double col = 0, row = 0;
        for (std::size_t k = 0; k < n; ++k) {
          col += inv(k, i);
          row += inv(j, k);
        }
        CHECK(fd::rel_error(gi(i, j), -col * row) < 1e-10);
      }
    // d log det(S) / dS = S^-1; L L^T = S, L lower triangular.
    const dynamic_matrix s_inv = tl::inverse(s), l = tl::cholesky(s);
    const auto [ld, gl] = tl::value_and_grad([](const auto& x) { return tl::log_det(x); })(s);
    CHECK(fd::rel_error(ld, std::log(tl::det(s))) < 1e-10);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        CHECK(fd::rel_error(gl(i, j), s_inv(i, j)) < 1e-10);
        double v = 0;
        for (std::size_t k = 0; k < n; ++k) v += l(i, k) * l(j, k);
        CHECK(fd::rel_error(v, s(i, j)) < 1e-12);
        if (j > i) CHECK(l(i, j) == 0.0);
      }
    // x = A^-1 b: A x = b, and the gradient of c . x in b is A^-T c.
    const dynamic_vector x = tl::solve(a, b);
    const auto gb = tl::grad([&](const auto& v) { return tl::dot(tl::cref(c), tl::solve(tl::cref(a), v)); })(b);
    for (std::size_t i = 0; i < n; ++i) {
      double ax = 0, atg = 0;
      for (std::size_t k = 0; k < n; ++k) {
        ax += a(i, k) * x[k];
        atg += a(k, i) * gb[k];
      }
      CHECK(std::abs(ax - b[i]) < 1e-12);
      CHECK(std::abs(atg - c[i]) < 1e-12);
    }
  }
}

TEST_CASE("run-time factorisations of a formula, of a transpose and of Eigen matrices") {
  constexpr std::size_t n = 6;
  const dynamic_matrix a = general_at(n, 501), b = seeded_matrix(n, 502), d = seeded_matrix(n, 503);
  const auto fixed_a = run_time_twin::fixed_copy<n * n>(a);
  tl::matrix<double, n, n> af, bf, df;
  for (std::size_t k = 0; k < n * n; ++k) {
    af.data()[k] = fixed_a[k];
    bf.data()[k] = b.data()[k];
    df.data()[k] = d.data()[k];
  }
  // A formula operand is held by a node first: log det(B B^T + I) and det(A + D) in (A, B).
  const auto formula = [](const auto& D, const auto& I) {
    return [&D, &I](const auto& A, const auto& B) {
      return tl::log_det(tl::matmul(B, tl::transpose(B)) + tl::cref(I)) + tl::det(A + tl::cref(D)) +
             tl::sum(tl::solve(tl::transpose(A), tl::cref(D)));
    };
  };
  dynamic_matrix id(n, n);
  tl::matrix<double, n, n> idf;
  for (std::size_t i = 0; i < n; ++i) id(i, i) = idf(i, i) = 1.0;
  const auto [value, g] = tl::value_and_grad(formula(d, id))(a, b);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(formula(df, idf))(af, bf);
  CHECK(fd::rel_error(value, fixed_value) < 1e-12);
  check_twin(std::get<0>(g), std::get<0>(fixed_g));
  check_twin(std::get<1>(g), std::get<1>(fixed_g));
  // Eigen matrices (column-major), read in place as arguments and as data: the same numbers.
  Eigen::MatrixXd ae(n, n), be(n, n), de(n, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      ae(Eigen::Index(i), Eigen::Index(j)) = a(i, j);
      be(Eigen::Index(i), Eigen::Index(j)) = b(i, j);
      de(Eigen::Index(i), Eigen::Index(j)) = d(i, j);
    }
  const auto ge = tl::grad(formula(de, id))(ae, be);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(ge))>, Eigen::MatrixXd>);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      CHECK(fd::rel_error(std::get<0>(ge)(Eigen::Index(i), Eigen::Index(j)), std::get<0>(g)(i, j)) < 1e-13);
      CHECK(fd::rel_error(std::get<1>(ge)(Eigen::Index(i), Eigen::Index(j)), std::get<1>(g)(i, j)) < 1e-13);
    }
}

TEST_CASE("run-time factorisations: a Gaussian process's likelihood, and right-hand sides of every kind") {
  // 0.5 y^T K^-1 y + 0.5 log det K in K, y data; with a matrix right-hand side of run-time or fixed
  // extents beside, and A run-time with a fixed b.
  constexpr std::size_t n = 7;
  const auto kf = positive_definite<n>(701);
  const auto yf = drawn<tl::vector<double, n>>(702);
  const auto bf = drawn<tl::matrix<double, n, 3>>(703);
  const auto f = [](const auto& y, const auto& B) {
    return [&y, &B](const auto& K) {
      return 0.5 * tl::dot(tl::cref(y), tl::solve(K, tl::cref(y))) + 0.5 * tl::log_det(K) +
             tl::sum(tl::square(tl::solve(K, tl::cref(B))));
    };
  };
  const auto [fixed_value, fixed_g] = tl::value_and_grad(f(yf, bf))(kf);
  const auto y = copy_of<dynamic_vector>(yf);
  const auto b = copy_of<dynamic_matrix>(bf);
  const auto [value, g] = tl::value_and_grad(f(y, b))(copy_of<dynamic_matrix>(kf));
  CHECK(fd::rel_error(value, fixed_value) < 1e-12);
  check_twin(g, fixed_g);
  const auto [mixed_value, mixed_g] = tl::value_and_grad(f(yf, bf))(copy_of<dynamic_matrix>(kf));
  CHECK(fd::rel_error(mixed_value, fixed_value) < 1e-12);
  check_twin(mixed_g, fixed_g);
  // The right-hand side differentiated, of fixed extents beside a run-time A: its gradient fixed.
  const auto k = copy_of<dynamic_matrix>(kf);
  const auto gb = tl::grad([&](const auto& B) { return tl::sum(tl::solve(tl::cref(k), B)); })(bf);
  const auto fixed_gb = tl::grad([&](const auto& B) { return tl::sum(tl::solve(tl::cref(kf), B)); })(bf);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(gb)>, tl::matrix<double, n, 3>>);
  check_twin(gb, fixed_gb);
  // A scale of K differentiated, K a formula over data: at a plain number every factorisation reads data,
  // and a sum reading it, or a product with an inverse of data, takes its value once.
  const auto scaled = [](const auto& kd, const auto& y, const auto& B) {
    return [&kd, &y, &B](const auto& a) {
      const auto K = tl::exp(a) * tl::cref(kd);
      return 0.5 * tl::dot(tl::cref(y), tl::solve(K, tl::cref(y))) + 0.5 * tl::log_det(K) +
             tl::sum(tl::solve(K, tl::cref(B))) + tl::sum(K * tl::inverse(tl::cref(kd)));
    };
  };
  CHECK(fd::rel_error(scaled(k, y, b)(0.3).value(), scaled(kf, yf, bf)(0.3).value()) < 1e-12);
  CHECK(fd::rel_error(tl::grad(scaled(k, y, b))(0.3), tl::grad(scaled(kf, yf, bf))(0.3)) < 1e-12);
}

TEST_CASE("run-time factorisations: elements and lines of their values, and a fixed A beside a run-time b") {
  // An element or a row of a factorisation's value sends its rule an adjoint of one element or one line,
  // made dense at the value's run-time extents.
  constexpr std::size_t n = 5;
  const auto af = general<n>(801), sf = positive_definite<n>(802);
  const auto bf = drawn<tl::vector<double, n>>(803);
  const auto parts = [](const auto& A, const auto& S, const auto& b) {
    return tl::inverse(A)(0, 1) + tl::cholesky(S)(3, 1) + tl::solve(A, b)[2] + tl::sum(tl::row(tl::inverse(S), 4));
  };
  const auto [fixed_value, fixed_g] = tl::value_and_grad(parts)(af, sf, bf);
  const auto [value, g] =
      tl::value_and_grad(parts)(copy_of<dynamic_matrix>(af), copy_of<dynamic_matrix>(sf), copy_of<dynamic_vector>(bf));
  CHECK(fd::rel_error(value, fixed_value) < 1e-12);
  check_twin(std::get<0>(g), std::get<0>(fixed_g));
  check_twin(std::get<1>(g), std::get<1>(fixed_g));
  check_twin(std::get<2>(g), std::get<2>(fixed_g));
  // A of fixed shape, differentiated, with b of run-time size: factorised inline (tl::bounded), A's
  // gradient of its fixed type.
  const auto mixed = [](const auto& A, const auto& b) { return tl::sum(tl::solve(A, b)) + tl::det(A); };
  const auto [mixed_value, mixed_g] = tl::value_and_grad(mixed)(af, copy_of<dynamic_vector>(bf));
  const auto [twin_value, twin_g] = tl::value_and_grad(mixed)(af, bf);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(mixed_g))>, tl::matrix<double, n, n>>);
  CHECK(fd::rel_error(mixed_value, twin_value) < 1e-12);
  check_twin(std::get<0>(mixed_g), std::get<0>(twin_g));
  check_twin(std::get<1>(mixed_g), std::get<1>(twin_g));
}

TEST_CASE("run-time factorisations: shape errors before anything is evaluated") {
  const dynamic_matrix wide(3, 4), square(3, 3);
  const dynamic_vector b(4);
  const auto message = [](const auto& f) {
    try {
      (void)tl::grad(f)(dynamic_matrix(3, 4));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(message([](const auto& x) { return tl::det(x); }) == "tl::det(A): A is 3 x 4, not square");
  CHECK(message([](const auto& x) { return tl::sum(tl::inverse(x)); }) == "tl::inverse(A): A is 3 x 4, not square");
  CHECK(message([](const auto& x) { return tl::log_det(x); }) == "tl::log_det(A): A is 3 x 4, not square");
  CHECK(message([](const auto& x) { return tl::sum(tl::cholesky(x)); }) == "tl::cholesky(A): A is 3 x 4, not square");
  CHECK(message([&](const auto& x) { return tl::sum(tl::solve(x, tl::cref(b))); }) ==
        "tl::solve(A): A is 3 x 4, not square");
  CHECK_THROWS_WITH_AS(tl::grad([&](const auto& x) { return tl::sum(tl::solve(x, tl::cref(b))); })(square),
                       "tl::solve(A, b): A is 3 x 3 and b 4 x 1; b must have A's rows", std::invalid_argument);
  CHECK_THROWS_AS((void)tl::det(wide), std::invalid_argument);
}

TEST_CASE("run-time factorisations: singular and indefinite matrices") {
  dynamic_matrix a{{1.0, 2.0}, {2.0, 4.0}};
  // det's gradient is the cofactor matrix, finite where the inverse is not.
  const auto g = tl::grad([](const auto& x) { return tl::det(x); })(a);
  CHECK(g(0, 0) == 4.0);
  CHECK(g(0, 1) == -2.0);
  CHECK(g(1, 0) == -2.0);
  CHECK(g(1, 1) == 1.0);
  dynamic_matrix z(3, 3);
  CHECK(std::isnan(tl::inverse(z)(1, 2)));
  CHECK(std::isnan(tl::solve(z, dynamic_vector(3))[0]));
  const dynamic_matrix indefinite{{1.0, 2.0}, {2.0, 1.0}};
  CHECK(std::isnan(tl::log_det(indefinite)));
  CHECK(std::isnan(tl::cholesky(indefinite)(0, 0)));
  const auto gl = tl::grad([](const auto& x) { return tl::log_det(x); })(indefinite);
  CHECK(std::isnan(gl(0, 1)));
}

TEST_CASE("run-time factorisations of bounded matrices: a constant expression, and no allocation") {
  using M = tl::matrix<double, tl::bounded<8>, tl::bounded<8>>;
  using V = tl::vector<double, tl::bounded<8>>;
  static constexpr auto g = [] {
    M a(2, 2);
    a(0, 0) = 2.0;
    a(0, 1) = 1.0;
    a(1, 0) = 1.0;
    a(1, 1) = 3.0;
    return tl::grad([](const auto& x) { return tl::det(x) + tl::log_det(x); })(a);
  }();
  // det {{2, 1}, {1, 3}} = 5: cofactors {{3, -1}, {-1, 2}} plus the inverse {{3, -1}, {-1, 2}} / 5.
  static_assert(g(0, 0) - 3.6 < 1e-12 && 3.6 - g(0, 0) < 1e-12);
  static_assert(g(1, 1) - 2.4 < 1e-12 && 2.4 - g(1, 1) < 1e-12);
  static_assert(g(0, 1) == g(1, 0));
  const M a = copy_of<M>(general<5>(601)), s = copy_of<M>(positive_definite<5>(602));
  V b(5);
  for (std::size_t k = 0; k < 5; ++k) b[k] = 0.25 * double(k);
  const dynamic_matrix w = seeded_matrix(5, 603);
  const dynamic_vector c = run_time_twin::seeded<dynamic_vector>(5, 604);
  const M wb(w);
  const V cb(c);
  const auto f = every_factorisation(wb, cb);
  (void)tl::grad(f)(a, s, b);  // warm
  const long count = test_support::allocations_during([&] {
    const auto r = tl::grad(f)(a, s, b);
    CHECK(std::get<0>(r).rows() == 5);
  });
  CHECK(count == 0);
}

}  // namespace
