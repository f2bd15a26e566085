// SPDX-License-Identifier: BSL-1.0
// tl::let: the same gradient as the function written without it, nested lets, lets made by a helper
// with one body (siblings of the same closure type, and a let of a let), plain numbers, bodies that
// ignore their name, and chains of k = 1..20 lets each using the previous value three times against
// the chain rule worked in plain doubles; lets over matrices moved, copied, nested and cut after they
// were built.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

constexpr int points = 200;
constexpr double same_tol = 1e-14;  // let against the same function written without it

constexpr int longest_chain = 20;

/// The k-th element of y <- y^2 + y with y_0 = x, each step a let whose bound expression is the
/// previous step: a chain of k lets, each body using its name three times.
template <int K, class X>
auto let_chain(const X& x) {
  if constexpr (K == 0)
    return x;
  else
    return tl::let(let_chain<K - 1>(x), [](auto y) { return y * y + y; });
}

/// The same recurrence with each let nested in the body of the previous one.
template <int K>
struct nested_step {
  template <class Y>
  auto operator()(Y y) const {
    auto next = y * y + y;
    if constexpr (K == 1)
      return next;
    else
      return tl::let(next, nested_step<K - 1>{});
  }
};
template <int K, class X>
auto let_nested(const X& x) {
  return tl::let(x, nested_step<K>{});
}

/// The same recurrence without let: every use copies the subtree, 3^k leaves.
template <int K, class X>
auto copied_chain(const X& x) {
  if constexpr (K == 0) {
    return x;
  } else {
    const auto y = copied_chain<K - 1>(x);
    return y * y + y;
  }
}

/// y_k and dy_k/dx by the chain rule in plain doubles: y' <- (2y + 1) y'.
std::pair<double, double> chain_rule(double x, int k) {
  double y = x, dy = 1.0;
  for (int i = 0; i < k; ++i) {
    dy = (2 * y + 1) * dy;
    y = y * y + y;
  }
  return {y, dy};
}

template <int K>
void check_chain_at(double x) {
  const auto expected = chain_rule(x, K);
  const auto chained = tl::value_and_grad([](auto a) { return let_chain<K>(a); })(x);
  const auto nested = tl::value_and_grad([](auto a) { return let_nested<K>(a); })(x);
  INFO("k = " << K << ", x = " << fd::str(x) << ": chain of lets " << doctest::toString(chained) << ", nested lets "
              << doctest::toString(nested) << ", chain rule " << doctest::toString(expected));
  CHECK(chained.first == let_chain<K>(x));  // the plain-number path computes the same value
  CHECK(fd::rel_error(chained.first, expected.first) < 1e-15);
  CHECK(fd::strict_rel_error(chained.second, expected.second) < 1e-13);
  CHECK(nested.first == chained.first);
  CHECK(fd::strict_rel_error(nested.second, expected.second) < 1e-13);
}

template <int... K>
void check_chains_at(double x, std::integer_sequence<int, K...>) {
  (check_chain_at<K + 1>(x), ...);
}

/// One body type for two nested lets: for a float name t it returns t * let(y t, itself), and for
/// the double name u of that inner let, u * u. So f = t (y t)^2 = y^2 t^3, with the outer name inside
/// the inner let's bound expression. A let's tag is made from its body's type: both lets have it.
template <class Y>
struct twin_body {
  Y y;
  template <class T>
  auto operator()(T t) const {
    if constexpr (std::is_same_v<typename T::value_type, float>)
      return t * tl::let(y * t, *this);
    else
      return t * t;
  }
};

}  // namespace

