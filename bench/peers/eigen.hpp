// SPDX-License-Identifier: BSL-1.0
// bench/peers/eigen.hpp: Eigen's forward mode (Debian's libeigen3-dev, unsupported/Eigen/AutoDiff)
// as a peer (bench/peers/common.hpp), `<case>/eigen_forward`: every number an
// Eigen::AutoDiffScalar carrying its N partial derivatives in a fixed-size vector, so one forward
// pass costs about N function evaluations.
#pragma once

// System headers (bench/CMakeLists.txt): their warnings are not ours. AutoDiff needs Eigen/Core first.
#include <Eigen/Core>
#include <unsupported/Eigen/AutoDiff>

#include "common.hpp"

#include <array>
#include <cstddef>

namespace tapeless_bench::eigen {

struct forward {
  static constexpr const char* name = "eigen_forward";

  template <class R, std::size_t N, class F>
  static R gradient(int, const std::array<double, N>& x, const F& f) {
    using number = Eigen::AutoDiffScalar<Eigen::Matrix<double, static_cast<int>(N), 1>>;
    return forward_mode_gradient<number, R>(
        x, f, [](double v, int i) { return number(v, static_cast<int>(N), i); },
        [](const number& y, int i) { return y.derivatives()(i); });
  }
};

}  // namespace tapeless_bench::eigen
