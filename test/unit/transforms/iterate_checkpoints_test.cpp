// SPDX-License-Identifier: BSL-1.0
// tl::iterate(tl::checkpoints<S>{}, ...): the gradient of stored states to the last bit (the same steps
// run on the same states in the same order), against adjoints by hand, finite differences and
// tl::check_gradient; the steps it runs again counted against Griewank and Walther's t(n, S); no heap for
// any n; through hessian, jvp and grad of grad; in a constant expression.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <iterate_check.hpp>
#include <sanitizers.hpp>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <vector>

namespace tl = tapeless;
using iterate_check::oscillator_state_loss;
using iterate_check::oscillator_step;

namespace {

using test_support::allocations_during;

/// The longest loop: 10^5 steps, a tenth of them under the sanitizers, where every path shows as well.
constexpr std::size_t longest = test_support::address_sanitizer ? 10000 : 100000;

/// The oscillator's loss in (x0, v0, kk, c), the states kept as `keep...` says (none: all stored),
/// its step counting its calls in *calls: each builds one step's term, forward or in reverse. Every
/// test takes this one loss, so that each transform of it is compiled once.
template <class... Keep>
auto counted_oscillator_loss(std::size_t n, std::size_t* calls, Keep... keep) {
  return [n, calls, keep...](const auto& x0, const auto& v0, const auto& kk, const auto& c) {
    const auto step = [calls](const auto& s, std::size_t k, const auto& a, const auto& b) {
      ++*calls;
      return oscillator_step(s, k, a, b);
    };
    return tl::let(tl::iterate(keep..., n, tl::concat(x0, v0), step, kk, c), oscillator_state_loss);
  };
}

/// The calls of the tests that do not count them.
std::size_t calls_uncounted = 0;

/// The loss whose calls no one counts.
template <class... Keep>
auto oscillator_loss(std::size_t n, Keep... keep) {
  return counted_oscillator_loss(n, &calls_uncounted, keep...);
}

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

template <class... T, std::size_t... I>
bool same_bits(const std::tuple<T...>& a, const std::tuple<T...>& b, std::index_sequence<I...>) {
  return (same_bits(std::get<I>(a), std::get<I>(b)) && ...);
}
template <class... T>
bool same_bits(const std::tuple<T...>& a, const std::tuple<T...>& b) {
  return same_bits(a, b, std::index_sequence_for<T...>{});
}

/// n = 0, 1, 2, S - 1, S, S + 1, and beta(S, r), beta(S, r) + 1 for r = 1 to 3, up to `most`.
template <std::size_t S>
std::vector<std::size_t> edges(std::size_t most) {
  std::vector<std::size_t> n{0, 1, 2, S - 1, S, S + 1};
  for (std::size_t r = 1; r <= 3; ++r) {
    const std::size_t beta = tl::detail::binomial_reach(S, r);
    if (beta + 1 > most) break;
    n.push_back(beta);
    n.push_back(beta + 1);
  }
  return n;
}

/// The oscillator with checkpoints<S> against stored states (bit for bit) and against its adjoint by hand.
template <std::size_t S>
void check_oscillator(std::size_t n) {
  CAPTURE(S);
  CAPTURE(n);
  const double x0 = 1.0, v0 = -0.5, kk = 2.0, c = 0.5;
  const auto [stored_value, stored] = tl::value_and_grad(oscillator_loss(n))(x0, v0, kk, c);
  const auto [value, g] = tl::value_and_grad(oscillator_loss(n, tl::checkpoints<S>{}))(x0, v0, kk, c);
  CHECK(same_bits(value, stored_value));
  CHECK(same_bits(g, stored));
  const auto [want_value, want] = iterate_check::oscillator_by_hand(n, x0, v0, kk, c);
  // the sweep sums each state's adjoint in its own order: the terms of the loop by hand, within the
  // rounding of n steps
  const double tolerance = 1e-15 * (10.0 + static_cast<double>(n));
  CHECK(fd::rel_error(value, want_value) <= tolerance);
  CHECK(fd::rel_error(std::get<0>(g), want[0]) <= tolerance);
  CHECK(fd::rel_error(std::get<1>(g), want[1]) <= tolerance);
  CHECK(fd::rel_error(std::get<2>(g), want[2]) <= tolerance);
  CHECK(fd::rel_error(std::get<3>(g), want[3]) <= tolerance);
  // outside grad, a plain number: the same loop's value
  const double plain = oscillator_loss(n, tl::checkpoints<S>{})(x0, v0, kk, c);
  CHECK(same_bits(plain, value));
}

/// The steps run again: calls of the step with checkpoints<S> beyond those with stored states. `run`
/// takes the loss; each of its passes runs the n steps forward and, where `reverse`, n more in reverse.
template <std::size_t S, class Run>
void check_recomputed(std::size_t n, bool reverse, const Run& run) {
  CAPTURE(S);
  CAPTURE(n);
  std::size_t stored = 0, checkpointed = 0;
  run(counted_oscillator_loss(n, &stored));
  run(counted_oscillator_loss(n, &checkpointed, tl::checkpoints<S>{}));
  const std::size_t per_pass = reverse ? 2 * n : n;
  const std::size_t passes = n == 0 ? 0 : stored / per_pass;
  CHECK(stored == passes * per_pass);
  CHECK((n == 0 || passes >= 1));
  CHECK(checkpointed - stored == (reverse ? passes : 0) * tl::detail::checkpoint_advances(n, S));
}

/// s' = a s + k / 100 from s(0) = 1.5, in a: a number state whose derivatives in a are known exactly.
template <class... Keep>
constexpr auto recurrence(std::size_t n, Keep... keep) {
  return [n, keep...](const auto& a) {
    return tl::iterate(
        keep..., n, 1.5,
        [](const auto& s, std::size_t k, const auto& p) { return p * s + static_cast<double>(k) / 100; }, a);
  };
}

}  // namespace

