// SPDX-License-Identifier: BSL-1.0
// v[k] and A(i, j) of formulas over arrays of run-time extents (transforms/formula_elements.hpp): against the
// fixed-shape twin at the same values at sizes around a SIMD batch and 31, 32, 33, 256; of matrices,
// broadcasts, products and formulas of bools; past the end std::out_of_range; allocating what the
// argument's own element does, nothing for a bounded vector, and in a constant expression.
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

using run_time_twin::dynamic_vector;
using run_time_twin::seeded;
using dynamic_matrix = tl::matrix<double, tl::dynamic, tl::dynamic>;

/// Elements of formulas over x, data y and a number a, at places given by n = x's size; the fixed twin
/// (Fixed) takes its slice with fixed bounds.
template <bool Fixed, class Y>
auto model(const Y& y) {
  return [&y](const auto& x, const auto& a) {
    const std::size_t n = x.size(), label = n / 2;
    const auto whole = [&] {
      if constexpr (Fixed)
        return tl::slice<0, tl::value_type_of_t<decltype(x)>::size()>(x);
      else
        return tl::slice(x, 0, n);
    };
    return -tl::log_softmax(a * x)[label] + a * tl::softmax(x)[n - 1] + (x * tl::cref(y))[0] +
           tl::square(x - a)[label] + tl::exp(0.5 * whole())[n - 1 - label];
  };
}

template <std::size_t N>
void check_against_fixed_twin() {
  CAPTURE(N);
  const auto x = seeded<dynamic_vector>(N, 1 + N), y = seeded<dynamic_vector>(N, 2 + N);
  const auto xf = run_time_twin::fixed_copy<N>(x), yf = run_time_twin::fixed_copy<N>(y);
  run_time_twin::check_against_twin(model<false>(y), model<true>(yf), x, xf, 0.75);
}

}  // namespace

TEST_CASE("elements of formulas of a run-time vector against their fixed-shape twin at the same values") {
  check_against_fixed_twin<1>();
  run_time_twin::at_sizes([]<std::size_t N>() { check_against_fixed_twin<N>(); });
}

TEST_CASE(
    "A(i, j) of formulas of a run-time matrix, a repeated row and a product by a fixed column, as the fixed twin") {
  fd::rng u(11);
  tl::matrix<double, 3, 4> Xf, Bf;
  tl::matrix<double, 1, 4> rf;
  tl::matrix<double, 5, 3> Df;
  for (double& v : Xf) v = u.uniform(-1.0, 1.0);
  for (double& v : Bf) v = u.uniform(-1.0, 1.0);
  for (double& v : rf) v = u.uniform(-1.0, 1.0);
  for (double& v : Df) v = u.uniform(-1.0, 1.0);
  dynamic_matrix X(3, 4), B(3, 4), D(5, 3);
  tl::matrix<double, 1, tl::dynamic> r(1, 4);
  for (std::size_t k = 0; k < 12; ++k) X.data()[k] = Xf.data()[k], B.data()[k] = Bf.data()[k];
  for (std::size_t k = 0; k < 4; ++k) r.data()[k] = rf.data()[k];
  for (std::size_t k = 0; k < 15; ++k) D.data()[k] = Df.data()[k];
  const auto f = [](const auto& b, const auto& row) {
    return [&b, &row](const auto& M) {
      return (M * M + tl::cref(b))(1, 2) + tl::tanh(M + tl::cref(row))(2, 3) * M(0, 0) + (M - 1.0)(2, 0);
    };
  };
  const auto g = tl::grad(f(B, r))(X);
  const auto gf = tl::grad(f(Bf, rf))(Xf);
  for (std::size_t k = 0; k < 12; ++k) CHECK(fd::rel_error(g.data()[k], gf.data()[k]) < 1e-14);
  CHECK(fd::rel_error(tl::value_and_grad(f(B, r))(X).first, tl::value_and_grad(f(Bf, rf))(Xf).first) < 1e-14);
  // A product of data of run-time rows by a fixed column, element 3.
  const tl::vector<double, 3> w{0.5, -1.0, 2.0};
  const auto p = [](const auto& data) {
    return [&data](const auto& v) { return tl::square(tl::matmul(tl::cref(data), v)[3]); };
  };
  const auto gp = tl::grad(p(D))(w), gpf = tl::grad(p(Df))(w);
  for (std::size_t k = 0; k < 3; ++k) CHECK(fd::rel_error(gp[k], gpf[k]) < 1e-14);
  // An element of a formula of bools is a bool, the condition of a scalar tl::if_else.
  const auto branch = [](const auto& v) { return tl::if_else((v > 0.0)[1], v[1] * v[1], -v[1]); };
  CHECK(tl::grad(branch)(dynamic_vector{1.0, 3.0}) == dynamic_vector{0.0, 6.0});
  CHECK(tl::grad(branch)(dynamic_vector{1.0, -3.0}) == dynamic_vector{0.0, -1.0});
}

TEST_CASE("an element past the end throws std::out_of_range; the plain values of a formula's elements") {
  const dynamic_vector x{1.0, 2.0, 3.0};
  CHECK_THROWS_AS(tl::grad([](const auto& v) { return tl::softmax(v)[3]; })(x), std::out_of_range);
  CHECK_THROWS_AS(tl::grad([](const auto& v) { return tl::square(v)[7]; })(x), std::out_of_range);
  const dynamic_matrix A(2, 3);
  CHECK_THROWS_AS(tl::grad([](const auto& M) { return (2.0 * M)(2, 0); })(A), std::out_of_range);
  CHECK_THROWS_AS(tl::grad([](const auto& M) { return (2.0 * M)(0, 3); })(A), std::out_of_range);
  CHECK_NOTHROW(tl::grad([](const auto& M) { return (2.0 * M)(1, 2); })(A));
  // Of plain values: softmax's element, as the fixed softmax's; and an element of a formula of bools.
  const tl::vector<double, 3> xf{1.0, 2.0, 3.0};
  for (std::size_t k = 0; k < 3; ++k) CHECK(fd::rel_error(tl::softmax(x)[k], tl::softmax(xf)[k]) < 1e-15);
  CHECK(!(x > 1.5)[0]);
  CHECK((x > 1.5)[2]);
  CHECK_THROWS_AS((void)(x > 1.5)[3], std::out_of_range);
}

TEST_CASE("an element allocates what the argument's own element does: nothing for a bounded vector, constexpr") {
  const dynamic_vector x{1.0, 2.0, 3.0};
  const long own =
      test_support::allocations_during([&] { (void)tl::grad([](const auto& v) { return v[1] * v[1]; })(x); });
  CHECK(test_support::allocations_during([&] { (void)tl::grad([](const auto& v) { return (v * v)[1]; })(x); }) == own);
  using bounded_vector = tl::vector<double, tl::bounded<8>>;
  const bounded_vector b{1.0, 2.0, 3.0};
  CHECK(test_support::allocations_during([&] { (void)tl::grad([](const auto& v) { return (v * v)[1]; })(b); }) == 0);
  CHECK(test_support::allocations_during(
            [&] { (void)tl::grad([](const auto& v) { return -tl::log_softmax(v)[2]; })(b); }) == 0);
  constexpr auto g = [] {
    return tl::grad([](const auto& v) { return (v * v)[1] + tl::square(v - 1.0)[2]; })(bounded_vector{1.0, 2.0, 3.0});
  }();
  static_assert(g[0] == 0.0 && g[1] == 4.0 && g[2] == 4.0);
}
