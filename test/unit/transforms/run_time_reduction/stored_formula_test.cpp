// SPDX-License-Identifier: BSL-1.0
// tl::matmul of two arrays of run-time extents where one is a formula (transforms/run_time_reduction.hpp,
// stored_formula): a network of two layers of run-time width against its fixed-shape twin at the same
// values and against central differences; a formula on either side and on both; a formula of data alone;
// Eigen matrices; tl::jvp and tl::hessian through it; the shape error before anything is evaluated.
#include <doctest/doctest.h>
#include <tapeless/interop/eigen.hpp>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <run_time_twin.hpp>

#include <Eigen/Core>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

using run_time_twin::dynamic_vector;
using run_time_twin::seeded;
using dynamic_matrix = tl::matrix<double, tl::dynamic, tl::dynamic>;

/// Two layers over data x: sum((W2 tanh(W1 x + b1) - y)^2) + s sum(b1): the second product's right
/// operand a formula over W1 and b1.
template <class X, class Y>
auto network(const X& x, const Y& y) {
  return [&x, &y](const auto& w1, const auto& b1, const auto& w2, const auto& s) {
    const auto hidden = tl::tanh(tl::matmul(w1, tl::cref(x)) + b1);
    return tl::sum(tl::square(tl::matmul(w2, hidden) - tl::cref(y))) + s * tl::sum(b1);
  };
}

template <std::size_t H, std::size_t N, std::size_t O>
void check_network_against_twin() {
  CAPTURE(H);
  CAPTURE(N);
  CAPTURE(O);
  const auto w1f = run_time_twin::drawn<tl::matrix<double, H, N>>(1 + H);
  const auto w2f = run_time_twin::drawn<tl::matrix<double, O, H>>(2 + O);
  const auto b1f = run_time_twin::drawn<tl::vector<double, H>>(3 + H);
  const auto xf = run_time_twin::drawn<tl::vector<double, N>>(4 + N);
  const auto yf = run_time_twin::drawn<tl::vector<double, O>>(5 + O);
  const auto w1 = run_time_twin::copy_of<dynamic_matrix>(w1f), w2 = run_time_twin::copy_of<dynamic_matrix>(w2f);
  const auto b1 = run_time_twin::copy_of<dynamic_vector>(b1f), x = run_time_twin::copy_of<dynamic_vector>(xf),
             y = run_time_twin::copy_of<dynamic_vector>(yf);
  const auto [value, g] = tl::value_and_grad(network(x, y))(w1, b1, w2, 0.3);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(network(xf, yf))(w1f, b1f, w2f, 0.3);
  CHECK(fd::rel_error(value, fixed_value) < 1e-13);
  run_time_twin::check_elements_against_twin(std::get<0>(g), std::get<0>(fixed_g));
  run_time_twin::check_elements_against_twin(std::get<1>(g), std::get<1>(fixed_g));
  run_time_twin::check_elements_against_twin(std::get<2>(g), std::get<2>(fixed_g));
  CHECK(fd::rel_error(std::get<3>(g), std::get<3>(fixed_g)) < 1e-13);
  CHECK(fd::rel_error(network(x, y)(w1, b1, w2, 0.3), value) < 1e-13);
}

TEST_CASE("two layers of run-time width: the fixed-shape twin") {
  check_network_against_twin<1, 1, 1>();
  check_network_against_twin<8, 5, 3>();
  check_network_against_twin<33, 8, 2>();
}

TEST_CASE("two layers of run-time width: central differences at seeded points") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    const std::size_t h = 2 + seed, n = 3, o = 2;
    const auto x = seeded<dynamic_vector>(n, 10 * seed), y = seeded<dynamic_vector>(o, 11 * seed);
    const auto b1 = seeded<dynamic_vector>(h, 12 * seed);
    auto w1 = dynamic_matrix(h, n), w2 = dynamic_matrix(o, h);
    const auto w1v = seeded<dynamic_vector>(h * n, 13 * seed), w2v = seeded<dynamic_vector>(o * h, 14 * seed);
    for (std::size_t k = 0; k < h * n; ++k) w1.data()[k] = w1v[k];
    for (std::size_t k = 0; k < o * h; ++k) w2.data()[k] = w2v[k];
    const auto f = network(x, y);
    const auto g = tl::grad(f)(w1, b1, w2, 0.3);
    for (std::size_t k = 0; k < w1.size(); ++k)
      CHECK(fd::rel_error(std::get<0>(g).data()[k],
                          fd::partial([&](const auto& v) { return f(v, b1, w2, 0.3); }, w1, k)) < 1e-8);
    for (std::size_t k = 0; k < h; ++k)
      CHECK(fd::rel_error(std::get<1>(g)[k], fd::partial([&](const auto& v) { return f(w1, v, w2, 0.3); }, b1, k)) <
            1e-8);
    for (std::size_t k = 0; k < w2.size(); ++k)
      CHECK(fd::rel_error(std::get<2>(g).data()[k],
                          fd::partial([&](const auto& v) { return f(w1, b1, v, 0.3); }, w2, k)) < 1e-8);
  }
}

