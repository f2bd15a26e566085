// SPDX-License-Identifier: BSL-1.0
// Fused elementwise regions (sweep/fused.hpp): grad sweeps a tree of elementwise nodes whose value nothing
// reads as one loop over the elements. value_and_grad reads the root's value, so it sweeps the same tree node
// by node: the two must agree, element by element, within a few ulp (the sums of a broadcast number's
// adjoints add in a different order, and in batches a division by a number multiplies by its reciprocal), and
// both with finite differences. At sizes 1, 7, 8 and 23 (no full batch, partial last batches, none), with
// numbers and matrices among the inputs, inputs that are not elementwise (matmul), inside a let, with
// operations that have no batch form (scalar loop), in float, in dual numbers (hessian), from a dense
// cotangent (vjp), and in a constant expression. (tl::check_gradient runs f on plain values, which tl::cref
// and let expressions are not: those cases are checked against the node-by-node sweep, which the matrix tests
// check against finite differences.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <matrix_check.hpp>
#include <normal_logpdf.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

using mx::check_same;
using mx::seeded;

/// Rosenbrock over N elements, as benchmark case S3 writes it: head = slice(x) is used twice.
template <std::size_t N>
constexpr auto rosenbrock = [](const auto& x) {
  const auto head = tl::slice<0, N - 1>(x);
  const auto tail = tl::slice<1, N - 1>(x);
  return tl::sum(100.0 * tl::square(tail - tl::square(head)) + tl::square(1.0 - head));
};

/// Its exact gradient.
template <std::size_t N>
tl::vector<double, N> rosenbrock_gradient(const tl::vector<double, N>& x) {
  auto g = tl::vector<double, N>::filled(0.0);
  for (std::size_t i = 0; i + 1 < N; ++i) {
    const double a = x[i + 1] - x[i] * x[i];
    g[i] += -400.0 * a * x[i] - 2.0 * (1.0 - x[i]);
    g[i + 1] += 200.0 * a;
  }
  return g;
}

/// grad(f) (fused) against value_and_grad(f) (node by node) and finite differences, at x of size N.
template <std::size_t N, class F>
void check_vector_function(const std::string& name, const F& f, double lo, double hi, int ulps) {
  const auto x = seeded<N>(N, lo, hi);
  const auto fused = tl::grad(f)(x);
  const auto node_by_node = tl::value_and_grad(f)(x).second;
  check_same(name + ", N = " + std::to_string(N), fused, node_by_node, ulps);
  CHECK(tl::check_gradient(f, x));
}

template <class F>
void check_vector_function(const std::string& name, const F& f, double lo, double hi, int ulps = 4) {
  check_vector_function<1>(name, f, lo, hi, ulps);
  check_vector_function<7>(name, f, lo, hi, ulps);
  check_vector_function<8>(name, f, lo, hi, ulps);
  check_vector_function<23>(name, f, lo, hi, ulps);
}

}  // namespace

TEST_CASE("a region of one matrix input agrees with the node-by-node sweep") {
  check_vector_function(
      "exp(x) x + 2 x", [](const auto& x) { return tl::sum(tl::exp(x) * x + 2.0 * x); }, -2, 2);
  // x / 3 is x * (1 / 3) in the loop in batches (ops::divide_by_uniform), 1 ulp from x / 3, and the two
  // terms of the adjoint cancel to a twentieth of their size: 16 ulp of the result seen, 64 allowed.
  check_vector_function(
      "tanh sigmoid", [](const auto& x) { return tl::mean(tl::tanh(x) * tl::sigmoid(x) - x / 3.0); }, -3, 3, 64);
  check_vector_function(
      "log1p sqrt", [](const auto& x) { return tl::sum(tl::log1p(x) * tl::sqrt(x) + tl::square(tl::log(x))); }, 0.1, 4);
  check_vector_function(
      "sin cos softplus",
      [](const auto& x) { return tl::sum(tl::sin(x) * tl::cos(2.0 * x) - tl::softplus(-x) + tl::expm1(x / 4.0)); }, -3,
      3);
  // erf and pow have no batch form: the region's loop runs one element at a time.
  check_vector_function(
      "erf pow", [](const auto& x) { return tl::sum(tl::erf(x) * tl::pow(x, 2.5) + x); }, 0.1, 2);
}

