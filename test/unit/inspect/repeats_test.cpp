// SPDX-License-Identifier: BSL-1.0
// A value computed twice in tl::trace and tl::to_dot: a local used twice, a subtree three times, a
// repeat inside a repeat; never two computations that differ in an index, a constant, an exponent, a
// mask or a branch, however equal their values; never a value shared with tl::let.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <trace_check.hpp>

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace tl = tapeless;
namespace in = tapeless::inspect;
using trace_check::check_dot;
using trace_check::check_exact;
using trace_check::has_line;

namespace {

/// The name of the node each node repeats, "" where it computes its value first, in forward order.
std::vector<std::string> repeated(const in::graph& g) {
  std::vector<std::string> names;
  for (const in::node& n : g.nodes) names.push_back(n.same_as ? g.at(*n.same_as).name : "");
  return names;
}

std::size_t repeats(const in::graph& g) {
  std::size_t count = 0;
  for (const in::node& n : g.nodes) count += n.same_as ? 1 : 0;
  return count;
}

/// f's trace at args: the node each node repeats, these lines in its text, tl::grad's gradient, valid
/// DOT. Its text.
template <class F, class... Args>
std::string check_repeats(const F& f, const std::vector<std::string>& repeats_of,
                          std::initializer_list<const char*> lines, const Args&... args) {
  const auto t = tl::trace(f, args...);
  CHECK(repeated(t.graph()) == repeats_of);
  const std::string text = t.str();
  for (const char* line : lines) {
    INFO(line);
    CHECK(has_line(text, line));
  }
  check_exact(f, args...);
  check_dot(tl::to_dot(f, args...));
  return text;
}

/// f's trace and DOT say nothing of repeats.
template <class F, class... Args>
void check_no_repeat(const F& f, const Args&... args) {
  const auto t = tl::trace(f, args...);
  CHECK(repeats(t.graph()) == 0);
  CHECK(t.str().find("same as") == std::string::npos);
  CHECK(t.str().find("computed more than once") == std::string::npos);
  const std::string dot = tl::to_dot(f, args...);
  CHECK(dot.find("same as") == std::string::npos);
  CHECK(dot.find("red3") == std::string::npos);
  check_exact(f, args...);
}

}  // namespace

TEST_CASE("repeats: a local used twice is computed twice, and the trace says so") {
  // d / d: d * d would be square(d), computed once (expr/same_value.hpp).
  const auto f = [](auto x1, auto x2) {
    const auto d = x1 - x2;
    return d / d;
  };
  const std::string text = check_repeats(
      f, {"", "", "", "t1", ""},
      {"t1 = x1 - x2 = -1", "t2 = x1 - x2 = -1 same as t1, computed twice: bind it with tl::let to compute it once",
       "computed more than once: 1 value, in 1 extra node (t1 twice): bind each with tl::let to compute it once"},
      1.0, 2.0);
  CHECK(text.substr(text.rfind('\n', text.size() - 2) + 1).rfind("computed more than once", 0) == 0);  // the last line
  CHECK(tl::trace(f, 1.0, 2.0).graph().named("t2").same_as == std::optional<std::size_t>(2));

  const std::string dot = tl::to_dot(f, 1.0, 2.0);
  for (const char* part :
       {"n3 [label=\"t2 = x1 - x2\\n= -1\\nsame as t1, computed twice\\ng = 1\", style=\"rounded,bold\", color=red3, "
        "fontcolor=red3];",
        "n2 -> n3 [style=dotted, color=red3, arrowhead=none, constraint=false];",
        "graph [label=\"computed more than once: 1 value, in 1 extra node (t1 twice): bind each with tl::let to "
        "compute it once\", labelloc=b"}) {
    INFO(part);
    CHECK(dot.find(part) != std::string::npos);
  }

  SUBCASE("bound with let, it is one value") {
    check_no_repeat([](auto x1, auto x2) { return tl::let(x1 - x2, [](auto d) { return d * d; }); }, 1.0, 2.0);
  }
}

