// SPDX-License-Identifier: BSL-1.0
// tl::iterate with a state of run-time extents (tl::dynamic, tl::bounded): against the same loop on a
// state of fixed shape at the same values (values and every gradient), at sizes 0, 1, around a SIMD
// batch, 31, 32, 33 and 256; a matrix state with a row broadcast over it and a product by a matrix of
// fixed shape; finite differences at seeded points; stored states, a workspace and checkpoints giving
// the same gradient; hessian and jvp; data as init; an Eigen vector as init; zero steps; constexpr for
// tl::bounded; the allocations; and a step that changes the state's extents.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <Eigen/Core>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <run_time_twin.hpp>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace tl = tapeless;
using run_time_twin::dynamic_vector;

namespace {

using bounded_vector = tl::vector<double, tl::bounded<256>>;

/// One step of a damped, cubic oscillator per element, with an input read at step k.
constexpr auto cubic_step = [](const auto& s, std::size_t k, const auto& kk, const auto& c) {
  return s + 0.02 * (-kk * s - c * s * s * s + 0.05 * static_cast<double>(k % 7));
};

/// The loss of the state after n steps of cubic_step from x, in (x, kk, c).
constexpr auto cubic_loss(std::size_t n) {
  return [n](const auto& x, const auto& kk, const auto& c) {
    return tl::sum(tl::square(tl::iterate(n, x, cubic_step, kk, c)));
  };
}

/// x's values drawn with the seed given, in a vector of type V (of run-time extents, or fixed).
template <class V>
V drawn_vector(std::size_t n, std::uint64_t seed) {
  V x = run_time_twin::seeded<V>(n, seed, -1.0, 1.0);
  CHECK(x.size() == n);
  return x;
}

/// cubic_loss(steps) and its gradient in (x, kk, c), by a loop whose adjoint is written by hand.
struct cubic_by_hand {
  double value = 0;
  std::vector<double> gx;
  double gkk = 0, gc = 0;
};
inline cubic_by_hand cubic_adjoint(const std::vector<double>& x, std::size_t steps, double kk, double c) {
  cubic_by_hand out;
  out.gx.resize(x.size());
  std::vector<double> states(steps + 1);
  for (std::size_t e = 0; e < x.size(); ++e) {
    states[0] = x[e];
    for (std::size_t k = 0; k < steps; ++k) {
      const double s = states[k];
      states[k + 1] = s + 0.02 * (-kk * s - c * s * s * s + 0.05 * static_cast<double>(k % 7));
    }
    out.value += states[steps] * states[steps];
    double a = 2 * states[steps];
    for (std::size_t k = steps; k-- > 0;) {
      const double s = states[k];
      out.gkk += a * 0.02 * -s;
      out.gc += a * 0.02 * -(s * s * s);
      a *= 1 + 0.02 * (-kk - 3 * c * s * s);
    }
    out.gx[e] = a;
  }
  return out;
}

/// The loss and gradient of cubic_loss(steps) at a state of type V of n elements against the loop
/// written by hand, and its value on plain values.
template <class V>
void check_cubic_by_hand(std::size_t n, std::size_t steps) {
  CAPTURE(n);
  CAPTURE(steps);
  const auto x = drawn_vector<V>(n, 40 + n);
  const auto [value, g] = tl::value_and_grad(cubic_loss(steps))(x, 2.0, 0.5);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(g))>, V>);
  const cubic_by_hand want = cubic_adjoint(std::vector<double>(x.begin(), x.end()), steps, 2.0, 0.5);
  CHECK(fd::rel_error(value, want.value) < 1e-13);
  REQUIRE(std::get<0>(g).size() == n);
  for (std::size_t k = 0; k < n; ++k) CHECK(fd::rel_error(std::get<0>(g)[k], want.gx[k]) < 1e-13);
  CHECK(fd::rel_error(std::get<1>(g), want.gkk) < 1e-12);
  CHECK(fd::rel_error(std::get<2>(g), want.gc) < 1e-12);
  CHECK(fd::rel_error(cubic_loss(steps)(x, 2.0, 0.5), value) < 1e-13);  // on plain values
}

}  // namespace

TEST_CASE("a state of run-time extents against the loop written by hand, at every size") {
  for (const std::size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 256}) {
    check_cubic_by_hand<dynamic_vector>(n, 25);
    check_cubic_by_hand<bounded_vector>(n, 25);
  }
  check_cubic_by_hand<dynamic_vector>(5, 1);
  check_cubic_by_hand<bounded_vector>(5, 300);
}