TEST_CASE("numbers beside the matrix receive the sum of their adjoints") {
  // normal log-density (benchmark case S5): mu and sigma are used by every element.
  const auto y = seeded<23>(5, -2, 2);
  const auto f = normal_logpdf::function(y);
  const auto [gmu, gsigma] = tl::grad(f)(0.3, 1.7);
  const auto [node_mu, node_sigma] = tl::value_and_grad(f)(0.3, 1.7).second;
  check_same("d/dmu", gmu, node_mu, 4);
  check_same("d/dsigma", gsigma, node_sigma, 4);
  const auto [exact_mu, exact_sigma] = normal_logpdf::exact_gradient(y, 0.3, 1.7);
  CHECK(gmu == doctest::Approx(exact_mu).epsilon(1e-14));
  CHECK(gsigma == doctest::Approx(exact_sigma).epsilon(1e-14));
  CHECK(tl::check_gradient(f, 0.3, 1.7));
}

/// d/dt of f(x, t) at x of size N seeded and t = 0.3: fused (grad) and node by node (value_and_grad).
template <std::size_t N, class F>
std::pair<double, double> number_adjoint(const F& f) {
  const auto x = seeded<N>(N + 70, -2, 2);
  return {std::get<1>(tl::grad(f)(x, 0.3)), std::get<1>(tl::value_and_grad(f)(x, 0.3).second)};
}