/// A formula on the left, on the right, on both sides, and one of data alone, each against the twin.
template <class Data>
auto products(const Data& c) {
  return [&c](const auto& a, const auto& b) {
    // a: 5 x 3, b: 3 x 5, c: 4 x 3
    return tl::sum(tl::matmul(tl::exp(0.3 * a), b)) + tl::sum(tl::square(tl::matmul(a, tl::sin(b)))) +
           tl::sum(tl::matmul(tl::transpose(tl::square(a)), tl::cos(tl::transpose(b)))) +
           tl::sum(tl::matmul(tl::exp(tl::cref(c)), tl::transpose(a)));
  };
}

TEST_CASE("a formula on either side of a product, on both, and a formula of data: the fixed-shape twin") {
  const auto af = run_time_twin::drawn<tl::matrix<double, 5, 3>>(21);
  const auto bf = run_time_twin::drawn<tl::matrix<double, 3, 5>>(22);
  const auto cf = run_time_twin::drawn<tl::matrix<double, 4, 3>>(23);
  const auto a = run_time_twin::copy_of<dynamic_matrix>(af), b = run_time_twin::copy_of<dynamic_matrix>(bf),
             c = run_time_twin::copy_of<dynamic_matrix>(cf);
  const auto [value, g] = tl::value_and_grad(products(c))(a, b);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(products(cf))(af, bf);
  CHECK(fd::rel_error(value, fixed_value) < 1e-13);
  run_time_twin::check_elements_against_twin(std::get<0>(g), std::get<0>(fixed_g));
  run_time_twin::check_elements_against_twin(std::get<1>(g), std::get<1>(fixed_g));
  CHECK(fd::rel_error(products(c)(a, b), value) < 1e-13);
}

TEST_CASE("two layers over Eigen matrices: tl::dynamic's gradient bit for bit") {
  const std::size_t h = 6, n = 4, o = 3;
  const auto x = seeded<dynamic_vector>(n, 31), y = seeded<dynamic_vector>(o, 32), b1 = seeded<dynamic_vector>(h, 33);
  const auto w1v = seeded<dynamic_vector>(h * n, 34), w2v = seeded<dynamic_vector>(o * h, 35);
  dynamic_matrix w1(h, n), w2(o, h);
  Eigen::MatrixXd e1(h, n), e2(o, h);  // column-major
  for (std::size_t i = 0; i < h; ++i)
    for (std::size_t j = 0; j < n; ++j) w1(i, j) = e1(Eigen::Index(i), Eigen::Index(j)) = w1v[i * n + j];
  for (std::size_t i = 0; i < o; ++i)
    for (std::size_t j = 0; j < h; ++j) w2(i, j) = e2(Eigen::Index(i), Eigen::Index(j)) = w2v[i * h + j];
  const auto g = tl::grad(network(x, y))(w1, b1, w2, 0.3);
  const auto ge = tl::grad(network(x, y))(e1, b1, e2, 0.3);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(ge))>, Eigen::MatrixXd>);
  for (std::size_t i = 0; i < h; ++i)
    for (std::size_t j = 0; j < n; ++j)
      CHECK(std::get<0>(ge)(Eigen::Index(i), Eigen::Index(j)) == std::get<0>(g)(i, j));
  for (std::size_t i = 0; i < o; ++i)
    for (std::size_t j = 0; j < h; ++j)
      CHECK(std::get<2>(ge)(Eigen::Index(i), Eigen::Index(j)) == std::get<2>(g)(i, j));
  for (std::size_t i = 0; i < h; ++i) CHECK(std::get<1>(ge)[i] == std::get<1>(g)[i]);
}