TEST_CASE("a state of run-time extents against its fixed-shape twin at the same values") {
  const auto x = drawn_vector<dynamic_vector>(5, 2);
  const auto xf = drawn_vector<tl::vector<double, 5>>(5, 2);
  const auto [value, g] = tl::value_and_grad(cubic_loss(25))(x, 2.0, 0.5);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(cubic_loss(25))(xf, 2.0, 0.5);
  CHECK(fd::rel_error(value, fixed_value) < 1e-13);
  run_time_twin::check_elements_against_twin(std::get<0>(g), std::get<0>(fixed_g));
  CHECK(fd::rel_error(std::get<1>(g), std::get<1>(fixed_g)) < 1e-13);
  CHECK(fd::rel_error(std::get<2>(g), std::get<2>(fixed_g)) < 1e-13);
}

TEST_CASE("an empty state: the loss is 0 and the parameters' gradients +0") {
  for (const std::size_t steps : {0, 3}) {
    const auto [value, g] = tl::value_and_grad(cubic_loss(steps))(dynamic_vector(0), 2.0, 0.5);
    CHECK(value == 0.0);
    CHECK(std::get<0>(g).size() == 0);
    CHECK(std::get<1>(g) == 0.0);
    CHECK_FALSE(std::signbit(std::get<1>(g)));
    CHECK_FALSE(std::signbit(std::get<2>(g)));
  }
}

TEST_CASE("zero steps: the state is init, and the parameters' gradients +0 as for a fixed state") {
  const auto x = drawn_vector<dynamic_vector>(7, 3);
  const auto [value, g] = tl::value_and_grad(cubic_loss(0))(x, 2.0, 0.5);
  double sum_of_squares = 0;
  for (std::size_t k = 0; k < 7; ++k) {
    sum_of_squares += x[k] * x[k];
    CHECK(std::get<0>(g)[k] == 2 * x[k]);
  }
  CHECK(fd::rel_error(value, sum_of_squares) < 1e-15);
  CHECK(std::get<1>(g) == 0.0);
  CHECK_FALSE(std::signbit(std::get<1>(g)));
  CHECK_FALSE(std::signbit(std::get<2>(g)));
}

TEST_CASE("a matrix state: a row of fixed shape broadcast over it and a product by a fixed matrix") {
  using dynamic_rows = tl::matrix<double, tl::dynamic, 3>;
  using fixed_rows = tl::matrix<double, 4, 3>;
  const auto step = [](const auto& s, std::size_t, const auto& b, const auto& W) {
    return s + 0.1 * tl::tanh(tl::matmul(s, W) + b);
  };
  const auto loss = [&step](const auto& s0, const auto& b, const auto& W) {
    return tl::sum(tl::square(tl::iterate(12, s0, step, b, W)));
  };
  const auto s0f = run_time_twin::drawn<fixed_rows>(5);
  const auto s0 = run_time_twin::copy_of<dynamic_rows>(s0f);
  const auto b = run_time_twin::drawn<tl::matrix<double, 1, 3>>(6);
  const auto W = run_time_twin::drawn<tl::matrix<double, 3, 3>>(7);
  const auto [value, g] = tl::value_and_grad(loss)(s0, b, W);
  const auto [fixed_value, fixed_g] = tl::value_and_grad(loss)(s0f, b, W);
  CHECK(fd::rel_error(value, fixed_value) < 1e-13);
  run_time_twin::check_elements_against_twin(std::get<0>(g), std::get<0>(fixed_g));
  for (std::size_t e = 0; e < 3; ++e) CHECK(fd::rel_error(std::get<1>(g)[e], std::get<1>(fixed_g)[e]) < 1e-13);
  for (std::size_t e = 0; e < 9; ++e) CHECK(fd::rel_error(std::get<2>(g)[e], std::get<2>(fixed_g)[e]) < 1e-13);
  const auto of_s0 = [&](const dynamic_rows& s) { return loss(s, b, W); };
  for (std::size_t e = 0; e < 12; ++e) CHECK(fd::rel_error(std::get<0>(g)[e], fd::partial(of_s0, s0, e)) < 1e-8);
}

namespace {

/// The gradient of cubic_loss(steps) at (x, kk, c) against central differences of its plain values.
template <class V>
void check_cubic_against_differences(const V& x, double kk, double c) {
  const auto loss = cubic_loss(40);
  const auto [gx, gkk, gc] = tl::grad(loss)(x, kk, c);
  const auto of_x = [&](const V& y) { return loss(y, kk, c); };
  for (std::size_t k = 0; k < x.size(); ++k) CHECK(fd::rel_error(gx[k], fd::partial(of_x, x, k)) < 1e-8);
  CHECK(fd::rel_error(gkk, fd::derivative([&](double p) { return loss(x, p, c); }, kk)) < 1e-8);
  CHECK(fd::rel_error(gc, fd::derivative([&](double p) { return loss(x, kk, p); }, c)) < 1e-8);
}

}  // namespace

