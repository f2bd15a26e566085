// SPDX-License-Identifier: BSL-1.0
// A factorisation shared (ops/factorisations.hpp, linalg/lu.hpp): nodes keeping their factors copied,
// used twice and shared by let; det, inverse and solve of one argument sharing its LU factors, at
// invertible and singular matrices, in constant expressions and in second derivatives.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <linear_algebra_check.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tl = tapeless;
using namespace la;  // the checks and long double references of test/support

TEST_CASE("a node keeping its factorisation may be copied, used twice, and shared by let") {
  fd::rng r{811};
  for (int p = 0; p < points; ++p) {
    const auto a = random_invertible<3>(r);
    const auto b = random_matrix<3, 1>(r);
    const ldmat la = to_ld(a);
    const ld d = ld_det(la);
    const mat<3> exact = to_mat<3, 3>(ld_scale(ld_cofactors(la), 2.0L * d));  // d det^2 = 2 det cof
    const auto copied = [](const auto& x) {
      const auto dt = tl::det(x);
      return dt * dt;
    };
    const auto shared = [](const auto& x) { return tl::let(tl::det(x), [](auto dt) { return dt * dt; }); };
    check_exact_gradient("det(A) * det(A), a local used twice", copied, a, exact);
    check_exact_gradient("let(det(A), t * t)", shared, a, exact);
    // solve's factorisation, copied with its node into both operands of a sum
    const auto twice = [&b](const auto& x) {
      const auto s = tl::solve(x, b);
      return tl::dot(s, s);
    };
    const ldmat ai = ld_inverse(la), x = ld_mul(ai, to_ld(b)), gb = ld_scale(ld_mul(ld_t(ai), x), 2.0L);
    check_exact_gradient("dot(solve(A, b), solve(A, b))", twice, a, to_mat<3, 3>(ld_scale(ld_mul(gb, ld_t(x)), -1.0L)));
  }
}

namespace {
/// det, inverse and solve of one argument share its LU factors (sweep/shared.hpp), and det's rule
/// reads det(A) A^-T off the shared inverse. Each gradient against finite differences and the closed
/// form, and against the same function of A * 1.0, an expression no node shares (the same values).
template <std::size_t N>
void check_shared_factors(std::uint64_t seed) {
  using M = mat<N>;
  using A = tl::argument<0, M>;
  const auto unshared = [](const auto& f) { return [f](const auto& x) { return f(x * 1.0); }; };
  const auto agrees = [&](const std::string& name, const auto& f, const M& x, const M& exact) {
    check_exact_gradient(name, f, x, exact);
    CHECK(max_rel_error(tl::grad(f)(x), tl::grad(unshared(f))(x)) < 1e-13);
  };
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const M a = random_invertible<N>(r);
    const auto b = random_matrix<N, 1>(r, -2, 2);
    const auto bb = random_matrix<N, 2>(r, -2, 2);
    const ldmat la = to_ld(a), ai = ld_inverse(la), ait = ld_t(ai), ones = ldmat(N, std::vector<ld>(N, 1.0L));
    const ld d = ld_det(la);
    const ldmat inverse_sum = ld_scale(ld_mul(ld_mul(ait, ones), ait), -1.0L);  // d sum(A^-1)
    {  // det and inverse: cof(A) - A^-T 1 1^T A^-T
      const auto f = [](const auto& x) { return tl::det(x) + tl::sum(tl::inverse(x)); };
      static_assert(tl::detail::lu_uses<A, decltype(f(std::declval<A>()))> == (N >= 4 ? 2 : 1));
      agrees("det(A) + sum(inverse(A))", f, a, to_mat<N, N>(ld_add(ld_cofactors(la), inverse_sum)));
    }
    {  // S9, at a symmetric positive-definite A: A^-T - A^-T 1 1^T A^-T
      const M s = random_spd<N>(r);
      const ldmat si = ld_inverse(to_ld(s)), sit = ld_t(si);
      const auto f = [](const auto& x) { return tl::log(tl::det(x)) + tl::sum(tl::inverse(x)); };
      agrees("log(det(A)) + sum(inverse(A))", f, s,
             to_mat<N, N>(ld_add(sit, ld_scale(ld_mul(ld_mul(sit, ones), sit), -1.0L))));
    }
    {  // det and solve: sum(x) cof(A) - det(A) gb x^T, x = A^-1 b, gb = A^-T 1
      const auto f = [&b](const auto& m) { return tl::det(m) * tl::sum(tl::solve(m, b)); };
      static_assert(tl::detail::lu_uses<A, decltype(f(std::declval<A>()))> == (N >= 4 ? 2 : 1));
      const ldmat x = ld_mul(ai, to_ld(b)), gb = ld_mul(ait, ldmat(N, std::vector<ld>(1, 1.0L)));
      ld sx = 0.0L;
      for (std::size_t i = 0; i < N; ++i) sx += x[i][0];
      agrees("det(A) * sum(solve(A, b))", f, a,
             to_mat<N, N>(ld_add(ld_scale(ld_cofactors(la), sx), ld_scale(ld_mul(gb, ld_t(x)), -d))));
    }
    {  // inverse, solve and solve again: three nodes, one factorisation
      const auto f = [&b, &bb](const auto& m) {
        return tl::sum(tl::inverse(m)) + tl::sum(tl::solve(m, bb)) + tl::dot(tl::solve(m, b), b);
      };
      static_assert(tl::detail::lu_uses<A, decltype(f(std::declval<A>()))> == 3);
      const ldmat x2 = ld_mul(ai, to_ld(bb)), g2 = ld_mul(ait, ldmat(N, std::vector<ld>(2, 1.0L)));
      const ldmat x1 = ld_mul(ai, to_ld(b)), g1 = ld_mul(ait, to_ld(b));
      agrees("sum(inverse(A)) + sum(solve(A, B)) + solve(A, b) . b", f, a,
             to_mat<N, N>(ld_add(inverse_sum, ld_scale(ld_add(ld_mul(g2, ld_t(x2)), ld_mul(g1, ld_t(x1))), -1.0L))));
    }
    {  // two arguments: A's det alone keeps its own factors, C's det and inverse share
      const M c = random_invertible<N>(r);
      const ldmat lc = to_ld(c), cit = ld_t(ld_inverse(lc));
      const auto f = [](const auto& x, const auto& y) { return tl::det(x) + tl::det(y) + tl::sum(tl::inverse(y)); };
      check_exact_gradient2("det(A) + det(C) + sum(inverse(C))", f, a, c, to_mat<N, N>(ld_cofactors(la)),
                            to_mat<N, N>(ld_add(ld_cofactors(lc), ld_scale(ld_mul(ld_mul(cit, ones), cit), -1.0L))));
    }
  }
}
}  // namespace

