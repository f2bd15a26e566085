// SPDX-License-Identifier: BSL-1.0
// Must not compile: a Hessian at an argument of run-time extents, which tl::grad and tl::value_and_grad
// alone differentiate.
// expect: tl::hessian.f..args....: an argument of run-time extents
// reject: error:.*error:|errors generated|no match for|no viable|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
  const auto f = [](const auto& x) {
    return tl::sum_over(
        tl::indices(x.size()), [](std::size_t i, const auto& x) { return tl::exp(x[i]); }, x);
  };
#ifdef TAPELESS_COMPILE_FAIL_OK
  const tl::vector<double, 3> x{1.0, 2.0, 3.0};
#else
  const tl::vector<double, tl::dynamic> x{1.0, 2.0, 3.0};
#endif
  tl::hessian(f)(x);
  return 0;
}