TEST_CASE("against finite differences at seeded random points") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    CAPTURE(seed);
    fd::rng u(seed);
    const double kk = u.uniform(0.5, 3.0), c = u.uniform(0.1, 1.0);
    check_cubic_against_differences(drawn_vector<dynamic_vector>(9, seed), kk, c);
    check_cubic_against_differences(drawn_vector<bounded_vector>(9, seed), kk, c);
  }
}

TEST_CASE("stored states, a workspace and checkpoints give the same gradient") {
  tl::workspace ws;
  const auto x = drawn_vector<dynamic_vector>(33, 8);
  const auto stored = tl::grad(cubic_loss(50))(x, 2.0, 0.5);
  const auto in_workspace = [&ws](const auto& s0, const auto& kk, const auto& c) {
    return tl::sum(tl::square(tl::iterate(ws, 50, s0, cubic_step, kk, c)));
  };
  const auto with_checkpoints = [](const auto& s0, const auto& kk, const auto& c) {
    return tl::sum(tl::square(tl::iterate(tl::checkpoints<3>{}, 50, s0, cubic_step, kk, c)));
  };
  CHECK((tl::grad(in_workspace)(x, 2.0, 0.5) == stored));  // bit for bit
  CHECK((tl::grad(with_checkpoints)(x, 2.0, 0.5) == stored));
}

TEST_CASE("second derivatives and forward mode: hessian and jvp against differences of the gradient") {
  const auto of_state = [](const auto& x) { return cubic_loss(15)(x, 2.0, 0.5); };
  const auto x = drawn_vector<dynamic_vector>(4, 11);
  const auto H = tl::hessian(of_state)(x);
  REQUIRE(H.rows() == 4);
  REQUIRE(H.cols() == 4);
  for (std::size_t j = 0; j < 4; ++j) {
    const auto column = [&](const dynamic_vector& y) { return tl::grad(of_state)(y)[j]; };
    for (std::size_t i = 0; i < 4; ++i) CHECK(fd::rel_error(H(i, j), fd::partial(column, x, i)) < 1e-8);
  }

  const auto gradient = tl::grad(of_state)(x);
  const auto [value, derivative] = tl::jvp(of_state, std::tuple{x}, std::tuple{x});
  double along_x = 0;
  for (std::size_t k = 0; k < 4; ++k) along_x += gradient[k] * x[k];
  CHECK(fd::rel_error(value, of_state(x)) < 1e-15);
  CHECK(fd::rel_error(derivative, along_x) < 1e-13);

  // The parameters, with data as init: a loop of dual numbers from a state of doubles.
  const auto of_parameters = [&x](const auto& kk, const auto& c) { return cubic_loss(15)(x, kk, c); };
  const auto Hp = tl::hessian(of_parameters)(2.0, 0.5);
  const auto d_kk = [&](double kk) { return std::get<0>(tl::grad(of_parameters)(kk, 0.5)); };
  const auto d_c = [&](double c) { return std::get<1>(tl::grad(of_parameters)(2.0, c)); };
  CHECK(fd::rel_error(std::get<0>(std::get<0>(Hp)), fd::derivative(d_kk, 2.0)) < 1e-8);
  CHECK(fd::rel_error(std::get<1>(std::get<1>(Hp)), fd::derivative(d_c, 0.5)) < 1e-8);
  CHECK(fd::rel_error(std::get<1>(std::get<0>(Hp)), std::get<0>(std::get<1>(Hp))) < 1e-12);
}

TEST_CASE("data as init: only the parameters are differentiated, and tl::cref reads it in place") {
  const auto x = drawn_vector<dynamic_vector>(6, 12);
  const auto xf = drawn_vector<tl::vector<double, 6>>(6, 12);
  const auto copied = [&x](const auto& kk, const auto& c) { return cubic_loss(20)(x, kk, c); };
  const auto in_place = [&x](const auto& kk, const auto& c) { return cubic_loss(20)(tl::cref(x), kk, c); };
  const auto fixed = [&xf](const auto& kk, const auto& c) { return cubic_loss(20)(xf, kk, c); };
  const auto g = tl::grad(copied)(2.0, 0.5);
  const auto gf = tl::grad(fixed)(2.0, 0.5);
  CHECK(fd::rel_error(std::get<0>(g), std::get<0>(gf)) < 1e-13);
  CHECK(fd::rel_error(std::get<1>(g), std::get<1>(gf)) < 1e-13);
  CHECK(tl::grad(in_place)(2.0, 0.5) == g);
}

