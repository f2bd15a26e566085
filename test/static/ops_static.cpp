// SPDX-License-Identifier: BSL-1.0
// Every operation's gradient at one point, computed by the compiler: this file passes by compiling.
//
// The expected values are written out as literals (from a 40-digit evaluation of the closed-form
// derivative), not computed with std::, so that they are independent of the library. Tolerance: the
// constexpr elementary functions agree with std:: to about 1e-14 relative; 1e-12 leaves room.
//
// The transcendental ones need tapeless::math::cx evaluable at compile time; on clang they need the
// library's own constexpr implementations (g++ also folds std:: calls).
#include <tapeless/tapeless.hpp>

#include "../support/operations.hpp"

#include <tuple>
#include <type_traits>

namespace tl = tapeless;

namespace {

constexpr double abs_(double x) { return x < 0 ? -x : x; }
/// |a - b| <= tol * max(1, |b|)
constexpr bool close(double a, double b, double tol = 1e-12) {
  return abs_(a - b) <= tol * (abs_(b) > 1 ? abs_(b) : 1.0);
}

template <class F>
constexpr double d(F f, double x) {
  return tl::grad(f)(x);
}
template <class F>
constexpr double dx(F f, double x, double y) {
  return std::get<0>(tl::grad(f)(x, y));
}
template <class F>
constexpr double dy(F f, double x, double y) {
  return std::get<1>(tl::grad(f)(x, y));
}

// ---- arithmetic (exact) -------------------------------------------------------------------------
constexpr auto add = [](auto x, auto y) { return x + y; };
constexpr auto sub = [](auto x, auto y) { return x - y; };
constexpr auto mul = [](auto x, auto y) { return x * y; };
constexpr auto div = [](auto x, auto y) { return x / y; };
static_assert(d([](auto x) { return -x; }, 1.5) == -1.0);
static_assert(d([](auto x) { return +x; }, 1.5) == 1.0);
static_assert(dx(add, 1.5, 2.5) == 1.0 && dy(add, 1.5, 2.5) == 1.0);
static_assert(dx(sub, 1.5, 2.5) == 1.0 && dy(sub, 1.5, 2.5) == -1.0);
static_assert(dx(mul, 1.5, 2.5) == 2.5 && dy(mul, 1.5, 2.5) == 1.5);
static_assert(dx(div, 1.0, 2.0) == 0.5 && dy(div, 1.0, 2.0) == -0.25);
static_assert(d([](auto x) { return 2 * x + 1; }, 1.5) == 2.0);
static_assert(d([](auto x) { return 1 - x; }, 1.5) == -1.0);
static_assert(d([](auto x) { return 3.0 / x; }, 2.0) == -0.75);
static_assert(d([](auto x) { return x / 4; }, 2.0) == 0.25);
static_assert(d([](auto x) { return x * x; }, 1.5) == 3.0);
static_assert(d([](auto x) { return x / x; }, 1.5) == 0.0);

// ---- power ----------------------------------------------------------------------------------------
static_assert(d([](auto x) { return tl::pow(x, 3); }, 1.5) == 6.75);
static_assert(d([](auto x) { return tl::pow(x, 0); }, 0.0) == 0.0);
static_assert(d([](auto x) { return tl::pow(x, -1); }, 2.0) == -0.25);
static_assert(d([](auto x) { return tl::square(x); }, 1.5) == 3.0);
static_assert(close(d([](auto x) { return tl::pow(x, 2.5); }, 1.5), 4.5927932677184589341));
static_assert(d([](auto x) { return tl::pow(x, 2.0); }, 0.0) == 0.0);
static_assert(close(d([](auto y) { return tl::pow(2.0, y); }, 1.5), 1.9605162869370943834));
static_assert(d([](auto y) { return tl::pow(0.0, y); }, 2.0) == 0.0);
constexpr auto pow_xy = [](auto x, auto y) { return tl::pow(x, y); };
static_assert(close(dx(pow_xy, 1.5, 2.5), 4.5927932677184589341));
static_assert(close(dy(pow_xy, 1.5, 2.5), 1.1173304512883487064));
static_assert(close(d([](auto x) { return tl::sqrt(x); }, 2.0), 0.35355339059327376220));
static_assert(d([](auto x) { return tl::sqrt(x); }, 4.0) == 0.25);
static_assert(close(d([](auto x) { return tl::cbrt(x); }, 2.0), 0.20998684164914552746));
constexpr auto hypot_xy = [](auto x, auto y) { return tl::hypot(x, y); };
static_assert(close(dx(hypot_xy, 3.0, 4.0), 0.6) && close(dy(hypot_xy, 3.0, 4.0), 0.8));
static_assert(dx(hypot_xy, 0.0, 0.0) == 0.0 && dy(hypot_xy, 0.0, 0.0) == 0.0);

// ---- exponential ----------------------------------------------------------------------------------
static_assert(close(d([](auto x) { return tl::exp(x); }, 0.5), 1.6487212707001281468));
static_assert(close(d([](auto x) { return tl::exp2(x); }, 0.5), 0.98025814346854719171));
static_assert(close(d([](auto x) { return tl::expm1(x); }, 0.5), 1.6487212707001281468));
static_assert(close(d([](auto x) { return tl::log(x); }, 2.0), 0.5));
static_assert(close(d([](auto x) { return tl::log2(x); }, 2.0), 0.72134752044448170368));
static_assert(close(d([](auto x) { return tl::log10(x); }, 2.0), 0.21714724095162591383));
static_assert(close(d([](auto x) { return tl::log1p(x); }, 0.5), 0.66666666666666666667));

// ---- trigonometric --------------------------------------------------------------------------------
static_assert(close(d([](auto x) { return tl::sin(x); }, 0.5), 0.87758256189037271612));
static_assert(close(d([](auto x) { return tl::cos(x); }, 0.5), -0.47942553860420300027));
static_assert(close(d([](auto x) { return tl::tan(x); }, 0.5), 1.2984464104095248369));
static_assert(close(d([](auto x) { return tl::asin(x); }, 0.5), 1.1547005383792515290));
static_assert(close(d([](auto x) { return tl::acos(x); }, 0.5), -1.1547005383792515290));
static_assert(close(d([](auto x) { return tl::atan(x); }, 0.5), 0.8));
constexpr auto atan2_yx = [](auto y, auto x) { return tl::atan2(y, x); };
static_assert(close(dx(atan2_yx, 1.0, 2.0), 0.4) && close(dy(atan2_yx, 1.0, 2.0), -0.2));

// ---- hyperbolic -----------------------------------------------------------------------------------
static_assert(close(d([](auto x) { return tl::sinh(x); }, 0.5), 1.1276259652063807852));
static_assert(close(d([](auto x) { return tl::cosh(x); }, 0.5), 0.52109530549374736162));
static_assert(close(d([](auto x) { return tl::tanh(x); }, 0.5), 0.78644773296592741015));
static_assert(close(d([](auto x) { return tl::asinh(x); }, 0.5), 0.89442719099991587856));
static_assert(close(d([](auto x) { return tl::acosh(x); }, 2.0), 0.57735026918962576451));
static_assert(close(d([](auto x) { return tl::atanh(x); }, 0.5), 1.3333333333333333333));

// ---- special --------------------------------------------------------------------------------------
static_assert(close(d([](auto x) { return tl::erf(x); }, 0.5), 0.87878257893544479409));
static_assert(close(d([](auto x) { return tl::erfc(x); }, 0.5), -0.87878257893544479409));
static_assert(close(d([](auto x) { return tl::sigmoid(x); }, 0.5), 0.23500371220159448907));
static_assert(close(d([](auto x) { return tl::softplus(x); }, 0.5), 0.62245933120185456464));
static_assert(d([](auto x) { return tl::sigmoid(x); }, 0.0) == 0.25);

// ---- piecewise (exact) ----------------------------------------------------------------------------
static_assert(d([](auto x) { return tl::abs(x); }, -1.5) == -1.0);
static_assert(d([](auto x) { return tl::abs(x); }, 1.5) == 1.0);
static_assert(d([](auto x) { return tl::abs(x); }, 0.0) == 0.0);
static_assert(d([](auto x) { return tl::relu(x); }, 1.5) == 1.0);
static_assert(d([](auto x) { return tl::relu(x); }, -1.5) == 0.0);
static_assert(d([](auto x) { return tl::relu(x); }, 0.0) == 0.0);
constexpr auto min_xy = [](auto x, auto y) { return tl::min(x, y); };
constexpr auto max_xy = [](auto x, auto y) { return tl::max(x, y); };
static_assert(tl::grad(min_xy)(1.0, 2.0) == std::tuple{1.0, 0.0});
static_assert(tl::grad(min_xy)(3.0, 2.0) == std::tuple{0.0, 1.0});
static_assert(tl::grad(min_xy)(2.0, 2.0) == std::tuple{1.0, 0.0});  // a tie: the first argument
static_assert(tl::grad(max_xy)(1.0, 2.0) == std::tuple{0.0, 1.0});
static_assert(tl::grad(max_xy)(3.0, 2.0) == std::tuple{1.0, 0.0});
static_assert(tl::grad(max_xy)(2.0, 2.0) == std::tuple{1.0, 0.0});
constexpr auto branch = [](auto x) { return tl::if_else(x > 0.0, x * x, -3.0 * x); };
static_assert(d(branch, 2.0) == 4.0 && d(branch, -2.0) == -3.0);
// the untaken branch's NaN does not leak
static_assert(d([](auto x) { return tl::if_else(x > 0.0, tl::log(x), x); }, -1.0) == 1.0);
static_assert(d([](auto x) { return tl::if_else(x > 0.0, tl::sqrt(x), x * 2.0); }, -1.0) == 2.0);

// Domain errors (NaN value and NaN gradient) are checked at run time only, in test/unit/ops/: clang
// does not accept floating-point arithmetic that produces a NaN in a constant expression.

// ---- the types --------------------------------------------------------------------------------------
// The registry's `batched` of every entry is its operation's traits.batched.
static_assert(registry::detail::batched_as_traits(registry::unary_operations,
                                                  std::make_index_sequence<registry::unary_count>{}),
              "an entry's batched differs from its operation's traits.batched");
static_assert(registry::detail::batched_as_traits(registry::binary_operations,
                                                  std::make_index_sequence<registry::binary_count>{}),
              "an entry's batched differs from its operation's traits.batched");

// Every operation of the registry on plain numbers gives a plain number of the same type (int promotes
// to double, except through C++'s own operators + - * /), and its gradient a double (a tuple of two for
// a binary one). A failure names the entry's lambda in the registry.
template <class R>
constexpr bool int_result = std::is_same_v<R, double> || std::is_same_v<R, int>;
constexpr auto plain_unary = [](const auto& op) {
  using F = std::remove_cvref_t<decltype(op.apply)>;
  static_assert(std::is_same_v<decltype(F{}(1.0)), double>, "op(double)");
  static_assert(std::is_same_v<decltype(F{}(1.0f)), float>, "op(float)");
  static_assert(std::is_same_v<decltype(F{}(1.0L)), long double>, "op(long double)");
  static_assert(int_result<decltype(F{}(1))>, "op(int)");
  static_assert(std::is_same_v<decltype(tl::grad(F{})(1.0)), double>, "op's grad");
};
static_assert((registry::for_each_unary(plain_unary), true));

constexpr auto plain_binary = [](const auto& op) {
  using F = std::remove_cvref_t<decltype(op.apply)>;
  static_assert(std::is_same_v<decltype(F{}(1.0, 2.0)), double>, "op(double, double)");
  static_assert(std::is_same_v<decltype(F{}(1.0f, 2.0f)), float>, "op(float, float)");
  static_assert(std::is_same_v<decltype(F{}(1.0f, 2.0)), double>, "op(float, double)");
  static_assert(int_result<decltype(F{}(1, 2))>, "op(int, int)");
  static_assert(std::is_same_v<decltype(tl::grad(F{})(1.0, 2.0)), std::tuple<double, double>>, "op's grad");
};
static_assert((registry::for_each_binary(plain_binary), true));

static_assert(std::is_same_v<decltype(tl::pow(2.0f, 3)), float>);
static_assert(std::is_same_v<decltype(tl::if_else(true, 1.0, 2)), double>);

// An operation on a differentiable operand is an expression whose value type is the operand's.
constexpr auto node_of = [](auto x) {
  static_assert(tl::Expression<decltype(tl::sin(x))>);
  static_assert(tl::Expression<decltype(tl::pow(x, 2))>);
  static_assert(tl::Expression<decltype(tl::pow(2.0, x))>);
  static_assert(tl::Expression<decltype(tl::min(x, 1))>);
  static_assert(tl::Expression<decltype(tl::if_else(true, x, 1.0))>);
  static_assert(tl::Expression<decltype(x * 2.0)>);
  static_assert(std::is_same_v<typename decltype(x * 2.0)::value_type, typename decltype(x)::value_type>);
  static_assert(std::is_same_v<typename decltype(tl::exp(x) + 1)::value_type, typename decltype(x)::value_type>);
  return x;
};
static_assert(tl::grad(node_of)(1.0) == 1.0);
static_assert(tl::grad(node_of)(1.0f) == 1.0f);

}  // namespace
