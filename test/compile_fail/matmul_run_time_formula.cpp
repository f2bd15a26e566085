// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::matmul of two arrays of run-time extents where one is a formula over them, whose
// elements the product would read once per element of the result; arrays and their transposes it takes.
// expect: tl::matmul\(A, B\) of two arrays of run-time extents takes arrays
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const tl::matrix<double, tl::dynamic, tl::dynamic> x{{1.0, 2.0}, {3.0, 4.0}};
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::grad([](const auto& a) { return tl::sum(tl::matmul(a, tl::transpose(a))); })(x);
#else
  tl::grad([](const auto& a) { return tl::sum(tl::matmul(a, tl::exp(a))); })(x);  // returns nothing on error
#endif
  return 0;
}