TEST_CASE("let: the same gradient as the function written without it") {
  const auto with_let = [](auto x1, auto x2) { return tl::let(x1 - x2, [](auto t) { return t * t + tl::sin(t); }); };
  const auto without = [](auto x1, auto x2) { return (x1 - x2) * (x1 - x2) + tl::sin(x1 - x2); };
  const auto with_let2 = [](auto x, auto y) {
    return tl::let(x * y, [](auto t) { return tl::exp(t) / (1.0 + t * t) - 3.0 * t; });
  };
  const auto without2 = [](auto x, auto y) { return tl::exp(x * y) / (1.0 + (x * y) * (x * y)) - 3.0 * (x * y); };
  fd::rng r{901};
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform(-2, 2), y = r.uniform(-2, 2);
    CAPTURE(x);
    CAPTURE(y);
    const auto a = tl::value_and_grad(with_let)(x, y), b = tl::value_and_grad(without)(x, y);
    CHECK(a.first == b.first);
    CHECK(fd::rel_error(std::get<0>(a.second), std::get<0>(b.second)) < same_tol);
    CHECK(fd::rel_error(std::get<1>(a.second), std::get<1>(b.second)) < same_tol);
    // the closed form: (2t + cos t)(1, -1)
    const double t = x - y;
    CHECK(fd::rel_error(std::get<0>(a.second), 2 * t + std::cos(t)) < same_tol);
    const auto c = tl::value_and_grad(with_let2)(x, y), d = tl::value_and_grad(without2)(x, y);
    CHECK(fd::rel_error(c.first, d.first) < same_tol);
    CHECK(fd::rel_error(std::get<0>(c.second), std::get<0>(d.second)) < same_tol);
    CHECK(fd::rel_error(std::get<1>(c.second), std::get<1>(d.second)) < same_tol);
    // and plain numbers through the same function
    CHECK(with_let(x, y) == a.first);
  }
}

TEST_CASE("let: nested lets") {
  SUBCASE("the inner body uses the outer name, the inner bound expression too") {
    const auto with_let = [](auto x, auto y) {
      return tl::let(x * x, [y](auto a) { return tl::let(a + y, [a](auto b) { return a * b + b * b; }); });
    };
    const auto without = [](auto x, auto y) { return (x * x) * (x * x + y) + (x * x + y) * (x * x + y); };
    fd::rng r{902};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-2, 2), y = r.uniform(-2, 2);
      CAPTURE(x);
      CAPTURE(y);
      const auto a = tl::value_and_grad(with_let)(x, y), b = tl::value_and_grad(without)(x, y);
      CHECK(fd::rel_error(a.first, b.first) < same_tol);
      CHECK(fd::rel_error(std::get<0>(a.second), std::get<0>(b.second)) < same_tol);
      CHECK(fd::rel_error(std::get<1>(a.second), std::get<1>(b.second)) < same_tol);
    }
  }
  SUBCASE("a let whose bound expression is itself a let") {
    const auto f = [](auto x) {
      return tl::let(tl::let(x + 1.0, [](auto u) { return u * u; }), [](auto v) { return v * v * v; });
    };  // (x + 1)^6
    for (const double x : {-2.0, 0.5, 1.0, 3.0}) {
      CAPTURE(x);
      CHECK(fd::rel_error(tl::grad(f)(x), 6 * std::pow(x + 1, 5)) < same_tol);
    }
  }
  SUBCASE("three levels, each body using every name in scope") {
    const auto f = [](auto x) {
      return tl::let(tl::sin(x), [x](auto a) {
        return tl::let(a * x, [x, a](auto b) { return tl::let(a + b, [x, a, b](auto c) { return a * b * c * x; }); });
      });
    };
    // a = sin x, b = x sin x, c = sin x + x sin x = (1 + x) sin x: f = x^2 (1 + x) sin^3 x
    fd::rng r{903};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-3, 3);
      CAPTURE(x);
      const double s = std::sin(x), c = std::cos(x);
      const double exact = (2 * x + 3 * x * x) * s * s * s + x * x * (1 + x) * 3 * s * s * c;
      CHECK(fd::rel_error(tl::grad(f)(x), exact) < 1e-13);
    }
  }
}

