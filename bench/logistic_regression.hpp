// SPDX-License-Identifier: BSL-1.0
// bench/logistic_regression.hpp: S6 logistic_regression in tapeless, written the project's way: timed as
// the case S6 (matrix_bench.cpp), and beside S11, the same regression as a mean over rows of run-time
// number (rows_bench.cpp), which is measured against it.
#pragma once

#include "adjoints.hpp"
#include "suite.hpp"

#include <tapeless/tapeless.hpp>

namespace tapeless_bench {

// Internal linkage: adjoints.hpp says why.
namespace {

TAPELESS_BENCH_KERNEL tl::vector<double, s6_k> s6_tapeless(const s6_in& in) {
  const auto& X = in.X;
  const auto& y = in.y;
  // p is used twice: tl::let shares it (a local would copy its subtree, and sweep X beta twice).
  return tl::grad([&X, &y](const auto& beta) {
    return tl::let(tl::sigmoid(tl::matmul(tl::cref(X), beta)), [&y](const auto& p) {
      return -tl::mean(tl::cref(y) * tl::log(p) + (1.0 - tl::cref(y)) * tl::log(1.0 - p));
    });
  })(in.beta);
}

}  // namespace

}  // namespace tapeless_bench
