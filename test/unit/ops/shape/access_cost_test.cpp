// SPDX-License-Identifier: BSL-1.0
// Element access costs O(1) per access (ops/shape.hpp): a sum of n element accesses sweeps in O(n),
// wherever the elements come from (an argument, a let name) and whatever part is read (an element, a
// slice, a row, a column), so going from n = 64 to n = 256 multiplies its work by about 4, where a dense
// adjoint per access multiplies it by 16. The sums are added pairwise (mx::balanced_sum), a tree
// log2(n) levels deep: a left fold of them past 16 levels is cut (expr/cut.hpp), and its cuts carry the
// partials of every element read so far, which is O(n^2) by design (the guide's Limits).
//
// The work is counted, not timed. The numbers are tl::dual<double, counted>: every arithmetic operation
// on a dual does at least one on its tangent, and the tangent `counted` counts them, and counts its
// copies, so that copying a matrix per access shows as well. Each sum is checked at n = 64 and 256, and
// fails when either count grows more than 1.5 times as fast as n. A left fold of a number's terms, cut
// as often as a fold is but reading no element, shows the margin: its counts grow 4.2 times.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <matrix_check.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tl = tapeless;

namespace {

/// What the counted numbers did since the last reset.
struct tally {
  std::uint64_t operations = 0;
  std::uint64_t copies = 0;
};
tally counts;

constexpr void add_one(std::uint64_t tally::*which) {
  if (!std::is_constant_evaluated()) ++(counts.*which);
}

/// A tangent that counts its arithmetic and its copies. Its default constructor is trivial, so that a
/// value-initialized dual is zero, as tl::dual's own tangents are.
struct counted {
  double t;
  counted() = default;
  constexpr explicit counted(double x) : t(x) {}
  constexpr counted(const counted& o) : t(o.t) { add_one(&tally::copies); }
  constexpr counted& operator=(const counted& o) {
    t = o.t;
    add_one(&tally::copies);
    return *this;
  }
  ~counted() = default;
  constexpr counted& operator+=(const counted& o) {
    add_one(&tally::operations);
    t += o.t;
    return *this;
  }
  constexpr counted& operator-=(const counted& o) {
    add_one(&tally::operations);
    t -= o.t;
    return *this;
  }
  friend constexpr counted operator+(counted a, const counted& b) { return a += b; }
  friend constexpr counted operator-(counted a, const counted& b) { return a -= b; }
  friend constexpr counted operator-(const counted& a) {
    add_one(&tally::operations);
    return counted(-a.t);
  }
  friend constexpr counted operator*(double s, const counted& a) {
    add_one(&tally::operations);
    return counted(s * a.t);
  }
  friend constexpr counted operator*(const counted& a, double s) { return s * a; }
};
using number = tl::dual<double, counted>;

/// A matrix of counted numbers, every tangent 1.
template <std::size_t R, std::size_t C>
tl::matrix<number, R, C> counted_input() {
  tl::matrix<number, R, C> m;
  for (std::size_t i = 0; i < R * C; ++i) m[i] = number(0.5 + 0.001 * static_cast<double>(i), counted(1.0));
  return m;
}

/// What one tl::grad(f)(x) costs, the building and evaluation of f's expression included.
template <class F, class X>
tally cost_of_gradient(const F& f, const X& x) {
  counts = {};
  static_cast<void>(tl::grad(f)(x));
  return counts;
}

/// Both counts of the fold at n = 256 against n = 64: 4 times the accesses, so at most 6 times the work.
void check_linear(const std::string& fold, tally at_64, tally at_256) {
  INFO(fold << ": " << at_64.operations << " operations and " << at_64.copies << " copies at n = 64, "
            << at_256.operations << " and " << at_256.copies << " at n = 256");
  CHECK(at_64.operations > 0);
  CHECK(static_cast<double>(at_256.operations) < 4 * 1.5 * static_cast<double>(at_64.operations));
  CHECK(static_cast<double>(at_256.copies) < 4 * 1.5 * static_cast<double>(at_64.copies));
}

/// The Rosenbrock function as its formula is written, v[i] and v[i + 1] in each of n - 1 terms, added pairwise.
template <std::size_t N>
constexpr auto rosenbrock_by_element = [](const auto& x) {
  return mx::balanced_sum<N - 1>(
      [&](std::size_t i) { return 100.0 * tl::square(x[i + 1] - tl::square(x[i])) + tl::square(1.0 - x[i]); });
};

/// The sum of A(i, j) A(i, j + 1 mod C) over the R x C elements of A.
template <std::size_t R, std::size_t C>
constexpr auto elements = [](const auto& A) {
  return mx::balanced_sum<R * C>([&](std::size_t t) { return A(t / C, t % C) * A(t / C, (t + 1) % C); });
};

/// p = 2 x named by tl::let, and the sum of p[i] p[i + 1 mod N].
template <std::size_t N>
constexpr auto named = [](const auto& x) {
  return tl::let(
      x * 2.0, [](const auto& p) { return mx::balanced_sum<N>([&](std::size_t i) { return p[i] * p[(i + 1) % N]; }); });
};

/// The sum over i < N - 1 of sum(slice<i, 2>(x)).
template <std::size_t N>
constexpr auto pairs = [](const auto& x) {
  return mx::balanced_sum<N - 1>([&](auto i) { return tl::sum(tl::slice<decltype(i)::value, 2>(x)); });
};

/// The sum of row i of an R x 4 matrix times row i + 1, for each i: 4 elements per access at any R.
template <std::size_t R>
constexpr auto rows = [](const auto& A) {
  return mx::balanced_sum<R>([&](std::size_t i) { return tl::sum(tl::row(A, i) * tl::row(A, (i + 1) % R)); });
};

/// The same with the columns of a 4 x C matrix.
template <std::size_t C>
constexpr auto cols = [](const auto& A) {
  return mx::balanced_sum<C>([&](std::size_t j) { return tl::sum(tl::col(A, j) * tl::col(A, (j + 1) % C)); });
};

/// The sum of s^2 (i + 1) over i < N for a number s, as a left fold: N levels deep, cut every 16, with no
/// element access.
template <std::size_t N>
constexpr auto number_terms = [](const auto& s) {
  return mx::index_sum<N>([&](std::size_t i) { return s * s * (1.0 + static_cast<double>(i)); });
};

}  // namespace