TEST_CASE("let: a helper making lets with one body, used several times") {
  const auto body = [](auto t) { return t * t + t; };
  const auto h = [body](const auto& e) { return tl::let(e, body); };  // e -> e^2 + e
  const auto dh = [](double e) { return 2 * e + 1; };
  const auto hv = [](double e) { return e * e + e; };
  fd::rng r{904};
  for (int i = 0; i < points; ++i) {
    const double x = r.uniform(-2, 2), y = r.uniform(-2, 2);
    CAPTURE(x);
    CAPTURE(y);
    // siblings on different arguments: different expression types
    const auto g1 = tl::grad([h](auto a, auto b) { return h(a) + h(b); })(x, y);
    CHECK(g1 == std::tuple{dh(x), dh(y)});
    // siblings on the same argument: the same closure type and the same expression type, two lets
    CHECK(tl::grad([h](auto a) { return h(a) + h(a); })(x) == 2 * dh(x));
    CHECK(fd::rel_error(tl::grad([h](auto a) { return h(a) * h(a); })(x), 2 * hv(x) * dh(x)) < same_tol);
    const auto g2 = tl::grad([h](auto a, auto b) { return h(a * b) - h(a * b) * 2.0; })(x, y);
    CHECK(fd::rel_error(std::get<0>(g2), -dh(x * y) * y) < same_tol);
    CHECK(fd::rel_error(std::get<1>(g2), -dh(x * y) * x) < same_tol);
    // a let of a let made by the same helper: h(h(x)), and three deep
    CHECK(fd::rel_error(tl::grad([h](auto a) { return h(h(a)); })(x), dh(hv(x)) * dh(x)) < same_tol);
    CHECK(fd::rel_error(tl::grad([h](auto a) { return h(h(h(a))); })(x), dh(hv(hv(x))) * dh(hv(x)) * dh(x)) < same_tol);
    // the helper's lets inside another let's body, on its name, as siblings
    const auto g3 = tl::grad([h](auto a) { return tl::let(a * 3.0, [h](auto t) { return h(t) * h(t) + h(t); }); })(x);
    CHECK(fd::rel_error(g3, (2 * hv(3 * x) + 1) * dh(3 * x) * 3) < 1e-13);
  }
}

TEST_CASE("let: nested lets with the same body type keep their names apart") {
  const auto f = [](auto x, auto y) { return tl::let(x * 1.0f, twin_body<decltype(y)>{y}); };
  static_assert(std::is_same_v<decltype(tl::grad(f)(1.5f, 2.0)), std::tuple<float, double>>);
  const auto vg = tl::value_and_grad(f)(1.5f, 2.0);
  CHECK(vg.first == 4.0 * 3.375);               // y^2 x^3
  CHECK(vg.second == std::tuple{27.0f, 13.5});  // (3 y^2 x^2, 2 y x^3)
  fd::rng r{907};
  for (int i = 0; i < points; ++i) {
    const float x = static_cast<float>(r.uniform(-2, 2));
    const double y = r.uniform(-2, 2);
    CAPTURE(x);
    CAPTURE(y);
    const auto g = tl::grad(f)(x, y);
    const double xd = x;
    CHECK(std::abs(std::get<0>(g) - 3 * y * y * xd * xd) < 1e-5 * std::max(1.0, 3 * y * y * xd * xd));
    CHECK(std::abs(std::get<1>(g) - 2 * y * xd * xd * xd) < 1e-5 * std::max(1.0, std::abs(2 * y * xd * xd * xd)));
  }
}

TEST_CASE("let: plain numbers, bodies that ignore their name, and a body returning its name") {
  SUBCASE("a let of a plain number is that plain number passed to the body") {
    static_assert(std::is_same_v<decltype(tl::let(2.0, [](auto t) { return t * t; })), double>);
    CHECK(tl::let(2.0, [](auto t) { return t * t + 1.0; }) == 5.0);
    CHECK(tl::let(3, [](auto t) { return t * 2; }) == 6);
    CHECK(tl::grad([](auto x) { return x * tl::let(3.0, [](auto t) { return t * t; }); })(2.0) == 9.0);
    // the body can use a differentiable capture
    CHECK(tl::value_and_grad([](auto x) { return tl::let(3.0, [x](auto t) { return t * x * x; }); })(2.0) ==
          std::pair{12.0, 12.0});
  }
  SUBCASE("a body that ignores its name") {
    CHECK(tl::value_and_grad([](auto x) { return tl::let(x * x, [](auto) { return 5.0; }); })(3.0) ==
          std::pair{5.0, 0.0});
    CHECK(tl::value_and_grad([](auto x) { return tl::let(x * x, [x](auto) { return x * 3.0; }); })(2.0) ==
          std::pair{6.0, 3.0});
    CHECK(tl::grad([](auto x, auto y) { return tl::let(x * x, [y](auto) { return y * y; }); })(2.0, 5.0) ==
          std::tuple{0.0, 10.0});
  }
  SUBCASE("a body returning its name") {
    CHECK(tl::value_and_grad([](auto x) { return tl::let(x * x, [](auto t) { return t; }); })(3.0) ==
          std::pair{9.0, 6.0});
  }
  SUBCASE("a body with a branch on the name's value") {
    const auto f = [](auto x) { return tl::let(x * x - 1.0, [](auto t) { return tl::if_else(t > 0.0, t * t, -t); }); };
    CHECK(tl::grad(f)(2.0) == 2 * 3.0 * 4.0);  // t = 3: 2t * 2x
    CHECK(tl::grad(f)(0.5) == -1.0);           // t < 0: -2x
  }
}

