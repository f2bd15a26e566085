// SPDX-License-Identifier: BSL-1.0
// The rows of a matrix as a column of tl::rows: Eigen matrices of C columns fixed at compile time in
// either storage order, their maps over buffers of exactly their size (the sanitized build catches a
// read past the end) and blocks, tl::row_vectors<C> of an Eigen::MatrixXd, and tl::matrix. Each sum
// over them must be the same, bit for bit, as over the same rows held as std::vector<tl::vector<double,
// C>>, whose loop reads the same numbers into the same lanes; and its gradient must agree with central
// differences. Row counts around a SIMD batch and past it. The errors: a wrong C, columns of unequal
// length, a strided matrix. Reading the rows and summing over them allocate nothing.
#include <doctest/doctest.h>
#include <allocation_counter.hpp>
#include <finite_difference.hpp>
#include <row_sum_check.hpp>
#include <tapeless/tapeless.hpp>

#include <Eigen/Core>

#include <cmath>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace tl = tapeless;

namespace {

using row_sums::lanes;

/// A logistic loss: log(1 + exp(-y (w . x + b))), with labels y of ±1.
constexpr auto logistic = [](const auto& x, const auto& y, const auto& w, const auto& b) {
  return tl::log(1.0 + tl::exp(-y * (tl::dot(x, w) + b)));
};

/// The sum of the logistic loss over `rows` at (w, b): its value and gradient.
template <class Rows, std::size_t C>
auto loss_and_gradient(const Rows& rows, const tl::vector<double, C>& w, double b) {
  return tl::value_and_grad([&](const auto& v, const auto& c) { return tl::sum_over(rows, logistic, v, c); })(w, b);
}

/// Rows of C features and a label each, drawn from a seeded generator, held as the reference's
/// std::vector of tl::vector rows and as Eigen matrices of either storage order.
template <std::size_t C>
struct data_set {
  using col_major = Eigen::Matrix<double, Eigen::Dynamic, int(C)>;
  using row_major = Eigen::Matrix<double, Eigen::Dynamic, int(C), Eigen::RowMajor>;
  std::vector<tl::vector<double, C>> rows;
  std::vector<double> labels;
  col_major by_columns;
  row_major by_rows;
  Eigen::MatrixXd dynamic;
  // Exactly n C numbers each, on the heap, so that a read past the end is caught under AddressSanitizer.
  std::vector<double> column_buffer, row_buffer;

  explicit data_set(std::size_t n, unsigned seed)
      : rows(n),
        labels(n),
        by_columns(Eigen::Index(n), int(C)),
        by_rows(Eigen::Index(n), int(C)),
        dynamic(Eigen::Index(n), Eigen::Index(C)),
        column_buffer(n * C),
        row_buffer(n * C) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> feature(-2.0, 2.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t e = 0; e < C; ++e) {
        const double x = feature(random);
        rows[i][e] = by_columns(Eigen::Index(i), Eigen::Index(e)) = by_rows(Eigen::Index(i), Eigen::Index(e)) =
            dynamic(Eigen::Index(i), Eigen::Index(e)) = column_buffer[e * n + i] = row_buffer[i * C + e] = x;
      }
      labels[i] = random() % 2 == 0 ? 1.0 : -1.0;
    }
  }
};

/// The parameters at a seeded random point.
template <std::size_t C>
std::pair<tl::vector<double, C>, double> parameters(unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  tl::vector<double, C> w;
  for (std::size_t e = 0; e < C; ++e) w[e] = u(random);
  return {w, u(random)};
}

/// Checks that the sum over `rows` equals the reference's, bit for bit.
template <std::size_t C, class Rows, class Reference>
void check_equal(const Rows& rows, const Reference& reference, const tl::vector<double, C>& w, double b) {
  const auto [value, gradient] = loss_and_gradient(rows, w, b);
  const auto [ref_value, ref_gradient] = loss_and_gradient(reference, w, b);
  CHECK(value == ref_value);
  CHECK(std::get<0>(gradient) == std::get<0>(ref_gradient));
  CHECK(std::get<1>(gradient) == std::get<1>(ref_gradient));
}

