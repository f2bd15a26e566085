// SPDX-License-Identifier: BSL-1.0
// detail::sweep_memory: a gradient over arrays of run-time extents takes the room of what its
// factorisations keep from one buffer. From the second call of a function on, a sweep of
// factorisations makes one allocation beside its results, one that keeps nothing (a sum over a
// product, an elementwise formula) none, and one of bounded arrays none at all; the gradients stay
// those of the fixed-shape twin. What the transforms return (values, gradients, aux, Jacobians,
// Hessians) outlives the buffer, and under AddressSanitizer every matrix in it is bounded by poisoned
// gaps (the clang++ part runs this file so).
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <kept_intermediates.hpp>
#include <run_time_twin.hpp>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

namespace tl = tapeless;

namespace {

using run_time_twin::copy_of;
using run_time_twin::drawn;
using dynamic_matrix = tl::matrix<double, tl::dynamic, tl::dynamic>;

using kept_intermediates::factorisations;
using kept_intermediates::well_conditioned;

/// Factorisations of the arguments and of a factorisation's value: every intermediate lies in the
/// sweep's memory.
constexpr auto without_sums = [](const auto& A, const auto& S) {
  return tl::det(A) + tl::log_det(S) + tl::det(tl::inverse(A)) + tl::log_det(tl::inverse(S));
};

template <std::size_t N>
void check_one_allocation_beside_the_result() {
  const auto fixed = well_conditioned<N>(N);
  const auto A = copy_of<dynamic_matrix>(fixed);
  const auto fixed_s = tl::matmul(fixed, tl::transpose(fixed));
  const auto S = copy_of<dynamic_matrix>(fixed_s);
  const auto first = tl::grad(without_sums)(A, S);  // sizes the thread's buffer
  std::tuple<dynamic_matrix, dynamic_matrix> g;
  const long allocations = test_support::allocations_during([&] { g = tl::grad(without_sums)(A, S); });
  CHECK(allocations == 3);  // the two gradients and the buffer
  CHECK((g == first));
  // The twin's gradients, where the fixed shape's factorisations compile in reasonable time (the
  // factorisations' own tests take the larger sizes).
  if constexpr (N <= 9) {
    const auto fixed_g = tl::grad(without_sums)(fixed, fixed_s);
    run_time_twin::check_elements_against_twin(std::get<0>(g), std::get<0>(fixed_g), 1e-10);
    run_time_twin::check_elements_against_twin(std::get<1>(g), std::get<1>(fixed_g), 1e-10);
    run_time_twin::check_elements_against_twin(tl::grad(factorisations)(A), tl::grad(factorisations)(fixed), 1e-10);
  }
}

}  // namespace

TEST_CASE("from the second call on, a sweep's intermediates take one allocation beside the result") {
  run_time_twin::at_each<1, 4, 9, 33>([]<std::size_t N>() { check_one_allocation_beside_the_result<N>(); });
}

TEST_CASE("a sweep that keeps no intermediate allocates only its result") {
  const auto A = copy_of<dynamic_matrix>(well_conditioned<8>(1));
  const auto sum_of_product = [](const auto& M) { return tl::sum(tl::matmul(M, M)); };
  const auto elementwise = [](const auto& M) { return tl::sum(tl::exp(M) * M); };
  tl::grad(factorisations)(A);  // a larger sweep before: its buffer size is not made for these
  CHECK(test_support::allocations_during([&] { tl::grad(sum_of_product)(A); }) == 1);
  CHECK(test_support::allocations_during([&] { tl::grad(elementwise)(A); }) == 1);
  const tl::matrix<double, tl::bounded<8>, tl::bounded<8>> B(A);
  CHECK(test_support::allocations_during([&] { tl::grad(factorisations)(B); }) == 0);
}

TEST_CASE("what a transform returns outlives the sweep's memory") {
  const auto fixed = well_conditioned<5>(7);
  const auto A = copy_of<dynamic_matrix>(fixed);
  SUBCASE("value_and_grad, and aux made in f") {
    const auto with_aux = [](const auto& M) { return std::pair{tl::log_det(M) + tl::det(M), tl::inverse(M) * 2.0}; };
    const auto [value_aux, g] = tl::value_and_grad(with_aux, tl::has_aux)(A);
    const auto [fixed_value_aux, fixed_g] = tl::value_and_grad(with_aux, tl::has_aux)(fixed);
    tl::grad(factorisations)(A);  // another sweep, on memory the first may have had
    CHECK(fd::rel_error(value_aux.first, fixed_value_aux.first) < 1e-12);
    CHECK(value_aux.second(2, 3) == fixed_value_aux.second(2, 3));
    run_time_twin::check_elements_against_twin(g, fixed_g, 1e-12);
  }
  SUBCASE("the Jacobian and the pullback of a matrix-valued function") {
    const auto f = [](const auto& M) { return tl::inverse(M); };
    const auto J = tl::jacobian(f)(A);
    const auto fixed_J = tl::jacobian(f)(fixed);
    REQUIRE(J.rows() == 25);
    REQUIRE(J.cols() == 25);
    for (std::size_t k = 0; k < 25 * 25; ++k) CHECK(fd::rel_error(J.data()[k], fixed_J.data()[k]) < 1e-12);
    const auto [value, pullback] = tl::vjp(f, A);
    const auto [fixed_value, fixed_pullback] = tl::vjp(f, fixed);
    const auto u = copy_of<dynamic_matrix>(drawn<tl::matrix<double, 5, 5>>(3));
    const auto pulled = pullback(u);
    const auto fixed_pulled = fixed_pullback(drawn<tl::matrix<double, 5, 5>>(3));
    run_time_twin::check_elements_against_twin(value, fixed_value, 1e-13);
    run_time_twin::check_elements_against_twin(pulled, fixed_pulled, 1e-12);
  }
  SUBCASE("a Hessian, whose sweeps run inside one another") {
    const auto f = [](const auto& M) { return tl::log_det(M) + tl::sum(tl::inverse(M)); };
    const auto H = tl::hessian(f)(A);
    const auto fixed_H = tl::hessian(f)(fixed);
    REQUIRE(H.rows() == 25);
    for (std::size_t k = 0; k < 25 * 25; ++k) CHECK(fd::rel_error(H.data()[k], fixed_H.data()[k]) < 1e-11);
  }
}
