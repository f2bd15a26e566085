// SPDX-License-Identifier: BSL-1.0
// The structured adjoints of parts of a matrix (adjoint/structured.hpp): one element, a strided part
// (a row or a column), and a cut's list of elements. Each adds to and writes an adjoint sum exactly as
// its dense form does, and touches only its own elements when added; also in a constant expression.
// The line adjoints of a matrix of run-time extents add as their elements one by one, bit for bit.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <random>

namespace tl = tapeless;
namespace d = tl::detail;

namespace {

using M = tl::matrix<double, 3, 4>;

constexpr M counting() {
  M m;
  for (std::size_t i = 0; i < M::size(); ++i) m[i] = 1.0 + static_cast<double>(i);
  return m;
}

/// target + g and g written over target, both by the structure and by its dense form: equal.
template <class G>
constexpr bool adds_and_writes_as_dense(const G& g) {
  M added = counting(), added_dense = counting();
  d::add_adjoint(added, g);
  d::add_adjoint(added_dense, g.dense());
  M written = counting(), written_dense = counting();
  d::assign_adjoint(written, g);
  d::assign_adjoint(written_dense, g.dense());
  return added == added_dense && written == written_dense;
}

/// A matrix of run-time extents, r x c, of seeded random numbers.
template <class X>
X random_matrix(std::size_t r, std::size_t c, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  X m(r, c);
  for (auto& e : m) e = u(rng);
  return m;
}

/// target + g by add_adjoint against target + each element g lists, one at a time: equal bit for bit.
template <class X, class G>
bool adds_as_its_elements(const X& start, const G& g) {
  X added = start, one_by_one = start;
  d::add_adjoint(added, g);
  g.each_element([&](std::size_t i, double v) { one_by_one[i] += v; });
  bool same = true;
  for (std::size_t i = 0; i < start.size(); ++i)
    same = same && std::bit_cast<std::uint64_t>(added[i]) == std::bit_cast<std::uint64_t>(one_by_one[i]);
  return same;
}

/// Each row and each column of an r x c matrix X, as line adjoints (a row sum's and a matmul element's).
template <class X>
void check_lines(std::size_t r, std::size_t c, std::mt19937_64& rng) {
  const X start = random_matrix<X>(r, c, rng), other = random_matrix<X>(c, r, rng);
  for (std::size_t i = 0; i < r; ++i) {
    const d::filled_line<X> row{i * c, 1, c, 0.75, r, c};
    CHECK(adds_as_its_elements(start, row));
    const d::scaled_line<X, X, false> row_from_column{&other, i * c, 1, c, i, -1.5, r, c};  // other's column i
    CHECK(adds_as_its_elements(start, row_from_column));
  }
  for (std::size_t j = 0; j < c; ++j) {
    const d::filled_line<X> col{j, c, r, -0.5, r, c};
    CHECK(adds_as_its_elements(start, col));
    const d::scaled_line<X, X, true> col_from_row{&other, j, c, r, j, 2.25, r, c};  // other's row j
    CHECK(adds_as_its_elements(start, col_from_row));
  }
  // Only the line's elements change: row 1 and the last column.
  X added = start;
  const std::size_t row = r > 1 ? 1 : 0;
  d::add_adjoint(added, d::filled_line<X>{row * c, 1, c, 1.0, r, c});
  d::add_adjoint(added, d::filled_line<X>{c - 1, c, r, 1.0, r, c});
  for (std::size_t k = 0; k < start.size(); ++k) CHECK((added[k] != start[k]) == (k / c == row || k % c == c - 1));
}

}  // namespace

TEST_CASE("a row and a column of run-time extents add as their elements one by one") {
  std::mt19937_64 rng(41);
  using X = tl::matrix<double, tl::dynamic, tl::dynamic>;
  // Around a SIMD batch's 4 and 8 lanes, and longer lines.
  for (const std::size_t r : {1, 2, 3, 5})
    for (const std::size_t c : {1, 3, 4, 5, 7, 8, 9, 31, 32, 33}) check_lines<X>(r, c, rng);
  check_lines<X>(33, 31, rng);
  check_lines<tl::matrix<double, tl::bounded<40>, tl::bounded<40>>>(7, 33, rng);
}

TEST_CASE("one element, a row, a column and a list add and write as their dense forms") {
  static_assert(adds_and_writes_as_dense(d::one_element<M>{6, 2.5}));
  constexpr tl::matrix<double, 1, 4> row{{-1.0, 2.0, -3.0, 4.0}};
  static_assert(adds_and_writes_as_dense(d::strided_part<M, tl::matrix<double, 1, 4>, true>{{row}, 8, 1}));
  constexpr tl::matrix<double, 3, 1> col{{5.0}, {-6.0}, {7.0}};
  static_assert(adds_and_writes_as_dense(d::strided_part<M, tl::matrix<double, 3, 1>, true>{{col}, 2, 4}));
  constexpr auto list = [] {
    d::element_list<M, 4> l;
    l.add(d::one_element<M>{3, 1.5});
    l.add(d::one_element<M>{3, 0.25});  // the same element again adds to it
    l.add(d::one_element<M>{11, -2.0});
    return l;
  }();
  static_assert(list.count == 3);
  static_assert(adds_and_writes_as_dense(d::scaled_elements<M, 4>{&list, 3.0}));
  static_assert(d::scaled_elements<M, 4>{&list, 3.0}.dense()[3] == 5.25);

  // At run time too, and the dense forms are zero outside the part.
  const d::one_element<M> e{6, 2.5};
  CHECK(adds_and_writes_as_dense(e));
  const M dense = e.dense();
  for (std::size_t i = 0; i < M::size(); ++i) CHECK(dense[i] == (i == 6 ? 2.5 : 0.0));
  const auto r = d::strided_part<M, tl::matrix<double, 1, 4>, false>{{&row}, 4, 1};
  CHECK(adds_and_writes_as_dense(r));
  const M rd = r.dense();
  for (std::size_t i = 0; i < M::size(); ++i) CHECK(rd[i] == (i >= 4 && i < 8 ? row[i - 4] : 0.0));
}

TEST_CASE("an element list takes in rows, columns, slices and other lists") {
  using V = tl::vector<double, 8>;
  d::element_list<V, 16> l;
  const tl::vector<double, 2> part{{1.0}, {2.0}};
  l.add(d::strided_part<V, tl::vector<double, 2>, false>{{&part}, 3, 2});  // elements 3 and 5
  l.add(d::placed<V, 6, tl::vector<double, 2>, true>{{part}});             // elements 6 and 7
  d::element_list<V, 2> inner;
  inner.add(d::one_element<V>{0, 4.0});
  l.add(d::scaled_elements<V, 2>{&inner, 0.5});  // element 0: 2
  CHECK(l.count == 5);
  const V dense = d::scaled_elements<V, 16>{&l, 1.0}.dense();
  const V want{{2.0}, {0.0}, {0.0}, {1.0}, {0.0}, {2.0}, {1.0}, {2.0}};
  CHECK(dense == want);
}
