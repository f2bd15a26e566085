// SPDX-License-Identifier: BSL-1.0
// tl::concat and tl::reshape of a formula over arrays of run-time extents (transforms/held_formulas.hpp):
// values and gradients against the fixed-shape twin at the same values at sizes 1, 4 and 33, against
// central differences at a seeded point, a reshape of a concatenation and an element of one (nodes of
// run-time extents whose values nothing else computes), a formula of data alone, bounded extents
// without allocation, and a reshape of the wrong size.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <run_time_twin.hpp>

#include <cstddef>
#include <stdexcept>
#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

using run_time_twin::dynamic_vector;
using run_time_twin::fixed_copy;
using run_time_twin::seeded;

/// Formulas concatenated on either side of a vector and a number, and a formula of data alone.
template <class D>
auto stacked(const D& d) {
  return [&d](const auto& v, const auto& w) {
    const auto z = tl::concat(tl::exp(v), 2.0 * w, tl::sin(v) * w[0], tl::cref(d) + 1.0);
    return tl::sum(tl::square(z)) + z[1] * v[0];
  };
}

/// A concatenation of a formula reshaped, and a formula reshaped, weighted by data of the result's shape.
template <class W>
auto rearranged(const W& w) {
  return [&w](const auto& v) {
    return tl::sum(tl::cref(w) * tl::reshape<2, 3>(tl::concat(v, 2.0 * v))) + tl::sum(tl::reshape<1, 3>(tl::exp(v)));
  };
}

/// x's value: x itself, or a node's.
template <class X>
double number_of(const X& x) {
  if constexpr (requires { x.value(); })
    return x.value();
  else
    return x;
}

template <std::size_t N>
void check_stacked() {
  CAPTURE(N);
  const auto v = seeded<dynamic_vector>(N, 10 + N), w = seeded<dynamic_vector>(N, 20 + N);
  const auto d = seeded<dynamic_vector>(3, 30);
  const auto fixed_d = fixed_copy<3>(d);
  const auto f = stacked(d);
  const auto fixed_f = stacked(fixed_d);
  const auto [value, g] = tl::value_and_grad(f)(v, w);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(fixed_f)(fixed_copy<N>(v), fixed_copy<N>(w));
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(g))>, dynamic_vector>);
  CHECK(fd::rel_error(value, fixed_value) < 1e-13);
  run_time_twin::check_elements_against_twin(std::get<0>(g), std::get<0>(fixed_g));
  run_time_twin::check_elements_against_twin(std::get<1>(g), std::get<1>(fixed_g));
  // Of plain values, the same number (a node of data where tl::cref is read, as at fixed shapes).
  CHECK(fd::rel_error(number_of(f(v, w)), fixed_value) < 1e-13);
}

}  // namespace

TEST_CASE("tl::concat of formulas: the fixed-shape twin at sizes 1, 4 and 33, and central differences") {
  run_time_twin::at_each<1, 4, 33>([]<std::size_t N>() { check_stacked<N>(); });
  const auto v = seeded<dynamic_vector>(5, 41), w = seeded<dynamic_vector>(5, 42);
  const auto d = seeded<dynamic_vector>(3, 43);
  const auto f = stacked(d);
  const auto g = tl::grad(f)(v, w);
  for (std::size_t k = 0; k < 5; ++k) {
    CHECK(fd::rel_error(std::get<0>(g)[k], fd::partial([&](const auto& x) { return number_of(f(x, w)); }, v, k)) <
          1e-7);
    CHECK(fd::rel_error(std::get<1>(g)[k], fd::partial([&](const auto& x) { return number_of(f(v, x)); }, w, k)) <
          1e-7);
  }
}

TEST_CASE("tl::reshape of a formula, and of a concatenation, whose values nothing else computes") {
  const tl::matrix<double, 2, 3> weights{{1.0, -2.0, 3.0}, {0.5, 4.0, -1.0}};
  const auto v = seeded<dynamic_vector>(3, 50);
  const auto [value, g] = tl::value_and_grad(rearranged(weights))(v);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(rearranged(weights))(fixed_copy<3>(v));
  CHECK(fd::rel_error(value, fixed_value) < 1e-13);
  run_time_twin::check_elements_against_twin(g, fixed_g);
  // An element and a row of a concatenation: adjoints of its extents.
  const auto parts = [](const auto& x) { return tl::concat(x, x)[4] * tl::sum(tl::slice<1, 2>(tl::concat(x, 1.0))); };
  const auto [part_value, part_g] = tl::value_and_grad(parts)(v);
  const auto [fixed_part_value, fixed_part_g] = tl::value_and_grad(parts)(fixed_copy<3>(v));
  CHECK(fd::rel_error(part_value, fixed_part_value) < 1e-13);
  run_time_twin::check_elements_against_twin(part_g, fixed_part_g);
  // A formula of the wrong size: std::invalid_argument, before anything is evaluated.
  const auto wrong = [](const auto& x) { return tl::sum(tl::reshape<2, 2>(tl::exp(x))); };
  CHECK_THROWS_AS(tl::grad(wrong)(v), std::invalid_argument);
}

TEST_CASE("tl::concat and tl::reshape of formulas of bounded arrays allocate nothing") {
  using bounded_vector = tl::vector<double, tl::bounded<8>>;
  const tl::matrix<double, 2, 3> weights{{1.0, -2.0, 3.0}, {0.5, 4.0, -1.0}};
  const bounded_vector v(seeded<dynamic_vector>(3, 60)), w(seeded<dynamic_vector>(3, 61));
  const bounded_vector d(seeded<dynamic_vector>(3, 62));
  std::tuple<bounded_vector, bounded_vector> g;
  CHECK(test_support::allocations_during([&] { g = tl::grad(stacked(d))(v, w); }) == 0);
  const auto fixed_g = tl::grad(stacked(fixed_copy<3>(d)))(fixed_copy<3>(v), fixed_copy<3>(w));
  run_time_twin::check_elements_against_twin(std::get<0>(g), std::get<0>(fixed_g));
  run_time_twin::check_elements_against_twin(std::get<1>(g), std::get<1>(fixed_g));
  bounded_vector h;
  CHECK(test_support::allocations_during([&] { h = tl::grad(rearranged(weights))(v); }) == 0);
  run_time_twin::check_elements_against_twin(h, tl::grad(rearranged(weights))(fixed_copy<3>(v)));
}