TEST_CASE(
    "iterate with checkpoints: the oscillator, bit for bit the gradient of stored states, at the schedule's edges") {
  for (const std::size_t n : edges<1>(400)) check_oscillator<1>(n);
  for (const std::size_t n : edges<3>(400)) check_oscillator<3>(n);
  for (const std::size_t n : edges<32>(7000)) check_oscillator<32>(n);  // beta(32, 2) = 561, beta(32, 3) = 6545
  check_oscillator<3>(1000);
  check_oscillator<32>(longest);
}

TEST_CASE("iterate with checkpoints: at seeded random points, against finite differences and tl::check_gradient") {
  iterate_check::check_oscillator_at_random_points(
      [](std::size_t n) { return oscillator_loss(n, tl::checkpoints<3>{}); }, 4040, 12);
}

TEST_CASE("iterate with checkpoints: a 3-vector state reading an input at step k, and a matrix parameter") {
  // s' = tanh(A s + b u[k]), u captured by the step: its data is read in place while the schedule runs
  fd::rng rng{4041};
  for (const std::size_t n : {0, 1, 2, 5, 6, 7, 35, 36, 500}) {
    CAPTURE(n);
    const auto in = iterate_check::draw_recurrence(rng, n);  // named members: clang 14 captures no structured binding
    const auto& u = in.u;
    const auto& s0 = in.s0;
    const auto& a = in.A;
    const auto& b = in.b;
    const auto loss = [&u](auto... keep) {
      return [&u, keep...](const auto& s, const auto& m, const auto& w) {
        const auto step = [&u](const auto& x, std::size_t k, const auto& mm, const auto& ww) {
          return tl::tanh(tl::matmul(mm, x) + ww * u[k]);
        };
        return tl::sum(tl::square(tl::iterate(keep..., u.size(), s, step, m, w)));
      };
    };
    const auto [stored_value, stored] = tl::value_and_grad(loss())(s0, a, b);
    const auto [value, g] = tl::value_and_grad(loss(tl::checkpoints<3>{}))(s0, a, b);
    CHECK(same_bits(value, stored_value));
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(same_bits(std::get<0>(g)[i], std::get<0>(stored)[i]));
      CHECK(same_bits(std::get<2>(g)[i], std::get<2>(stored)[i]));
    }
    for (std::size_t i = 0; i < 9; ++i) CHECK(same_bits(std::get<1>(g)[i], std::get<1>(stored)[i]));
    CHECK(tl::check_gradient(loss(tl::checkpoints<3>{}), s0, a, b));
  }
}

TEST_CASE("iterate with checkpoints: no heap for any n") {
  const double x0 = 1.0, v0 = -0.5, kk = 2.0, c = 0.5;
  for (const std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{33}, std::size_t{1000}, longest}) {
    CAPTURE(n);
    double value = 0;
    std::tuple<double, double, double, double> g{};
    CHECK(allocations_during([&] {
            std::tie(value, g) = tl::value_and_grad(oscillator_loss(n, tl::checkpoints<32>{}))(x0, v0, kk, c);
          }) == 0);
    CHECK(std::isfinite(value + std::get<2>(g)));
    if (n > 1000) continue;  // the sweep in duals is that of numbers, at a cost kept out of the sanitized build
    double h = 0;
    CHECK(allocations_during([&] {
            h = std::get<2>(std::get<2>(tl::hessian(oscillator_loss(n, tl::checkpoints<3>{}))(x0, v0, kk, c)));
          }) == 0);
    CHECK(std::isfinite(h));
  }
  // stored states take one allocation per call, which the counter sees
  CHECK(allocations_during([&] { (void)tl::grad(oscillator_loss(100))(x0, v0, kk, c); }) == 1);
}

