// SPDX-License-Identifier: BSL-1.0
// Must not compile: a differentiated sum with two parameters of run-time extents, of which the node
// takes one as an operand of its own and cannot stack the other with the fixed ones.
// expect: tl::sum_over.rows, body, params....: at most one parameter of a sum that is differentiated
// reject: error:.*error:|errors generated|no match for|no viable|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const tl::vector<double, tl::dynamic> x{1.0, 2.0, 3.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  const tl::vector<double, 3> y{1.0, 2.0, 3.0};
#else
  const tl::vector<double, tl::dynamic> y{1.0, 2.0, 3.0};
#endif
  const auto [dx, dy] = tl::grad([](const auto& x, const auto& y) {
    return tl::sum_over(
        tl::indices(3), [](std::size_t i, const auto& x, const auto& y) { return y[i] * x[i]; }, x, y);
  })(x, y);
  return dx[0] > dy[0] ? 0 : 1;
}
