// SPDX-License-Identifier: BSL-1.0
// tl::matmul by a matrix of fixed shape on either side, tl::transpose, tl::diag, tl::trace, tl::outer and
// tl::reshape<R, C> of arrays of run-time extents (expr/run_time_elementwise.hpp, ops/products.hpp,
// ops/shape.hpp, transforms/run_time_reduction.hpp): against the fixed-shape twin at the same values for
// tl::dynamic, tl::bounded and one fixed extent, shapes 1 x 1 to 33 x 3; central differences at seeded
// points; every shape error; tl::hessian and tl::jacobian; a bounded matrix without allocation and in a
// constant expression.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <run_time_twin.hpp>

#include <cstddef>
#include <stdexcept>
#include <type_traits>

namespace tl = tapeless;

namespace {

using run_time_twin::check_elements_against_twin;
using run_time_twin::copy_of;
using run_time_twin::drawn;

/// Every operation on an R x C argument X, with fixed W (C x 2), L (2 x R), w (C) and a column u (2):
/// products of X and of formulas over it (their dot products as sums of R or C terms) on either side.
template <std::size_t R, std::size_t C>
auto model() {
  return [](const auto& X, const auto& a) {
    const auto W = drawn<tl::matrix<double, C, 2>>(1);
    const auto L = drawn<tl::matrix<double, 2, R>>(2);
    const auto w = drawn<tl::vector<double, C>>(3);
    const tl::vector<double, 2> u{0.5, -1.0};
    const auto XW = tl::matmul(X, W);
    return tl::sum(tl::square(XW)) + a * tl::sum(tl::sin(tl::matmul(L, X))) + tl::sum(tl::tanh(tl::matmul(X, w))) +
           tl::sum(tl::transpose(X) * tl::transpose(a * X)) + tl::sum(tl::exp(tl::reshape<C, R>(X))) +
           tl::sum(tl::outer(tl::matmul(X, w), u) * 2.0) + tl::sum(tl::square(tl::outer(u, tl::matmul(X, w)))) +
           tl::transpose(XW)(1, R - 1) * tl::matmul(L, X)(1, C - 1) + tl::sum(tl::cos(tl::matmul(L, a * X))) +
           tl::sum(tl::matmul(tl::exp(X), W));
  };
}

/// The same for a square N x N argument: trace and diag both ways.
template <std::size_t N>
auto square_model() {
  return [](const auto& X, const auto& a) {
    const auto W = drawn<tl::matrix<double, N, N>>(4);
    return tl::trace(tl::matmul(X, W)) * a + tl::sum(tl::exp(tl::diag(X))) + tl::trace(X * X) +
           tl::sum(tl::square(tl::diag(tl::diag(tl::transpose(X))))) + tl::diag(a * X)[N - 1];
  };
}

template <class Model, class F, class M>
void check_twin(const Model& f, const F& Xf, const M& X) {
  const auto [value, g] = tl::value_and_grad(f)(X, 0.75);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(f)(Xf, 0.75);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(g))>, M>);
  CHECK(fd::rel_error(value, fixed_value) < 1e-13);
  CHECK(fd::rel_error(std::get<1>(g), std::get<1>(fixed_g)) < 1e-13);
  check_elements_against_twin(std::get<0>(g), std::get<0>(fixed_g));
  CHECK(fd::rel_error(f(X, 0.75), value) < 1e-13);  // f of plain values
}

template <std::size_t R, std::size_t C>
void check_against_fixed_twin() {
  CAPTURE(R);
  CAPTURE(C);
  const auto Xf = drawn<tl::matrix<double, R, C>>(10 + R * C);
  check_twin(model<R, C>(), Xf, copy_of<tl::matrix<double, tl::dynamic, tl::dynamic>>(Xf));
  if constexpr (R == C) {
    check_twin(square_model<R>(), Xf, copy_of<tl::matrix<double, tl::dynamic, tl::dynamic>>(Xf));
    check_twin(square_model<R>(), Xf, copy_of<tl::matrix<double, tl::bounded<4>, tl::bounded<4>>>(Xf));
  } else {  // the other extent kinds: a fixed number of columns, bounds
    check_twin(model<R, C>(), Xf, copy_of<tl::matrix<double, tl::dynamic, C>>(Xf));
    check_twin(model<R, C>(), Xf, copy_of<tl::matrix<double, tl::bounded<40>, tl::bounded<4>>>(Xf));
  }
}

}  // namespace

TEST_CASE("matmul by fixed matrices, transpose, diag, trace, outer and reshape against their fixed-shape twin") {
  check_against_fixed_twin<1, 1>();
  check_against_fixed_twin<2, 3>();
  check_against_fixed_twin<4, 4>();
  check_against_fixed_twin<33, 3>();
}

