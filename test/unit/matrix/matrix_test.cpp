// SPDX-License-Identifier: BSL-1.0
// tl::matrix, the value type: construction, element access, iteration, equality, arithmetic on plain
// values, use in constant expressions; and tl::mask, the value type of elementwise comparisons.
#include <doctest/doctest.h>
#include <tapeless/ops/mask.hpp>
#include <tapeless/tapeless.hpp>

#include <cstddef>
#include <iterator>
#include <numeric>
#include <type_traits>

namespace tl = tapeless;

namespace {
using M23 = tl::matrix<double, 2, 3>;
using V3 = tl::vector<double, 3>;
}  // namespace

TEST_CASE("a matrix is built from its rows, a vector from its elements") {
  const M23 a{{1, 2, 3}, {4, 5, 6}};
  CHECK(a(0, 0) == 1.0);
  CHECK(a(0, 2) == 3.0);
  CHECK(a(1, 0) == 4.0);
  CHECK(a(1, 2) == 6.0);

  const tl::matrix<double, 3, 1> column_from_rows{{1.0}, {2.0}, {3.0}};
  const V3 column_from_elements{1.0, 2.0, 3.0};
  CHECK(column_from_rows == column_from_elements);
  CHECK(column_from_elements[0] == 1.0);
  CHECK(column_from_elements[2] == 3.0);
  CHECK(column_from_elements(1, 0) == 2.0);

  const tl::matrix<double, 1, 3> row{{1.0, 2.0, 3.0}};
  CHECK(row[1] == 2.0);
  CHECK(row(0, 2) == 3.0);

  const tl::matrix<double, 1, 1> one{{4.0}};
  CHECK(one[0] == 4.0);

  static_assert(std::is_same_v<tl::vector<double, 3>, tl::matrix<double, 3, 1>>);
  static_assert(std::is_same_v<tl::vector<float, 2>::value_type, float>);
}

TEST_CASE("default construction is zero; filled sets every element") {
  const M23 z;
  for (const double e : z) CHECK(e == 0.0);
  const auto f = M23::filled(2.5);
  for (const double e : f) CHECK(e == 2.5);
  CHECK(tl::detail::filled<M23>(1.0) == M23{{1, 1, 1}, {1, 1, 1}});
  CHECK(tl::detail::filled<double>(1.0) == 1.0);
}

TEST_CASE("shape, size and row-major element order") {
  static_assert(M23::rows() == 2 && M23::cols() == 3 && M23::size() == 6);
  static_assert(V3::rows() == 3 && V3::cols() == 1 && V3::size() == 3);
  M23 a{{1, 2, 3}, {4, 5, 6}};
  CHECK(a.rows() == 2);
  CHECK(a.cols() == 3);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j) CHECK(a(i, j) == a[i * 3 + j]);
  CHECK(a.data()[4] == 5.0);
  a(1, 1) = -5.0;
  CHECK(a[4] == -5.0);
  a[0] = 10.0;
  CHECK(a(0, 0) == 10.0);
}

TEST_CASE("iteration visits the elements in row-major order") {
  M23 a{{1, 2, 3}, {4, 5, 6}};
  CHECK(std::distance(a.begin(), a.end()) == 6);
  double expected = 1.0;
  for (const double e : a) CHECK(e == expected++);
  CHECK(std::accumulate(a.begin(), a.end(), 0.0) == 21.0);
  for (double& e : a) e *= 2.0;
  CHECK(a == M23{{2, 4, 6}, {8, 10, 12}});
  const M23& c = a;
  CHECK(*c.begin() == 2.0);
}

TEST_CASE("equality compares every element") {
  const M23 a{{1, 2, 3}, {4, 5, 6}};
  M23 b = a;
  CHECK(a == b);
  b(1, 2) = 7.0;
  CHECK_FALSE(a == b);
  CHECK(a != b);
}

TEST_CASE("arithmetic on plain matrices: + - * / between matrices (elementwise), * / + - by numbers") {
  const M23 a{{1, 2, 3}, {4, 5, 6}};
  const M23 b{{6, 5, 4}, {3, 2, 1}};
  CHECK(a + b == M23::filled(7.0));
  CHECK(a - b == M23{{-5, -3, -1}, {1, 3, 5}});
  CHECK(-a == M23{{-1, -2, -3}, {-4, -5, -6}});
  // * and / between matrices are elementwise, as on matrix expressions (tl::matmul is the product).
  CHECK(a * b == M23{{6, 10, 12}, {12, 10, 6}});
  CHECK(a / b == M23{{1.0 / 6, 2.0 / 5, 3.0 / 4}, {4.0 / 3, 5.0 / 2, 6.0}});
  CHECK(a * 2.0 == M23{{2, 4, 6}, {8, 10, 12}});
  CHECK(2.0 * a == a * 2.0);
  CHECK(a / 2.0 == M23{{0.5, 1, 1.5}, {2, 2.5, 3}});
  CHECK(60.0 / a == M23{{60, 30, 20}, {15, 12, 10}});
  CHECK(a + 1.0 == M23{{2, 3, 4}, {5, 6, 7}});
  CHECK(1.0 + a == a + 1.0);
  CHECK(a - 1.0 == M23{{0, 1, 2}, {3, 4, 5}});
  CHECK(10.0 - a == M23{{9, 8, 7}, {6, 5, 4}});
  M23 c = a;
  c += b;
  c -= a;
  CHECK(c == b);
  c *= 3.0;
  c /= 3.0;
  CHECK(c == b);
  c *= a;
  CHECK(c == a * b);
  c /= a;
  CHECK(c == b);
}

