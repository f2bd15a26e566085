// SPDX-License-Identifier: BSL-1.0
// Must not compile: an operation of one's own over whole matrices (tl::make_unary) of an Eigen matrix of
// run-time size, which tl::grad takes as a tl::matrix<double, tl::dynamic, tl::dynamic>, where the
// operation does not say it takes run-time extents; of a fixed-size Eigen matrix it compiles.
// expect: tl: an operation on a whole array of run-time extents
// reject: every argument must be a floating-point number|error:.*error:|errors generated
#include <tapeless/tapeless.hpp>

#include "own_matrix_operation.hpp"

#include <Eigen/Core>

namespace tl = tapeless;

int main() {
  auto f = [](const auto& x) { return tl::sum(tl::square(tl::make_unary(doubled{}, x))); };
#ifdef TAPELESS_COMPILE_FAIL_OK
  const Eigen::Matrix2d x = Eigen::Matrix2d::Identity();
#else
  const Eigen::MatrixXd x = Eigen::MatrixXd::Identity(2, 2);
#endif
  const auto g = tl::grad(f)(x);
  return g(0, 0) > 0 ? 0 : 1;
}
