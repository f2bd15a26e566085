// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::to_eigen of a sparse Hessian where <Eigen/SparseCore> is not included; the
// error names the header to include.
// expect: include <Eigen/SparseCore> before calling it
// reject: generic lambda|invalid use of void|incomplete type .void|has incomplete type
#include <tapeless/tapeless.hpp>

#ifdef TAPELESS_COMPILE_FAIL_OK
#include <Eigen/SparseCore>
#endif

namespace tl = tapeless;

int main() {
  tl::vector<double, 3> x{1.0, 2.0, 3.0};
  const auto h = tl::sparse_hessian([](const auto& v) { return tl::sum(tl::square(v)); })(x);
  tl::to_eigen(h);
  return h(0, 0) > 0 ? 0 : 1;
}
