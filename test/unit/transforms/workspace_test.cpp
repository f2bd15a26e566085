// SPDX-License-Identifier: BSL-1.0
// tl::workspace passed to a gradient (tl::grad(f, ws), value_and_grad, has_aux, tl::into): from the
// second call on, a sweep over arrays of run-time extents allocates nothing but its result (with
// tl::into, nothing at all; value_and_grad no more: the gradient is moved beside the value), whatever
// its intermediates (factorisations, held products, the partials of sums), also beside tl::iterate's
// states in the same workspace and for two functions taking turns; bounded arrays nothing at all; the
// gradients are those taken without it, bit for bit.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <kept_intermediates.hpp>
#include <run_time_twin.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

namespace tl = tapeless;

namespace {

using run_time_twin::copy_of;
using run_time_twin::drawn;
using dynamic_matrix = tl::matrix<double, tl::dynamic, tl::dynamic>;

using kept_intermediates::factorisations;

template <std::size_t N>
dynamic_matrix well_conditioned(std::uint64_t seed) {
  return copy_of<dynamic_matrix>(kept_intermediates::well_conditioned<N>(seed));
}

template <std::size_t N>
void check_in_workspace() {
  CAPTURE(N);
  const dynamic_matrix A = well_conditioned<N>(N);
  const auto without = tl::grad(factorisations)(A);
  tl::workspace ws;
  const auto first = tl::grad(factorisations, ws)(A);
  const std::size_t capacity = ws.capacity();
  CHECK(capacity > 0);
  for (int call = 0; call < 2; ++call) {
    dynamic_matrix g;
    CHECK(test_support::allocations_during([&] { g = tl::grad(factorisations, ws)(A); }) == 1);  // g
    CHECK(g == without);
  }
  CHECK(first == without);
  CHECK(ws.capacity() == capacity);
}

}  // namespace

TEST_CASE("from the second call on, a gradient in a workspace allocates only its result") {
  run_time_twin::at_each<1, 2, 4, 8, 9, 33>([]<std::size_t N>() { check_in_workspace<N>(); });
}

TEST_CASE("value_and_grad, has_aux and tl::into take a workspace") {
  const dynamic_matrix A = well_conditioned<5>(3);
  tl::workspace ws;
  const auto [value, g] = tl::value_and_grad(factorisations, ws)(A);
  const auto [value_without, g_without] = tl::value_and_grad(factorisations)(A);
  CHECK(value == value_without);
  CHECK(g == g_without);
  const auto with_aux = [](const auto& M) { return std::pair{factorisations(M), tl::inverse(M) * 2.0}; };
  const auto [g_aux, aux] = tl::grad(with_aux, tl::has_aux, ws)(A);
  const auto [g_aux_without, aux_without] = tl::grad(with_aux, tl::has_aux)(A);
  CHECK(g_aux == g_aux_without);
  CHECK(aux == aux_without);
  const auto [value_aux, g_value_aux] = tl::value_and_grad(with_aux, tl::has_aux, ws)(A);
  CHECK(value_aux.first == value_without);
  CHECK(value_aux.second == aux_without);
  CHECK(g_value_aux == g_without);
  dynamic_matrix into(5, 5);
  tl::grad(factorisations, tl::into(into), ws)(A);
  CHECK(into == g_without);
  // tl::into copies the gradient into the caller's storage: made in the workspace, it allocates nothing.
  CHECK(test_support::allocations_during([&] { tl::grad(factorisations, tl::into(into), ws)(A); }) == 0);
  dynamic_matrix into_again(5, 5);
  CHECK(tl::value_and_grad(factorisations, tl::into(into_again), ws)(A) == value_without);
  CHECK(into_again == g_without);
  CHECK(test_support::allocations_during([&] { tl::value_and_grad(factorisations, tl::into(into_again), ws)(A); }) ==
        0);
}

