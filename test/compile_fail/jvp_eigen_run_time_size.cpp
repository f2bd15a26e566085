// SPDX-License-Identifier: BSL-1.0
// Must not compile: a forward derivative at an Eigen vector of run-time size, which tl::grad and
// tl::value_and_grad alone differentiate.
// expect: tl::jvp.f, primals, tangents.: an argument of run-time extents
// reject: error:.*error:|errors generated|no match for|no viable|deleted function|no type named
#include <tapeless/tapeless.hpp>

#include <Eigen/Core>

#include <tuple>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  const Eigen::Vector3d x(1.0, 2.0, 3.0);
#else
  const Eigen::VectorXd x = Eigen::VectorXd::Ones(3);
#endif
  const auto f = [](const auto& x) {
    return tl::sum_over(
        tl::indices(3), [](std::size_t i, const auto& x) { return tl::square(x[i]); }, x);
  };
  const auto [value, derivative] = tl::jvp(f, std::tuple{x}, std::tuple{x});
  const double v = value;
  const double d = derivative;
  return v > d ? 0 : 1;
}