TEST_CASE("repeats: a subtree three times is two repeats of each of its nodes") {
  // t1 = x1 * x2, t2 = exp(t1), t3 and t5 = x1 * x2, t4 and t6 = exp(...), t7 = t4 / t6, y = t2 + t7
  check_repeats(
      [](auto x1, auto x2) {
        const auto e = tl::exp(x1 * x2);
        return e + e / e;
      },
      {"", "", "", "", "t1", "t2", "t1", "t2", "", ""},
      {"t3 = x1 * x2 = 1 same as t1",
       "t4 = exp(t3) = 2.71828 same as t2, computed 3 times: bind it with tl::let to compute it once",
       "t5 = x1 * x2 = 1 same as t1",
       "t6 = exp(t5) = 2.71828 same as t2, computed 3 times: bind it with tl::let to compute it once",
       "computed more than once: 2 values, in 4 extra nodes (t2 3 times): bind each with tl::let to compute it once"},
      0.5, 2.0);
  check_no_repeat([](auto x1, auto x2) { return tl::let(tl::exp(x1 * x2), [](auto e) { return e + e * e; }); }, 0.5,
                  2.0);
}

TEST_CASE("repeats: a repeat inside a repeated subtree is marked, and advised at the subtree's top") {
  // e is t1 .. t4 (d twice: t1, t3), then again as t5 .. t8
  check_repeats(
      [](auto x1, auto x2) {
        const auto d = x1 - x2;
        const auto e = tl::sin(d) * d;
        return e / e;
      },
      {"", "", "", "", "t1", "", "t1", "t2", "t1", "t4", ""},
      {"t3 = x1 - x2 = -1 same as t1, computed 4 times: bind it with tl::let to compute it once",
       "t5 = x1 - x2 = -1 same as t1", "t6 = sin(t5) = -0.841471 same as t2", "t7 = x1 - x2 = -1 same as t1",
       "t8 = t6 * t7 = 0.841471 same as t4, computed twice: bind it with tl::let to compute it once",
       "computed more than once: 3 values, in 5 extra nodes (t1 4 times, t4 twice): bind each with tl::let to "
       "compute it once"},
      1.0, 2.0);

  SUBCASE("a function with a let, called twice: its let is computed twice") {
    const auto h = [](auto a) { return tl::let(a * a, [](auto s) { return s + tl::sin(s); }); };
    check_repeats([&h](auto x) { return h(x) * h(x); }, {"", "", "", "", "t1", "t2", "t3", ""},
                  {"t4 = square(x1) = 0.25 shared by let, 2 uses, same as t1",
                   "t6 = t4 + t5 = 0.497404 same as t3, computed twice: bind it with tl::let to compute it once"},
                  0.5);
  }
  SUBCASE("a value bound by let, and computed again outside it") {
    // x1, t1 = x1 (let), t2 = exp(t1), t3 = t2 * t1, t4 = exp(x1), y = t3 + t4
    check_repeats([](auto x) { return tl::let(x, [](auto u) { return tl::exp(u) * u; }) + tl::exp(x); },
                  {"", "", "", "", "t2", ""},
                  {"t4 = exp(x1) = 1.64872 same as t2, computed twice: bind it with tl::let to compute it once"}, 0.5);
  }
}

