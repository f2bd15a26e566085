// SPDX-License-Identifier: BSL-1.0
// Must not compile: an operation of one's own over whole matrices (tl::make_unary) of an argument of
// run-time extents, which it does not say it takes (operation_traits::takes_run_time_extents); the same
// operation of a matrix of fixed shape compiles.
// expect: tl: an operation on a whole array of run-time extents
// reject: error:.*error:|errors generated|no match for|no viable|invalid use of void|deleted function|no type named
#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;

/// 2 x, an operation over whole fixed-shape matrices.
struct doubled : tl::detail::matrix_operation {
  static constexpr tl::operation_traits traits{.name = "doubled"};
  template <class T, std::size_t R, std::size_t C>
  static constexpr tl::matrix<T, R, C> value(const tl::matrix<T, R, C>& x) {
    return x * T(2);
  }
  template <class T, std::size_t R, std::size_t C>
  static constexpr tl::matrix<T, R, C> vjp(const tl::matrix<T, R, C>& g, const tl::matrix<T, R, C>& /*x*/,
                                           const tl::matrix<T, R, C>& /*y*/) {
    return g * T(2);
  }
};

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
