// SPDX-License-Identifier: BSL-1.0
// det, inverse, log_det, solve and cholesky (ops/factorisations.hpp): each gradient against central
// finite differences and the closed form in long double (test/support/reference/linear_algebra.hpp), on
// seeded random inputs at 1 x 1 to 4 x 4; and cholesky reading only the lower triangle.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <linear_algebra_check.hpp>

#include <cstddef>
#include <cstdint>

namespace tl = tapeless;
using namespace la;  // the checks and long double references of test/support

TEST_CASE("det: gradient is the cofactor matrix") {
  check_det<1>(751);
  check_det<2>(752);
  check_det<3>(753);
  check_det<4>(754);
  check_det<5>(755);
}

TEST_CASE("inverse: gradient -A^-T G A^-T") {
  check_inverse<1>(761);
  check_inverse<2>(762);
  check_inverse<3>(763);
  check_inverse<4>(764);
  check_inverse<5>(765);
}

TEST_CASE("log_det: gradient A^-1 of a symmetric positive-definite A") {
  check_log_det<1>(771);
  check_log_det<2>(772);
  check_log_det<3>(773);
  check_log_det<4>(774);
  check_log_det<5>(775);
}

TEST_CASE("solve: gradients -A^-T G x^T and A^-T G, for vector and matrix right-hand sides") {
  check_solve<1, 1>(781);
  check_solve<2, 1>(782);
  check_solve<3, 1>(783);
  check_solve<4, 1>(784);
  check_solve<3, 2>(785);
  check_solve<2, 4>(786);
  check_solve<1, 3>(787);
  check_solve<5, 1>(788);
  check_solve<5, 3>(789);
}

TEST_CASE("cholesky: L L^T = A, and the gradient of the function of A's lower triangle") {
  check_cholesky<1>(791);
  check_cholesky<2>(792);
  check_cholesky<3>(793);
  check_cholesky<4>(794);
  check_cholesky<5>(796);
}

TEST_CASE("cholesky: the strict upper triangle is not read, and its gradient is 0") {
  fd::rng r{795};
  for (int p = 0; p < points; ++p) {
    auto a = random_spd<3>(r);
    const auto w = random_matrix<3, 3>(r);
    const auto f = [&w](const auto& x) { return weighted(w, tl::cholesky(x)); };
    const mat<3> g = tl::grad(f)(a);
    CHECK(g(0, 1) == 0.0);
    CHECK(g(0, 2) == 0.0);
    CHECK(g(1, 2) == 0.0);
    mat<3> garbled = a;  // another upper triangle: the same factor and gradient
    garbled(0, 1) = 100.0;
    garbled(1, 2) = -7.0;
    CHECK(tl::cholesky(garbled) == tl::cholesky(a));
    CHECK(tl::grad(f)(garbled) == g);
    // A symmetric perturbation E sees the same derivative as the symmetric convention (S + S^T) / 2:
    // <g, E> equals the finite difference of f along E.
    mat<3> e = random_matrix<3, 3>(r);
    e = e + tl::transpose(e);
    const double along = fd::derivative([&](double t) { return static_cast<double>(f(a + e * t)); }, 0.0);
    double predicted = 0.0;
    for (std::size_t i = 0; i < 9; ++i) predicted += g[i] * e[i];
    CHECK(fd::rel_error(predicted, along) < fd_tol);
  }
}
