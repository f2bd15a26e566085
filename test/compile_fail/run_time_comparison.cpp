// SPDX-License-Identifier: BSL-1.0
// Must not compile: an elementwise comparison and tl::if_else of an argument of run-time extents, which
// would need a mask of run-time extents; its elements are compared in a tl::sum_over over tl::indices.
// expect: tl: a comparison \(< > <= >= tl::equal tl::not_equal\) or tl::if_else of arrays of run-time extents
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const tl::vector<double, tl::dynamic> x{1.0, 2.0, 3.0}, a{2.0, 2.0, 2.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::grad([&a](const auto& v) {
    return tl::sum_over(
        tl::indices(v.size()), [&a](std::size_t i, const auto& v) { return tl::if_else(v[i] < a[i], v[i], a[i]); }, v);
  })(x);
#else
  tl::grad([&a](const auto& v) { return tl::sum(tl::if_else(v < a, v, a)); })(x);  // returns nothing on error
#endif
  return 0;
}
