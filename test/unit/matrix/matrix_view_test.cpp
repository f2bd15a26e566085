// SPDX-License-Identifier: BSL-1.0
// The view through which the engine reads a matrix of run-time extents where it lies: element (i, j)
// through the strides of row-major, column-major and gapped storage; v[k] and A[k] in tl::matrix's
// row-major count; a dense view's row-major reads; extents; what the engine computes for it
// (matrix_of_view_t); constant evaluation.
#include <doctest/doctest.h>
#include <tapeless/matrix/matrix_view.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

namespace tl = tapeless;

namespace {
using tl::detail::dense_view;
using tl::detail::matrix_view;

constexpr std::array<double, 12> storage{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

static_assert(tl::RunTimeMatrix<matrix_view<double, tl::dynamic, 3>>);
static_assert(tl::RunTimeMatrix<dense_view<double, tl::dynamic, tl::dynamic>>);
static_assert(std::is_same_v<tl::detail::matrix_of_view_t<dense_view<double, 2, tl::dynamic>>,
                             tl::matrix<double, 2, tl::dynamic>>);
static_assert(std::is_same_v<tl::detail::matrix_of_view_t<matrix_view<double, tl::dynamic, 3>>,
                             tl::matrix<double, tl::dynamic, 3>>);
static_assert(std::is_same_v<tl::detail::matrix_of_view_t<const matrix_view<float, 1, tl::dynamic>&>,
                             tl::matrix<float, 1, tl::dynamic>>);
static_assert(
    std::is_same_v<tl::detail::matrix_of_view_t<tl::vector<double, tl::dynamic>>, tl::vector<double, tl::dynamic>>);
// Read in a constant expression: element (1, 2) of 3 x 4 in column-major order is storage[1 + 2 * 3].
static_assert(matrix_view<double, tl::dynamic, tl::dynamic>(storage.data(), 3, 4, 1, 3)(1, 2) == 7.0);
}  // namespace

TEST_CASE("a view reads element (i, j) through its strides, in any storage order") {
  const matrix_view<double, tl::dynamic, tl::dynamic> row_major(storage.data(), 3, 4, 4, 1);
  const matrix_view<double, tl::dynamic, tl::dynamic> col_major(storage.data(), 3, 4, 1, 3);
  // Every other row and every other column of a 4 x 3 row-major block: gaps in both directions.
  const matrix_view<double, tl::dynamic, tl::dynamic> gapped(storage.data(), 2, 2, 6, 2);
  CHECK(row_major.rows() == 3);
  CHECK(row_major.cols() == 4);
  CHECK(row_major.size() == 12);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      CHECK(row_major(i, j) == storage[i * 4 + j]);
      CHECK(col_major(i, j) == storage[i + j * 3]);
      // Element k of tl::matrix's row-major count is (k / cols, k % cols), in either order.
      CHECK(row_major[i * 4 + j] == row_major(i, j));
      CHECK(col_major[i * 4 + j] == col_major(i, j));
    }
  CHECK(gapped(0, 0) == 0.0);
  CHECK(gapped(0, 1) == 2.0);
  CHECK(gapped(1, 0) == 6.0);
  CHECK(gapped(1, 1) == 8.0);
  CHECK(gapped[3] == 8.0);
}

TEST_CASE("a vector view steps along its one line: a column by its row stride, a row by its column stride") {
  const matrix_view<double, tl::dynamic, 1> column(storage.data() + 1, 4, 1, 3, 0);
  const matrix_view<double, 1, tl::dynamic> row(storage.data() + 2, 1, 5, 0, 2);
  CHECK(column.size() == 4);
  CHECK(row.size() == 5);
  for (std::size_t k = 0; k < 4; ++k) {
    CHECK(column[k] == storage[1 + 3 * k]);
    CHECK(column(k, 0) == column[k]);
  }
  for (std::size_t k = 0; k < 5; ++k) {
    CHECK(row[k] == storage[2 + 2 * k]);
    CHECK(row(0, k) == row[k]);
  }
  // Empty: extents 0, nothing read.
  const matrix_view<double, tl::dynamic, 1> empty(nullptr, 0, 1, 1, 0);
  CHECK(empty.size() == 0);
}

TEST_CASE("a dense view reads as a tl::matrix of its extents: row-major and contiguous, whatever strides it is given") {
  const dense_view<double, tl::dynamic, tl::dynamic> matrix(storage.data(), 3, 4, 4, 1);
  const dense_view<double, tl::dynamic, 1> vector(storage.data() + 2, 5, 1, 1, 1);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      CHECK(matrix(i, j) == storage[i * 4 + j]);
      CHECK(matrix[i * 4 + j] == storage[i * 4 + j]);
    }
  for (std::size_t k = 0; k < 5; ++k) CHECK(vector[k] == storage[2 + k]);
  static_assert(dense_view<double, 1, tl::dynamic>(storage.data(), 1, 12, 12, 1)[11] == 11.0);
}