TEST_CASE("iterate with checkpoints: the steps run again are Griewank and Walther's t(n, S)") {
  const double x0 = 1.0, v0 = -0.5, kk = 2.0, c = 0.5;
  const auto gradient = [&](const auto& loss) { (void)tl::grad(loss)(x0, v0, kk, c); };
  for (const std::size_t n : edges<3>(400)) check_recomputed<3>(n, true, gradient);
  for (const std::size_t n : edges<32>(7000)) check_recomputed<32>(n, true, gradient);
  check_recomputed<32>(longest, true, gradient);  // t = 433,955 for 10^5
  // 1000 steps with 32 states: r = 3, t = 3 * 1000 - C(35, 2) = 2405
  std::size_t calls = 0;
  gradient(counted_oscillator_loss(1000, &calls, tl::checkpoints<32>{}));
  CHECK(calls == 2 * 1000 + 2405);
  // outside grad the loop runs n steps, whatever the policy
  calls = 0;
  (void)counted_oscillator_loss(1000, &calls, tl::checkpoints<32>{})(x0, v0, kk, c);
  CHECK(calls == 1000);
  // in dual numbers: each of hessian's sweeps in duals recomputes t(n, S) steps; jvp runs forward only
  const auto hessian = [&](const auto& loss) { (void)tl::hessian(loss)(x0, v0, kk, c); };
  for (const std::size_t n : {1, 2, 9, 10, 11, 300}) check_recomputed<3>(n, true, hessian);
  const auto jvp = [&](const auto& loss) {
    (void)tl::jvp(loss, std::tuple{x0, v0, kk, c}, std::tuple{1.0, 0.0, 0.5, 0.0});
  };
  for (const std::size_t n : {1, 20, 300}) check_recomputed<3>(n, false, jvp);
}

TEST_CASE("iterate with checkpoints: hessian, jvp and grad of grad give what stored states give") {
  const double x0 = 1.0, v0 = -0.5, kk = 2.0, c = 0.5;
  for (const std::size_t n : {0, 1, 2, 3, 4, 5, 10, 11, 300}) {
    CAPTURE(n);
    const auto h = tl::hessian(oscillator_loss(n, tl::checkpoints<3>{}))(x0, v0, kk, c);
    const auto h_stored = tl::hessian(oscillator_loss(n))(x0, v0, kk, c);
    CHECK(same_bits(std::get<0>(h), std::get<0>(h_stored)));
    CHECK(same_bits(std::get<1>(h), std::get<1>(h_stored)));
    CHECK(same_bits(std::get<2>(h), std::get<2>(h_stored)));
    CHECK(same_bits(std::get<3>(h), std::get<3>(h_stored)));
    // against differences of the gradient, one column: d/dkk of the gradient
    const auto gradient_at = [&](double k) { return tl::grad(oscillator_loss(n, tl::checkpoints<3>{}))(x0, v0, k, c); };
    const double step = 1e-5;
    const auto up = gradient_at(kk + step), down = gradient_at(kk - step);
    CHECK(std::abs(std::get<2>(std::get<0>(h)) - (std::get<0>(up) - std::get<0>(down)) / (2 * step)) <= 1e-6);
    CHECK(std::abs(std::get<2>(std::get<3>(h)) - (std::get<3>(up) - std::get<3>(down)) / (2 * step)) <= 1e-6);

    const auto [value, tangent] =
        tl::jvp(oscillator_loss(n, tl::checkpoints<3>{}), std::tuple{x0, v0, kk, c}, std::tuple{1.0, -1.0, 0.5, 0.25});
    const auto [value_stored, tangent_stored] =
        tl::jvp(oscillator_loss(n), std::tuple{x0, v0, kk, c}, std::tuple{1.0, -1.0, 0.5, 0.25});
    CHECK(same_bits(value, value_stored));
    CHECK(same_bits(tangent, tangent_stored));
  }
  // grad of grad of a number state, against its second derivative in a computed exactly
  for (const std::size_t n : {0, 1, 2, 3, 4, 20}) {
    CAPTURE(n);
    const double a = 0.97;
    long double s = 1.5, ds = 0, d2s = 0;  // s(k) and its derivatives in a
    for (std::size_t k = 0; k < n; ++k) {
      d2s = a * d2s + 2 * ds;
      ds = a * ds + s;
      s = a * s + static_cast<long double>(k) / 100;
    }
    const double second = tl::grad(tl::grad(recurrence(n, tl::checkpoints<2>{})))(a);
    CHECK(same_bits(second, tl::grad(tl::grad(recurrence(n)))(a)));
    CHECK(fd::rel_error(second, static_cast<double>(d2s)) <= 1e-14);
    CHECK(fd::rel_error(tl::grad(recurrence(n, tl::checkpoints<2>{}))(a), static_cast<double>(ds)) <= 1e-14);
  }
}

TEST_CASE("iterate with checkpoints: in a constant expression") {
  // 9 steps with 2 states: r = 3 (beta(2, 2) = 6 < 9 <= beta(2, 3) = 10), t = 3 * 9 - C(5, 3) = 17
  static_assert(tl::detail::checkpoint_advances(9, 2) == 17);
  constexpr double g = tl::grad(recurrence(9, tl::checkpoints<2>{}))(0.9);
  constexpr double g_stored = tl::grad(recurrence(9))(0.9);
  static_assert(g == g_stored);
  constexpr double value = recurrence(9, tl::checkpoints<2>{})(0.9);
  static_assert(value == recurrence(9)(0.9));
  CHECK(g > 0);
}