TEST_CASE("tl::jvp through a held formula: the gradient's product") {
  const std::size_t h = 5, n = 3, o = 2;
  const auto x = seeded<dynamic_vector>(n, 41), y = seeded<dynamic_vector>(o, 42);
  dynamic_matrix w1(h, n), w2(o, h);
  for (std::size_t k = 0; k < w1.size(); ++k) w1.data()[k] = 0.1 * double(k) - 0.5;
  for (std::size_t k = 0; k < w2.size(); ++k) w2.data()[k] = 0.2 - 0.05 * double(k);
  const auto f = [&](const auto& b1) { return network(x, y)(tl::cref(w1), b1, tl::cref(w2), 0.0); };
  const auto b1 = seeded<dynamic_vector>(h, 43), v = seeded<dynamic_vector>(h, 44);
  const auto g = tl::grad(f)(b1);
  const auto [value, tangent] = tl::jvp(f, std::tuple{b1}, std::tuple{v});
  double expected = 0;
  for (std::size_t k = 0; k < h; ++k) expected += g[k] * v[k];
  CHECK(fd::rel_error(value, f(b1)) < 1e-13);
  CHECK(fd::rel_error(tangent, expected) < 1e-12);
}

TEST_CASE("tl::hessian through a held formula: differences of the gradient") {
  const std::size_t h = 4, n = 3, o = 2;
  const auto x = seeded<dynamic_vector>(n, 61), y = seeded<dynamic_vector>(o, 62), b1 = seeded<dynamic_vector>(h, 63);
  dynamic_matrix w1(h, n), w2(o, h);
  for (std::size_t k = 0; k < w1.size(); ++k) w1.data()[k] = 0.15 * double(k) - 0.6;
  for (std::size_t k = 0; k < w2.size(); ++k) w2.data()[k] = 0.3 - 0.1 * double(k);
  const auto f = [&](const auto& b) { return network(x, y)(tl::cref(w1), b, tl::cref(w2), 0.2); };
  const auto hessian = tl::hessian(f)(b1);
  REQUIRE(hessian.rows() == h);
  for (std::size_t j = 0; j < h; ++j)
    for (std::size_t i = 0; i < h; ++i) {
      const double by_differences = fd::derivative(
          [&](double t) {
            auto moved = b1;
            moved[j] = t;
            return tl::grad(f)(moved)[i];
          },
          b1[j]);
      CHECK(fd::rel_error(hessian(i, j), by_differences) < 1e-7);
    }
}

TEST_CASE("a product whose inner extents differ, one side a formula: std::invalid_argument before evaluation") {
  const dynamic_matrix a(3, 4), b(5, 2);
  long allocations = 0;
  const auto f = [&](const auto& a) { return tl::sum(tl::matmul(tl::exp(a), tl::cref(b))); };
  try {
    allocations = test_support::allocations_during([&] { (void)tl::grad(f)(a); });
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("3 x 4") != std::string::npos);
    CHECK(what.find("5 x 2") != std::string::npos);
  }
  CHECK(allocations == 0);
}

TEST_CASE("a held formula allocates its value's block, and its operands' sums once for both rules") {
  const std::size_t h = 16, n = 8, o = 4;
  const auto x = seeded<dynamic_vector>(n, 51), y = seeded<dynamic_vector>(o, 52), b1 = seeded<dynamic_vector>(h, 53);
  dynamic_matrix w1(h, n), w2(o, h);
  const long count = test_support::allocations_during([&] {
    const auto g = tl::grad(network(x, y))(w1, b1, w2, 0.3);
    CHECK(std::get<0>(g).rows() == h);
  });
  CHECK(count <= 12);
  MESSAGE("allocations per gradient of two layers: " << count);
}

}  // namespace

namespace {

TEST_CASE("a product with a held formula inside a further formula, of bounded and dynamic extents") {
  // tl::prod of the product reads its extents from both operands' types (bounded here), and an element sends
  // the held formula an adjoint of one line, which its rule takes dense.
  const auto f = [](const auto& A) {
    const auto p = tl::matmul(tl::sigmoid(A), A);
    return tl::prod(tl::atanh(0.1 * p)) + tl::sum(p * A) + p(1, 2);
  };
  const auto af = run_time_twin::drawn<tl::matrix<double, 3, 3>>(91);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(f)(af);
  const auto [value, g] = tl::value_and_grad(f)(run_time_twin::copy_of<dynamic_matrix>(af));
  const auto [bounded_value, bounded_g] =
      tl::value_and_grad(f)(run_time_twin::copy_of<tl::matrix<double, tl::bounded<4>, tl::bounded<4>>>(af));
  CHECK(fd::rel_error(value, fixed_value) < 1e-13);
  CHECK(fd::rel_error(bounded_value, fixed_value) < 1e-13);
  run_time_twin::check_elements_against_twin(g, fixed_g);
  run_time_twin::check_elements_against_twin(bounded_g, fixed_g);
}

}  // namespace