/// Every kind of matrix column at n rows against the reference.
template <std::size_t C>
void check_every_layout(std::size_t n) {
  CAPTURE(n);
  CAPTURE(C);
  const data_set<C> d(n, 17 + unsigned(n) * 31 + unsigned(C));
  const auto [w, b] = parameters<C>(5 + unsigned(n));
  const auto reference = tl::rows(d.rows, d.labels);
  const Eigen::Map<const typename data_set<C>::col_major> column_map(d.column_buffer.data(), Eigen::Index(n), int(C));
  const Eigen::Map<const typename data_set<C>::row_major> row_map(d.row_buffer.data(), Eigen::Index(n), int(C));
  const Eigen::Map<const Eigen::MatrixXd> dynamic_map(d.column_buffer.data(), Eigen::Index(n), Eigen::Index(C));
  const Eigen::Ref<const Eigen::MatrixXd> dynamic_ref(d.dynamic);
  check_equal(tl::rows(d.by_columns, d.labels), reference, w, b);
  check_equal(tl::rows(d.by_rows, d.labels), reference, w, b);
  check_equal(tl::rows(tl::row_vectors<C>(d.dynamic), d.labels), reference, w, b);
  check_equal(tl::rows(column_map, d.labels), reference, w, b);
  check_equal(tl::rows(row_map, d.labels), reference, w, b);
  check_equal(tl::rows(tl::row_vectors<C>(dynamic_map), d.labels), reference, w, b);
  check_equal(tl::rows(tl::row_vectors<C>(dynamic_ref), d.labels), reference, w, b);
  // tl::matrix of run-time rows (C fixed: its rows) and of run-time columns (C stated), with the labels
  // as a run-time tl::vector.
  tl::matrix<double, tl::dynamic, C> rows_at_run_time(n, C);
  tl::matrix<double, tl::dynamic, tl::dynamic> both_at_run_time(n, C);
  tl::vector<double, tl::dynamic> labels(n);
  for (std::size_t i = 0; i < n; ++i) {
    labels[i] = d.labels[i];
    for (std::size_t e = 0; e < C; ++e) rows_at_run_time(i, e) = both_at_run_time(i, e) = d.rows[i][e];
  }
  check_equal(tl::rows(rows_at_run_time, labels), reference, w, b);
  check_equal(tl::rows(tl::row_vectors<C>(both_at_run_time), labels), reference, w, b);
}

/// The gradient of the sum over the rows of X against central differences of its value.
template <std::size_t C, class X>
void check_finite_differences(const X& x, const std::vector<double>& labels, unsigned seed) {
  const auto rows = tl::rows(x, labels);
  const auto point = parameters<C>(seed);  // named, not bound: clang 14 cannot capture a binding
  const tl::vector<double, C>& w = point.first;
  const double b = point.second;
  const auto [value, gradient] = loss_and_gradient(rows, w, b);
  const auto sum = [&](const tl::vector<double, C>& v, double c) { return tl::sum_over(rows, logistic, v, c); };
  CHECK(sum(w, b) == doctest::Approx(value).epsilon(1e-14));
  for (std::size_t e = 0; e < C; ++e) {
    const double fd = fd::derivative(
        [&](double t) {
          auto v = w;
          v[e] = t;
          return sum(v, b);
        },
        w[e]);
    CHECK(std::get<0>(gradient)[e] == doctest::Approx(fd).epsilon(1e-8));
  }
  CHECK(std::get<1>(gradient) == doctest::Approx(fd::derivative([&](double c) { return sum(w, c); }, b)).epsilon(1e-8));
}

/// The message of the std::invalid_argument f throws.
template <class F>
std::string message_of(const F& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no exception";
}

}  // namespace

TEST_CASE("the rows of Eigen matrices of either storage order, maps, refs and tl::row_vectors") {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, lanes - 1, lanes, lanes + 1, std::size_t{31},
                              std::size_t{32}, std::size_t{33}, std::size_t{256}}) {
    check_every_layout<3>(n);
    check_every_layout<8>(n);
  }
}

TEST_CASE("gradients against central differences") {
  for (const std::size_t n : {std::size_t{1}, lanes + 1, std::size_t{33}}) {
    CAPTURE(n);
    const data_set<3> d3(n, 3 + unsigned(n));
    const data_set<8> d8(n, 7 + unsigned(n));
    check_finite_differences<3>(tl::row_vectors<3>(d3.dynamic), d3.labels, 11);
    check_finite_differences<3>(d3.by_rows, d3.labels, 12);
    check_finite_differences<8>(d8.by_columns, d8.labels, 13);
    check_finite_differences<8>(d8.by_rows, d8.labels, 14);
  }
}

