// SPDX-License-Identifier: BSL-1.0
// Randomized differential testing: compositions RDT_FIRST .. RDT_LAST - 1 of composition.hpp, each at
// seeded random points, value against the std:: reference of reference.hpp and gradient against that
// reference's finite differences. CMake compiles this file once per part, with a different range.
// A composition of matrices whose operations on A (on v, on both) all take run-time extents runs again
// with those arguments tl::dynamic or tl::bounded copies, against the reference and the fixed-shape run.
#include <doctest/doctest.h>

#include "build.hpp"
#include "reference.hpp"

#include <finite_difference.hpp>
#include <sanitizers.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#if !defined(RDT_FIRST) || !defined(RDT_LAST) || !defined(RDT_TOTAL)
#error "define RDT_FIRST and RDT_LAST, the range of compositions this part checks, and RDT_TOTAL, the parts' end"
#endif
static_assert(RDT_TOTAL == rdt::count, "test/random/CMakeLists.txt: the parts must end at rdt::count");

namespace {

namespace tl = tapeless;

constexpr int scalar_points = test_support::points_to_run(1000);  // a tenth under ASan
constexpr int matrix_points = test_support::points_to_run(400);
constexpr double value_tol = 1e-12;  // tapeless's value against the reference, relative (absolute below 1)
constexpr double fd_rtol = 1e-6;     // the gradient against finite differences, relative,
constexpr double fd_atol = 1e-12;    // and absolute, for components that are 0
// Points are drawn a little inside [-2, 2], the arguments' range the generator kept every operand's
// domain for: finite differences step at most 2e-3 away, and stay inside it.
constexpr double point_bound = rdt::arg_bound - 0.01;

using values = std::array<rdt::value, 3>;  // the arguments, or the gradient, as the reference takes them

std::string describe_point(const values& x, int arguments) {
  std::ostringstream os;
  os.precision(17);
  for (int a = 0; a < arguments; ++a) {
    const rdt::value& v = x[static_cast<std::size_t>(a)];
    os << (v.size() == 1 ? " " : " {");
    for (int k = 0; k < v.size(); ++k) os << (k == 0 ? "" : ", ") << v.e[static_cast<std::size_t>(k)];
    os << (v.size() == 1 ? "" : "}");
  }
  return os.str();
}

/// The components of the gradient `ad` that disagree with finite differences of the reference at x,
/// one line each; empty when all agree. The differences are fd::derivative_and_error's, whose error
/// estimate widens the tolerance where they are unsure (rounding, a kink within the step): at a few
/// points in a thousand. Not tl::check_gradient: its step choice misjudges rounding in an f far
/// smaller than its intermediates (test/unit/check_test.cpp, "f far smaller than its intermediates").
std::string gradient_mismatches(const rdt::composition& c, const values& x, const values& ad) {
  std::ostringstream out;
  out.precision(17);
  for (std::size_t a = 0; a < static_cast<std::size_t>(c.arguments); ++a)
    for (std::size_t k = 0; k < static_cast<std::size_t>(x[a].size()); ++k) {
      const auto f = [&](double t) {
        values moved = x;
        moved[a].e[k] = t;
        return rdt::evaluate_node(c, c.root, moved).e[0];
      };
      const fd::estimate d = fd::derivative_and_error(f, x[a].e[k]);
      const double g = ad[a].e[k];
      const double allowed = fd_rtol * std::max(std::abs(g), std::abs(d.value)) + 2 * d.error + fd_atol;
      if (!(std::abs(g - d.value) <= allowed))
        out << "argument " << a << ", element " << k << ": AD " << g << ", FD " << d.value << " (its error about "
            << d.error << ")\n";
    }
  return out.str();
}

/// One point of composition i: tapeless's value and gradient against the reference.
template <class G, class... X>
void verify(int i, const rdt::composition& c, double value, const G& gradient, const X&... x) {
  const values at{rdt::to_value(x)...};
  values ad{};
  if constexpr (sizeof...(X) == 1)
    ad[0] = rdt::to_value(gradient);
  else
    std::apply([&ad](const auto&... g) { ad = values{rdt::to_value(g)...}; }, gradient);
  const double expected = rdt::evaluate_node(c, c.root, at).e[0];
  INFO("composition " << i << ": " << rdt::describe(c));
  INFO("at" << describe_point(at, c.arguments));
  INFO("value " << fd::str(value) << ", reference " << fd::str(expected));
  CHECK(fd::rel_error(value, expected) < value_tol);
  const std::string mismatches = gradient_mismatches(c, at, ad);
  INFO(mismatches);
  CHECK(mismatches.empty());
}

/// Whether node k of c depends on argument `arg` (A 0, v 1, s 2).
constexpr bool depends_on(const rdt::composition& c, int k, int arg) {
  const rdt::node& n = c.nodes[static_cast<std::size_t>(k)];
  if (n.k == rdt::kind::argument) return n.index == arg;
  return (n.a >= 0 && depends_on(c, n.a, arg)) || (n.b >= 0 && depends_on(c, n.b, arg));
}

/// Whether node k is argument `arg` itself or its transpose: what a product of two arrays of run-time
/// extents reads in place.
constexpr bool is_argument_or_transpose(const rdt::composition& c, int k, int arg) {
  const rdt::node& n = c.nodes[static_cast<std::size_t>(k)];
  if (n.k == rdt::kind::transpose) {
    const rdt::node& operand = c.nodes[static_cast<std::size_t>(n.a)];
    return operand.k == rdt::kind::argument && operand.index == arg;
  }
  return n.k == rdt::kind::argument && n.index == arg;
}

/// Whether composition i runs with argument `arg` of run-time extents too: where every operation that
/// reads it takes them, the others reading fixed shapes beside it (not a let, nor rotate: tl::slice and
/// tl::concat of a formula, and tl::reshape of one, are refused with one sentence). Those that need a
/// factorisation, a line or a product that holds a formula run in half the compositions (i % 4 < 2:
/// dynamic and bounded extents both), each costing an instantiation of its gradient at those extents.
constexpr bool runs_at_run_time(const rdt::composition& c, int i, int arg) {
  if (!depends_on(c, c.root, arg)) return false;
  bool newer = false;  // needs an operation of run-time extents the half draw covers
  for (int k = 0; k < c.size; ++k) {
    if (!depends_on(c, k, arg)) continue;
    const rdt::node& n = c.nodes[static_cast<std::size_t>(k)];
    switch (n.k) {
      case rdt::kind::let:
      case rdt::kind::rotate: return false;
      case rdt::kind::det:
      case rdt::kind::log_det:
      case rdt::kind::inverse:
      case rdt::kind::cholesky:
      case rdt::kind::solve:
      case rdt::kind::row:
      case rdt::kind::col: newer = true; break;
      case rdt::kind::matmul:
        if (depends_on(c, n.a, arg) && depends_on(c, n.b, arg) &&
            !(is_argument_or_transpose(c, n.a, arg) && is_argument_or_transpose(c, n.b, arg)))
          newer = true;
        break;
      default: break;
    }
  }
  return !newer || i % 4 < 2;
}

/// The arguments of composition I that run at run-time extents (runs_at_run_time): bit 0 A, bit 1 v.
template <int I>
inline constexpr int run_time_arguments = rdt::spec<I>.of_matrices ? (runs_at_run_time(rdt::spec<I>, I, 0) ? 1 : 0) |
                                                                         (runs_at_run_time(rdt::spec<I>, I, 1) ? 2 : 0)
                                                                   : 0;

/// m with extents of M (tl::dynamic or tl::bounded), its values.
template <class M, class F>
M run_time_copy(const F& m) {
  M out(F::rows(), F::cols());
  for (std::size_t k = 0; k < F::size(); ++k) out[k] = m[k];
  return out;
}

template <class M>
M random_matrix(fd::rng& r) {
  M m;
  for (auto& e : m) e = r.uniform(-point_bound, point_bound);
  return m;
}

template <int I>
void check_composition() {
  constexpr const rdt::composition& c = rdt::spec<I>;
  const auto run = [](const auto&... x) {
    const auto [value, gradient] = tl::value_and_grad(rdt::function<I>{})(x...);
    verify(I, rdt::spec<I>, value, gradient, x...);
  };
  fd::rng r{1000 + static_cast<std::uint64_t>(I)};
  const auto u = [&r] { return r.uniform(-point_bound, point_bound); };
  if constexpr (c.of_matrices) {
    constexpr auto n = static_cast<std::size_t>(c.n);
    for (int p = 0; p < matrix_points; ++p) {
      const auto A = random_matrix<tl::matrix<double, n, n>>(r);
      const auto v = random_matrix<tl::vector<double, n>>(r);
      const double s = u();
      run(A, v, s);
      // The same point with the arguments that can be of run-time extents so, dynamic or (odd I) bounded:
      // against the reference too, and against the fixed-shape run's value and gradient to rounding (its
      // sums add in another order, and det of 3 x 3 or less comes from minors there, from LU here).
      if constexpr (run_time_arguments<I> != 0) {
        constexpr int which = run_time_arguments<I>;
        constexpr std::size_t extent = I % 2 == 0 ? tl::dynamic : tl::bounded<4>;
        const auto a = [&] {
          if constexpr ((which & 1) != 0)
            return run_time_copy<tl::matrix<double, extent, extent>>(A);
          else
            return A;
        }();
        const auto w = [&] {
          if constexpr ((which & 2) != 0)
            return run_time_copy<tl::vector<double, extent>>(v);
          else
            return v;
        }();
        const auto [value, gradient] = tl::value_and_grad(rdt::function<I>{})(a, w, s);
        verify(I, rdt::spec<I>, value, gradient, a, w, s);
        const auto [fixed_value, fixed_gradient] = tl::value_and_grad(rdt::function<I>{})(A, v, s);
        CHECK(fd::rel_error(value, fixed_value) < 1e-13);
        const auto same = [](const auto& g, const auto& fixed_g) {
          REQUIRE(g.size() == fixed_g.size());
          for (std::size_t k = 0; k < g.size(); ++k)
            CHECK(std::abs(g[k] - fixed_g[k]) < 1e-12 * (1 + std::abs(fixed_g[k])));
        };
        if constexpr ((which & 1) != 0) same(std::get<0>(gradient), std::get<0>(fixed_gradient));
        if constexpr ((which & 2) != 0) same(std::get<1>(gradient), std::get<1>(fixed_gradient));
      }
    }
  } else {
    for (int p = 0; p < scalar_points; ++p) {
      const double x0 = u(), x1 = u(), x2 = u();  // drawn in this order whatever the arity
      if constexpr (c.arguments == 1) run(x0);
      if constexpr (c.arguments == 2) run(x0, x1);
      if constexpr (c.arguments == 3) run(x0, x1, x2);
    }
  }
}

}  // namespace

