// SPDX-License-Identifier: BSL-1.0
// Must not compile: a step of tl::iterate that reads an expression of f it captures, whose adjoint the
// loop would lose; the error says to pass it as a parameter.
// expect: tl::iterate\(n, init, step, params\.\.\.\): step reads an expression of f that it captures
// expect: pass that expression to step as one of params
// reject: no match|invalid use of void|incomplete type|cannot convert
#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  auto f = [](const auto& a) {
    return tl::iterate(
        10, 1.0, [](const auto& s, std::size_t, const auto& p) { return p * s + 1.0; }, a);
  };
#else
  auto f = [](const auto& a) { return tl::iterate(10, 1.0, [&](const auto& s, std::size_t) { return a * s + 1.0; }); };
#endif
  return tl::grad(f)(0.5) > 0.0 ? 0 : 1;
}
