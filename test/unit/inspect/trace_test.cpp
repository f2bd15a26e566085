// SPDX-License-Identifier: BSL-1.0
// tl::trace: the rows of the walkthrough, let sharing, constants, matrices, and a gradient equal to
// tl::grad's, bit for bit. (The same graph in DOT: dot_test.cpp.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <trace_check.hpp>

#include <cmath>
#include <cstddef>
#include <iomanip>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace tl = tapeless;
namespace in = tapeless::inspect;
using trace_check::check_exact;
using trace_check::has_line;
using trace_check::logistic_loss;
using trace_check::walkthrough;

namespace {

const auto shared = [](auto x1, auto x2) {
  return tl::let(x1 - x2, [](auto t) { return t * t + tl::sin(t); }) + tl::cos(x1 + x2);
};
const auto copied = [](auto x1, auto x2) {
  const auto t = x1 - x2;
  return t * t + tl::sin(t) + tl::cos(x1 + x2);
};

std::vector<std::string> sweep_targets(const in::graph& g) {
  std::vector<std::string> names;
  for (const in::step& s : g.sweep) names.push_back(g.at(s.target).name);
  return names;
}

std::size_t rows_computing(const in::graph& g, const std::string& expression) {
  std::size_t n = 0;
  for (const in::node& v : g.nodes) n += v.expression == expression ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("trace: the walkthrough (x1 - x2)^2 + cos(x1 + x2) at (1, 2)") {
  const auto t = tl::trace(walkthrough, 1.0, 2.0);
  const in::graph& g = t.graph();

  SUBCASE("the forward rows: names, operations, values") {
    REQUIRE(g.nodes.size() == 7);
    const char* names[] = {"x1", "x2", "t1", "t2", "t3", "t4", "y"};
    const char* expressions[] = {"", "", "x1 - x2", "pow(t1, 2)", "x1 + x2", "cos(t3)", "t2 + t4"};
    for (std::size_t i = 0; i < 7; ++i) {
      CHECK(g.nodes[i].name == names[i]);
      CHECK(g.nodes[i].expression == expressions[i]);
    }
    CHECK(g.named("x1").kind == in::node_kind::argument);
    CHECK(g.named("t1").value.number() == -1);
    CHECK(g.named("t2").value.number() == 1);
    CHECK(g.named("t3").value.number() == 3);
    CHECK(static_cast<double>(g.named("t4").value.number()) == doctest::Approx(-0.98999).epsilon(1e-5));
    CHECK(static_cast<double>(g.named("y").value.number()) == doctest::Approx(0.01001).epsilon(1e-4));
    CHECK(g.output == 6);
    CHECK(g.named("t2").op == "pow");
  }
  SUBCASE("the reverse rows, in the order of the sweep, and the adjoints") {
    CHECK(sweep_targets(g) == std::vector<std::string>{"y", "t2", "t1", "x1", "x2", "t4", "t3", "x1", "x2"});
    const in::step& s = g.sweep[2];  // g_t1 += g_t2 * (dt2/dt1)
    CHECK(s.kind == in::step_kind::chain);
    CHECK(g.at(s.source).name == "t2");
    CHECK(s.local.number() == -2);
    CHECK(s.contribution.number() == -2);
    CHECK(static_cast<double>(g.sweep[6].local.number()) == doctest::Approx(-std::sin(3.0)));
    CHECK(g.sweep[7].count == 2);
    CHECK(static_cast<double>(g.sweep[7].total.number()) == doctest::Approx(-2.14112).epsilon(1e-5));
    CHECK(static_cast<double>(g.named("x1").adjoint->number()) == doctest::Approx(-2.14112).epsilon(1e-5));
    CHECK(static_cast<double>(g.named("x2").adjoint->number()) == doctest::Approx(1.85888).epsilon(1e-5));
    CHECK(g.named("t2").adjoint->number() == 1);
    CHECK(g.named("t1").local[0]->number() == 1);
    CHECK(g.named("t1").local[1]->number() == -1);
  }
  SUBCASE("the text") {
    std::ostringstream os;
    os << t;
    const std::string text = os.str();
    CHECK(text == t.str());
    for (const char* line : {"t1 = x1 - x2 = -1", "t2 = pow(t1, 2) = 1", "t4 = cos(t3) = -0.989992",
                             "y = t2 + t4 = 0.0100075", "g_y = 1", "g_t1 += g_t2 * (dt2/dt1) = 1 * (-2) = -2",
                             "g_x1 += g_t3 * (dt3/dx1) = -0.14112 * 1 = -0.14112 => g_x1 = -2.14112", "g_x1 = -2.14112",
                             "g_x2 = 1.85888"}) {
      INFO(line);
      CHECK(has_line(text, line));
    }
    CHECK(text.find("gradient\n  g_x1 = -2.14112\n  g_x2 = 1.85888\n") != std::string::npos);
    CHECK(has_line(t.str(3), "t4 = cos(t3) = -0.99"));  // the precision asked for
    std::ostringstream short_numbers;
    short_numbers << std::setprecision(3) << t;  // the stream's
    CHECK(short_numbers.str() == t.str(3));
  }
  SUBCASE("the value and gradient are value_and_grad's, here and at other points") {
    const auto vg = tl::value_and_grad(walkthrough)(1.0, 2.0);
    CHECK(t.value() == vg.first);
    CHECK(t.gradient() == vg.second);
    check_exact(walkthrough, 1.0, 2.0);
    fd::rng r{801};
    for (int i = 0; i < 20; ++i) check_exact(walkthrough, r.uniform(-5, 5), r.uniform(-5, 5));
  }
}

TEST_CASE("trace: a value shared with let is one row, with its adjoint summed over its uses") {
  const auto t = tl::trace(shared, 1.0, 2.0);
  const in::graph& g = t.graph();
  CHECK(rows_computing(g, "x1 - x2") == 1);
  const auto tc = tl::trace(copied, 1.0, 2.0);
  // copies: computed and swept twice (t * t is square(t), one copy of t: expr/same_value.hpp)
  CHECK(rows_computing(tc.graph(), "x1 - x2") == 2);
  const in::node& d = g.named("t1");
  CHECK(d.uses == 2);
  CHECK(g.named("t2").expression == "square(t1)");
  CHECK(g.named("t3").expression == "sin(t1)");
  // Two contributions to g_t1, then its total, then the sweep into x1 - x2 once.
  std::vector<std::size_t> to_t1;
  for (std::size_t i = 0; i < g.sweep.size(); ++i)
    if (g.at(g.sweep[i].target).name == "t1") to_t1.push_back(i);
  REQUIRE(to_t1.size() == 3);
  const in::step& total = g.sweep[to_t1[2]];
  CHECK(total.kind == in::step_kind::total);
  CHECK(total.count == 2);
  CHECK(total.total.number() == g.sweep[to_t1[0]].contribution.number() + g.sweep[to_t1[1]].contribution.number());
  CHECK(d.adjoint->number() == total.total.number());
  CHECK(static_cast<double>(total.total.number()) == doctest::Approx(-2.0 + std::cos(-1.0)));
  CHECK(g.sweep[to_t1[2] + 1].target == g.arguments[0]);
  CHECK(has_line(t.str(), "t1 = x1 - x2 = -1 shared by let, 2 uses"));
  CHECK(has_line(t.str(), "g_t1 = -1.4597 complete: the sum of its 2 uses"));
  check_exact(shared, 1.0, 2.0);
  check_exact(copied, 1.0, 2.0);

  SUBCASE("a let of a leaf gets a name of its own") {
    const auto h = [](auto x) { return tl::let(x, [](auto u) { return u * tl::exp(u); }); };
    const auto th = tl::trace(h, 0.5);
    const in::graph& gh = th.graph();
    CHECK(gh.named("t1").expression == "x1");
    CHECK(gh.named("t1").op == "let");
    CHECK(gh.named("t1").uses == 2);
    CHECK(gh.sweep.back().kind == in::step_kind::pass);
    check_exact(h, 0.5);
  }
}

TEST_CASE("trace: constants are written as constants and have no adjoint") {
  const tl::vector<double, 2> c{3.0, 4.0};
  const auto f = [&c](auto x) { return 2.0 * x + tl::sum(1.0 - tl::cref(c)) * x; };
  const auto t = tl::trace(f, 0.5);
  const in::graph& g = t.graph();
  CHECK(g.named("t1").expression == "2 * x1");
  CHECK(g.named("c1").kind == in::node_kind::constant);
  CHECK(g.named("t2").expression == "1 - c1");
  CHECK_FALSE(g.named("t2").active);
  CHECK_FALSE(g.named("t3").active);  // sum(1 - c1)
  for (const in::node& n : g.nodes)
    if (!n.active) CHECK_FALSE(n.adjoint);
  for (const in::step& s : g.sweep) CHECK(g.at(s.target).active);
  const std::string text = t.str();
  CHECK(has_line(text, "c1 = matrix 2x1 [3; 4] constant"));
  CHECK(has_line(text, "t2 = 1 - c1 = matrix 2x1 [-2; -3] constant"));
  CHECK(has_line(text, "t1 = 2 * x1 = 1"));
  check_exact(f, 0.5);
}

TEST_CASE("trace: matrices show their shape, and their edges the operation's rule") {
  const tl::vector<double, 3> beta{0.5, -0.25, 0.1};
  const auto t = tl::trace(logistic_loss, beta);
  const in::graph& g = t.graph();
  CHECK(g.named("x1").value.is_matrix);
  CHECK(g.named("x1").value.rows == 3);
  CHECK(g.named("t1").expression == "matmul(c1, x1)");
  const std::string text = t.str();
  for (const char* line :
       {"c1 = matrix 4x3 constant",
        "t2 = sigmoid(t1) = matrix 4x1 [0.645656; 0.673707; 0.34299; 0.371684] shared by let, 2 uses",
        "g_t9 += vjp_mean(g_t10) = matrix 4x1, every element -0.25",
        "g_x1 += vjp_matmul_rhs(g_t1) = matrix 3x1 [-0.348908; 0.172834; 0.00850919]"}) {
    INFO(line);
    CHECK(has_line(text, line));
  }
  CHECK(g.named("t2").uses == 2);
  CHECK(g.named("t9").adjoint->is_uniform);
  check_exact(logistic_loss, beta);
  fd::rng r{802};
  for (int i = 0; i < 10; ++i)
    check_exact(logistic_loss, tl::vector<double, 3>{r.uniform(-2, 2), r.uniform(-2, 2), r.uniform(-2, 2)});

  SUBCASE("a matrix with more than 4 elements is its shape; a gradient shows up to 64") {
    const auto f = [](const auto& A) { return tl::sum(tl::matmul(A, A)); };
    const tl::matrix<double, 3, 3> A{{1, 2, 3}, {4, 5, 6}, {7, 8, 10}};
    const std::string s = tl::trace(f, A).str();
    CHECK(has_line(s, "x1 = matrix 3x3"));
    CHECK(has_line(s, "g_x1 += vjp_matmul_rhs(g_t1) = matrix 3x3 => g_x1 = matrix 3x3"));
    CHECK(has_line(s, "g_x1 = matrix 3x3 [18, 27, 37; 21, 30, 40; 25, 34, 44]"));
    check_exact(f, A);
  }
}

TEST_CASE("trace: if_else, tl::var, results that are leaves or numbers, float, and tl::trace(A)") {
  SUBCASE("if_else: the branch taken") {
    const auto f = [](auto x, auto y) { return tl::if_else(x > y, x * y, tl::sqrt(y) / x); };
    const auto t = tl::trace(f, 1.0, 4.0);
    const in::graph& g = t.graph();
    CHECK(g.named("y").expression == "if_else(false, t1, t3)");
    CHECK(g.sweep[1].kind == in::step_kind::pass);
    CHECK(g.at(g.sweep[1].target).name == "t3");
    CHECK_FALSE(g.named("t1").adjoint);
    check_exact(f, 1.0, 4.0);
    check_exact(f, 4.0, 1.0);
  }
  SUBCASE("a var: its adjoint is shown, its gradient untouched") {
    tl::var<double> v{3.0};
    const auto f = [&v](auto x) { return x * v + v * v; };
    const auto t = tl::trace(f, 2.0);
    const in::graph& g = t.graph();
    CHECK(g.named("v1").kind == in::node_kind::variable);
    CHECK(g.named("v1").adjoint->number() == 2.0 + 3.0 + 3.0);
    CHECK(v.grad() == 0.0);
  }
  SUBCASE("f returns its argument, or a number") {
    const auto id = tl::trace([](auto x) { return x; }, 2.0);
    CHECK(id.graph().named("y").expression == "x1");
    CHECK(id.gradient() == 1.0);
    const auto flat = tl::trace([](auto, auto) { return 2.0; }, 2.0, 3.0);
    CHECK(flat.value() == 2.0);
    CHECK(flat.gradient() == std::tuple{0.0, 0.0});
    CHECK(flat.graph().sweep.empty());
  }
  SUBCASE("float arguments") {
    const auto f = [](auto x, auto y) { return tl::log(x) / y + tl::pow(x, 0.5f) + tl::pow(2.0f, y); };
    check_exact(f, 1.5f, 0.25f);
  }
  SUBCASE("tl::trace of one matrix is still its trace") {
    const tl::matrix<double, 2, 2> A{{1, 2}, {3, 4}};
    CHECK(tl::trace(A) == 5.0);
    CHECK(tl::grad([](const auto& M) { return tl::trace(M); })(A) == tl::matrix<double, 2, 2>{{1, 0}, {0, 1}});
  }
}