TEST_CASE("an Eigen vector as init: an argument whose gradient is its own type, and data through tl::cref") {
  const auto x = drawn_vector<dynamic_vector>(6, 16);
  const Eigen::VectorXd e = Eigen::Map<const Eigen::VectorXd>(x.data(), 6);
  const auto [gx, gkk, gc] = tl::grad(cubic_loss(20))(x, 2.0, 0.5);
  const auto [ge, gekk, gec] = tl::grad(cubic_loss(20))(e, 2.0, 0.5);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(ge)>, Eigen::VectorXd>);
  REQUIRE(ge.size() == 6);
  for (Eigen::Index k = 0; k < 6; ++k) CHECK(ge[k] == gx[static_cast<std::size_t>(k)]);
  CHECK(gekk == gkk);
  CHECK(gec == gc);
  const auto from_data = [&e](const auto& kk, const auto& c) { return cubic_loss(20)(tl::cref(e), kk, c); };
  const auto [dkk, dc] = tl::grad(from_data)(2.0, 0.5);
  CHECK(dkk == gkk);
  CHECK(dc == gc);
}

TEST_CASE("a state alone, with no parameters") {
  const auto loss = [](const auto& x) {
    return tl::sum(tl::iterate(10, x, [](const auto& s, std::size_t) { return tl::sin(s) + 0.5 * s; }));
  };
  run_time_twin::check_elements_against_twin(tl::grad(loss)(drawn_vector<dynamic_vector>(5, 13)),
                                             tl::grad(loss)(drawn_vector<tl::vector<double, 5>>(5, 13)));
}

namespace {
constexpr auto bounded_ramp = [] {
  tl::vector<double, tl::bounded<8>> x(3);
  for (std::size_t k = 0; k < 3; ++k) x[k] = 0.1 * static_cast<double>(k + 1);
  return x;
};
constexpr auto checkpointed_loss = [](const auto& x, const auto& kk, const auto& c) {
  return tl::sum(tl::square(tl::iterate(tl::checkpoints<2>{}, 6, x, cubic_step, kk, c)));
};
}  // namespace

TEST_CASE("a bounded state in a constant expression: stored states and checkpoints agree") {
  constexpr auto g = tl::grad(cubic_loss(6))(bounded_ramp(), 2.0, 0.5);
  constexpr auto g_checkpointed = tl::grad(checkpointed_loss)(bounded_ramp(), 2.0, 0.5);
  static_assert(std::get<1>(g) == std::get<1>(g_checkpointed));
  static_assert(std::get<0>(g)[2] == std::get<0>(g_checkpointed)[2]);
  const auto at_run_time = tl::grad(cubic_loss(6))(bounded_ramp(), 2.0, 0.5);
  CHECK(std::get<1>(at_run_time) == std::get<1>(g));
  CHECK(std::get<0>(at_run_time)[2] == std::get<0>(g)[2]);
}

