// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::concat of the whole of an Eigen vector of run-time size, which tl::grad takes
// as a tl::vector<double, tl::dynamic> read by element.
// expect: tl: an operation on a whole array of run-time extents
// reject: every argument must be a floating-point number|error:.*error:|errors generated
#include <tapeless/tapeless.hpp>

#include <Eigen/Core>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto f = [](const auto& x) {
    return tl::sum_over(
        tl::indices(x.size()), [](std::size_t i, const auto& x) { return tl::square(x[i]); }, x);
  };
#else
  auto f = [](const auto& x) { return tl::sum(tl::concat(x, x)); };
#endif
  const Eigen::VectorXd x = Eigen::VectorXd::Ones(3);
  const auto g = tl::grad(f)(x);
  return g(0) > 0 ? 0 : 1;
}
