// SPDX-License-Identifier: BSL-1.0
// The plain reductions over all the elements (sum, mean, prod, squared_norm, norm, max_element,
// min_element; log_sum_exp, softmax and log_softmax beside them in the sweep over every shape): at the
// shapes 1x1, 1x4, 4x1, 3x3, 2x5 against finite differences and the closed forms; their conventions
// (zeros, ties, NaN, infinities, overflow); float matrices.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <matrix_check.hpp>
#include <reduction_check.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tl = tapeless;
using reduction_check::check_reductions_at;
using reduction_check::inf;
using reduction_check::qnan;

TEST_CASE("every reduction at every shape, against the closed form and finite differences") {
  std::uint64_t seed = 3000;
  mx::for_shapes([&](auto t) {
    for (int rep = 0; rep < 3; ++rep) check_reductions_at<typename decltype(t)::type>(++seed);
  });
}

TEST_CASE("reductions of plain matrices are plain numbers and matrices") {
  using M = tl::matrix<double, 2, 2>;
  const M a{{1, 2}, {3, 4}};
  static_assert(std::is_same_v<decltype(tl::sum(a)), double>);
  static_assert(std::is_same_v<decltype(tl::softmax(a)), M>);
  CHECK(tl::sum(a) == 10.0);
  CHECK(tl::mean(a) == 2.5);
  CHECK(tl::prod(a) == 24.0);
  CHECK(tl::squared_norm(a) == 30.0);
  CHECK(tl::norm(a) == std::sqrt(30.0));
  CHECK(tl::max_element(a) == 4.0);
  CHECK(tl::min_element(a) == 1.0);
  CHECK(tl::log_sum_exp(a) == tl::log_sum_exp(tl::argument<0, M>(a)).value());
  CHECK(tl::softmax(a) == tl::softmax(tl::argument<0, M>(a)).value());
  CHECK(tl::log_softmax(a) == tl::log_softmax(tl::argument<0, M>(a)).value());
}

TEST_CASE("prod: exact gradients where elements are 0") {
  using V = tl::vector<double, 4>;
  const auto f = [](const auto& X) { return tl::prod(X); };
  CHECK(tl::grad(f)(V{2.0, 0.0, 3.0, 4.0}) == V{0.0, 24.0, 0.0, 0.0});
  CHECK(tl::grad(f)(V{2.0, 0.0, 3.0, 0.0}) == V{0.0, 0.0, 0.0, 0.0});
  CHECK(tl::grad(f)(V{2.0, 5.0, 3.0, 4.0}) == V{60.0, 24.0, 40.0, 30.0});
  CHECK(tl::grad(f)(tl::matrix<double, 1, 1>{{7.0}}) == tl::matrix<double, 1, 1>{{1.0}});
  // With an adjoint other than 1.
  CHECK(tl::grad([](const auto& X) { return 3.0 * tl::prod(X); })(V{2.0, 0.0, 3.0, 4.0}) == V{0.0, 72.0, 0.0, 0.0});
}

TEST_CASE("norm: gradient 0 at the zero matrix; no overflow or underflow") {
  using V = tl::vector<double, 2>;
  const auto f = [](const auto& X) { return tl::norm(X); };
  const auto z = tl::value_and_grad(f)(V{0.0, 0.0});
  CHECK(z.first == 0.0);
  CHECK(z.second == V{0.0, 0.0});
  const auto big = tl::value_and_grad(f)(V{3e200, 4e200});
  CHECK(fd::rel_error(big.first / 5e200, 1.0) < 1e-15);
  mx::check_close("norm of huge elements", big.second, V{0.6, 0.8}, 1e-15);
  const auto tiny = tl::value_and_grad(f)(V{3e-200, 4e-200});
  CHECK(fd::strict_rel_error(tiny.first, 5e-200) < 1e-15);
  mx::check_close("norm of tiny elements", tiny.second, V{0.6, 0.8}, 1e-15);
  const auto sub = tl::value_and_grad(f)(V{-3e-320, 0.0});
  CHECK(sub.first == 3e-320);
  CHECK(tl::norm(V{inf, 1.0}) == inf);
  CHECK(tl::norm(V{-inf, qnan}) != tl::norm(V{-inf, qnan}));
  CHECK(std::isnan(tl::norm(V{1.0, qnan})));
  // squared_norm and norm of a single element.
  CHECK(tl::value_and_grad(f)(tl::matrix<double, 1, 1>{{-2.0}}).first == 2.0);
  CHECK(tl::grad(f)(tl::matrix<double, 1, 1>{{-2.0}}) == tl::matrix<double, 1, 1>{{-1.0}});
}

TEST_CASE("max_element and min_element: first at a tie, NaN propagates") {
  using V = tl::vector<double, 4>;
  const auto fmax = [](const auto& X) { return tl::max_element(X); };
  const auto fmin = [](const auto& X) { return tl::min_element(X); };
  CHECK(tl::grad(fmax)(V{1.0, 3.0, 3.0, 2.0}) == V{0.0, 1.0, 0.0, 0.0});
  CHECK(tl::grad(fmin)(V{2.0, 1.0, 1.0, 1.0}) == V{0.0, 1.0, 0.0, 0.0});
  CHECK(tl::grad(fmax)(V{5.0, 5.0, 5.0, 5.0}) == V{1.0, 0.0, 0.0, 0.0});
  CHECK(tl::grad(fmax)(V{-inf, -inf, -1.0, -inf}) == V{0.0, 0.0, 1.0, 0.0});
  CHECK(tl::max_element(V{1.0, inf, 2.0, 3.0}) == inf);
  // A NaN wins, the first one: NaN value, NaN adjoint at that element, 0 elsewhere.
  for (const auto& x : {V{1.0, qnan, 3.0, qnan}, V{qnan, 1.0, 3.0, 2.0}, V{1.0, 2.0, 3.0, qnan}}) {
    const std::size_t k = x[0] != x[0] ? 0 : x[1] != x[1] ? 1 : 3;
    for (const auto& vg : {tl::value_and_grad(fmax)(x), tl::value_and_grad(fmin)(x)}) {
      CHECK(std::isnan(vg.first));
      for (std::size_t i = 0; i < 4; ++i) {
        CAPTURE(i);
        if (i == k)
          CHECK(std::isnan(vg.second[i]));
        else
          CHECK(vg.second[i] == 0.0);
      }
    }
  }
  // Adjoints other than 1 reach the element.
  CHECK(tl::grad([](const auto& X) { return -2.0 * tl::min_element(X); })(V{4.0, 3.0, 2.0, 1.0}) ==
        V{0.0, 0.0, 0.0, -2.0});
}

TEST_CASE("reductions of float matrices, beside double scalars") {
  using F = tl::matrix<float, 2, 2>;
  const F a{{1.0f, 2.0f}, {3.0f, 4.0f}};
  const auto [ga, gs] = tl::grad([](const auto& A, const auto& S) { return tl::sum(A) * S + tl::norm(A) * S; })(a, 2.0);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(ga)>, F>);
  for (std::size_t i = 0; i < 4; ++i) CHECK(fd::rel_error(ga[i], 2.0 + 2.0 * a[i] / std::sqrt(30.0)) < 1e-6);
  CHECK(fd::rel_error(gs, 10.0 + std::sqrt(30.0)) < 1e-6);
  const F gm =
      tl::grad([](const auto& A) { return tl::log_sum_exp(A) + tl::max_element(A) + tl::mean(tl::softmax(A)); })(a);
  CHECK(gm[3] > 1.0f);
}
