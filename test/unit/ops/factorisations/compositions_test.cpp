// SPDX-License-Identifier: BSL-1.0
// Compositions of the factorisations with each other and with products (ops/factorisations.hpp,
// ops/products.hpp): det(A A^T), log_det(A A^T + 3 I), sum(inverse(A)), sum(solve(A, b)), solve against
// inverse, log_det against log(det), det(inverse(A)), against the closed forms in long double.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <linear_algebra_check.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tl = tapeless;
using namespace la;  // the checks and long double references of test/support

template <std::size_t N>
void check_compositions(std::uint64_t seed) {
  fd::rng r{seed};
  for (int p = 0; p < points; ++p) {
    const auto a = random_invertible<N>(r);
    const ldmat la = to_ld(a), ai = ld_inverse(la);
    const ld d = ld_det(la);
    {  // det(A A^T) = det(A)^2: gradient 2 det(A)^2 A^-T
      const auto f = [](const auto& x) { return tl::det(tl::matmul(x, tl::transpose(x))); };
      check_exact_gradient("det(A A^T)", f, a, to_mat<N, N>(ld_scale(ld_t(ai), 2.0L * d * d)));
    }
    {  // log det(A A^T + 3 I): gradient 2 (A A^T + 3 I)^-1 A
      const mat<N> three_i = 3.0 * identity<N>();
      const auto f = [&three_i](const auto& x) { return tl::log_det(tl::matmul(x, tl::transpose(x)) + three_i); };
      ldmat m = ld_mul(la, ld_t(la));
      for (std::size_t i = 0; i < N; ++i) m[i][i] += 3.0L;
      check_exact_gradient("log_det(A A^T + 3 I)", f, a, to_mat<N, N>(ld_scale(ld_mul(ld_inverse(m), la), 2.0L)));
      // the identity written as a constant inside f
      const auto f2 = [](const auto& x) {
        const mat<N> id = identity<N>();
        return tl::log_det(tl::matmul(x, tl::transpose(x)) + 3.0 * id);
      };
      CHECK(tl::grad(f2)(a) == tl::grad(f)(a));
    }
    {  // sum(A^-1): gradient -A^-T 1 1^T A^-T
      const ldmat ones = ldmat(N, std::vector<ld>(N, 1.0L));
      check_exact_gradient(
          "sum(inverse(A))", [](const auto& x) { return tl::sum(tl::inverse(x)); }, a,
          to_mat<N, N>(ld_scale(ld_mul(ld_mul(ld_t(ai), ones), ld_t(ai)), -1.0L)));
    }
    {  // sum(A^-1 b): gb = A^-T 1, gA = -gb x^T
      const auto b = random_matrix<N, 1>(r, -2, 2);
      const ldmat x = ld_mul(ai, to_ld(b)), gb = ld_mul(ld_t(ai), ldmat(N, std::vector<ld>(1, 1.0L)));
      check_exact_gradient2(
          "sum(solve(A, b))", [](const auto& m, const auto& v) { return tl::sum(tl::solve(m, v)); }, a, b,
          to_mat<N, N>(ld_scale(ld_mul(gb, ld_t(x)), -1.0L)), to_mat<N, 1>(gb));
    }
    {  // solve agrees with inverse: sum(solve(A, b)) = sum(matmul(inverse(A), b)), value and gradient
      const auto b = random_matrix<N, 2>(r, -2, 2);
      const auto via_solve = [&b](const auto& m) { return tl::sum(tl::solve(m, b)); };
      const auto via_inverse = [&b](const auto& m) { return tl::sum(tl::matmul(tl::inverse(m), b)); };
      CHECK(fd::rel_error(via_solve(a), via_inverse(a)) < 1e-12);
      CHECK(max_rel_error(tl::grad(via_solve)(a), tl::grad(via_inverse)(a)) < 1e-11);
    }
    {  // log_det(A) = log(det(A)) and 2 sum log diag(chol(A)) for an SPD A: values and gradients agree
      const auto s = random_spd<N>(r);
      const auto via_det = [](const auto& m) { return tl::log(tl::det(m)); };
      const auto direct = [](const auto& m) { return tl::log_det(m); };
      CHECK(fd::rel_error(via_det(s), direct(s)) < 1e-12);
      CHECK(max_rel_error(tl::grad(via_det)(s), tl::grad(direct)(s)) < 1e-11);
      // log_det reads (A + A^T) / 2: its gradient is symmetric
      const mat<N> g = tl::grad(direct)(s);
      CHECK(max_rel_error(g, tl::transpose(g)) < 1e-14);
    }
    {  // det(inverse(A)) = 1 / det(A), and trace(outer(u, v)) = u . v
      const auto f = [](const auto& x) { return tl::det(tl::inverse(x)); };
      check_exact_gradient("det(inverse(A))", f, a, to_mat<N, N>(ld_scale(ld_t(ai), -1.0L / d)));
      const auto u = random_matrix<N, 1>(r), v = random_matrix<N, 1>(r);
      const auto [gu, gv] = tl::grad([](const auto& x, const auto& y) { return tl::trace(tl::outer(x, y)); })(u, v);
      CHECK(gu == v);
      CHECK(gv == u);
    }
  }
}

TEST_CASE("compositions: det(A A^T), log_det(A A^T + 3 I), sum(inverse(A)), sum(solve(A, b)) and more") {
  check_compositions<1>(801);
  check_compositions<2>(802);
  check_compositions<3>(803);
  check_compositions<4>(804);
}
