// SPDX-License-Identifier: BSL-1.0
// tl::matrix with run-time extents (tl::dynamic, tl::bounded<Max>): construction and its errors (also
// of the library's unset elements), element access, iteration, equality, arithmetic against the
// fixed-shape twin at the same values, moves, and constant evaluation of bounded extents.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {
using dvec = tl::vector<double, tl::dynamic>;
using dmat = tl::matrix<double, tl::dynamic, tl::dynamic>;

/// The message of the exception E that f throws, or "" if it throws none.
template <class E, class F>
std::string message_of(F f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

/// 1, 2, 3, ... in row-major order.
template <class M>
void count_up(M& m) {
  double k = 1;
  for (auto& e : m) e = k++;
}
}  // namespace

TEST_CASE("extents: fixed, dynamic and bounded are told apart") {
  static_assert(tl::fixed_extent(3) && !tl::fixed_extent(tl::dynamic) && !tl::fixed_extent(tl::bounded<4>));
  static_assert(tl::bounded_extent(tl::bounded<4>) && !tl::bounded_extent(tl::dynamic) && !tl::bounded_extent(4));
  static_assert(tl::max_extent(tl::bounded<4>) == 4 && tl::max_extent(7) == 7);
  static_assert(tl::RunTimeMatrix<dvec> && tl::RunTimeMatrix<tl::matrix<double, 3, tl::bounded<2>>>);
  static_assert(!tl::RunTimeMatrix<tl::vector<double, 3>> && !tl::Matrix<dvec> && tl::Matrix<tl::vector<double, 3>>);
}

TEST_CASE("a run-time vector of n zeros, at sizes 0, 1, lanes +- 1, 31, 32, 33 and 256") {
  for (const std::size_t n : {0, 1, 3, 4, 5, 7, 8, 9, 31, 32, 33, 256}) {
    const dvec x(n);
    CHECK(x.rows() == n);
    CHECK(x.cols() == 1);
    CHECK(x.size() == n);
    CHECK(x.empty() == (n == 0));
    CHECK(static_cast<std::size_t>(x.end() - x.begin()) == n);
    for (const double e : x) CHECK(e == 0.0);
    const tl::matrix<double, 1, tl::dynamic> row(n);
    CHECK(row.rows() == 1);
    CHECK(row.cols() == n);
  }
  CHECK(dvec().size() == 0);
  CHECK(tl::matrix<double, tl::dynamic, 3>().rows() == 0);
  CHECK(tl::matrix<double, tl::dynamic, 3>().cols() == 3);
}

TEST_CASE("the library's unset elements: extents checked as the zeros' are, zeros in a constant expression") {
  for (const std::size_t n : {0, 1, 3, 4, 5, 31, 32, 33, 256}) {
    dmat m(n, 2, tl::detail::uninitialized);
    CHECK(m.rows() == n);
    CHECK(m.cols() == 2);
    count_up(m);  // every element written, then read: none is read unset
    if (n > 0) CHECK(m(n - 1, 1) == static_cast<double>(2 * n));
    tl::vector<double, tl::bounded<256>> v(n, 1, tl::detail::uninitialized);
    CHECK(v.size() == n);
  }
  using three_cols = tl::matrix<double, tl::dynamic, 3>;
  CHECK(message_of<std::invalid_argument>([] { three_cols(2, 4, tl::detail::uninitialized); }) ==
        "tl::matrix: 4 columns where the type fixes 3");
  CHECK(message_of<std::length_error>([] { tl::vector<double, tl::bounded<8>>(9, 1, tl::detail::uninitialized); }) ==
        "tl::matrix: 9 rows where tl::bounded<8> holds at most 8");
  static_assert([] {
    const tl::vector<double, tl::bounded<4>> b(3, 1, tl::detail::uninitialized);
    const dvec d(3, 1, tl::detail::uninitialized);
    return b.size() == 3 && b[2] == 0.0 && d.size() == 3 && d[2] == 0.0;
  }());
}

TEST_CASE("elements are row-major and read as a fixed matrix's are") {
  dmat a(2, 3);
  count_up(a);
  tl::matrix<double, 2, 3> fixed;
  count_up(fixed);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j) CHECK(a(i, j) == fixed(i, j));
  CHECK(a[4] == fixed[4]);
  CHECK(a.data() + 5 == &a(1, 2));
  CHECK(dmat(fixed) == a);
  const dmat from_rows{{1, 2, 3}, {4, 5, 6}};
  CHECK(from_rows == a);
  const dvec v{1.0, 2.0, 3.0};
  CHECK(v.size() == 3);
  CHECK(v[2] == 3.0);
  CHECK(dvec::filled(4, 2.5) == dvec{2.5, 2.5, 2.5, 2.5});
  CHECK(dmat::filled(2, 2, -1.0) == dmat{{-1, -1}, {-1, -1}});
}

