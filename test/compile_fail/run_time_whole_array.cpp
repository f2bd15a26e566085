// SPDX-License-Identifier: BSL-1.0
// Must not compile: an operation of one's own over whole matrices (tl::make_unary) of an argument of
// run-time extents, which it does not say it takes (operation_traits::takes_run_time_extents); the same
// operation of a matrix of fixed shape compiles.
// expect: tl: an operation on a whole array of run-time extents
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

#include "own_matrix_operation.hpp"

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::matrix<double, 2, 2> x{};
#else
  tl::matrix<double, tl::dynamic, tl::dynamic> x(2, 2);
#endif
  x(0, 0) = x(1, 1) = 1.0;
  tl::grad([](const auto& v) { return tl::sum(tl::make_unary(doubled{}, v)); })(x);  // on error, returns nothing
  return 0;
}