TEST_CASE("a number whose adjoint is the same for every element receives n times it") {
  namespace d = tl::detail;
  using V = tl::vector<double, 8>;
  const V v = seeded<8>(71, -1, 1);
  const tl::argument<0, V> x(v);
  const tl::argument<1, double> t(0.5), u(2.0);
  // Which inputs' adjoints are the same for every element, from a root adjoint that is: through + - and
  // unary minus, and through * and / to the side whose other side is a number. Slot by slot (a number
  // used twice is one slot). A number's own operations (log(u), exp(u)) are inputs of the region.
  using normal = decltype(-0.5 * tl::square((x - t) / u) - tl::log(u) - 0.9);  // x t u -0.5 log(u) 0.9
  static_assert(d::region_size<normal> == 6);
  static_assert(!d::uniform_slot_adjoints<normal>[1] && !d::uniform_slot_adjoints<normal>[2]);
  static_assert(d::uniform_slot_adjoints<normal>[4]);              // - log(u): -1 at every element
  using scaled = decltype(t * x + tl::exp(u) * -x / t);            // t x exp(u) x t
  static_assert(!d::uniform_slot_adjoints<scaled>[0]);             // t: g x and - g exp(u) (-x) / t^2
  static_assert(!d::uniform_slot_adjoints<scaled>[2]);             // exp(u): g (-x) / t
  using linear = decltype(-(x - t) * 2.0 + tl::exp(u) / 3.0 + x);  // x t 2 exp(u) / 3 x
  static_assert(d::uniform_slot_adjoints<linear>[1] && d::uniform_slot_adjoints<linear>[3]);
  using shared = decltype(x * t + t);  // t one slot: g x + g
  static_assert(!d::uniform_slot_adjoints<shared>[1]);
  using divided = decltype(x / t + t);  // t one slot: - g x / t^2 + g
  static_assert(!d::uniform_slot_adjoints<divided>[1]);

  // - t under sum: -n exactly, with a whole batch, partial batches and none.
  const auto minus = [](const auto& x, const auto& t) { return tl::sum(tl::exp(x) - t); };
  CHECK(number_adjoint<1>(minus).first == -1.0);
  CHECK(number_adjoint<3>(minus).first == -3.0);
  CHECK(number_adjoint<23>(minus).first == -23.0);
  CHECK(number_adjoint<64>(minus).first == -64.0);
  // Under mean, n (1 / n): within an ulp of 1, where n additions of 1 / n may drift further.
  const auto mean = [](const auto& x, const auto& t) { return tl::mean(tl::exp(x) + 2.0 * t); };
  for (const auto& [fused, node_by_node] :
       {number_adjoint<7>(mean), number_adjoint<23>(mean), number_adjoint<64>(mean)}) {
    check_same("mean(exp(x) + 2 t), d/dt", fused, 2.0, 1);
    check_same("mean(exp(x) + 2 t), d/dt node by node", node_by_node, 2.0, 4);
  }
  // A slot that is not uniform is summed element by element: sum(x t + t) and sum(x / t + t).
  const auto x23 = seeded<23>(93, -2, 2);
  double sum_x = 0;
  for (const double e : x23) sum_x += e;
  const auto times_plus = [](const auto& x, const auto& t) { return tl::sum(t * tl::exp(x) + t); };
  const auto over_plus = [](const auto& x, const auto& t) { return tl::sum(x / t + t); };
  double sum_exp = 0;
  for (const double e : x23) sum_exp += std::exp(e);
  CHECK(std::get<1>(tl::grad(times_plus)(x23, 0.3)) == doctest::Approx(sum_exp + 23).epsilon(1e-14));
  CHECK(std::get<1>(tl::grad(over_plus)(x23, 0.3)) == doctest::Approx(23 - sum_x / 0.09).epsilon(1e-14));
  CHECK(tl::check_gradient(times_plus, x23, 0.3));
  CHECK(tl::check_gradient(over_plus, x23, 0.3));
  // From a dense cotangent the adjoints differ by element: d/dt of u^T (exp(x) - t) is -sum(u).
  const auto w = seeded<23>(94, -1, 1);
  double sum_w = 0;
  for (const double e : w) sum_w += e;
  const auto pullback = tl::vjp([](const auto& x, const auto& t) { return tl::exp(x) - t; }, x23, 0.3).second;
  CHECK(std::get<1>(pullback(w)) == doctest::Approx(-sum_w).epsilon(1e-14));
  // In a constant expression, the scalar loop: the same n times.
  constexpr tl::vector<double, 3> c{1.0, -2.0, 0.5};
  static_assert(std::get<1>(tl::grad([](const auto& x, const auto& t) { return tl::sum(x * x - 0.5 * t); })(c, 4.0)) ==
                -1.5);
}

