// SPDX-License-Identifier: BSL-1.0
// bench/peers/finite_diff.hpp: central differences of the function in plain doubles, for scale, as a
// peer (bench/peers/common.hpp), `<case>/finite_diff`: 2 N function evaluations per gradient, each
// component (f(x + h e_i) - f(x - h e_i)) / 2h. Accurate to about 1e-10 relative, not to rounding:
// it is checked against the hand-written gradient to 1e-6 of the largest component.
#pragma once

#include "common.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

namespace tapeless_bench {

struct finite_diff {
  static constexpr const char* name = "finite_diff";
  static constexpr tolerance agreement{1e-6, true};

  template <class R, std::size_t N, class F>
  static R gradient(int, const std::array<double, N>& x, const F& f) {
    std::array<double, N> xh = x, g;
    for (std::size_t i = 0; i < N; ++i) {
      // h near the cube root of the machine epsilon balances truncation (h^2) and rounding (eps / h).
      const double h = 6e-6 * std::max(1.0, std::abs(x[i]));
      xh[i] = x[i] + h;
      const double up = f(xh), step_up = xh[i] - x[i];
      xh[i] = x[i] - h;
      const double down = f(xh), step_down = x[i] - xh[i];
      xh[i] = x[i];
      g[i] = (up - down) / (step_up + step_down);  // the steps as rounded, not h
    }
    return as_gradient<R>(g);
  }
};

}  // namespace tapeless_bench
