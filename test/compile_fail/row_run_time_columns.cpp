// SPDX-License-Identifier: BSL-1.0
// Must not compile: tl::row, in the term of a sum, of the sum's parameter whose columns are known only
// at run time: a formula of the row there would keep partials of the whole parameter for each row.
// expect: tl::row.A, i.: A has a run-time number of columns
// reject: error:.*error:|errors generated|no match for|no viable|deleted function|no type named
#include <tapeless/tapeless.hpp>

namespace tl = tapeless;

int main() {
#ifdef TAPELESS_COMPILE_FAIL_OK
  const tl::matrix<double, tl::dynamic, 2> A{{1.0, 2.0}, {3.0, 4.0}};
#else
  const tl::matrix<double, tl::dynamic, tl::dynamic> A{{1.0, 2.0}, {3.0, 4.0}};
#endif
  tl::grad([](const auto& A) {
    return tl::sum_over(
        tl::indices(A.rows()), [](std::size_t i, const auto& A) { return tl::sum(tl::row(A, i)); }, A);
  })(A);
  return 0;
}
