// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::det of a whole argument of run-time extents, which the transforms do not
// differentiate; its elements are read in a tl::sum_over over tl::indices.
// expect: tl: an operation on a whole array of run-time extents
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  tl::matrix<double, tl::dynamic, tl::dynamic> x(2, 2);
  x(0, 0) = x(1, 1) = 1.0;
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::grad([](const auto& v) {
    return tl::sum_over(
        tl::indices(v.rows()), [](std::size_t i, const auto& v) { return v(i, i); }, v);
  })(x);
#else
  tl::grad([](const auto& v) { return tl::det(v); })(x);  // on error, returns nothing, so nothing is read
#endif
  return 0;
}
