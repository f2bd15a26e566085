// SPDX-License-Identifier: BSL-1.0
// tl::into: grad writes the gradient into each kind of target (std::span, Eigen::VectorXd and a fixed
// Eigen vector, an Eigen matrix of either storage order, a Map, a tl::matrix, a number), the same
// numbers tl::grad returns; a flat target takes an Eigen argument's elements in its storage order;
// value_and_grad returns the value alone. A target of the wrong size throws std::invalid_argument
// naming both sizes before f is called (calls counted), and leaves every target as it was. No heap
// allocation: global operator new is counted around each call. Arguments of run-time extents
// (tl::dynamic, Eigen::VectorXd, a column-major MatrixXd) write into the same kinds of target, checked
// against their run-time sizes.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <Eigen/Core>

#include <allocation_counter.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

using test_support::allocations_during;

constexpr auto loss = [](const auto& x) { return tl::sum(tl::square(x) * x); };  // gradient 3 x^2

// A loss that counts its calls, to show a target of the wrong size throws before f is evaluated.
struct counted_loss {
  int* calls;
  template <class X>
  auto operator()(const X& x) const {
    ++*calls;
    return tl::sum(tl::square(x) * x);
  }
};

const tl::vector<double, 8> x{1.0, -2.0, 3.0, -4.0, 0.5, 1.5, 2.5, -0.5};

/// The gradient of loss at x, 3 x_k^2.
double expected(std::size_t k) { return 3 * x[k] * x[k]; }

}  // namespace

TEST_CASE("grad(f, into(g)) writes the gradient into the target and returns nothing") {
  static_assert(std::is_void_v<decltype(tl::grad(loss, tl::into(std::declval<Eigen::VectorXd&>()))(x))>);
  const auto g = tl::grad(loss)(x);
  SUBCASE("Eigen::VectorXd") {
    Eigen::VectorXd target(8);
    tl::grad(loss, tl::into(target))(x);
    for (std::size_t k = 0; k < 8; ++k) CHECK(target(Eigen::Index(k)) == g[k]);
  }
  SUBCASE("a fixed-size Eigen row vector") {
    Eigen::Matrix<double, 1, 8> target;
    tl::grad(loss, tl::into(target))(x);
    for (std::size_t k = 0; k < 8; ++k) CHECK(target(Eigen::Index(k)) == g[k]);
  }
  SUBCASE("std::span, and an Eigen::Map made in the call") {
    std::array<double, 8> storage{};
    tl::grad(loss, tl::into(std::span<double>(storage)))(x);
    for (std::size_t k = 0; k < 8; ++k) CHECK(storage[k] == g[k]);
    std::array<double, 8> mapped{};
    tl::grad(loss, tl::into(Eigen::Map<Eigen::VectorXd>(mapped.data(), 8)))(x);
    CHECK(mapped == storage);
  }
  SUBCASE("a tl::matrix") {
    tl::vector<double, 8> target;
    tl::grad(loss, tl::into(target))(x);
    CHECK(target == g);
  }
  for (std::size_t k = 0; k < 8; ++k) CHECK(g[k] == expected(k));
}

TEST_CASE("several targets, one per argument differentiated; value_and_grad returns the value") {
  auto f = [](const auto& a, const auto& b, const auto& c) { return c * tl::sum(tl::matmul(a, b)); };
  Eigen::Matrix<double, 2, 3> a;
  a << 1, 2, 3, 4, 5, 6;
  const tl::vector<double, 3> b{0.5, -1.0, 2.0};
  const auto [ga, gb, gc] = tl::grad(f)(a, b, 1.5);

  Eigen::MatrixXd ta(2, 3);
  Eigen::Vector3d tb;
  double tc = 0;
  const double value = tl::value_and_grad(f, tl::into(ta, tb, tc))(a, b, 1.5);
  CHECK(value == tl::value_and_grad(f)(a, b, 1.5).first);
  CHECK(ta == ga);
  for (std::size_t k = 0; k < 3; ++k) CHECK(tb(Eigen::Index(k)) == gb[k]);
  CHECK(tc == gc);

  // A flat target takes the Eigen argument's elements in its storage order: column-major here.
  std::array<double, 6> flat{};
  tl::grad<0>(f, tl::into(std::span<double, 6>(flat)))(a, b, 1.5);
  CHECK(std::equal(flat.begin(), flat.end(), ga.data()));
  Eigen::Matrix<double, 2, 3, Eigen::RowMajor> row_target;
  Eigen::VectorXd vector_target(6);
  tl::grad<0>(f, tl::into(row_target))(a, b, 1.5);
  tl::grad<0>(f, tl::into(vector_target))(a, b, 1.5);
  CHECK(row_target == ga);
  CHECK(std::equal(flat.begin(), flat.end(), vector_target.data()));
}

