// SPDX-License-Identifier: BSL-1.0
// Reductions composed with matmul: the seed check, the gradient of a vector argument,
// log_sum_exp(W x + b) and det(A A^T) at every shape, the logistic loss.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <matrix_check.hpp>
#include <reduction_check.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tl = tapeless;
using reduction_check::exact_tol;
using reduction_check::fd_tol;

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
