// SPDX-License-Identifier: BSL-1.0
// tl::iterate against loops whose adjoints are written by hand: the damped oscillator (a state of two
// numbers, two parameters) at step counts from 0 to 10^5, a recurrence of 3-vectors with a tanh and an
// input read at step k, a number state, a 2 x 2 matrix state, a 3-vector state read by elements and
// whole, iterate inside the body of tl::sum_over, tl::check_gradient and finite differences at seeded
// random points, and the inspectors.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <iterate_check.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace tl = tapeless;
using namespace iterate_check;

namespace {

/// Within `tolerance` of `want`, relative to max(1, |want|).
bool near(double got, double want, double tolerance) { return fd::rel_error(got, want) <= tolerance; }

}  // namespace

TEST_CASE("the damped oscillator against its adjoint by hand, from 0 to 10^5 steps") {
  const double x0 = 1.0, v0 = -0.5, kk = 2.0, c = 0.5;
  for (const std::size_t n : {0, 1, 2, 3, 31, 32, 33, 1000, 100000}) {
    CAPTURE(n);
    const auto loss = oscillator_loss(n);
    const auto e = oscillator_by_hand(n, x0, v0, kk, c);
    const auto [value, g] = tl::value_and_grad(loss)(x0, v0, kk, c);
    // The sweep adds each state's adjoints in its own order: the same terms as the loop by hand, within
    // the rounding of n steps.
    const double tolerance = 1e-15 * (10.0 + static_cast<double>(n));
    CHECK(near(value, e.value, tolerance));
    CHECK(near(std::get<0>(g), e.gradient[0], tolerance));
    CHECK(near(std::get<1>(g), e.gradient[1], tolerance));
    CHECK(near(std::get<2>(g), e.gradient[2], tolerance));
    CHECK(near(std::get<3>(g), e.gradient[3], tolerance));
    // Outside grad, on plain numbers: the same loop's value, a plain number.
    const double plain = loss(x0, v0, kk, c);
    CHECK(plain == value);
  }
  // n = 0 is init: the gradient of (x0 - 0.25)^2 + v0 exactly.
  const auto g0 = tl::grad(oscillator_loss(0))(x0, v0, kk, c);
  CHECK(g0 == std::tuple{2 * (x0 - 0.25), 1.0, 0.0, 0.0});
}

TEST_CASE("the oscillator at seeded random points: against finite differences and tl::check_gradient") {
  check_oscillator_at_random_points([](std::size_t n) { return oscillator_loss(n); }, 40, 20);
}

TEST_CASE("a recurrence of 3-vectors with a tanh, reading an input at step k, against its adjoint by hand") {
  fd::rng rng{41};
  for (const std::size_t n : {0, 1, 2, 33, 500}) {
    CAPTURE(n);
    const auto in = draw_recurrence(rng, n);  // named members: clang 14 captures no structured binding
    const auto& u = in.u;
    const auto& s0 = in.s0;
    const auto& A = in.A;
    const auto& b = in.b;
    const auto loss = recurrence_loss(u);
    const auto e = recurrence_by_hand(u, s0, A, b);
    const auto [value, g] = tl::value_and_grad(loss)(s0, A, b);
    const double tolerance = 1e-14 * (10.0 + static_cast<double>(n));
    CHECK(near(value, e.value, tolerance));
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(near(std::get<0>(g)[i], e.ds0[i], tolerance));
      CHECK(near(std::get<2>(g)[i], e.db[i], tolerance));
    }
    for (std::size_t i = 0; i < 9; ++i) CHECK(near(std::get<1>(g)[i], e.dA[i], tolerance));
    CHECK(tl::check_gradient(loss, s0, A, b));
  }
}