TEST_CASE("the counts grow linearly for a fold of a number's terms: deep trees and their cuts are O(n)") {
  const tl::matrix<number, 1, 1> s = counted_input<1, 1>();
  const auto of_number = [](const auto& f) { return [&f](const auto& m) { return f(m(0, 0)); }; };
  check_linear("s^2 (i + 1)", cost_of_gradient(of_number(number_terms<64>), s),
               cost_of_gradient(of_number(number_terms<256>), s));
}

TEST_CASE("a sum of v[i] over an argument sweeps in O(n): the Rosenbrock function by element") {
  check_linear("Rosenbrock by element", cost_of_gradient(rosenbrock_by_element<64>, counted_input<64, 1>()),
               cost_of_gradient(rosenbrock_by_element<256>, counted_input<256, 1>()));
}

TEST_CASE("a sum of A(i, j) over an argument sweeps in O(n): 8 x 8 and 16 x 16") {
  check_linear("A(i, j) A(i, j + 1)", cost_of_gradient(elements<8, 8>, counted_input<8, 8>()),
               cost_of_gradient(elements<16, 16>, counted_input<16, 16>()));
}

TEST_CASE("a sum of a let name's elements sweeps in O(n)") {
  check_linear("let p = 2 x, p[i] p[i + 1]", cost_of_gradient(named<64>, counted_input<64, 1>()),
               cost_of_gradient(named<256>, counted_input<256, 1>()));
}

TEST_CASE("sums of slices, rows and columns of an argument sweep in O(n)") {
  check_linear("sum(slice<i, 2>(x))", cost_of_gradient(pairs<64>, counted_input<64, 1>()),
               cost_of_gradient(pairs<256>, counted_input<256, 1>()));
  check_linear("rows of R x 4, R = 16 and 64", cost_of_gradient(rows<16>, counted_input<16, 4>()),
               cost_of_gradient(rows<64>, counted_input<64, 4>()));
  check_linear("columns of 4 x C, C = 16 and 64", cost_of_gradient(cols<16>, counted_input<4, 16>()),
               cost_of_gradient(cols<64>, counted_input<4, 64>()));
}