TEST_CASE("the fixed matrices of the products differentiated beside the array of run-time extents") {
  const auto f = [](const auto& X, const auto& W, const auto& L) {
    return tl::sum(tl::square(tl::matmul(X, W))) + tl::sum(tl::cos(tl::matmul(L, X))) +
           tl::sum(tl::matmul(L, tl::exp(X))) + tl::sum(tl::sin(tl::matmul(0.5 * X, W)));
  };
  const auto Xf = drawn<tl::matrix<double, 33, 3>>(20);
  const auto Wf = drawn<tl::matrix<double, 3, 2>>(21);
  const auto Lf = drawn<tl::matrix<double, 2, 33>>(22);
  const auto X = copy_of<tl::matrix<double, tl::dynamic, tl::dynamic>>(Xf);
  const auto [value, g] = tl::value_and_grad(f)(X, Wf, Lf);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(f)(Xf, Wf, Lf);
  CHECK(fd::rel_error(value, fixed_value) < 1e-13);
  for (std::size_t k = 0; k < Xf.size(); ++k)
    CHECK(fd::rel_error(std::get<0>(g).data()[k], std::get<0>(fixed_g)[k]) < 1e-13);
  for (std::size_t k = 0; k < Wf.size(); ++k) CHECK(fd::rel_error(std::get<1>(g)[k], std::get<1>(fixed_g)[k]) < 1e-13);
  for (std::size_t k = 0; k < Lf.size(); ++k) CHECK(fd::rel_error(std::get<2>(g)[k], std::get<2>(fixed_g)[k]) < 1e-13);
}

TEST_CASE("diag of a vector of run-time size and outer of two: the fixed twin, central differences, elements") {
  const tl::vector<double, 5> vf{0.3, -1.2, 0.7, 2.0, -0.4};
  const auto v = copy_of<tl::vector<double, tl::dynamic>>(vf);
  const tl::vector<double, 3> c{1.0, -2.0, 0.5};
  const auto V = drawn<tl::matrix<double, 5, 2>>(5);
  const auto f = [&c, &V](const auto& x, const auto& a) {
    return tl::sum(tl::sin(tl::diag(x) * a)) + tl::sum(tl::exp(tl::outer(x, c))) +
           tl::diag(x)(2, 2) * tl::diag(x)(1, 2) + tl::sum(tl::square(tl::matmul(tl::transpose(x), V)));
  };
  check_twin(f, vf, v);
  const auto [gx, ga] = tl::grad(f)(v, 0.6);
  for (std::size_t k = 0; k < 5; ++k) {
    CAPTURE(k);
    CHECK(fd::rel_error(gx[k], fd::partial([&](const tl::vector<double, tl::dynamic>& x) { return f(x, 0.6); }, v, k)) <
          1e-7);
  }
  CHECK(fd::rel_error(ga, fd::derivative([&](double b) { return f(v, b); }, 0.6)) < 1e-7);
  // Plain values: the formulas' elements.
  CHECK(tl::diag(v)(3, 3) == 2.0);
  CHECK(tl::diag(v)(3, 2) == 0.0);
  CHECK(tl::transpose(v)(0, 1) == -1.2);
  CHECK(tl::outer(v, c)(1, 1) == 2.4);
  CHECK(tl::diag(v).rows() == 5);
  CHECK(tl::diag(v).cols() == 5);
  // No elements: 0 x 0.
  const tl::vector<double, tl::dynamic> none(0);
  CHECK(tl::sum(tl::diag(none)) == 0.0);
  CHECK(tl::grad([](const auto& x) { return tl::sum(tl::exp(tl::diag(x))); })(none).size() == 0);
}