TEST_CASE("a number state, init an argument and a plain parameter: s' = a s + k / 100") {
  // s(n) = a^n s0 + sum_k a^(n-1-k) k / 100; d/ds0 = a^n, d/da = n a^(n-1) s0 + sum_k (n-1-k) a^(n-2-k) k / 100.
  const double a = 0.97, s0 = 1.5;
  for (const std::size_t n : {0, 1, 2, 3, 64, 65}) {
    CAPTURE(n);
    const auto f = [n](const auto& s, const auto& p) {
      return tl::iterate(
          n, s, [](const auto& x, std::size_t k, const auto& q) { return q * x + static_cast<double>(k) / 100; }, p);
    };
    long double ds = 1, da = 0, value = s0;
    for (std::size_t k = 0; k < n; ++k) {
      da = a * da + value;  // d/da of a s + k/100 = s + a ds/da
      ds *= a;
      value = a * value + static_cast<long double>(k) / 100;
    }
    const auto [gs, ga] = tl::grad(f)(s0, a);
    CHECK(near(gs, double(ds), 1e-14));
    CHECK(near(ga, double(da), 1e-13));
    CHECK(near(tl::grad<0>(f)(s0, a), double(ds), 1e-14));  // a plain number as the parameter
    CHECK(near(f(s0, a), double(value), 1e-14));
  }
}

TEST_CASE("a 2 x 2 matrix state, its parameter a matrix: S' = tanh(W S) + S / 2") {
  using m22 = tl::matrix<double, 2, 2>;
  const m22 S0{{0.5, -0.25}, {0.75, 1.0}};
  const m22 W{{0.3, -0.6}, {0.2, 0.4}};
  for (const std::size_t n : {0, 1, 7, 40}) {
    CAPTURE(n);
    const auto f = [n](const auto& S, const auto& Wm) {
      return tl::sum(tl::iterate(
          n, S, [](const auto& X, std::size_t, const auto& V) { return tl::tanh(tl::matmul(V, X)) + X / 2.0; }, Wm));
    };
    CHECK(tl::check_gradient(f, S0, W));
  }
}

TEST_CASE("a 3-vector state read by elements and whole, or with an element no step reads") {
  // The state's adjoint is summed element by element: first adjoints of single elements, then one of
  // the whole state (mixed), and a state element that receives none (+0). Both against the reverse loop
  // by hand, seeded with the gradient of sum(s(n)), and tl::check_gradient.
  using v3 = tl::vector<double, 3>;
  const v3 s0{0.5, -0.75, 0.25};
  const double a = 0.9;
  // mixed: s' = (a y, z - x, x y) + s / 2
  const auto mixed = [](const auto& s, std::size_t, const auto& p) {
    return tl::concat(p * s[1], s[2] - s[0], s[0] * s[1]) + s / 2.0;
  };
  // untouched: s' = (a x, x + y, a), which reads no z
  const auto untouched = [](const auto& s, std::size_t, const auto& p) {
    return tl::concat(p * s[0], s[0] + s[1], 1.0 * p);
  };
  for (const std::size_t n : {0, 1, 2, 3, 12}) {
    CAPTURE(n);
    std::vector<std::array<double, 3>> states(n + 1);
    // mixed, by hand
    states[0] = {s0[0], s0[1], s0[2]};
    for (std::size_t k = 0; k < n; ++k) {
      const auto [x, y, z] = states[k];
      states[k + 1] = {a * y + x / 2, z - x + y / 2, x * y + z / 2};
    }
    std::array<double, 3> g{1, 1, 1};
    double ga = 0;
    for (std::size_t k = n; k-- > 0;) {
      const auto [x, y, z] = states[k];
      ga += y * g[0];
      g = {-g[1] + y * g[2] + g[0] / 2, a * g[0] + x * g[2] + g[1] / 2, g[1] + g[2] / 2};
    }
    const auto f_mixed = [n, mixed](const auto& s, const auto& p) { return tl::sum(tl::iterate(n, s, mixed, p)); };
    const auto [gs, gp] = tl::grad(f_mixed)(s0, a);
    for (std::size_t i = 0; i < 3; ++i) CHECK(near(gs[i], g[i], 1e-13));
    CHECK(near(gp, ga, 1e-13));
    CHECK(tl::check_gradient(f_mixed, s0, a));
    // untouched, by hand
    for (std::size_t k = 0; k < n; ++k) {
      const auto [x, y, z] = states[k];
      (void)z;
      states[k + 1] = {a * x, x + y, a};
    }
    g = {1, 1, 1};
    ga = 0;
    for (std::size_t k = n; k-- > 0;) {
      ga += states[k][0] * g[0] + g[2];
      g = {a * g[0] + g[1], g[1], 0.0};
    }
    const auto f_untouched = [n, untouched](const auto& s, const auto& p) {
      return tl::sum(tl::iterate(n, s, untouched, p));
    };
    const auto [hs, hp] = tl::grad(f_untouched)(s0, a);
    for (std::size_t i = 0; i < 3; ++i) CHECK(near(hs[i], g[i], 1e-13));
    CHECK(near(hp, ga, 1e-13));
    if (n > 0) CHECK(!std::signbit(hs[2]));  // +0: no adjoint reached z of s(0)
    CHECK(tl::check_gradient(f_untouched, s0, a));
  }
}

