// SPDX-License-Identifier: BSL-1.0
// Must not compile: v[i] of a formula of a matrix of run-time rows and columns, which is no vector by its
// type; A(i, j) reads its elements.
// expect: v\[i\]: v is a formula of a matrix of run-time rows and columns, not a vector; write v\(i, j\)
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const tl::matrix<double, tl::dynamic, tl::dynamic> A(2, 2);
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::grad([](const auto& M) { return (2.0 * M)(1, 0); })(A);
#else
  tl::grad([](const auto& M) { return (2.0 * M)[1]; })(A);  // returns nothing on error
#endif
  return 0;
}