TEST_CASE("reading a matrix's rows and summing over them allocate nothing") {
  const data_set<8> d(row_sums::lanes * 4 + 1, 21);
  const auto [w, b] = parameters<8>(22);
  double value = 0;
  const long allocations = test_support::allocations_during([&, w = w, b = b] {
    value = loss_and_gradient(tl::rows(tl::row_vectors<8>(d.dynamic), d.labels), w, b).first;
    value += loss_and_gradient(tl::rows(d.by_rows, d.labels), w, b).first;
  });
  CHECK(allocations == 0);
  CHECK(value > 0);
}

TEST_CASE("rows read in place: a block's outer stride, a change to the matrix, tl::indices beside them") {
  constexpr std::size_t n = 37;
  data_set<3> d(n, 99);
  const auto [w, b] = parameters<3>(3);
  // The first 21 rows of a column-major matrix: columns 37 apart.
  const std::vector<tl::vector<double, 3>> first(d.rows.begin(), d.rows.begin() + 21);
  const std::vector<double> first_labels(d.labels.begin(), d.labels.begin() + 21);
  check_equal(tl::rows(tl::row_vectors<3>(d.dynamic.topRows(21)), first_labels), tl::rows(first, first_labels), w, b);
  check_equal(tl::rows(d.by_columns.topRows(21), first_labels), tl::rows(first, first_labels), w, b);
  // Rows 16 to 36 of a row-major one.
  const std::vector<tl::vector<double, 3>> last(d.rows.begin() + 16, d.rows.end());
  const std::vector<double> last_labels(d.labels.begin() + 16, d.labels.end());
  check_equal(tl::rows(d.by_rows.bottomRows(21), last_labels), tl::rows(last, last_labels), w, b);

  const auto view = tl::rows(d.by_columns, d.labels);
  CHECK(view.size() == n);
  CHECK(view.column<0>().data == d.by_columns.data());
  const double before = loss_and_gradient(view, w, b).first;
  d.by_columns(5, 1) += 1.0;
  d.rows[5][1] += 1.0;
  const double after = loss_and_gradient(view, w, b).first;
  CHECK(after != before);
  CHECK(after == loss_and_gradient(tl::rows(d.rows, d.labels), w, b).first);

  // A row of tl::row_vectors, copied.
  const auto rows = tl::row_vectors<3>(d.by_rows);
  CHECK(rows.size() == n);
  CHECK(rows[7] == d.rows[7]);

  // Zipped with tl::indices: the index beside each row.
  const auto indexed = [](std::size_t i, const auto& x, const auto& y, const auto& v) {
    return tl::square(tl::dot(x, v) - y * static_cast<double>(i));
  };
  const double with_matrix = tl::sum_over(tl::rows(tl::indices(n), d.by_columns, d.labels), indexed, w);
  const double with_vectors = tl::sum_over(tl::rows(tl::indices(n), d.rows, d.labels), indexed, w);
  CHECK(with_matrix == with_vectors);
}