#if RDT_FIRST == 0
TEST_CASE("random compositions: of the depth drawn, all but a few distinct, every operation drawn") {
  // The structure of each (kinds, operations, shapes, operands, constants), hashed; not the adapters'
  // factors. Operations are drawn one by one (by name, so that the numbering is stable), not as
  // distinct pairs: two short compositions may come out alike, a few in a hundred at most.
  const auto hash = [](const rdt::composition& c) {
    std::uint64_t h = 1469598103934665603ULL;
    const auto mix = [&h](auto x) { h = (h ^ static_cast<std::uint64_t>(x)) * 1099511628211ULL; };
    mix(c.of_matrices);
    mix(c.arguments);
    mix(c.n);
    for (int k = 0; k < c.size; ++k) {
      const rdt::node& n = c.nodes[static_cast<std::size_t>(k)];
      mix(n.k);
      mix(n.op + 1);
      mix(n.s);
      mix(n.a + 1);
      mix(n.b + 1);
      mix(n.index);
      mix(std::bit_cast<std::uint64_t>(n.c));
    }
    return h;
  };
  // Operations from node k down to its deepest leaf.
  const auto depth = [](const rdt::composition& c, int k, const auto& self) -> int {
    const rdt::node& n = c.nodes[static_cast<std::size_t>(k)];
    if (n.a < 0) return 0;
    return 1 + std::max(self(c, n.a, self), n.b < 0 ? 0 : self(c, n.b, self));
  };
  std::set<std::uint64_t> seen;
  std::array<int, registry::unary_count> unary_drawn{};
  std::array<int, registry::binary_count> binary_drawn{};
  for (int i = 0; i < rdt::count; ++i) {
    const rdt::composition c = rdt::generate(i);
    INFO("composition " << i << ": " << rdt::describe(c));
    CHECK(depth(c, c.root, depth) == c.depth);
    CHECK(c.depth >= 2);
    CHECK(c.depth <= 5);
    seen.insert(hash(c));
    for (int k = 0; k < c.size; ++k) {
      const rdt::node& n = c.nodes[static_cast<std::size_t>(k)];
      if (n.k == rdt::kind::unary) ++unary_drawn[static_cast<std::size_t>(n.op)];
      if (n.k == rdt::kind::binary) ++binary_drawn[static_cast<std::size_t>(n.op)];
    }
  }
  CHECK(seen.size() >= rdt::count - rdt::count / 100);
  // An operation added to the registry is drawn in some compositions (about 40 times each).
  for (std::size_t u = 0; u < registry::unary_count; ++u) {
    INFO(registry::unary_table[u].name << " drawn " << unary_drawn[u] << " times");
    CHECK(unary_drawn[u] >= 5);
  }
  for (std::size_t b = 0; b < registry::binary_count; ++b) {
    INFO(registry::binary_table[b].name << " drawn " << binary_drawn[b] << " times");
    CHECK(binary_drawn[b] >= 5);
  }
}
#endif

TEST_CASE("random compositions: value against std::, gradient against finite differences") {
  []<int... K>(std::integer_sequence<int, K...>) { (check_composition<RDT_FIRST + K>(), ...); }
  (std::make_integer_sequence<int, RDT_LAST - RDT_FIRST>{});
}