TEST_CASE("a number divisor: its reciprocal where that is a normal number, else the division") {
  // ops::divide_by_uniform, what a region's loop in batches divides by a number with: x * (1 / y)
  // within 1 ulp of x / y over divisors of every magnitude, and x / y itself, bit for bit, where 1 / y
  // is not a normal number (the multiplication would overflow to inf, or lose bits, where the
  // division does not) or y is not finite.
  namespace ops = tl::ops;
  fd::rng r{61};
  for (int k = 0; k < 5000; ++k) {
    const double x = r.uniform(-1, 1) * std::ldexp(1.0, static_cast<int>(r.uniform(-60, 60)));
    const double y = r.uniform(0.5, 1) * std::ldexp(1.0, static_cast<int>(r.uniform(-1020, 1022)));
    INFO("x = " << fd::str(x) << ", y = " << fd::str(y));
    CHECK(fd::ulp_distance(ops::times_reciprocal(x, y), x / y) <= 1);
  }
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double big = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::denorm_min();
  for (const double y : {0.0, -0.0, tiny, 1e-310, -1e-309, 1e308, -big, inf, -inf, nan})
    for (const double x : {1.0, -3e-300, 1e-20, 0.0, 5e300, inf, nan}) {
      INFO("x = " << fd::str(x) << ", y = " << fd::str(y));
      CHECK(fd::ulp_distance(ops::times_reciprocal(x, y), x / y) == 0);
      CHECK(std::signbit(ops::times_reciprocal(x, y)) == std::signbit(x / y));
    }
#if TAPELESS_SIMD
  // The same on batches, whose lanes all hold the one divisor; the rule's adjoints too.
  using B = tl::detail::simd::batch<double>;
  for (const double y : {1.7, -3e-5, 1e-310, 1e308, 0.0, inf, nan}) {
    const double x = 0.75, g = 1e-20;
    const auto batch_rule = ops::divide_by_uniform::vjp(B(g), B(x), B(y), ops::divide_by_uniform::value(B(x), B(y)));
    const auto rule = ops::divide::vjp(g, x, y, x / y);
    // Plain doubles, not structured bindings: clang 14 cannot capture those in INFO's lambda.
    const double gx = batch_rule.first.get(0), gy = batch_rule.second.get(0);
    INFO("y = " << fd::str(y) << ": " << fd::str(gx) << ", " << fd::str(gy));
    CHECK(fd::ulp_distance(ops::divide_by_uniform::value(B(x), B(y)).get(0), x / y) <= 1);
    CHECK(fd::ulp_distance(gx, rule.first) <= 1);
    CHECK(fd::ulp_distance(gy, rule.second) <= 2);
  }
#endif

  // Through grad: sum(c x / s) fused against node by node, at divisors where 1 / s is normal, where it
  // overflows (c / s is finite, c * (1 / s) would be inf) and where it is subnormal.
  const auto x = seeded<23>(62, -1, 1);
  for (const double s : {1.7, 1e-310, 6e307, -0.0}) {
    const auto f = [](const auto& v, const auto& d) { return tl::sum(1e-20 * v / d); };
    const auto [gv, gs] = tl::grad(f)(x, s);
    const auto [node_v, node_s] = tl::value_and_grad(f)(x, s).second;
    check_same("sum(c x / s), s = " + fd::str(s) + ", d/dx", gv, node_v, 1);
    check_same("sum(c x / s), s = " + fd::str(s) + ", d/ds", gs, node_s, 4);
  }
}

TEST_CASE("a region whose inputs are matrix operations, inside a let") {
  const tl::matrix<double, 7, 3> X = [] {
    tl::matrix<double, 7, 3> m;
    fd::rng r{11};
    for (auto& e : m) e = r.uniform(-1, 1);
    return m;
  }();
  const auto y = seeded<7>(12, 0, 1);
  // logistic regression (benchmark case S6): the loss is a region whose input p is a let's name.
  const auto loss = [&X, &y](const auto& beta) {
    return tl::let(tl::sigmoid(tl::matmul(tl::cref(X), beta)), [&y](const auto& p) {
      return -tl::mean(tl::cref(y) * tl::log(p) + (1.0 - tl::cref(y)) * tl::log(1.0 - p));
    });
  };
  const auto beta = seeded<3>(13, -1, 1);
  check_same("logistic regression", tl::grad(loss)(beta), tl::value_and_grad(loss)(beta).second, 4);

  // A region over a matmul and the argument itself, both differentiated.
  const auto layer = [&X](const auto& w, const auto& b) {
    return tl::sum(tl::tanh(tl::matmul(tl::cref(X), w) + b) * tl::matmul(tl::cref(X), w));
  };
  const auto b = 0.25;
  const auto [gw, gb] = tl::grad(layer)(beta, b);
  const auto [node_w, node_b] = tl::value_and_grad(layer)(beta, b).second;
  check_same("layer, w", gw, node_w, 4);
  check_same("layer, b", gb, node_b, 4);
}

