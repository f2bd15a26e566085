// SPDX-License-Identifier: BSL-1.0
// Must not compile: an Eigen vector of run-time size as an argument; the engine's shapes are fixed.
// expect: an Eigen matrix of run-time size \(VectorXd, MatrixXd, a Map or Ref of one\) cannot be an argument
// reject: every argument must be a floating-point number
#include <tapeless/tapeless.hpp>

#include <Eigen/Core>

namespace tl = tapeless;

int main() {
  auto f = [](const auto& x) { return tl::sum(tl::square(x)); };
#ifdef TAPELESS_COMPILE_FAIL_OK
  const Eigen::Vector3d x(1.0, 2.0, 3.0);
#else
  const Eigen::VectorXd x = Eigen::VectorXd::Ones(3);
#endif
  const auto g = tl::grad(f)(x);
  return g(0) > 0 ? 0 : 1;
}
