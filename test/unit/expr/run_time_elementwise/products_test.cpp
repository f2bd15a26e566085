// SPDX-License-Identifier: BSL-1.0
// tl::matmul of two arrays of run-time extents, either of them transposed (ops/products.hpp, line_dot;
// adjoint/structured.hpp, scaled_line; transforms/run_time_reduction.hpp): against the fixed-shape twin
// at the same values for tl::dynamic, tl::bounded and one fixed extent, shapes 1 x 1 x 1 to 9 x 3 x 33;
// S7, sum(A A), at n = 1, 2, 8 and 33 against central differences at seeded points; plain values; the
// shape error; tl::hessian, tl::jacobian and tl::jvp, with data beside dual numbers; a bounded matrix
// without allocation and in a constant expression; the refusal of a formula operand is
// test/compile_fail/matmul_run_time_formula.cpp.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <run_time_twin.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

using dynamic_matrix = tl::matrix<double, tl::dynamic, tl::dynamic>;

using run_time_twin::check_elements_against_twin;
using run_time_twin::copy_of;
using run_time_twin::drawn;

/// Products of X (R x K) and Y (K x C), of each with itself through a transpose, and formulas over them:
/// reductions, elementwise operations, element access; the sums and means of products themselves (a
/// sum over the inner index), either operand transposed.
constexpr auto model = [](const auto& X, const auto& Y, const auto& a) {
  const auto XY = tl::matmul(X, Y);
  const std::size_t r = XY.rows() - 1, c = XY.cols() - 1;
  return a * tl::sum(XY) + tl::sum(tl::tanh(XY)) + tl::sum(tl::square(tl::matmul(tl::transpose(X), X))) +
         tl::sum(tl::exp(0.1 * tl::matmul(Y, tl::transpose(Y)))) + XY(r, c) * a +
         tl::trace(tl::matmul(X, tl::transpose(X))) + tl::sum(tl::sin(tl::matmul(tl::transpose(Y), tl::transpose(X)))) +
         tl::mean(tl::matmul(tl::transpose(Y), tl::transpose(X))) * a + tl::sum(tl::matmul(tl::transpose(X), X));
};

template <class MX, class MY, class FX, class FY>
void check_twin(const FX& Xf, const FY& Yf) {
  const auto X = copy_of<MX>(Xf);
  const auto Y = copy_of<MY>(Yf);
  // X differentiated, Y data; then Y differentiated, X data: one sum differentiates one array of
  // run-time extents.
  const auto [value, gx] = tl::value_and_grad<0, 2>(model)(X, Y, 0.75);
  const auto [fixed_value, fixed_gx] = tl::value_and_grad<0, 2>(model)(Xf, Yf, 0.75);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(gx))>, MX>);
  CHECK(fd::rel_error(value, fixed_value) < 1e-13);
  CHECK(fd::rel_error(std::get<1>(gx), std::get<1>(fixed_gx)) < 1e-13);
  check_elements_against_twin(std::get<0>(gx), std::get<0>(fixed_gx));
  const auto gy = tl::grad<1>(model)(X, Y, 0.75);
  const auto fixed_gy = tl::grad<1>(model)(Xf, Yf, 0.75);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(gy)>, MY>);
  check_elements_against_twin(gy, fixed_gy);
  CHECK(fd::rel_error(model(X, Y, 0.75), value) < 1e-13);  // f of plain values
}

template <std::size_t R, std::size_t K, std::size_t C>
void check_against_fixed_twin() {
  CAPTURE(R);
  CAPTURE(K);
  CAPTURE(C);
  const auto Xf = drawn<tl::matrix<double, R, K>>(10 + R * K);
  const auto Yf = drawn<tl::matrix<double, K, C>>(20 + K * C);
  check_twin<dynamic_matrix, dynamic_matrix>(Xf, Yf);
  check_twin<tl::matrix<double, tl::dynamic, K>, dynamic_matrix>(Xf, Yf);  // fixed inner extent
  check_twin<dynamic_matrix, tl::matrix<double, K, tl::dynamic>>(Xf, Yf);
  if constexpr (R <= 9 && K <= 9 && C <= 9)
    check_twin<tl::matrix<double, tl::bounded<9>, tl::bounded<9>>, tl::matrix<double, tl::bounded<9>, tl::bounded<9>>>(
        Xf, Yf);
}

}  // namespace