TEST_CASE("a region writes a leaf's first adjoint into its sum; the adjoints that follow add to it") {
  // Each loop below reaches its leaf either first (it writes into the leaf's sum itself) or after
  // another adjoint (it gathers, and the sum adds): both orders, checked against the exact gradient.
  const auto x = seeded<23>(31, -1, 1);
  const auto two_regions = [](const auto& v) { return tl::sum(tl::exp(v)) * tl::sum(tl::sin(v) * v); };
  const auto g = tl::grad(two_regions)(x);  // one matrix argument: summed in the result itself
  double s1 = 0, s2 = 0;
  for (const double e : x) s1 += std::exp(e), s2 += std::sin(e) * e;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double exact = std::exp(x[i]) * s2 + s1 * (std::cos(x[i]) * x[i] + std::sin(x[i]));
    CHECK(g[i] == doctest::Approx(exact).epsilon(1e-13));
  }
  check_same("two regions", g, tl::value_and_grad(two_regions)(x).second, 4);
  CHECK(tl::check_gradient(two_regions, x));

  // Two arguments (a sum per argument), each in a region and in a dot product.
  const auto y = seeded<23>(32, -1, 1);
  const auto with_dot = [](const auto& a, const auto& b) { return tl::sum(tl::exp(a) * b) + tl::dot(a, b); };
  const auto [ga, gb] = tl::grad(with_dot)(x, y);
  for (std::size_t i = 0; i < x.size(); ++i) {
    CHECK(ga[i] == doctest::Approx(std::exp(x[i]) * y[i] + y[i]).epsilon(1e-14));
    CHECK(gb[i] == doctest::Approx(std::exp(x[i]) + x[i]).epsilon(1e-14));
  }
  CHECK(tl::check_gradient(with_dot, x, y));

  // A let's name in two regions and a dot product; its sum then flows into 3 v.
  const auto named = [](const auto& v) {
    return tl::let(3.0 * v, [](const auto& p) { return tl::sum(tl::exp(p)) * tl::dot(p, p) + tl::sum(p * p * p); });
  };
  const auto gn = tl::grad(named)(x);
  double se = 0, pp = 0;
  for (const double e : x) se += std::exp(3 * e), pp += 9 * e * e;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double p = 3 * x[i];
    CHECK(gn[i] == doctest::Approx(3 * (std::exp(p) * pp + se * 2 * p + 3 * p * p)).epsilon(1e-13));
  }
  check_same("a let's name", gn, tl::value_and_grad(named)(x).second, 4);
}

TEST_CASE("two matrix arguments, elementwise binary operations between them") {
  const auto f = [](const auto& a, const auto& b) { return tl::sum(tl::exp(a - b) * b / (1.0 + a * a)); };
  const auto a = seeded<23>(21, -1, 1), b = seeded<23>(22, -1, 1);
  const auto [ga, gb] = tl::grad(f)(a, b);
  const auto [node_a, node_b] = tl::value_and_grad(f)(a, b).second;
  check_same("d/da", ga, node_a, 4);
  check_same("d/db", gb, node_b, 4);
}

TEST_CASE("inputs of one type and no state are one input: Rosenbrock's slices") {
  // head = slice(x) is used twice: one input (one value, one adjoint, one sweep into x), as x used
  // twice is; tail is another. 40 elements: a region of plain arithmetic, fused.
  constexpr std::size_t n = 40;
  const auto f = rosenbrock<n>;
  const auto x = seeded<n>(3, -1.5, 1.5);
  using V = tl::vector<double, n>;
  namespace d = tl::detail;
  const tl::argument<0, V> arg(x);
  using R = decltype(f(arg).arg);  // the region under sum: inputs 100, tail, head, 1, head
  static_assert(d::region_size<R> == 5);
  static_assert(d::input_slot<d::region_inputs_t<R>, 4> == 2 && d::input_slot<d::region_inputs_t<R>, 1> == 1);
  static_assert(std::is_same_v<
                std::remove_cvref_t<decltype(d::plain_get<4>(std::declval<d::region_evaluation<R>>().input_values))>,
                d::evaluated_elsewhere>);
  const auto g = tl::grad(f)(x);
  const auto node_by_node = tl::value_and_grad(f)(x).second;
  // x[i] gets the adjoints of head and of tail, of opposite signs, added in another order: 16 ulp.
  check_same("Rosenbrock, n = 40", g, node_by_node, 16);
  const V exact = rosenbrock_gradient(x);
  for (std::size_t i = 0; i < n; ++i) CHECK(g[i] == doctest::Approx(exact[i]).epsilon(1e-13));
  CHECK(tl::check_gradient(f, x));
}

