// SPDX-License-Identifier: BSL-1.0
// Long fixed vectors compile as fast as short ones: a 10000-element vector declared, filled and
// differentiated, 10000 x 3 and 3 x 10000 Jacobians, and long vectors and matrices written out in
// braces. This file passes by compiling, in about the time a short one takes; a constructor or a
// loop unrolled over the elements would make it take g++ minutes and gigabytes, and a fold
// expression over the elements would pass clang's limit of 256 nested terms.
#include <tapeless/tapeless.hpp>

#include <cstddef>
#include <type_traits>

namespace tl = tapeless;

namespace long_vector_static {

constexpr std::size_t n = 10000;
using V = tl::vector<double, n>;
using Tall = tl::matrix<double, n, 3>;
using Wide = tl::matrix<double, 3, n>;

constexpr V sawtooth() {
  V x;
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(i % 7);
  return x;
}
static_assert(sawtooth()[n - 1] == static_cast<double>((n - 1) % 7));
static_assert(V::filled(2.0)[n - 1] == 2.0);

// Compiled, not evaluated: clang stops a constant evaluation after a million steps, fewer than a sweep
// over 10000 elements takes.
constexpr auto sum_of_squares = [](const auto& v) { return tl::sum(tl::square(v)); };
constexpr auto dot = [](const auto& v, const auto& w) { return tl::dot(v, w); };
static_assert(std::is_same_v<decltype(tl::grad(sum_of_squares)(sawtooth())), V>);
static_assert(std::is_same_v<decltype(tl::grad<0>(dot)(sawtooth(), sawtooth())), V>);

V gradient_of_sum_of_squares(const V& x) { return tl::grad(sum_of_squares)(x); }
V gradient_of_dot(const V& x, const V& w) { return tl::grad<0>(dot)(x, w); }

// Forward mode: 3 inputs, 10000 outputs.
Tall jacobian_tall(const Tall& A, const tl::vector<double, 3>& p) {
  return tl::jacobian([&A](const auto& q) { return tl::tanh(tl::matmul(A, q)); })(p);
}
// Reverse mode: 10000 inputs, 3 outputs.
Wide jacobian_wide(const Wide& B, const V& x) {
  return tl::jacobian([&B](const auto& v) { return tl::matmul(B, tl::sin(v)); })(x);
}

// Written out: 1000 values of a vector, 1000 of a row, and 400 rows of a matrix.
#define TAPELESS_TEN 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
#define TAPELESS_HUNDRED                                                                                          \
  TAPELESS_TEN, TAPELESS_TEN, TAPELESS_TEN, TAPELESS_TEN, TAPELESS_TEN, TAPELESS_TEN, TAPELESS_TEN, TAPELESS_TEN, \
      TAPELESS_TEN, TAPELESS_TEN
#define TAPELESS_THOUSAND                                                                                     \
  TAPELESS_HUNDRED, TAPELESS_HUNDRED, TAPELESS_HUNDRED, TAPELESS_HUNDRED, TAPELESS_HUNDRED, TAPELESS_HUNDRED, \
      TAPELESS_HUNDRED, TAPELESS_HUNDRED, TAPELESS_HUNDRED, TAPELESS_HUNDRED
#define TAPELESS_ROWS_10 \
  {1, 2}, {3}, {5, 6}, {7, 8}, {9, 10}, {11, 12}, {13, 14}, {15, 16}, {17, 18}, { 19, 20 }
#define TAPELESS_ROWS_100                                                                                     \
  TAPELESS_ROWS_10, TAPELESS_ROWS_10, TAPELESS_ROWS_10, TAPELESS_ROWS_10, TAPELESS_ROWS_10, TAPELESS_ROWS_10, \
      TAPELESS_ROWS_10, TAPELESS_ROWS_10, TAPELESS_ROWS_10, TAPELESS_ROWS_10
constexpr tl::vector<double, 1000> written_vector{TAPELESS_THOUSAND};
static_assert(written_vector[0] == 1.0 && written_vector[999] == 10.0);
constexpr tl::matrix<double, 1, 1000> written_row{{TAPELESS_THOUSAND}};
static_assert(written_row(0, 998) == 9.0);
constexpr tl::matrix<double, 400, 2> written_rows{TAPELESS_ROWS_100, TAPELESS_ROWS_100, TAPELESS_ROWS_100,
                                                  TAPELESS_ROWS_100};
static_assert(written_rows(399, 1) == 20.0 && written_rows(1, 0) == 3.0 && written_rows(1, 1) == 0.0);
#undef TAPELESS_ROWS_100
#undef TAPELESS_ROWS_10
#undef TAPELESS_THOUSAND
#undef TAPELESS_HUNDRED
#undef TAPELESS_TEN

}  // namespace long_vector_static
