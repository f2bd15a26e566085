// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::reshape of a formula over an Eigen matrix of run-time size, which tl::grad takes
// as a tl::matrix<double, tl::dynamic, tl::dynamic>: the formula's elements are not stored, and reshape
// reads a whole array; reshaping the matrix itself compiles.
// expect: tl: an operation on a whole array of run-time extents
// reject: every argument must be a floating-point number|error:.*error:|errors generated
#include <tapeless/tapeless.hpp>

#include <Eigen/Core>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto f = [](const auto& x) { return tl::sum(tl::square(tl::reshape<4, 1>(x))); };
#else
  auto f = [](const auto& x) { return tl::sum(tl::reshape<4, 1>(tl::square(x))); };
#endif
  const Eigen::MatrixXd x = Eigen::MatrixXd::Identity(2, 2);
  const auto g = tl::grad(f)(x);
  return g(0, 0) > 0 ? 0 : 1;
}