TEST_CASE("inside the body of tl::sum_over: each row's state carried n steps") {
  // Row i: s(0) = x_i, s' = s - h a s^2 (n steps), term (s(n) - t_i)^2; the gradient in a by hand:
  // ds'/ds = 1 - 2 h a s, ds'/da = -h s^2.
  const std::vector<double> x{0.5, 1.0, 1.5, 2.0, -0.5, 0.25, 0.75};
  const std::vector<double> t{0.4, 0.7, 0.9, 1.1, -0.6, 0.2, 0.6};
  const double h = 0.05, a = 0.8;
  for (const std::size_t n : {0, 1, 5, 40}) {
    CAPTURE(n);
    const auto f = [&, n](const auto& p) {
      return tl::sum_over(
          tl::rows(x, t),
          [n, h](const auto& xi, const auto& ti, const auto& q) {
            const auto s = tl::iterate(
                n, xi, [h](const auto& s, std::size_t, const auto& r) { return s - h * r * tl::square(s); }, q);
            return tl::square(s - ti);
          },
          p);
    };
    double value = 0, da = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      std::vector<double> s(n + 1);
      s[0] = x[i];
      for (std::size_t k = 0; k < n; ++k) s[k + 1] = s[k] - h * a * (s[k] * s[k]);
      value += (s[n] - t[i]) * (s[n] - t[i]);
      double as = 2 * (s[n] - t[i]);
      for (std::size_t k = n; k-- > 0;) {
        da += as * (-h * s[k] * s[k]);
        as *= 1 - 2 * h * a * s[k];
      }
    }
    const auto [v, g] = tl::value_and_grad(f)(a);
    CHECK(near(v, value, 1e-14));
    CHECK(near(g, da, 1e-13));
    CHECK(near(f(a), value, 1e-14));
    CHECK(tl::check_gradient(f, a));
  }
}

TEST_CASE("the inspectors take the loop as one operation, named iterate") {
  const auto f = [](const auto& kk, const auto& c) {
    return tl::sum(tl::iterate(3, tl::vector<double, 2>{1.0, 0.0}, oscillator_step, kk, c));
  };
  std::ostringstream text;
  text << tl::trace(f, 2.0, 0.5);
  CHECK(text.str().find("= iterate(") != std::string::npos);
  CHECK(text.str().find("vjp_iterate(") != std::string::npos);
  CHECK(tl::to_dot(f, 2.0, 0.5).find("iterate") != std::string::npos);
  // The trace's gradient is grad's.
  const auto [dkk, dc] = tl::grad(f)(2.0, 0.5);
  CHECK(text.str().find("g_x1 = " + fd::str(dkk).substr(0, 6)) != std::string::npos);
  CHECK(dc > 0);
}