TEST_CASE("equality needs equal shapes and elements") {
  CHECK(dmat(2, 3) != dmat(3, 2));
  CHECK(dmat(2, 3) == dmat(2, 3));
  CHECK(dvec(0) == dvec());
  dvec x(3);
  dvec y(3);
  y[1] = -0.0;
  CHECK(x == y);
  y[1] = 1e-300;
  CHECK(x != y);
}

TEST_CASE("arithmetic agrees with the fixed-shape twin at the same values") {
  tl::matrix<double, 3, 4> fa;
  tl::matrix<double, 3, 4> fb;
  count_up(fa);
  count_up(fb);
  fb = fb * 0.25 - 1.0;
  const dmat a(fa);
  const dmat b(fb);
  const tl::matrix<double, 3, tl::bounded<5>> ba(fa);
  const tl::matrix<double, 3, tl::bounded<5>> bb(fb);
  const auto same = [](const auto& run_time, const auto& fixed) {
    REQUIRE(run_time.rows() == fixed.rows());
    REQUIRE(run_time.cols() == fixed.cols());
    for (std::size_t e = 0; e < fixed.size(); ++e) CHECK(run_time[e] == fixed[e]);
  };
  same(a + b, fa + fb);
  same(a - b, fa - fb);
  same(a * b, fa * fb);
  same(a / b, fa / fb);
  same(-a, -fa);
  same(a * 2.0, fa * 2.0);
  same(2.0 * a, 2.0 * fa);
  same(a / 4.0, fa / 4.0);
  same(4.0 / a, 4.0 / fa);
  same(a + 1.5, fa + 1.5);
  same(1.5 + a, 1.5 + fa);
  same(a - 1.5, fa - 1.5);
  same(1.5 - a, 1.5 - fa);
  same(ba + bb, fa + fb);
  same(ba / bb, fa / fb);
  same(3.0 - ba * 2.0, 3.0 - fa * 2.0);
}

TEST_CASE("IEEE values pass through the arithmetic") {
  dvec x{0.0, -0.0, 1.0};
  const dvec q = 1.0 / x;
  CHECK(q[0] == std::numeric_limits<double>::infinity());
  CHECK(q[1] == -std::numeric_limits<double>::infinity());
  const dvec n = x / x;
  CHECK(n[0] != n[0]);
  CHECK(n[2] == 1.0);
}

TEST_CASE("a wrong extent throws, naming both numbers, before anything is made") {
  using three_cols = tl::matrix<double, tl::dynamic, 3>;
  CHECK(message_of<std::invalid_argument>([] { three_cols(2, 4); }) == "tl::matrix: 4 columns where the type fixes 3");
  CHECK(message_of<std::length_error>([] { tl::vector<double, tl::bounded<8>>(9); }) ==
        "tl::matrix: 9 rows where tl::bounded<8> holds at most 8");
  CHECK(message_of<std::length_error>([] { tl::matrix<double, tl::bounded<2>, tl::dynamic>(3, 1); }) ==
        "tl::matrix: 3 rows where tl::bounded<2> holds at most 2");
  CHECK(message_of<std::invalid_argument>([] {
          dmat{{1, 2}, {3}};
        }) == "tl::matrix: a row of 1 elements where the first has 2");
  CHECK(message_of<std::invalid_argument>([] {
          three_cols{{1, 2}};
        }) == "tl::matrix: 2 columns where the type fixes 3");
  CHECK(message_of<std::length_error>([] { dmat(std::size_t{1} << 40, std::size_t{1} << 40); }) ==
        "tl::matrix: 1099511627776 x 1099511627776 elements are more than memory holds");
  CHECK_NOTHROW(tl::vector<double, tl::bounded<8>>(8));
  CHECK_NOTHROW(three_cols(0, 3));
}

TEST_CASE("operands of two shapes throw std::invalid_argument naming both") {
  dmat a(2, 3);
  const dmat b(3, 2);
  CHECK(message_of<std::invalid_argument>([&] { a += b; }) == "tl::matrix +=: shapes 2 x 3 and 3 x 2 differ");
  CHECK(message_of<std::invalid_argument>([&] { (void)(a * b); }) == "tl::matrix *=: shapes 2 x 3 and 3 x 2 differ");
  CHECK(a == dmat(2, 3));
  CHECK(message_of<std::invalid_argument>([] { (void)(dvec(4) - dvec(5)); }) ==
        "tl::matrix -=: shapes 4 x 1 and 5 x 1 differ");
}