TEST_CASE("allocations: none for a bounded state with checkpoints or a workspace, one with stored states") {
  using test_support::allocations_during;
  const auto x = drawn_vector<bounded_vector>(40, 14);
  tl::workspace ws;
  const auto in_workspace = [&ws](const auto& s0, const auto& kk, const auto& c) {
    return tl::sum(tl::square(tl::iterate(ws, 100, s0, cubic_step, kk, c)));
  };
  const auto with_checkpoints = [](const auto& s0, const auto& kk, const auto& c) {
    return tl::sum(tl::square(tl::iterate(tl::checkpoints<8>{}, 100, s0, cubic_step, kk, c)));
  };
  std::tuple<bounded_vector, double, double> g{};
  CHECK(allocations_during([&] { g = tl::grad(cubic_loss(100))(x, 2.0, 0.5); }) == 1);
  CHECK(allocations_during([&] { g = tl::grad(with_checkpoints)(x, 2.0, 0.5); }) == 0);
  g = tl::grad(in_workspace)(x, 2.0, 0.5);
  CHECK(allocations_during([&] { g = tl::grad(in_workspace)(x, 2.0, 0.5); }) == 0);
  double value = 0;
  CHECK(allocations_during([&] { value = cubic_loss(100)(x, 2.0, 0.5); }) == 0);

  // A tl::dynamic state owns its elements, which take their room in the sweep's buffer, where the
  // pieces a step gives back serve the next: from the second call on, the buffer, the gradient's result
  // and the partials of the sum over the last state, however many steps.
  const auto xd = drawn_vector<dynamic_vector>(40, 14);
  std::tuple<dynamic_vector, double, double> gd{};
  for (const std::size_t n : {1000, 10, 100}) {
    const auto with_checkpoints_n = [n](const auto& s0, const auto& kk, const auto& c) {
      return tl::sum(tl::square(tl::iterate(tl::checkpoints<8>{}, n, s0, cubic_step, kk, c)));
    };
    CAPTURE(n);
    gd = tl::grad(cubic_loss(1000))(xd, 2.0, 0.5);  // sizes the thread's buffer for the largest
    CHECK(allocations_during([&] { gd = tl::grad(cubic_loss(n))(xd, 2.0, 0.5); }) == 3);
    CHECK(allocations_during([&] { gd = tl::grad(with_checkpoints_n)(xd, 2.0, 0.5); }) == 3);
  }

  // With a workspace passed to the transform too, its elements and adjoints take their room there: from
  // the second call on, nothing but the gradient's result, and with tl::into nothing at all.
  tl::workspace transform_ws;
  for (int call = 0; call < 2; ++call) {
    gd = tl::grad(in_workspace, transform_ws)(xd, 2.0, 0.5);
    gd = tl::grad(with_checkpoints, transform_ws)(xd, 2.0, 0.5);
    gd = tl::grad(cubic_loss(100), transform_ws)(xd, 2.0, 0.5);
  }
  CHECK(allocations_during([&] { gd = tl::grad(cubic_loss(100), transform_ws)(xd, 2.0, 0.5); }) == 1);
  CHECK(allocations_during([&] { gd = tl::grad(in_workspace, transform_ws)(xd, 2.0, 0.5); }) == 1);
  CHECK(allocations_during([&] { gd = tl::grad(with_checkpoints, transform_ws)(xd, 2.0, 0.5); }) == 1);
  auto& [gx, gkk, gc] = gd;
  const auto into = tl::into(gx, gkk, gc);
  tl::grad(in_workspace, into, transform_ws)(xd, 2.0, 0.5);
  CHECK(allocations_during([&] { tl::grad(in_workspace, into, transform_ws)(xd, 2.0, 0.5); }) == 0);
  CHECK((gd == tl::grad(cubic_loss(100))(xd, 2.0, 0.5)));  // bit for bit
}

TEST_CASE("a loop's buffers serve again step after step: checkpoints keep their memory bound in a workspace") {
  const auto x = drawn_vector<dynamic_vector>(40, 15);
  const auto room_for = [&x](const auto& loss) {
    tl::workspace ws;
    const auto g = tl::grad(loss, ws)(x, 2.0, 0.5);
    CHECK((g == tl::grad(loss)(x, 2.0, 0.5)));  // bit for bit
    return ws.capacity();
  };
  const auto with_checkpoints = [](std::size_t n) {
    return [n](const auto& s0, const auto& kk, const auto& c) {
      return tl::sum(tl::square(tl::iterate(tl::checkpoints<4>{}, n, s0, cubic_step, kk, c)));
    };
  };
  const std::size_t state = 40 * sizeof(double);
  // Stored states: the n states, and a few steps' adjoints and temporaries besides.
  const std::size_t stored = room_for(cubic_loss(1000));
  CHECK(stored >= 1000 * state);
  CHECK(stored < 1000 * (state + 2 * tl::detail::arena::alignment) + 64 * state);
  // Checkpoints: the S slots and a few steps' buffers, as many for 1000 steps as for 100.
  const std::size_t checkpointed = room_for(with_checkpoints(1000));
  CHECK(checkpointed == room_for(with_checkpoints(100)));
  CHECK(checkpointed < 64 * state);
}

TEST_CASE("a step that changes the state's extents throws std::invalid_argument naming both, before a step runs") {
  const auto shrinking = [](const auto& x, const auto& kk) {
    return tl::sum(tl::iterate(
        3, x, [](const auto& s, std::size_t, const auto& p) { return p * tl::slice(s, 0, 2); }, kk));
  };
  const auto x = drawn_vector<dynamic_vector>(3, 15);
  try {
    (void)tl::grad(shrinking)(x, 2.0);
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK(what.find("tl::iterate") != std::string::npos);
    CHECK(what.find("2 x 1") != std::string::npos);
    CHECK(what.find("3 x 1") != std::string::npos);
  }
  CHECK_THROWS_AS((void)shrinking(x, 2.0), std::invalid_argument);
  // No step runs, so none is checked: zero steps of such a step are init.
  const auto none = [](const auto& y) {
    return tl::sum(tl::iterate(0, y, [](const auto& s, std::size_t) { return tl::slice(s, 0, 2); }));
  };
  CHECK(tl::grad(none)(x)[2] == 1.0);
}