TEST_CASE("let: with tl::var") {
  tl::var<double> x{2.0}, y{3.0};
  const auto z = tl::let(x * y, [](auto t) { return t * t + t; });  // t = 6: 42, dz/dt = 13
  CHECK(z.value() == 42.0);
  z.backward();
  CHECK(x.grad() == 13.0 * 3.0);
  CHECK(y.grad() == 13.0 * 2.0);
}

TEST_CASE("let: chains of k = 1..20 lets, each using the previous value three times") {
  // y <- y^2 + y stays bounded from these starting points for 20 steps.
  SUBCASE("fixed points") {
    for (const double x : {0.01, 0.03, -0.25, -0.5, -0.75, -0.95})
      check_chains_at(x, std::make_integer_sequence<int, longest_chain>{});
  }
  SUBCASE("random points") {
    fd::rng r{905};
    // away from -1/2, where the first factor 2x + 1 vanishes and its rounding dominates the relative error
    for (int i = 0; i < 50; ++i)
      check_chains_at(r.uniform_away(-0.99, 0.04, {-0.5}, 0.01), std::make_integer_sequence<int, longest_chain>{});
  }
  SUBCASE("against the same chain written with copies, for k <= 8") {
    fd::rng r{906};
    for (int i = 0; i < points; ++i) {
      const double x = r.uniform(-0.99, 0.04);
      CAPTURE(x);
      const auto f = [](auto a) { return let_chain<8>(a); };
      const auto g = [](auto a) { return copied_chain<8>(a); };
      CHECK(fd::rel_error(tl::grad(f)(x), tl::grad(g)(x)) < same_tol);
      CHECK(tl::grad([](auto a) { return let_chain<3>(a); })(x) ==
            doctest::Approx(tl::grad([](auto a) { return copied_chain<3>(a); })(x)).epsilon(1e-15));
    }
  }
}

TEST_CASE("let: the adjoint meets each partial in turn, so a partial alone may overflow") {
  // d/dx of 1e-20 (1 / x) at x = 1e-160 is -1e300, while d(1 / x)/dx alone is -1e320, beyond double:
  // a let that took its bound's derivative apart and then multiplied by its adjoint (as a cut does)
  // would give -inf here (README, Performance: let_chain).
  for (const double x : {1e-160, -1e-160, 3e-155}) {
    CAPTURE(x);
    const double g = tl::grad([](auto a) { return tl::let(1.0 / a, [](auto t) { return 1e-20 * t; }); })(x);
    CHECK(std::isfinite(g));
    CHECK(fd::strict_rel_error(g, -1e-20 / x / x) < 1e-15);
  }
}

// A matrix name points at the value its let keeps (expr/leaf.hpp), and a let that is copied or moved
// points its names at its own copy (expr/let.hpp). Each function below moves or copies a let over a
// matrix after it was built, and must still give the gradient of the same function written without
// let; a name left pointing at the let it was copied from would read a dead object (the sanitizer
// build reports it) or a stale value.
/// s <- 0.9 s + 0.01 sum(p * p), K times: a number-valued tree K levels deep.
template <int K, class S, class P>
auto deep_chain(const S& s, const P& p) {
  if constexpr (K == 0)
    return s;
  else
    return deep_chain<K - 1>(s * 0.9 + tl::sum(p * p) * 0.01, p);
}