TEST_CASE("rows of floats, of tl::matrix, and vectors that stay columns of numbers") {
  constexpr std::size_t n = 2 * 8 + 3;
  const data_set<3> d(n, 5);
  const auto [w, b] = parameters<3>(9);
  Eigen::Matrix<float, Eigen::Dynamic, 3> narrow = d.by_columns.cast<float>();
  std::vector<tl::vector<float, 3>> narrow_rows(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t e = 0; e < 3; ++e) narrow_rows[i][e] = narrow(Eigen::Index(i), Eigen::Index(e));
  check_equal(tl::rows(narrow, d.labels), tl::rows(narrow_rows, d.labels), w, b);

  // A tl::matrix<double, 4, 3> is 4 rows of tl::vector<double, 3>; a tl::vector of 4 is 4 numbers.
  const tl::matrix<double, 4, 3> fixed{
      {d.rows[0][0], d.rows[0][1], d.rows[0][2]},
      {d.rows[1][0], d.rows[1][1], d.rows[1][2]},
      {d.rows[2][0], d.rows[2][1], d.rows[2][2]},
      {d.rows[3][0], d.rows[3][1], d.rows[3][2]},
  };
  const tl::vector<double, 4> fixed_labels{d.labels[0], d.labels[1], d.labels[2], d.labels[3]};
  const std::vector<tl::vector<double, 3>> four(d.rows.begin(), d.rows.begin() + 4);
  check_equal(tl::rows(fixed, fixed_labels), tl::rows(four, fixed_labels), w, b);
  check_equal(tl::rows(tl::row_vectors<3>(fixed), fixed_labels), tl::rows(four, fixed_labels), w, b);
  CHECK(tl::rows(fixed).size() == 4);
  static_assert(std::is_same_v<decltype(tl::rows(fixed).column<0>())::row_type, tl::vector<double, 3>>);
  static_assert(std::is_same_v<decltype(tl::rows(narrow).column<0>())::row_type, tl::vector<float, 3>>);
  static_assert(std::is_same_v<decltype(tl::rows(fixed_labels).column<0>()), const double*>);

  // Eigen::Matrix<double, Eigen::Dynamic, 1> is Eigen::VectorXd: a column of numbers, as a row vector is.
  const Eigen::Matrix<double, Eigen::Dynamic, 1> column = d.by_columns.col(0);
  const Eigen::RowVectorXd row = d.by_columns.col(1).transpose();
  CHECK(tl::rows(column, row).size() == n);
  CHECK(tl::rows(column, row).column<1>() == row.data());
  static_assert(std::is_same_v<decltype(tl::rows(column).column<0>()), const double*>);

  // A tl::matrix of run-time columns is refused as Eigen::MatrixXd is; its vectors are numbers.
  static_assert(tl::detail::run_time_columns<tl::matrix<double, tl::dynamic, tl::dynamic>>);
  static_assert(tl::detail::run_time_columns<tl::matrix<double, tl::bounded<4>, tl::dynamic>>);
  static_assert(!tl::detail::run_time_columns<tl::matrix<double, 1, tl::dynamic>>);
  static_assert(std::is_same_v<decltype(tl::rows(tl::vector<double, tl::dynamic>(3)).column<0>()), const double*>);
  static_assert(std::is_same_v<decltype(tl::rows(tl::matrix<double, tl::dynamic, 3>(2, 3)).column<0>())::row_type,
                               tl::vector<double, 3>>);
}

TEST_CASE("a wrong column count, columns of unequal length and strided matrices throw std::invalid_argument") {
  const Eigen::MatrixXd four(Eigen::MatrixXd::Zero(5, 4));
  const std::string wrong = message_of([&] { (void)tl::row_vectors<3>(four); });
  CAPTURE(wrong);
  CHECK(wrong.find("tl::row_vectors<3>(X): X has 4 columns") != std::string::npos);
  CHECK_THROWS_AS((void)tl::row_vectors<5>(four), std::invalid_argument);
  CHECK_NOTHROW((void)tl::row_vectors<4>(four));

  const Eigen::Matrix<double, Eigen::Dynamic, 3> x(Eigen::Matrix<double, Eigen::Dynamic, 3>::Zero(12345, 3));
  const std::vector<double> y(678);
  for (const std::string& what :
       {message_of([&] { (void)tl::rows(x, y); }), message_of([&] { (void)tl::rows(y, tl::row_vectors<3>(x)); })}) {
    CAPTURE(what);
    CHECK(what.find("12345") != std::string::npos);
    CHECK(what.find("678") != std::string::npos);
  }

  // Every other element of a buffer: the elements along the storage order are not adjacent.
  std::vector<double> buffer(2 * 6 * 3);
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, 3>, 0, Eigen::Stride<Eigen::Dynamic, 2>> strided(
      buffer.data(), 6, 3, Eigen::Stride<Eigen::Dynamic, 2>(12, 2));
  const Eigen::Map<const Eigen::MatrixXd, 0, Eigen::Stride<Eigen::Dynamic, 2>> strided_dynamic(
      buffer.data(), 6, 3, Eigen::Stride<Eigen::Dynamic, 2>(12, 2));
  const std::string what = message_of([&] { (void)tl::rows(y, strided); });
  CAPTURE(what);
  CHECK(what.find("column 2 is strided") != std::string::npos);
  CHECK_THROWS_AS((void)tl::row_vectors<3>(strided_dynamic), std::invalid_argument);
}