TEST_CASE("products of two arrays of run-time extents, either transposed, against their fixed-shape twin") {
  check_against_fixed_twin<1, 1, 1>();
  check_against_fixed_twin<2, 3, 4>();
  check_against_fixed_twin<8, 8, 8>();
  check_against_fixed_twin<9, 3, 33>();
  check_against_fixed_twin<3, 33, 2>();
}

TEST_CASE("S7, sum(A A) of a square array of run-time size: central differences and the exact form") {
  const auto s7 = [](const auto& A) { return tl::sum(tl::matmul(A, A)); };
  for (const std::size_t n : {1, 2, 8, 33}) {
    CAPTURE(n);
    dynamic_matrix A(n, n);
    fd::rng u(40 + n);
    for (double& e : A) e = u.uniform(-1.0, 1.0);
    const auto [value, g] = tl::value_and_grad(s7)(A);
    // sum(A A) = sum over i, j, c of A(i, c) A(c, j); d/dA(p, q) = (column sums)[p] + (row sums)[q].
    double exact_value = 0.0;
    for (std::size_t c = 0; c < n; ++c) {
      double column = 0.0, row = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        column += A(i, c);
        row += A(c, i);
      }
      exact_value += column * row;
    }
    CHECK(fd::rel_error(value, exact_value) < 1e-13);
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t q = 0; q < n; ++q) {
        CAPTURE(p);
        CAPTURE(q);
        double column_p = 0.0, row_q = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
          column_p += A(i, p);
          row_q += A(q, i);
        }
        CHECK(fd::rel_error(g(p, q), column_p + row_q) < 1e-13);
        CHECK(fd::rel_error(g(p, q), fd::partial(s7, A, p * n + q)) < 1e-7);
      }
  }
}

TEST_CASE("plain values: the product's elements, its sum, and no elements") {
  const auto Xf = drawn<tl::matrix<double, 3, 4>>(50);
  const auto Yf = drawn<tl::matrix<double, 4, 2>>(51);
  const auto X = copy_of<dynamic_matrix>(Xf);
  const auto Y = copy_of<dynamic_matrix>(Yf);
  const auto XYf = tl::matmul(Xf, Yf);
  const auto XY = tl::matmul(X, Y);
  CHECK(XY.rows() == 3);
  CHECK(XY.cols() == 2);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 2; ++j) CHECK(fd::rel_error(XY(i, j), XYf(i, j)) < 1e-15);
  CHECK(fd::rel_error(tl::sum(XY), tl::sum(XYf)) < 1e-14);
  CHECK(fd::rel_error(tl::matmul(tl::transpose(Y), tl::transpose(X))(1, 2), XYf(2, 1)) < 1e-15);
  // An inner extent of 0: every element is an empty sum.
  const dynamic_matrix wide(2, 0), tall(0, 3);
  CHECK(tl::sum(tl::matmul(wide, tall)) == 0.0);
  const auto g = tl::grad([&tall](const auto& A) { return tl::sum(tl::exp(tl::matmul(A, tl::cref(tall)))); })(wide);
  CHECK(g.rows() == 2);
  CHECK(g.cols() == 0);
}

TEST_CASE("shapes that do not fit throw std::invalid_argument naming both") {
  const dynamic_matrix X(2, 3), Y(2, 3);
  CHECK_THROWS_WITH_AS(tl::grad([&Y](const auto& M) { return tl::sum(tl::matmul(M, tl::cref(Y))); })(X),
                       "tl::matmul(A, B): A is 2 x 3 and B 2 x 3; A's columns must be B's rows", std::invalid_argument);
  CHECK_THROWS_WITH_AS(tl::grad([](const auto& M) { return tl::sum(tl::matmul(M, M)); })(X),
                       "tl::matmul(A, B): A is 2 x 3 and B 2 x 3; A's columns must be B's rows", std::invalid_argument);
  CHECK_NOTHROW(tl::grad([](const auto& M) { return tl::sum(tl::matmul(M, tl::transpose(M))); })(X));
}

