// SPDX-License-Identifier: BSL-1.0
// Must not compile: a body of tl::sum_over that reads an expression of f it captures, whose adjoint
// the sum would lose; the error says to pass it as a parameter.
// expect: body reads an expression of f that it captures; pass that expression to body as one of params
// reject: no match|invalid use of void|incomplete type|cannot convert
#include <tapeless/tapeless.hpp>

#include <vector>

namespace tl = tapeless;

int main() {
  const std::vector<double> t{1.0, 2.0, 3.0}, y{1.0, 2.0, 2.0};
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto f = [&](const auto& a) {
    return tl::sum_over(
        tl::rows(t, y), [](const auto& ti, const auto& yi, const auto& s) { return tl::square(s * ti - yi); }, a);
  };
#else
  auto f = [&](const auto& a) {
    return tl::sum_over(tl::rows(t, y), [&](const auto& ti, const auto& yi) { return tl::square(a * ti - yi); });
  };
#endif
  return tl::grad(f)(1.0) > 0.0 ? 0 : 1;
}