TEST_CASE("small plain regions stay node by node, their sweeps marked for clang to inline") {
  // Rosenbrock at n = 16: 15 elements, fewer than fuse_min_elements, so plain arithmetic would be swept
  // node by node, each sweep marked TAPELESS_SWEEP_INLINE (detail/inline.hpp); but its head and tail
  // are slices of x one element apart, which a region's loop gathers in a window (region_in_window), so
  // with SIMD it is a region; at n = 40, a region. The same arithmetic on x itself stays node by node.
  namespace d = tl::detail;
  using V16 = tl::vector<double, 16>;
  using V40 = tl::vector<double, 40>;
  const auto f16 = rosenbrock<16>;
  const auto f40 = rosenbrock<40>;
  using Sum16 = decltype(f16(std::declval<const tl::argument<0, V16>&>()));
  using Sum40 = decltype(f40(std::declval<const tl::argument<0, V40>&>()));
  using Body16 = decltype(std::declval<Sum16>().arg);
  using Head16 = decltype(tl::slice<0, 15>(std::declval<const tl::argument<0, V16>&>()));
  static_assert(d::fused_region<Body16> == TAPELESS_SIMD && d::region_in_window<Body16, double> == TAPELESS_SIMD &&
                d::fused_region<decltype(std::declval<Sum40>().arg)>);
  const auto plain16 = [](const auto& x) {
    return tl::sum(100.0 * tl::square(x - tl::square(x)) + tl::square(1.0 - x));
  };
  static_assert(!d::fused_region<decltype(plain16(std::declval<const tl::argument<0, V16>&>()).arg)>);
  // In duals of one tangent (a Hessian-vector product) n = 40 is a region; in duals of several lanes
  // (tl::hessian's chunks, the sparse transforms' colors) it stays node by node (lane_dual).
  using D1 = tl::matrix<tl::dual<double>, 40, 1>;
  using D8 = tl::matrix<tl::dual<double, tl::tangents<double, 8>>, 40, 1>;
  static_assert(d::fused_region<decltype(f40(std::declval<const tl::argument<0, D1>&>()).arg)>);
  static_assert(!d::fused_region<decltype(f40(std::declval<const tl::argument<0, D8>&>()).arg)>);
  // The sum of a small matrix is marked too, so the sweep it runs is one body; not so at n = 40, nor
  // for numbers.
  static_assert(d::sweep_inline<Sum16> && d::sweep_inline<Body16> && d::sweep_inline<Head16>);
  static_assert(!d::sweep_inline<Sum40> && !d::sweep_inline<decltype(std::declval<Sum40>().arg)>);
  const tl::argument<1, double> s(2.0);
  static_assert(!d::sweep_inline<decltype(s * s + s)>);
  // The gradient, against the exact one and finite differences.
  const auto x = seeded<16>(4, -1.5, 1.5);
  const V16 g = tl::grad(f16)(x);
  const V16 exact = rosenbrock_gradient(x);
  for (std::size_t i = 0; i < 16; ++i) CHECK(g[i] == doctest::Approx(exact[i]).epsilon(1e-13));
  CHECK(tl::check_gradient(f16, x));
}