TEST_CASE("tl::hessian, tl::jacobian and tl::jvp through products of arrays of run-time extents") {
  const auto Af = drawn<tl::matrix<double, 2, 2>>(60);
  const auto A = copy_of<dynamic_matrix>(Af);
  // Data of run-time extents beside the dual numbers of forward mode: multiplied as it is, not lifted.
  const auto Bf = drawn<tl::matrix<double, 2, 2>>(61);
  const auto B = copy_of<dynamic_matrix>(Bf);
  const auto with_data = [](const auto& data) {
    return [&data](const auto& M) {
      return tl::sum(tl::exp(tl::matmul(tl::cref(data), M))) + tl::sum(tl::matmul(M, tl::cref(data))) +
             tl::matmul(tl::transpose(M), tl::cref(data))(1, 0);
    };
  };
  const auto HB = tl::hessian(with_data(B))(A);
  const auto HBf = tl::hessian(with_data(Bf))(Af);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) CHECK(fd::rel_error(HB(i, j), HBf(i, j)) < 1e-14);
  const auto [value, along] = tl::jvp(with_data(B), std::tuple{A}, std::tuple{B});
  const auto [fixed_value, fixed_along] = tl::jvp(with_data(Bf), std::tuple{Af}, std::tuple{Bf});
  CHECK(fd::rel_error(value, fixed_value) < 1e-14);
  CHECK(fd::rel_error(along, fixed_along) < 1e-14);
  const auto f = [](const auto& M) {
    return tl::sum(tl::square(tl::matmul(M, M))) + tl::trace(tl::matmul(tl::transpose(M), M));
  };
  const auto H = tl::hessian(f)(A);
  const auto Hf = tl::hessian(f)(Af);
  const tl::vector<double, 3> xf{0.5, -1.0, 2.0};
  const auto x = copy_of<tl::vector<double, tl::dynamic>>(xf);
  const auto g = [](const auto& v) { return tl::exp(tl::matmul(v, tl::transpose(v))) * 0.5; };
  const auto J = tl::jacobian(g)(x);
  const auto Jf = tl::jacobian(g)(xf);
  REQUIRE(H.rows() == 4);
  REQUIRE(J.rows() == 9);
  REQUIRE(J.cols() == 3);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) CHECK(fd::rel_error(H(i, j), Hf(i, j)) < 1e-14);
  for (std::size_t i = 0; i < 9; ++i)
    for (std::size_t j = 0; j < 3; ++j) CHECK(fd::rel_error(J(i, j), Jf(i, j)) < 1e-14);
}

TEST_CASE("a bounded matrix: no allocation, and the gradient in a constant expression") {
  using bounded_matrix = tl::matrix<double, tl::bounded<4>, tl::bounded<4>>;
  const auto f = [](const auto& X) { return tl::sum(tl::matmul(X, X)) + tl::trace(tl::matmul(tl::transpose(X), X)); };
  const bounded_matrix X{{1.0, 2.0}, {3.0, 4.0}};
  CHECK(test_support::allocations_during([&] { (void)tl::grad(f)(X); }) == 0);
  constexpr auto g = [] {
    return tl::grad([](const auto& X) {
      return tl::sum(tl::matmul(X, X)) + tl::trace(tl::matmul(tl::transpose(X), X));
    })(bounded_matrix{{1.0, 2.0}, {3.0, 4.0}});
  }();
  // d/dX sum(X X) (p, q) = column sum p + row sum q; d/dX tr(XᵀX) = 2 X.
  static_assert(g(0, 0) == 4.0 + 3.0 + 2.0 && g(0, 1) == 4.0 + 7.0 + 4.0 && g(1, 0) == 6.0 + 3.0 + 6.0 &&
                g(1, 1) == 6.0 + 7.0 + 8.0);
}