TEST_CASE("conversions between kinds of extent keep the elements") {
  tl::matrix<double, 2, 3> fixed;
  count_up(fixed);
  const tl::matrix<double, 2, tl::dynamic> half(fixed);
  const tl::matrix<double, tl::bounded<4>, tl::bounded<4>> bounded(fixed);
  const dmat whole(bounded);
  CHECK(whole == dmat(half));
  CHECK(whole(1, 2) == 6.0);
  CHECK(message_of<std::length_error>([&] { tl::vector<double, tl::bounded<2>>{dvec(3)}; }) ==
        "tl::matrix: 3 rows where tl::bounded<2> holds at most 2");
  static_assert(std::is_convertible_v<tl::vector<double, 3>, dvec>);
  static_assert(!std::is_convertible_v<tl::vector<double, 3>, tl::vector<double, tl::bounded<2>>>);
  static_assert(!std::is_convertible_v<tl::matrix<double, 2, 3>, tl::matrix<double, 3, tl::dynamic>>);
  static_assert(!std::is_convertible_v<dvec, tl::vector<double, tl::bounded<9>>>);
}

TEST_CASE("a matrix moved from is empty; copies are deep") {
  dvec x{1.0, 2.0};
  dvec copy = x;
  copy[0] = 5.0;
  CHECK(x[0] == 1.0);
  const dvec moved = std::move(x);
  CHECK(moved == dvec{1.0, 2.0});
  CHECK(x.size() == 0);  // NOLINT(bugprone-use-after-move,clang-analyzer-cplusplus.Move): the state is specified
  CHECK(x.begin() == x.end());
  tl::matrix<double, 3, tl::dynamic> m(3, 2);
  tl::matrix<double, 3, tl::dynamic> to;
  to = std::move(m);
  CHECK(to.cols() == 2);
  CHECK(m.size() == 0);  // NOLINT(bugprone-use-after-move,clang-analyzer-cplusplus.Move)
  CHECK(m.rows() == 3);  // NOLINT(bugprone-use-after-move,clang-analyzer-cplusplus.Move)
}

namespace {
constexpr double bounded_sum(std::size_t n) {
  tl::vector<double, tl::bounded<16>> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
  const auto w = 2.0 * v + 1.0;
  double s = 0;
  for (const double e : w) s += e;
  return s;
}
}  // namespace

TEST_CASE("bounded extents work in constant expressions") {
  static_assert(bounded_sum(0) == 0.0);
  static_assert(bounded_sum(4) == 16.0);  // 1 + 3 + 5 + 7
  static_assert(bounded_sum(16) == 256.0);
  constexpr tl::matrix<double, tl::bounded<3>, 2> m{{1, 2}, {3, 4}};
  static_assert(m.rows() == 2 && m(1, 0) == 3.0);
  static_assert(sizeof(tl::vector<double, tl::bounded<16>>) == 16 * sizeof(double) + 2 * sizeof(std::size_t));
}

TEST_CASE("plain matrices of two extent types: a row or a column by its type repeats, other extents agree") {
  // As between expressions (matrix/shape.hpp): the result takes the fixed extents where there are.
  constexpr auto adds = []<class A, class B>(const A&, const B&) {
    return requires(const A& a, const B& b) { a + b; };
  };
  static_assert(adds(dvec(), dvec()));
  static_assert(adds(dvec(), tl::vector<double, tl::bounded<3>>()));
  const dmat a{{1, 2, 3}, {4, 5, 6}};
  const tl::matrix<double, 1, 3> row{{1, 2, 3}};
  const auto sum = a + row;
  static_assert(std::is_same_v<std::remove_const_t<decltype(sum)>, tl::matrix<double, tl::dynamic, 3>>);
  CHECK((sum == tl::matrix<double, tl::dynamic, 3>{{2, 4, 6}, {5, 7, 9}}));
  const auto scaled = tl::vector<double, 2>{2.0, -1.0} * a;  // a fixed column across a's columns
  static_assert(std::is_same_v<std::remove_const_t<decltype(scaled)>, tl::matrix<double, 2, tl::dynamic>>);
  CHECK((scaled == tl::matrix<double, 2, tl::dynamic>{{2, 4, 6}, {-4, -5, -6}}));
  // dynamic beside bounded: the bounded extents, which need no heap.
  CHECK(
      (dvec{1.0, 2.0} - tl::vector<double, tl::bounded<3>>{0.5, 1.0} == tl::vector<double, tl::bounded<3>>{0.5, 1.0}));
  CHECK(message_of<std::invalid_argument>([&] { (void)(dmat(2, 4) + row); }) ==
        "tl::matrix +: shapes 2 x 4 and 1 x 3 differ; a row (1 x C) or a column (R x 1) repeats over a matrix of "
        "as many columns or rows");
  CHECK(message_of<std::invalid_argument>([&] { (void)(dvec(2) / tl::vector<double, tl::bounded<3>>(3)); }) ==
        "tl::matrix /: shapes 2 x 1 and 3 x 1 differ");
  // A dynamic matrix of one row at run time repeats nothing: its shape must agree.
  CHECK(message_of<std::invalid_argument>([&] { (void)(dmat(2, 3) + dmat(1, 3)); }) ==
        "tl::matrix +=: shapes 2 x 3 and 1 x 3 differ");
}
