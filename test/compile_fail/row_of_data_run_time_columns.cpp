// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::row of Eigen data whose columns are known only at run time, read through
// tl::cref; the row's elements, used further in the term, add no message of their own.
// expect: tl::row.A, i.: A has a run-time number of columns
// reject: error:.*error:|errors generated|no match for|no viable|deleted function|no type named
#include <tapeless/tapeless.hpp>

#include <Eigen/Core>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  const Eigen::Matrix<double, Eigen::Dynamic, 2> X = Eigen::MatrixXd::Ones(3, 2);
#else
  const Eigen::MatrixXd X = Eigen::MatrixXd::Ones(3, 2);
#endif
  const tl::vector<double, 2> w{1.0, 2.0};
  const auto g = tl::grad([&](const auto& w) {
    return tl::sum_over(
        tl::indices(3),
        [&](std::size_t i, const auto& w) {
          const auto r = tl::row(tl::cref(X), i);
          return tl::square(r[0] * w[0] + r[1] * w[1] - 1.0);
        },
        w);
  })(w);
  return g[0] > 0 ? 0 : 1;
}
