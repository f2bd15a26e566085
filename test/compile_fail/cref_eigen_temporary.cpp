// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::cref of a temporary Eigen vector of run-time size, which dies before the
// gradient call ends while tl::cref reads it in place.
// expect: tl::cref\(x\): x must be a named object that outlives the gradient call
// reject: error:.*error:|errors generated|no match for|no viable|deleted function|no type named
#include <tapeless/tapeless.hpp>

#include <Eigen/Core>

namespace tl = tapeless;

int main() {
  const Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(4, 0.0, 1.0);
  const tl::vector<double, 2> a{1.0, 2.0};
  auto g = tl::grad([&](const auto& w) {
    return tl::sum_over(
        tl::indices(4),
        [&](std::size_t i, const auto& w) {
#ifdef TAPELESS_COMPILE_FAIL_OK
          return tl::square(w[0] - tl::cref(y)[i]) * w[1];
#else
          return tl::square(w[0] - tl::cref(Eigen::VectorXd(2.0 * y))[i]) * w[1];
#endif
        },
        w);
  })(a);
  return g[0] > 0 ? 0 : 1;
}
