// SPDX-License-Identifier: BSL-1.0
// Must not compile: a temporary that owns its elements as a target of tl::into, gone before it is read.
// expect: tl::into\(g...\): a target must be a named object
#include <tapeless/tapeless.hpp>

#include <span>

namespace tl = tapeless;

int main() {
  auto f = [](const auto& x) { return tl::sum(tl::square(x)); };
  const tl::vector<double, 3> x{1.0, 2.0, 3.0};
  double storage[3] = {};
#ifdef TAPELESS_COMPILE_FAIL_OK
  tl::grad(f, tl::into(std::span<double, 3>(storage)))(x);
#else
  tl::grad(f, tl::into(tl::vector<double, 3>{}))(x);
#endif
  return storage[0] > 0 ? 0 : 1;
}
