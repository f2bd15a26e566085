// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::rows of an Eigen::MatrixXd, whose column count is known at run time only; read
// as one run of numbers it would be a column of N C numbers. The error names the fix, tl::row_vectors.
// expect: tl::rows\(X, \.\.\.\): X has a run-time number of columns; state it with tl::row_vectors<C>\(X\)
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|no matching
#include <tapeless/tapeless.hpp>

#include <Eigen/Core>

namespace tl = tapeless;

int main() {
  const Eigen::MatrixXd X = Eigen::MatrixXd::Ones(4, 3);
  const Eigen::VectorXd y = Eigen::VectorXd::Ones(4);
  const auto f = [&](const auto& w, const auto& b) {
#ifdef TAPELESS_COMPILE_FAIL_OK
    const auto rows = tl::rows(tl::row_vectors<3>(X), y);
#else
    const auto rows = tl::rows(X, y);
#endif
    return tl::sum_over(
        rows,
        [](const auto& xi, const auto& yi, const auto& v, const auto& c) {
          return tl::square(tl::dot(xi, v) + c - yi);
        },
        w, b);
  };
  const auto g = tl::grad(f)(tl::vector<double, 3>{1.0, 2.0, 3.0}, 0.5);
  return std::get<1>(g) > 0 ? 0 : 1;
}