TEST_CASE("shapes that do not fit throw std::invalid_argument naming both") {
  const tl::matrix<double, tl::dynamic, tl::dynamic> X(2, 3);
  const tl::matrix<double, 4, 2> W{};
  const tl::matrix<double, 2, 2> L{};
  CHECK_THROWS_WITH_AS(tl::grad([&W](const auto& M) { return tl::sum(tl::matmul(M, W)); })(X),
                       "tl::matmul(A, B): A is 2 x 3 and B 4 x 2; A's columns must be B's rows", std::invalid_argument);
  CHECK_THROWS_WITH_AS(tl::grad([&L](const auto& M) { return tl::sum(tl::matmul(L, tl::transpose(M))); })(X),
                       "tl::matmul(A, B): A is 2 x 2 and B 3 x 2; A's columns must be B's rows", std::invalid_argument);
  CHECK_THROWS_WITH_AS(tl::grad([](const auto& M) { return tl::trace(M); })(X), "tl::trace(A): A is 2 x 3, not square",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(tl::grad([](const auto& M) { return tl::sum(tl::diag(M)); })(X),
                       "tl::diag(A): A is 2 x 3, not square; its diagonal is that of a square matrix",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(tl::grad([](const auto& M) { return tl::sum(tl::reshape<5, 1>(M)); })(X),
                       "tl::reshape<R, C>(A): A has 6 elements and 5 x 1 holds 5", std::invalid_argument);
  CHECK_NOTHROW(tl::grad([](const auto& M) { return tl::sum(tl::reshape<3, 2>(M)); })(X));
}

TEST_CASE("a bounded matrix: no allocation, and the gradient in a constant expression") {
  using bounded_matrix = tl::matrix<double, tl::bounded<4>, tl::bounded<4>>;
  const tl::matrix<double, 2, 2> W{{1.0, 2.0}, {3.0, 4.0}};
  const auto f = [&W](const auto& X) {
    return tl::trace(tl::matmul(X, W)) + tl::sum(tl::matmul(W, tl::transpose(X))) + tl::sum(tl::diag(X));
  };
  const bounded_matrix X{{1.0, 2.0}, {3.0, 4.0}};
  CHECK(test_support::allocations_during([&] { (void)tl::grad(f)(X); }) == 0);
  constexpr auto g = [] {
    const tl::matrix<double, 2, 2> V{{1.0, 2.0}, {3.0, 4.0}};
    return tl::grad([&V](const auto& X) { return tl::trace(tl::matmul(X, V)) + tl::sum(tl::diag(X)); })(
        bounded_matrix{{1.0, 2.0}, {3.0, 4.0}});
  }();
  // d/dX tr(X V) = Vᵀ; d/dX sum(diag X) = I.
  static_assert(g(0, 0) == 2.0 && g(0, 1) == 3.0 && g(1, 0) == 2.0 && g(1, 1) == 5.0);
}

TEST_CASE("tl::hessian and tl::jacobian through comparisons, elements, products and rearrangements") {
  const tl::vector<double, tl::dynamic> x{0.5, -1.0, 2.0};
  const tl::vector<double, 3> xf{0.5, -1.0, 2.0};
  const tl::matrix<double, 3, 2> W{{1.0, 2.0}, {0.5, -1.0}, {0.3, 0.2}};
  const auto f = [&W](const auto& v) {
    return tl::sum(tl::if_else(v > 0.0, tl::square(v), tl::exp(v))) + tl::log_softmax(v)[1] +
           tl::sum(tl::tanh(tl::matmul(tl::transpose(v), W))) + tl::trace(tl::outer(v, v));
  };
  const auto H = tl::hessian(f)(x);
  const auto Hf = tl::hessian(f)(xf);
  const auto g = [](const auto& v) {
    return tl::if_else(v > 0.0, tl::square(v), -v) + tl::matmul(tl::diag(v), tl::vector<double, 3>{1.0, 2.0, 3.0});
  };
  const auto J = tl::jacobian(g)(x);
  const auto Jf = tl::jacobian(g)(xf);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK(fd::rel_error(H(i, j), Hf(i, j)) < 1e-14);
      CHECK(fd::rel_error(J(i, j), Jf(i, j)) < 1e-14);
    }
}

TEST_CASE("a network of two layers over a batch of run-time size: the fixed twin's value and gradients") {
  constexpr std::size_t n = 33, d = 4, h = 6;
  const auto Xf = drawn<tl::matrix<double, n, d>>(30);
  const auto yf = drawn<tl::vector<double, n>>(31);
  const auto X = copy_of<tl::matrix<double, tl::dynamic, tl::dynamic>>(Xf);
  const auto y = copy_of<tl::vector<double, tl::dynamic>>(yf);
  const auto W1 = drawn<tl::matrix<double, d, h>>(32);
  const auto b1 = drawn<tl::matrix<double, 1, h>>(33);
  const auto W2 = drawn<tl::vector<double, h>>(34);
  const auto loss = [](const auto& data, const auto& target) {
    return [&data, &target](const auto& w1, const auto& bias, const auto& w2) {
      const auto hidden = tl::tanh(tl::matmul(tl::cref(data), w1) + bias);  // the bias row repeats
      return tl::mean(tl::square(tl::matmul(hidden, w2) - tl::cref(target)));
    };
  };
  const auto [value, g] = tl::value_and_grad(loss(X, y))(W1, b1, W2);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(loss(Xf, yf))(W1, b1, W2);
  CHECK(fd::rel_error(value, fixed_value) < 1e-13);
  for (std::size_t k = 0; k < d * h; ++k) CHECK(fd::rel_error(std::get<0>(g)[k], std::get<0>(fixed_g)[k]) < 1e-13);
  for (std::size_t k = 0; k < h; ++k) {
    CHECK(fd::rel_error(std::get<1>(g)[k], std::get<1>(fixed_g)[k]) < 1e-13);
    CHECK(fd::rel_error(std::get<2>(g)[k], std::get<2>(fixed_g)[k]) < 1e-13);
  }
}
