// SPDX-License-Identifier: BSL-1.0
// tl::sparse_matrix (matrix/sparse_matrix.hpp): positions and values in the pattern's row-major order,
// entries outside the pattern, tl::dense, and tl::to_eigen's Eigen::SparseMatrix.
#include <doctest/doctest.h>
#include <Eigen/SparseCore>
#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;

namespace {
// An arrow: row 0, column 0 and the diagonal of a 4 x 4 matrix.
struct arrow {
  static constexpr auto pattern = [] {
    tl::sparsity_pattern<4, 4> p{};
    for (std::size_t k = 0; k < 4; ++k) {
      p.insert(0, k);
      p.insert(k, 0);
      p.insert(k, k);
    }
    return p;
  }();
};
}  // namespace

TEST_CASE("a sparse matrix stores its pattern's values in row-major order") {
  using M = tl::sparse_matrix<double, arrow>;
  static_assert(M::rows() == 4 && M::cols() == 4 && M::nonzeros() == 10);
  static_assert(M::row_index(0) == 0 && M::col_index(3) == 3 && M::row_index(4) == 1 && M::col_index(5) == 1);
  static_assert(M::row_start(1) == 4 && M::row_start(4) == 10);
  static_assert(M::position(0, 3) == 3 && M::position(1, 1) == 5 && M::position(3, 3) == 9);
  static_assert(M::position(1, 2) == M::nonzeros() && M::position(2, 3) == M::nonzeros());  // outside
  static_assert(sizeof(M) == 10 * sizeof(double));
  constexpr M m = [] {
    M a;
    for (std::size_t k = 0; k < M::nonzeros(); ++k) a.values()[k] = double(k + 1);
    return a;
  }();
  static_assert(m(0, 0) == 1.0 && m(0, 3) == 4.0 && m(1, 0) == 5.0 && m(1, 1) == 6.0 && m(3, 3) == 10.0);
  static_assert(m(1, 2) == 0.0 && m(2, 3) == 0.0);  // outside the pattern
  constexpr auto d = tl::dense(m);
  static_assert(d(3, 0) == 9.0 && d(2, 1) == 0.0);
  CHECK(M{} == M{});
  CHECK(!(m == M{}));

  const Eigen::SparseMatrix<double> e = tl::to_eigen(m);
  CHECK(e.rows() == 4);
  CHECK(e.nonZeros() == 10);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) CHECK(e.coeff(int(i), int(j)) == m(i, j));
}
