// SPDX-License-Identifier: BSL-1.0
// Must not compile: a temporary tl::var inside an expression.
// expect: must be a named variable that outlives the expression
#include <tapeless/tapeless.hpp>

#include <tuple>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::var<double> x{2.0}, y{3.0};
  auto z = y * x;
  z.backward();
#else
  tl::var<double> x{2.0};
  auto z = tl::var<double>{3.0} * x;
  z.backward();
#endif
}
