// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::concat of a whole argument of run-time extents, which the transforms do not
// differentiate; its elements are read in a tl::sum_over over tl::indices.
// expect: tl: an operation on a whole array of run-time extents
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const tl::vector<double, tl::dynamic> x{1.0, 2.0, 3.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::grad([](const auto& v) {
    return tl::sum_over(
        tl::indices(v.size()), [](std::size_t i, const auto& v) { return v[i]; }, v);
  })(x);
#else
  tl::grad([](const auto& v) { return tl::sum(tl::concat(v, v)); })(
      x);  // on error, returns nothing, so nothing is read
#endif
  return 0;
}