TEST_CASE("repeats: equal values are no repeat where the computations differ") {
  SUBCASE("two elements of equal value") {
    check_no_repeat([](const auto& x) { return x[0] * x[1] + tl::sum(tl::row(x, 0)) * tl::sum(tl::row(x, 1)); },
                    tl::vector<double, 2>{2.0, 2.0});
  }
  SUBCASE("the same element twice is a repeat") {
    const auto f = [](const auto& x) { return x[1] * x[1]; };
    CHECK(repeats(tl::trace(f, tl::vector<double, 2>{2.0, 3.0}).graph()) == 1);
  }
  SUBCASE("constants of one type and different values: 0 and -0, two matrices") {
    check_no_repeat([](auto x) { return (x + 0.0) * (x + -0.0); }, 1.0);
    const tl::vector<double, 2> a{1.0, 0.0}, b{0.0, 1.0};
    check_no_repeat([a, b](const auto& x) { return tl::sum(a * x) * tl::sum(b * x); }, tl::vector<double, 2>{1.0, 1.0});
  }
  SUBCASE("equal constants are one value: two copies of one matrix") {
    const tl::vector<double, 2> a{1.0, 2.0}, copy = a;
    const auto f = [a, copy](const auto& x) { return tl::sum(a * x) * tl::sum(copy * x); };
    CHECK(repeats(tl::trace(f, tl::vector<double, 2>{1.0, 1.0}).graph()) == 2);  // a * x and its sum
  }
  SUBCASE("exponents: integer and real, equal values at 1") {
    check_no_repeat([](auto x) { return tl::pow(x, 2) * tl::pow(x, 3); }, 1.0);
    check_no_repeat([](auto x) { return tl::pow(x, 0.5) * tl::pow(x, 1.5); }, 1.0);
    check_no_repeat([](auto x) { return tl::pow(2.0, x) * tl::pow(3.0, x); }, 0.0);
    check_no_repeat([](auto x) { return tl::pow(x, 0.0) * tl::pow(x, -0.0); }, 2.0);
  }
  SUBCASE("if_else: the branch taken, the mask") {
    const auto branches = [](auto x) { return tl::if_else(x > 1.0, x, 1.0 * x) * tl::if_else(x < 1.0, x, 1.0 * x); };
    const auto tb = tl::trace(branches, 2.0);
    CHECK(tb.graph().named("t2").value.number() == tb.graph().named("t4").value.number());
    CHECK_FALSE(tb.graph().named("t4").same_as);  // the other branch
    CHECK(tb.graph().named("t3").same_as);        // 1.0 * x again
    check_exact(branches, 2.0);
    const auto masks = [](const auto& x) {
      return tl::sum(tl::if_else(x > 0.5, x, 1.0 * x)) * tl::sum(tl::if_else(x > 1.5, x, 1.0 * x));
    };
    const auto tm = tl::trace(masks, tl::vector<double, 3>{1.0, 2.0, 3.0});
    CHECK(tm.graph().named("t2").expression == "if_else(mask 3x1, x1, t1)");
    CHECK(tm.graph().named("t5").expression == "if_else(mask 3x1, x1, t4)");
    CHECK(tm.graph().named("t2").value.elements == tm.graph().named("t5").value.elements);
    CHECK_FALSE(tm.graph().named("t5").same_as);  // another mask
    CHECK(tm.graph().named("t4").same_as);        // 1.0 * x again
    check_exact(masks, tl::vector<double, 3>{1.0, 2.0, 3.0});
  }
}

TEST_CASE("repeats: a value shared with let is one value, computed once") {
  check_no_repeat(
      [](auto x1, auto x2) { return tl::let(x1 - x2, [](auto t) { return t * t + tl::sin(t); }) + tl::cos(x1 + x2); },
      1.0, 2.0);
  check_no_repeat([](auto x) { return tl::let(x, [](auto u) { return u * tl::exp(u); }); }, 0.5);
  check_no_repeat(
      [](const auto& beta) {
        return tl::let(tl::sigmoid(beta), [](auto p) { return -tl::sum(tl::log(p) + tl::log(1.0 - p)); });
      },
      tl::vector<double, 3>{0.5, -0.25, 0.1});
}

TEST_CASE("repeats: the data of the library's operations tells them apart exactly") {
  namespace ops = tapeless::ops;
  using in::detail::parameters;
  const auto known = [](const auto& op) { return std::is_same_v<decltype(parameters(op)), std::string>; };
  CHECK(known(ops::exp{}));
  CHECK(known(ops::element{1}));
  CHECK(known(ops::row{1}));
  CHECK(known(ops::pow_int{3}));
  CHECK(known(ops::pow_real<double>{0.5}));
  CHECK(known(ops::pow_base<float>{2.0f}));
  CHECK(known(tapeless::detail::elementwise_unary<ops::pow_real<double>>(ops::pow_real<double>{0.5})));
  CHECK(known(tapeless::detail::elementwise_binary<ops::add>(ops::add{})));
  CHECK(parameters(ops::element{1}) != parameters(ops::element{2}));
  CHECK(parameters(ops::pow_real<double>{0.0}) != parameters(ops::pow_real<double>{-0.0}));
}
