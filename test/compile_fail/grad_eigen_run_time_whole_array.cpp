// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::det of the whole of an Eigen matrix of run-time size, which tl::grad takes as a
// tl::matrix<double, tl::dynamic, tl::dynamic> read by element.
// expect: tl: an operation on a whole array of run-time extents
// reject: every argument must be a floating-point number|error:.*error:|errors generated
#include <tapeless/tapeless.hpp>

#include <Eigen/Core>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto f = [](const auto& x) {
    return tl::sum_over(
        tl::indices(x.rows()), [](std::size_t i, const auto& x) { return tl::square(x(i, i)); }, x);
  };
#else
  auto f = [](const auto& x) { return tl::det(x); };
#endif
  const Eigen::MatrixXd x = Eigen::MatrixXd::Identity(2, 2);
  const auto g = tl::grad(f)(x);
  return g(0, 0) > 0 ? 0 : 1;
}