TEST_CASE("det, inverse and solve of one argument share its LU factors: the same gradients") {
  check_shared_factors<2>(841);
  check_shared_factors<3>(842);
  check_shared_factors<4>(843);
  check_shared_factors<5>(844);
}

TEST_CASE("shared LU factors at a singular matrix, in constant expressions and in second derivatives") {
  using M = mat<4>;
  // Singular: inverse(A) is NaN, and det's rule, which would read det(A) A^-T off it, takes the
  // cofactors instead. if_else sweeps the det branch only; both branches are evaluated.
  const M singular{{1, 0, 2, 3}, {4, 0, 5, 6}, {7, 0, 8, 10}, {1, 0, 1, 1}};
  const auto det_only = [](const auto& x) { return tl::det(x); };
  const auto with_inverse = [](const auto& x) { return tl::if_else(true, tl::det(x), tl::sum(tl::inverse(x))); };
  CHECK(all_nan(tl::inverse(singular)));
  CHECK(tl::grad(with_inverse)(singular) == tl::grad(det_only)(singular));
  CHECK(max_rel_error(tl::grad(with_inverse)(singular), to_mat<4, 4>(ld_cofactors(to_ld(singular)))) < 1e-14);
  // and at an invertible one, the cofactors read off the inverse
  const M a{{4, 1, 0, 0.5}, {1, 3, 1, 0}, {0, 1, 5, 1}, {0.5, 0, 1, 4}};
  CHECK(max_rel_error(tl::grad(with_inverse)(a), to_mat<4, 4>(ld_cofactors(to_ld(a)))) < 1e-14);

  // in a constant expression the same sharing, to rounding the same gradient as at run time
  const auto s9 = [](const auto& x) { return tl::det(x) + tl::sum(tl::inverse(x)); };
  constexpr M at_compile_time = tl::grad(s9)(M{{4, 1, 0, 0.5}, {1, 3, 1, 0}, {0, 1, 5, 1}, {0.5, 0, 1, 4}});
  CHECK(max_rel_error(at_compile_time, tl::grad(s9)(a)) < 1e-14);

  // second derivatives sweep matrices of dual numbers, whose LU factors are shared the same way
  const auto s9_unshared = [](const auto& x) { return tl::det(x * 1.0) + tl::sum(tl::inverse(x * 1.0)); };
  const auto h = tl::hessian(s9)(a);
  CHECK(max_rel_error(h, tl::hessian(s9_unshared)(a)) < 1e-12);
  for (const double e : h) CHECK(std::isfinite(e));
}