TEST_CASE("let over a matrix: moved, copied, nested and cut lets read their own values") {
  using M = tl::matrix<double, 3, 4>;
  const auto body = [](auto p) { return tl::sum(p * p + tl::exp(p)); };
  const auto plain_body = [](const auto& p) { return tl::sum(p * p + tl::exp(p)); };
  // the let an operand: moved into the node above it
  const auto moved = [&](const auto& x) { return 2.0 * tl::let(x * 0.5 + 1.0, body) + tl::let(tl::tanh(x), body); };
  const auto moved_plain = [&](const auto& x) { return 2.0 * plain_body(x * 0.5 + 1.0) + plain_body(tl::tanh(x)); };
  // a let kept in a local, copied, and the copy returned
  const auto copied = [&](const auto& x) {
    const auto original = tl::let(x * 0.5 + 1.0, body);
    auto copy = original;
    return copy * 3.0;
  };
  const auto copied_plain = [&](const auto& x) { return plain_body(x * 0.5 + 1.0) * 3.0; };
  // a let of a let: the inner one moved into the outer's bound expression, matrix-valued by its body
  const auto chained = [](const auto& x) {
    return tl::sum(tl::let(tl::let(x * 2.0, [](auto p) { return p * p - p; }), [](auto q) { return q * q + q; }));
  };
  const auto chained_plain = [](const auto& x) {
    const auto p = x * 2.0;
    const auto q = p * p - p;
    return tl::sum(q * q + q);
  };
  // a let inside a let's body, binding the outer name itself and an expression of it; then moved
  const auto nested = [](const auto& x) {
    return 1.0 + tl::let(tl::sin(x), [](auto p) {
             return tl::let(p, [p](auto q) { return tl::let(q * p + p, [q](auto r) { return tl::sum(r * q); }); });
           });
  };
  const auto nested_plain = [](const auto& x) {
    const auto p = tl::sin(x);
    return 1.0 + tl::sum((p * p + p) * p);
  };
  // a number-valued chain deeper than the cut depth, over a matrix name: cut nodes keep the name
  const auto deep = [](const auto& x) {
    return 0.5 * tl::let(tl::exp(x * 0.25), [](auto p) { return deep_chain<20>(tl::sum(p), p); });
  };
  const auto deep_plain = [](const auto& x) {
    const auto p = tl::exp(x * 0.25);
    return 0.5 * deep_chain<20>(tl::sum(p), p);
  };
  fd::rng r{907};
  for (int i = 0; i < 20; ++i) {
    M x;
    for (auto& e : x) e = r.uniform(-1.5, 1.5);
    const auto check = [&x, i](const char* name, const auto& f, const auto& g) {
      const auto [value, gradient] = tl::value_and_grad(f)(x);
      const auto [plain_value, plain_gradient] = tl::value_and_grad(g)(x);
      M fd_gradient;
      for (std::size_t k = 0; k < M::size(); ++k)
        fd_gradient[k] = fd::derivative(
            [&](double v) {
              M y = x;
              y[k] = v;
              return static_cast<double>(g(y));
            },
            x[k]);
      INFO(name << " at point " << i);
      CHECK(fd::rel_error(value, plain_value) < same_tol);
      CHECK(fd::rel_error(static_cast<double>(f(x)), plain_value) < same_tol);  // plain numbers too
      for (std::size_t k = 0; k < M::size(); ++k) {
        CHECK(fd::rel_error(gradient[k], plain_gradient[k]) < 1e-13);
        CHECK(fd::rel_error(tl::grad(f)(x)[k], plain_gradient[k]) < 1e-13);
        CHECK(fd::rel_error(gradient[k], fd_gradient[k]) < 1e-6);
      }
    };
    check("moved", moved, moved_plain);
    check("copied", copied, copied_plain);
    check("chained", chained, chained_plain);
    check("nested", nested, nested_plain);
    check("deep", deep, deep_plain);
  }
}