TEST_CASE("a region reads a slice of a leaf in place") {
  // The slices below are inputs of a region whose elements the loop reads from the leaf itself (an
  // argument, a let's name, a constant), at offsets that leave partial batches: against the node-by-node
  // sweep and the exact gradient. A slice of an operation (exp(x)) is still evaluated.
  constexpr std::size_t n = 23;
  using V = tl::vector<double, n>;
  const auto x = seeded<n>(41, -1, 1);
  const auto w = seeded<n>(42, -1, 1);
  const auto f = [&w](const auto& v) {
    return tl::sum(tl::exp(tl::slice<3, 17>(v)) * tl::slice<5, 17>(tl::cref(w)) + tl::slice<0, 17>(v));
  };
  namespace d = tl::detail;
  using R = decltype(f(tl::argument<0, V>(x)).arg);
  static_assert(d::slices_a_leaf<d::region_input_t<R, 0>> && d::slices_a_leaf<d::region_input_t<R, 1>>);
  const auto g = tl::grad(f)(x);
  check_same("slices of an argument and a constant", g, tl::value_and_grad(f)(x).second, 4);
  for (std::size_t i = 0; i < n; ++i) {
    const double exact = (i >= 3 && i < 20 ? std::exp(x[i]) * w[i + 2] : 0.0) + (i < 17 ? 1.0 : 0.0);
    CHECK(g[i] == doctest::Approx(exact).epsilon(1e-14));
  }
  const auto named = [](const auto& v) {
    return tl::let(2.0 * v, [](const auto& p) { return tl::sum(tl::sin(tl::slice<1, 21>(p)) * tl::slice<2, 21>(p)); });
  };
  const auto gn = tl::grad(named)(x);
  check_same("slices of a let's name", gn, tl::value_and_grad(named)(x).second, 4);
  for (std::size_t i = 0; i < n; ++i) {
    const double p = 2 * x[i];
    double exact = 0;
    if (i >= 1 && i < 22) exact += std::cos(p) * 2 * x[i + 1];  // d/dp_i of sin(p_i) p_(i+1)
    if (i >= 2) exact += std::sin(2 * x[i - 1]);                // d/dp_i of sin(p_(i-1)) p_i
    CHECK(gn[i] == doctest::Approx(2 * exact).epsilon(1e-13));
  }
  const auto of_exp = [](const auto& v) { return tl::sum(tl::slice<2, 20>(tl::exp(v)) * tl::slice<0, 20>(v)); };
  check_same("a slice of exp(x)", tl::grad(of_exp)(x), tl::value_and_grad(of_exp)(x).second, 4);
  // in a constant expression, the loop one element at a time (a region: it sums the adjoint of s)
  constexpr auto small = [](const auto& v, const auto& s) {
    return tl::sum(tl::slice<1, 3>(v) * tl::slice<0, 3>(v) * s);
  };
  using small_region = decltype(small(tl::argument<0, tl::vector<double, 4>>({}), tl::argument<1, double>(0.0)).arg);
  static_assert(d::fused_region<small_region>);
  constexpr auto gc = tl::grad(small)(tl::vector<double, 4>{1.0, -2.0, 0.5, 3.0}, 2.0);
  static_assert(std::get<0>(gc) == tl::vector<double, 4>{-4.0, 3.0, 2.0, 1.0} && std::get<1>(gc) == -1.5);
}

TEST_CASE("float regions run one element at a time and agree") {
  const auto f = [](const auto& x) { return tl::sum(tl::exp(x) * x - 2.0f * x); };
  const auto x = seeded<7, float>(31, -1, 1);
  check_same("float", tl::grad(f)(x), tl::value_and_grad(f)(x).second, 4);
}

TEST_CASE("hessian through a region: the loop in dual numbers") {
  // f = sum(exp(x) x): the Hessian is diagonal, exp(x) (x + 2).
  const auto f = [](const auto& x) { return tl::sum(tl::exp(x) * x); };
  const auto x = seeded<7>(41, -1, 1);
  const auto h = tl::hessian(f)(x);
  for (std::size_t i = 0; i < 7; ++i)
    for (std::size_t j = 0; j < 7; ++j) {
      const double exact = i == j ? std::exp(x[i]) * (x[i] + 2) : 0.0;
      INFO("H(" << i << ", " << j << ") = " << fd::str(h(i, j)) << ", exact " << fd::str(exact));
      CHECK(h(i, j) == doctest::Approx(exact).epsilon(1e-14));
    }
}

TEST_CASE("hessian of a small region beside a number: its gathered adjoint starts as zeros") {
  // f = p sum(exp(x)) over 2 elements, the Hessian in x diagonal, p exp(x). Compiled with -Werror, this
  // also checks that g++'s -Wmaybe-uninitialized finds nothing in the dual numbers' loop.
  const auto f = [](const auto& x, const auto& p) { return tl::sum(tl::exp(x)) * p; };
  const auto x = seeded<2>(42, -1, 1);
  const auto h = tl::hessian<0>(f)(x, 1.5);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 2; ++j) CHECK(h(i, j) == doctest::Approx(i == j ? 1.5 * std::exp(x[i]) : 0.0));
}

