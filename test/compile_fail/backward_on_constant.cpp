// SPDX-License-Identifier: BSL-1.0
// Must not compile: backward() on a constant, an expression of data only (tl::cref and numbers).
// expect: backward\(\): this expression depends on no tl::var
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const tl::matrix<double, 2, 2> data{{1, 2}, {3, 4}};
  tl::var<double> w{0.5};
#ifdef TAPELESS_COMPILE_FAIL_OK
  const auto loss = tl::sum(tl::cref(data) * w);
#else
  const auto loss = tl::sum(tl::cref(data) * 2.0);
#endif
  loss.backward();
  return w.grad() == 0.0 ? 1 : 0;
}