TEST_CASE("a target of the wrong size throws before f is called, naming both sizes") {
  int calls = 0;
  const counted_loss f{&calls};
  Eigen::VectorXd short_target = Eigen::VectorXd::Constant(7, -1.0);
  std::array<double, 9> long_storage{};
  Eigen::MatrixXd wrong_shape(2, 4);
  auto message = [&](auto&& target) {
    try {
      tl::grad(f, tl::into(std::forward<decltype(target)>(target)))(x);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  CHECK(message(short_target) == "tl::into: target 0 is 7 x 1, but the gradient of argument 0 is 8 x 1");
  CHECK(message(std::span<double>(long_storage)) ==
        "tl::into: target 0 is a span of 9, but the gradient of argument 0 is 8 x 1");
  CHECK(message(wrong_shape) == "tl::into: target 0 is 2 x 4, but the gradient of argument 0 is 8 x 1");
  CHECK(calls == 0);
  CHECK(short_target == Eigen::VectorXd::Constant(7, -1.0));

  // With several targets, a wrong second one leaves the first as it was.
  auto two = [](const auto& a, const auto& b) { return tl::sum(a) * b; };
  Eigen::VectorXd first = Eigen::VectorXd::Zero(8);
  double second_storage[2] = {};
  CHECK_THROWS_WITH_AS(tl::grad(two, tl::into(first, std::span<double>(second_storage)))(x, 2.0),
                       "tl::into: target 1 is a span of 2, but the gradient of argument 1 is 1 x 1",
                       std::invalid_argument);
  CHECK(first == Eigen::VectorXd::Zero(8));
}

TEST_CASE("grad with into allocates nothing") {
  Eigen::VectorXd target(8);
  std::array<double, 8> storage{};
  Eigen::Matrix<double, 2, 3> a;
  a << 1, 2, 3, 4, 5, 6;
  Eigen::Matrix<double, 2, 3> ga;
  const auto into_eigen = tl::grad(loss, tl::into(target));
  const auto into_span = tl::grad(loss, tl::into(std::span<double>(storage)));
  const auto into_fixed = tl::value_and_grad(loss, tl::into(ga));
  double value = 0;
  CHECK(allocations_during([&] { into_eigen(x); }) == 0);
  CHECK(allocations_during([&] { into_span(x); }) == 0);
  CHECK(allocations_during([&] { value = into_fixed(a); }) == 0);
  CHECK(target(7) == expected(7));
  CHECK(storage[7] == expected(7));
  CHECK(ga(1, 2) == 3 * 36.0);
  CHECK(value == tl::value_and_grad(loss)(a).first);
}

TEST_CASE("the documents' example: Eigen arguments, and a gradient into storage sized at run time") {
  auto f = [](const auto& x) { return tl::sum(tl::exp(x)) * x[0]; };
  const Eigen::Vector3d x(0.5, -1.0, 2.0);
  const Eigen::Vector3d g = tl::grad(f)(x);  // the gradient as the argument's own type
  const Eigen::Matrix3d h = tl::hessian(f)(x);

  Eigen::VectorXd out(3);  // storage sized at run time
  const auto write_gradient = tl::grad(f, tl::into(out));
  write_gradient(x);  // writes the gradient into out, allocating nothing

  CHECK(out == g);
  CHECK(h(0, 1) == doctest::Approx(std::exp(-1.0)));
  CHECK(g(0) == doctest::Approx(x.array().exp().sum() + 0.5 * std::exp(0.5)));
}

TEST_CASE("arguments of run-time extents: their gradients into a span, an Eigen vector or a tl::matrix") {
  const auto squares = [](const auto& x) {
    return tl::sum_over(
        tl::indices(x.size()),
        [](std::size_t i, const auto& x) { return static_cast<double>(i + 1) * tl::square(x[i]); }, x);
  };
  const tl::vector<double, tl::dynamic> x{1.0, -2.0, 0.5};
  std::array<double, 3> storage{};
  tl::grad(squares, tl::into(std::span<double>(storage)))(x);
  CHECK(storage == std::array<double, 3>{2.0, -8.0, 3.0});
  Eigen::VectorXd out(3);
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(3);
  tl::grad(squares, tl::into(out))(ones);
  CHECK(out == Eigen::Vector3d(2.0, 4.0, 6.0));
  tl::vector<double, tl::dynamic> same(3);
  const double value = tl::value_and_grad(squares, tl::into(same))(x);
  CHECK(value == 1.0 + 8.0 + 0.75);
  CHECK(same == tl::vector<double, tl::dynamic>{2.0, -8.0, 3.0});

  // A column-major matrix's gradient into a span in its storage order, and into a matrix by (i, j).
  const auto weighted = [](const auto& A) {
    return tl::sum_over(
        tl::pairs(A.rows()), [](std::size_t i, std::size_t j, const auto& A) { return A(i, 0) * A(j, 1); }, A);
  };
  Eigen::MatrixXd A(3, 2);
  A << 1.0, 2.0, 3.0, 4.0, 5.0, 6.0;
  const Eigen::MatrixXd want = tl::grad(weighted)(A);
  std::array<double, 6> flat{};
  tl::grad(weighted, tl::into(std::span<double>(flat)))(A);
  for (std::size_t k = 0; k < 6; ++k) CHECK(flat[k] == want.data()[k]);
  Eigen::MatrixXd by_element(3, 2);
  tl::grad(weighted, tl::into(by_element))(A);
  CHECK(by_element == want);

  // Sizes checked against the argument's, before f runs.
  std::array<double, 4> wrong{};
  CHECK_THROWS_WITH_AS(tl::grad(squares, tl::into(std::span<double>(wrong)))(x),
                       "tl::into: target 0 is a span of 4, but the gradient of argument 0 is 3 x 1",
                       std::invalid_argument);
  tl::vector<double, tl::dynamic> short_target(2);
  CHECK_THROWS_WITH_AS(tl::grad(squares, tl::into(short_target))(x),
                       "tl::into: target 0 is 2 x 1, but the gradient of argument 0 is 3 x 1", std::invalid_argument);
}