TEST_CASE("value_and_grad allocates what grad does: the gradient, moved beside the value") {
  using test_support::allocations_during;
  const dynamic_matrix A = well_conditioned<5>(4);
  // An aux output of a number: it allocates nothing of its own.
  const auto with_aux = [](const auto& M) { return std::pair{factorisations(M), tl::sum(M) * 2.0}; };
  tl::workspace ws;
  for (int call = 0; call < 2; ++call) {  // the first call grows the workspace
    (void)tl::value_and_grad(factorisations, ws)(A);
    (void)tl::grad(with_aux, tl::has_aux, ws)(A);
    (void)tl::value_and_grad(with_aux, tl::has_aux, ws)(A);
  }
  CHECK(allocations_during([&] { (void)tl::grad(factorisations, ws)(A); }) == 1);
  CHECK(allocations_during([&] { (void)tl::value_and_grad(factorisations, ws)(A); }) == 1);
  // With has_aux, the gradient (moved as well) and one allocation more: the aux output's value, read
  // after the sweep, runs its sum's forward pass, which makes the partials as well as the value.
  CHECK(allocations_during([&] { (void)tl::grad(with_aux, tl::has_aux, ws)(A); }) == 2);
  CHECK(allocations_during([&] { (void)tl::value_and_grad(with_aux, tl::has_aux, ws)(A); }) == 2);
  // Without a workspace: the same, and the room of the sweep's intermediates.
  CHECK(allocations_during([&] { (void)tl::value_and_grad(factorisations)(A); }) ==
        allocations_during([&] { (void)tl::grad(factorisations)(A); }));
  const auto [gradient, aux] = tl::grad(with_aux, tl::has_aux, ws)(A);
  CHECK(gradient == tl::grad(factorisations)(A));
  CHECK(aux == tl::sum(A) * 2.0);
}

TEST_CASE("bounded arrays in a workspace allocate nothing") {
  const tl::matrix<double, tl::bounded<6>, tl::bounded<6>> A(well_conditioned<6>(5));
  tl::workspace ws;
  const auto g = tl::grad(factorisations, ws)(A);
  CHECK(test_support::allocations_during([&] { tl::grad(factorisations, ws)(A); }) == 0);
  CHECK(g == tl::grad(factorisations)(A));
}

TEST_CASE("a gradient and tl::iterate share one workspace, and two functions take turns in it") {
  const dynamic_matrix A = well_conditioned<4>(9);
  const auto x = drawn<tl::vector<double, 4>>(10);  // a state of fixed shape: its steps allocate nothing
  tl::workspace ws;
  const auto step = [](const auto& s, std::size_t, const auto& c) { return s + c * tl::tanh(s); };
  const auto steps_and_det = [&ws, step](const auto& M, const auto& s0) {
    return tl::sum(tl::square(tl::iterate(ws, 40, s0, step, 0.01 * tl::sum(M)))) +
           tl::log_det(tl::matmul(M, tl::transpose(M)));
  };
  const auto without = [step](const auto& M, const auto& s0) {
    return tl::sum(tl::square(tl::iterate(40, s0, step, 0.01 * tl::sum(M)))) +
           tl::log_det(tl::matmul(M, tl::transpose(M)));
  };
  const auto expected = tl::grad(without)(A, x);
  const auto other = [](const auto& M) { return tl::det(tl::inverse(M) + M); };
  const auto other_expected = tl::grad(other)(A);
  for (int call = 0; call < 2; ++call) {  // the first two calls size the workspace for both
    tl::grad(steps_and_det, ws)(A, x);
    tl::grad(other, ws)(A);
  }
  std::tuple<dynamic_matrix, tl::vector<double, 4>> g;
  CHECK(test_support::allocations_during([&] { g = tl::grad(steps_and_det, ws)(A, x); }) == 1);  // A's gradient
  CHECK((g == expected));
  dynamic_matrix h;
  CHECK(test_support::allocations_during([&] { h = tl::grad(other, ws)(A); }) == 1);
  CHECK(h == other_expected);
  // Into a span and a vector of the caller's: once the workspace has grown to hold the result too,
  // nothing is allocated.
  std::vector<double> ga(16);
  tl::vector<double, 4> gx;
  tl::grad(steps_and_det, tl::into(std::span(ga), gx), ws)(A, x);
  CHECK(test_support::allocations_during([&] { tl::grad(steps_and_det, tl::into(std::span(ga), gx), ws)(A, x); }) == 0);
  CHECK(std::equal(ga.begin(), ga.end(), std::get<0>(expected).begin()));
  CHECK(gx == std::get<1>(expected));
}
