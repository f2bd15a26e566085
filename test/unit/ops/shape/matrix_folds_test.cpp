// SPDX-License-Identifier: BSL-1.0
// Folds over indices of a matrix, as a user transcribes a formula: the sum of A(i, k) A(k, j) over i, j
// and k (sum(A A), 8 to 512 terms), the determinant by minors (Laplace expansion through A(i, j))
// against tl::det, and folds reading rows, columns and a let name's elements by index, at 16, 64 and
// 300 elements: deeper than 16 levels, so cut (expr/cut.hpp). Each gradient against the one written by
// hand and against finite differences at seeded random points.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <matrix_check.hpp>
#include <reference/linear_algebra.hpp>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tl = tapeless;

namespace {

constexpr double fd_tol = 1e-6;
constexpr double exact_tol = 1e-12;

template <std::size_t R, std::size_t C = R>
using mat = tl::matrix<double, R, C>;

std::string shape_label(std::size_t rows, std::size_t cols) {
  return " (" + std::to_string(rows) + " x " + std::to_string(cols) + ")";
}

/// The sum over i, j and k of A(i, k) A(k, j): sum(A A) by index, N^3 terms.
template <std::size_t N>
constexpr auto products_by_index = [](const auto& A) {
  return mx::index_sum<N * N * N>([&](std::size_t t) { return A(t / (N * N), t % N) * A(t % N, t / N % N); });
};
/// Its gradient: d/dA(p, q) = (sum of row q) + (sum of column p).
template <std::size_t N>
mat<N> products_gradient(const mat<N>& a) {
  mat<N> g;
  for (std::size_t p = 0; p < N; ++p)
    for (std::size_t q = 0; q < N; ++q) {
      double s = 0;
      for (std::size_t k = 0; k < N; ++k) s += a(q, k) + a(k, p);
      g(p, q) = s;
    }
  return g;
}

// The determinant of a's rows Row.. and the columns of the bit set Cols, expanded along row Row:
// a(Row, c) times the determinant without column c, for each c of Cols in order, with alternating signs.
template <std::size_t Row, unsigned Cols, class A>
auto minors(const A& a);
template <std::size_t Row, unsigned Cols, unsigned Rest, bool Plus, class A>
auto expansion(const A& a) {
  constexpr unsigned c = std::countr_zero(Rest);
  constexpr unsigned others = Rest & ~(1U << c);
  const auto term = (Plus ? 1.0 : -1.0) * a(Row, c) * minors<Row + 1, (Cols & ~(1U << c))>(a);
  if constexpr (others == 0)
    return term;
  else
    return term + expansion<Row, Cols, others, !Plus>(a);
}
template <std::size_t Row, unsigned Cols, class A>
auto minors(const A& a) {
  if constexpr (std::has_single_bit(Cols))
    return a(Row, std::countr_zero(Cols));
  else
    return expansion<Row, Cols, Cols, true>(a);
}
/// det(A) by Laplace expansion along the first row, recursively, every element read as A(i, j).
constexpr auto det_by_minors = [](const auto& A) {
  constexpr std::size_t n = tl::value_type_of_t<decltype(A)>::rows();
  return minors<0, (1U << n) - 1>(A);
};

/// The sum over rows i of sum(row(A, i) * row(A, i + 1 mod R)) + col(A, i mod C)[i]: rows and columns by index.
template <std::size_t R, std::size_t C>
constexpr auto rows_by_index = [](const auto& A) {
  return mx::index_sum<R>(
      [&](std::size_t i) { return tl::sum(tl::row(A, i) * tl::row(A, (i + 1) % R)) + tl::col(A, i % C)[i]; });
};
template <std::size_t R, std::size_t C>
mat<R, C> rows_gradient(const mat<R, C>& a) {
  mat<R, C> g{};
  for (std::size_t i = 0; i < R; ++i) {
    for (std::size_t j = 0; j < C; ++j) {
      g(i, j) += a((i + 1) % R, j);
      g((i + 1) % R, j) += a(i, j);
    }
    g(i, i % C) += 1;
  }
  return g;
}

/// P = exp(A) named by tl::let, and the sum over all (i, j) of P(i, j) A(i, j + 1 mod C).
template <std::size_t R, std::size_t C>
constexpr auto named_elements = [](const auto& A) {
  return tl::let(tl::exp(A), [&A](const auto& P) {
    return mx::index_sum<R * C>([&](std::size_t t) { return P(t / C, t % C) * A(t / C, (t + 1) % C); });
  });
};
template <std::size_t R, std::size_t C>
mat<R, C> named_elements_gradient(const mat<R, C>& a) {
  mat<R, C> g{};
  for (std::size_t i = 0; i < R; ++i)
    for (std::size_t j = 0; j < C; ++j) {
      g(i, j) += std::exp(a(i, j)) * a(i, (j + 1) % C);
      g(i, (j + 1) % C) += std::exp(a(i, j));
    }
  return g;
}

/// Every fold reading an R x C matrix: by hand and by finite differences at `points` random points.
template <std::size_t R, std::size_t C>
void check_matrix_folds(std::uint64_t seed, int points) {
  const std::string shape = shape_label(R, C);
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const mat<R, C> a = mx::random<mat<R, C>>(r, -1.5, 1.5);
    mx::check_close("rows and columns by index" + shape, tl::grad(rows_by_index<R, C>)(a), rows_gradient(a), exact_tol);
    mx::check_fd_at_size<R * C>("rows and columns by index" + shape, rows_by_index<R, C>, fd_tol, a);
    mx::check_close("let P = exp(A), P(i, j) A(i, j + 1)" + shape, tl::grad(named_elements<R, C>)(a),
                    named_elements_gradient(a), exact_tol);
    mx::check_fd_at_size<R * C>("let P = exp(A), P(i, j) A(i, j + 1)" + shape, named_elements<R, C>, fd_tol, a);
  }
}

