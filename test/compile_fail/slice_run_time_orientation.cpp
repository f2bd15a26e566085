// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::slice<Start, Length> of a matrix of run-time rows and columns, whose slice has
// no orientation its type fixes; the twin slices a tl::vector of run-time size.
// expect: tl::slice<Start, Length>\(v\): v has run-time rows and columns
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  const tl::vector<double, tl::dynamic> x{1.0, 2.0, 3.0};
#else
  const tl::matrix<double, tl::dynamic, tl::dynamic> x{{1.0, 2.0, 3.0}};
#endif
  const auto g = tl::grad([](const auto& v) { return tl::sum(tl::slice<0, 2>(v)); })(x);
  return g.size() == 3 ? 0 : 1;
}