TEST_CASE("a region at the root, swept from a dense cotangent") {
  // vjp of a matrix-valued f: the root is a region, its adjoint the cotangent u, element by element.
  const auto f = [](const auto& x) { return tl::exp(x) * x + tl::sin(x); };
  const auto x = seeded<23>(51, -2, 2), u = seeded<23>(52, -1, 1);
  const auto [value, pullback] = tl::vjp(f, x);
  const auto pulled = pullback(u);
  for (std::size_t i = 0; i < 23; ++i) {
    const double exact = u[i] * (std::exp(x[i]) * (x[i] + 1) + std::cos(x[i]));
    INFO("element " << i << ": " << fd::str(pulled[i]) << ", exact " << fd::str(exact));
    CHECK(pulled[i] == doctest::Approx(exact).epsilon(1e-14));
    CHECK(value[i] == doctest::Approx(std::exp(x[i]) * x[i] + std::sin(x[i])).epsilon(1e-15));
  }
}

TEST_CASE("a region in a constant expression") {
  // The region's loop is the scalar one there: d/dx sum(3 x^2 + x y - 2 y) = 6 x + y, d/dy = x - 2.
  constexpr tl::vector<double, 3> x{1.0, -2.0, 0.5};
  constexpr tl::vector<double, 3> y{4.0, 1.0, -3.0};
  constexpr auto g =
      tl::grad([](const auto& a, const auto& b) { return tl::sum(3.0 * a * a + a * b - 2.0 * b); })(x, y);
  static_assert(std::get<0>(g)[0] == 10.0 && std::get<0>(g)[1] == -11.0 && std::get<0>(g)[2] == 0.0);
  static_assert(std::get<1>(g)[0] == -1.0 && std::get<1>(g)[1] == -4.0 && std::get<1>(g)[2] == -1.5);
  CHECK(std::get<0>(g)[1] == -11.0);
}

TEST_CASE("which trees are regions, and which inputs' values they read") {
  using V = tl::vector<double, 4>;
  using M = tl::matrix<double, 4, 4>;
  const V v{1.0, 2.0, 3.0, 4.0};
  const M m = M::filled(0.5);
  const tl::argument<0, V> x(v);
  const tl::argument<1, M> a(m);
  namespace d = tl::detail;

  // exp(x) * x + 2: a region where nothing reads its value, node by node where something does.
  using E = decltype(tl::exp(x) * x + 2.0);
  static_assert(d::is_elementwise_node<E> && d::region_size<E> == 3);  // inputs x, x, 2
  static_assert(std::is_base_of_v<d::region_evaluated<E, std::make_index_sequence<3>>, d::evaluated<E, false>>);
  static_assert(!std::is_base_of_v<d::region_evaluated<E, std::make_index_sequence<3>>, d::evaluated<E, true>>);
  // exp's rule reads its operand x (through its value), *'s rule the other side; an input without
  // adjoint (the 2) is taken as read.
  static_assert(d::region_reads<E, 0> && d::region_reads<E, 1> && d::region_reads<E, 2>);

  // matmul(a, x) + x: + reads neither operand, so the region does not have matmul computed.
  using S = decltype(tl::matmul(a, x) + x);
  static_assert(d::region_size<S> == 2 && !d::region_reads<S, 0> && !d::region_reads<S, 1>);
  const auto g = tl::grad([](const auto& a, const auto& x) { return tl::sum(tl::matmul(a, x) + x); })(m, v);
  CHECK(std::get<0>(g)(2, 3) == 4.0);  // d/da(i, j) sum(a x) = x(j)
  CHECK(std::get<1>(g)[1] == 3.0);     // d/dx(j) = sum_i a(i, j) + 1
}