namespace {
constexpr M23 built() {
  M23 m{{1, 2, 3}, {4, 5, 6}};
  m(0, 0) = 0.5;
  m += M23::filled(1.0);
  return m * 2.0 - 1.0;
}
}  // namespace

TEST_CASE("a matrix is a constexpr value type") {
  constexpr M23 a{{1, 2, 3}, {4, 5, 6}};
  static_assert(a(1, 2) == 6.0);
  static_assert(a[3] == 4.0);
  static_assert(a == M23{{1, 2, 3}, {4, 5, 6}});
  static_assert(built() == M23{{2, 5, 7}, {9, 11, 13}});
  constexpr V3 v{1.0, 2.0, 3.0};
  static_assert(v[2] == 3.0 && v.size() == 3);
  static_assert(std::is_trivially_copyable_v<M23>);
  static_assert(sizeof(M23) == 6 * sizeof(double));
  static_assert(tl::Matrix<M23> && tl::Matrix<const V3&> && !tl::Matrix<double>);
  CHECK(built()(0, 0) == 2.0);
}

TEST_CASE("float and long double matrices") {
  const tl::matrix<float, 2, 2> f{{1.0f, 2.0f}, {3.0f, 4.0f}};
  CHECK(f(1, 1) == 4.0f);
  static_assert(std::is_same_v<decltype(f * 2.0f), tl::matrix<float, 2, 2>>);
  const tl::vector<long double, 2> l{1.0L, 2.0L};
  CHECK(l[1] == 2.0L);
}

TEST_CASE("shape_of and matrix_traits") {
  static_assert(tl::shape_of<M23> == tl::shape{2, 3});
  static_assert(tl::shape_of<double> == tl::shape{1, 1});
  static_assert(tl::matrix_traits<M23>::rows == 2 && tl::matrix_traits<M23>::cols == 3);
  static_assert(std::is_same_v<tl::matrix_traits<M23>::scalar, double>);
  static_assert(!tl::matrix_traits<double>::is_matrix);
}

// ---- tl::mask -------------------------------------------------------------------------------------

TEST_CASE("a mask is built like a matrix and read like one") {
  constexpr tl::mask<2, 3> m{{true, false, true}, {false, false, true}};
  static_assert(m(0, 0) && !m(0, 1) && m(1, 2));
  static_assert(m[2] && !m[3]);
  static_assert(m.rows() == 2 && m.cols() == 3 && m.size() == 6);
  static_assert(tl::mask<3, 1>{true, false, true}[2]);
  static_assert(tl::mask<2, 2>::filled(true) == tl::mask<2, 2>{{true, true}, {true, true}});
  static_assert(tl::mask<2, 2>{} == tl::mask<2, 2>::filled(false));
  tl::mask<2, 2> w;
  w(1, 0) = true;
  CHECK(w[2]);
  std::size_t n = 0;
  for (const bool e : m) n += e ? 1 : 0;
  CHECK(n == 3);
}

TEST_CASE("masks combine with ~ & | ^ and reduce with any, all, count") {
  constexpr tl::mask<1, 4> a{{true, true, false, false}};
  constexpr tl::mask<1, 4> b{{true, false, true, false}};
  static_assert((a & b) == tl::mask<1, 4>{{true, false, false, false}});
  static_assert((a | b) == tl::mask<1, 4>{{true, true, true, false}});
  static_assert((a ^ b) == tl::mask<1, 4>{{false, true, true, false}});
  static_assert(~a == tl::mask<1, 4>{{false, false, true, true}});
  static_assert(tl::any(a) && !tl::all(a) && tl::count(a) == 2);
  static_assert(!tl::any(tl::mask<2, 2>{}) && tl::all(tl::mask<2, 2>::filled(true)));
  static_assert(tl::count(a | b) == 3);
  static_assert(!std::is_convertible_v<tl::mask<1, 1>, bool>, "a mask must not be mistaken for the bool of if_else");
}

TEST_CASE("comparing plain matrices gives masks; == stays whole-matrix equality") {
  constexpr M23 a{{1, 2, 3}, {4, 5, 6}};
  constexpr M23 b{{3, 2, 1}, {6, 5, 4}};
  static_assert((a > 2.0) == tl::mask<2, 3>{{false, false, true}, {true, true, true}});
  static_assert((a < 2) == tl::mask<2, 3>{{true, false, false}, {false, false, false}});
  static_assert((3.0 <= a) == (a >= 3.0));
  static_assert((a < b) == tl::mask<2, 3>{{true, false, false}, {true, false, false}});
  static_assert((a <= b) == tl::mask<2, 3>{{true, true, false}, {true, true, false}});
  static_assert(tl::equal(a, b) == tl::mask<2, 3>{{false, true, false}, {false, true, false}});
  static_assert(tl::not_equal(a, 5.0) == tl::mask<2, 3>{{true, true, true}, {true, false, true}});
  static_assert(std::is_same_v<decltype(a == b), bool>);
  static_assert(!(a == b) && a == a);
}