/// A formula by index at N x N: its value and gradient against the same function written with the
/// library's matrix operations (`written_whole`), its gradient against `by_hand`, and finite differences.
template <std::size_t N, class F, class Whole, class ByHand>
void check_square_fold(const std::string& label, const F& f, const Whole& written_whole, const ByHand& by_hand,
                       std::uint64_t seed, int points) {
  const std::string name = label + shape_label(N, N);
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const mat<N> a = mx::random<mat<N>>(r, -2, 2);
    const auto [value, g] = tl::value_and_grad(f)(a);
    const auto [whole_value, whole_g] = tl::value_and_grad(written_whole)(a);
    CHECK(fd::rel_error(value, whole_value) < exact_tol);
    mx::check_close(name + ", by hand", g, by_hand(a), exact_tol);
    mx::check_close(name + ", against the matrix operations", g, whole_g, exact_tol);
    mx::check_fd(name, f, fd_tol, a);
  }
}

constexpr auto sum_of_square = [](const auto& A) { return tl::sum(tl::matmul(A, A)); };
constexpr auto det = [](const auto& A) { return tl::det(A); };
/// d det(A) / dA, the cofactors (reference/linear_algebra.hpp).
template <std::size_t N>
mat<N> cofactors(const mat<N>& a) {
  return la::to_mat<N, N>(la::ld_cofactors(la::to_ld(a)));
}

}  // namespace

TEST_CASE("the sum of A(i, k) A(k, j) by index: 8, 64 and 512 terms") {
  check_square_fold<2>("A(i, k) A(k, j)", products_by_index<2>, sum_of_square, products_gradient<2>, 3501, 5);
  check_square_fold<4>("A(i, k) A(k, j)", products_by_index<4>, sum_of_square, products_gradient<4>, 3502, 5);
  check_square_fold<8>("A(i, k) A(k, j)", products_by_index<8>, sum_of_square, products_gradient<8>, 3503, 1);
}

TEST_CASE("the determinant by minors, through A(i, j), against tl::det") {
  const mat<4> a{{2, -1, 0, 3}, {1, 4, -2, 0}, {0, 1, 3, -1}, {5, 0, 1, 2}};
  CHECK(det_by_minors(a) == doctest::Approx(tl::det(a)).epsilon(1e-14));  // of plain numbers: a number
  check_square_fold<2>("det by minors", det_by_minors, det, cofactors<2>, 3504, 5);
  check_square_fold<3>("det by minors", det_by_minors, det, cofactors<3>, 3505, 5);
  check_square_fold<4>("det by minors", det_by_minors, det, cofactors<4>, 3506, 5);
}

TEST_CASE("rows, columns and a let name's elements by index: 16 elements") { check_matrix_folds<4, 4>(3507, 5); }
TEST_CASE("rows, columns and a let name's elements by index: 64 elements") { check_matrix_folds<16, 4>(3508, 3); }
TEST_CASE("rows, columns and a let name's elements by index: 300 elements") { check_matrix_folds<75, 4>(3509, 1); }
