// SPDX-License-Identifier: BSL-1.0
// Randomized sums over rows: compositions of composition.hpp as the term of tl::sum_over and
// tl::mean_over over tl::rows of run-time data. One argument of the composition is read from the rows
// (a number; of a matrix composition, the vector v or the number s) and the other two are the sum's
// parameters. The row count is drawn at run time for each point: none, one, around a SIMD batch, up to
// a few hundred, and past a block of rows (tapeless::detail::rows_block). The value is checked against
// the same sum of the std:: reference (reference.hpp) in a plain loop, the gradient against the sum of
// the rows' gradients (tl::grad of the term on numbers) and against finite differences of that loop.
// The first compositions of numbers again, read by index: their row is x[i] of a parameter vector x
// (of fixed size, and for the first four of run-time size n beside the two numbers), summed over
// tl::indices(n), the gradient in x against each term's in its row; and as the step of tl::iterate,
// s' = s + h term(s, p, q), with stored states and with tl::checkpoints<2> (the same gradient to the
// bit), against the reference's loop and its differences.
#include <doctest/doctest.h>

#include "build.hpp"
#include "reference.hpp"

#include <finite_difference.hpp>
#include <sanitizers.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

namespace tl = tapeless;

#if TAPELESS_SIMD
constexpr std::size_t lanes = tl::detail::simd::width<double>;  // the rows of one SIMD batch
#else
constexpr std::size_t lanes = 1;
#endif

// The row counts of each family: these, then random_counts drawn in [2, few_hundred], then one past a
// block by 1 to 2 lanes + 1 (where the blocks' sums are added, and a partial batch ends the last).
constexpr std::array<std::size_t, 5> fixed_counts{0, 1, lanes - 1, lanes, lanes + 1};
// Under the sanitizers, fewer random counts, and a count past a block for one family in four: the
// reference's finite differences over 4000 rows of a matrix composition take seconds at -O0.
constexpr int random_counts = test_support::address_sanitizer ? 1 : 4;
constexpr int past_block_every = test_support::address_sanitizer ? 4 : 1;
constexpr std::size_t few_hundred = 300;

constexpr double value_tol = 1e-12;  // relative to the sum of the terms' magnitudes (absolute below 1)
constexpr double rows_tol = 1e-11;   // the gradient against the rows' gradients, relative as the value
constexpr double fd_rtol = 1e-6;     // the gradient against finite differences, relative,
constexpr double fd_atol = 1e-12;    // and absolute, for components that are 0
// Rows and parameters are drawn a little inside [-2, 2], the arguments' range the generator kept every
// operand's domain for: finite differences step at most 2e-3 away, and stay inside it.
constexpr double point_bound = rdt::arg_bound - 0.01;

/// A composition as the term of a sum over rows: which one, its argument read from the rows, and
/// whether the sum is a mean.
struct family {
  int composition = 0;
  int row = 0;
  bool mean = false;
};

constexpr int scalar_families = 32;  // x0, x1 or x2 from the rows, summed and averaged
constexpr int matrix_families = 8;   // v or s from the rows, summed and averaged
constexpr int family_count = scalar_families + matrix_families;

/// The arguments composition c reads, one bit each.
constexpr unsigned arguments_read(const rdt::composition& c) {
  unsigned read = 0;
  for (int k = 0; k < c.size; ++k)
    if (c.nodes[static_cast<std::size_t>(k)].k == rdt::kind::argument)
      read |= 1U << c.nodes[static_cast<std::size_t>(k)].index;
  return read;
}

/// The compositions that read the rows and at least one parameter: of three numbers, the first
/// (reading the rows from each argument they read in turn), then of a matrix, a vector and a number,
/// spread over all (reading v or s from the rows).
constexpr std::array<family, family_count> families() {
  std::array<family, family_count> f{};
  int k = 0;
  for (int i = 0; i < rdt::scalar_count && k < scalar_families; ++i) {
    const rdt::composition c = rdt::generate(i);
    const unsigned read = arguments_read(c);
    if (c.arguments != 3 || std::popcount(read) < 2) continue;
    int row = 0;  // the (k mod arguments read)-th argument read
    for (int skip = k % std::popcount(read); (read >> row & 1U) == 0 || skip-- > 0;) ++row;
    f[static_cast<std::size_t>(k)] = {i, row, (k / 2) % 2 == 1};
    ++k;
  }
  for (int j = 0, m = 0; j < rdt::matrix_count && m < matrix_families; ++j) {
    const int i = rdt::scalar_count + j * 37 % rdt::matrix_count;  // 37: coprime to the count, spread
    const unsigned read = arguments_read(rdt::generate(i));
    const int row = (m % 2 == 0 && (read & 2U) != 0) || (read & 4U) == 0 ? 1 : 2;
    if ((read >> row & 1U) == 0 || std::popcount(read) < 2) continue;
    f[static_cast<std::size_t>(k++)] = {i, row, (m / 2) % 2 == 1};
    ++m;
  }
  return f;
}
constexpr std::array<family, family_count> all = families();
static_assert(all[scalar_families - 1].composition != 0 && all[family_count - 1].composition != 0,
              "fewer compositions that read the rows and a parameter than families");

/// Composition I with argument R read from the row: body(row, p, q) applies it to the row in place R
/// and the parameters p and q in the others, in order.
template <int I, int R>
struct term {
  template <class Row, class P, class Q>
  constexpr auto operator()(const Row& row, const P& p, const Q& q) const {
    if constexpr (R == 0)
      return rdt::function<I>{}(row, p, q);
    else if constexpr (R == 1)
      return rdt::function<I>{}(p, row, q);
    else
      return rdt::function<I>{}(p, q, row);
  }
};

/// The reference's arguments: the row in place R, p and q in the others.
template <int R, class Row, class P, class Q>
std::array<rdt::value, 3> arguments(const Row& row, const P& p, const Q& q) {
  if constexpr (R == 0)
    return {rdt::to_value(row), rdt::to_value(p), rdt::to_value(q)};
  else if constexpr (R == 1)
    return {rdt::to_value(p), rdt::to_value(row), rdt::to_value(q)};
  else
    return {rdt::to_value(p), rdt::to_value(q), rdt::to_value(row)};
}

template <class M>
M random_element(fd::rng& r) {
  if constexpr (tl::Matrix<M>) {
    M m;
    for (auto& e : m) e = r.uniform(-point_bound, point_bound);
    return m;
  } else {
    return r.uniform(-point_bound, point_bound);
  }
}

std::string describe(const rdt::value& v) {
  std::ostringstream os;
  os.precision(17);
  os << (v.size() == 1 ? "" : "{");
  for (int k = 0; k < v.size(); ++k) os << (k == 0 ? "" : ", ") << v.e[static_cast<std::size_t>(k)];
  os << (v.size() == 1 ? "" : "}");
  return os.str();
}

/// |got - expected| within tol of the scale; both NaN (a mean over no rows) agree.
bool agree(double got, double expected, double tol, double scale) {
  return (std::isnan(got) && std::isnan(expected)) || std::abs(got - expected) <= tol * std::max(1.0, scale);
}

/// Family F at n rows drawn from r: tapeless's value and gradient against the reference's.
template <int F, class Row, class P, class Q>
void check_rows(fd::rng& r, std::size_t n) {
  constexpr family f = all[F];
  constexpr int I = f.composition, R = f.row;
  const rdt::composition& c = rdt::spec<I>;
  std::vector<Row> column(n);  // exactly n: a read past the end is AddressSanitizer's to see
  for (auto& x : column) x = random_element<Row>(r);
  const P p = random_element<P>(r);
  const Q q = random_element<Q>(r);
  const auto loss = [&column](const auto& a, const auto& b) {
    if constexpr (f.mean)
      return tl::mean_over(tl::rows(column), term<I, R>{}, a, b);
    else
      return tl::sum_over(tl::rows(column), term<I, R>{}, a, b);
  };
  // Not structured bindings: clang 14 does not let INFO's lambdas capture them.
  const auto value_and_gradient = tl::value_and_grad(loss)(p, q);
  const double value = value_and_gradient.first;
  const auto& gradient = value_and_gradient.second;
  const std::array<rdt::value, 2> ad{rdt::to_value(std::get<0>(gradient)), rdt::to_value(std::get<1>(gradient))};
  const double count = static_cast<double>(n);

  // The sum of the reference's terms, and of their magnitudes, at parameters (p, q).
  const auto reference = [&](const rdt::value& pv, const rdt::value& qv) {
    std::array<double, 2> sum{};
    for (const Row& row : column) {
      std::array<rdt::value, 3> args = arguments<R>(row, p, q);
      args[R == 0 ? 1 : 0] = pv;
      args[R == 2 ? 1 : 2] = qv;
      const double t = rdt::evaluate_node(c, c.root, args).e[0];
      sum[0] += t;
      sum[1] += std::abs(t);
    }
    if (f.mean) sum = {sum[0] / count, sum[1] / count};
    return sum;
  };
  const std::array<rdt::value, 2> at{rdt::to_value(p), rdt::to_value(q)};
  const std::array<double, 2> sum_and_magnitude = reference(at[0], at[1]);
  const double expected = sum_and_magnitude[0], magnitude = sum_and_magnitude[1];

  // The sum of the rows' gradients, each of the term on numbers, and of their magnitudes.
  std::array<rdt::value, 2> by_rows{rdt::filled(at[0].rows, at[0].cols), rdt::filled(at[1].rows, at[1].cols)};
  std::array<rdt::value, 2> by_rows_magnitude = by_rows;
  for (const Row& row : column) {
    const auto g =
        tl::grad([&row](const auto& a, const auto& b) { return term<I, R>{}(tl::constant<Row>(row), a, b); })(p, q);
    const std::array<rdt::value, 2> each{rdt::to_value(std::get<0>(g)), rdt::to_value(std::get<1>(g))};
    for (std::size_t j = 0; j < 2; ++j)
      for (std::size_t k = 0; k < static_cast<std::size_t>(each[j].size()); ++k) {
        by_rows[j].e[k] += each[j].e[k];
        by_rows_magnitude[j].e[k] += std::abs(each[j].e[k]);
      }
  }

  const std::string over = f.mean ? "averaged" : "summed";
  INFO("composition " << I << ", " << over << " over rows of argument " << R << ": " << rdt::describe(c));
  INFO(n << " rows, parameters " << describe(at[0]) << " and " << describe(at[1]));
  INFO("value " << fd::str(value) << ", reference " << fd::str(expected));
  CHECK(agree(value, expected, value_tol, magnitude));
  std::ostringstream mismatches;
  mismatches.precision(17);
  for (std::size_t j = 0; j < 2; ++j)
    for (std::size_t k = 0; k < static_cast<std::size_t>(ad[j].size()); ++k) {
      const double g = ad[j].e[k];
      double rows_sum = by_rows[j].e[k], rows_magnitude = by_rows_magnitude[j].e[k];
      if (f.mean) rows_sum /= count, rows_magnitude /= count;
      if (!agree(g, rows_sum, rows_tol, rows_magnitude))
        mismatches << "parameter " << j << ", element " << k << ": AD " << g << ", the rows' gradients " << rows_sum
                   << "\n";
      if (!std::isfinite(expected)) continue;  // a mean over no rows: no differences to take
      const auto moved_sum = [&](double x) {
        std::array<rdt::value, 2> moved = at;
        moved[j].e[k] = x;
        return reference(moved[0], moved[1])[0];
      };
      const fd::estimate d = fd::derivative_and_error(moved_sum, at[j].e[k]);
      const double allowed = fd_rtol * std::max(std::abs(g), std::abs(d.value)) + 2 * d.error + fd_atol;
      if (!(std::abs(g - d.value) <= allowed))
        mismatches << "parameter " << j << ", element " << k << ": AD " << g << ", FD " << d.value
                   << " (its error about " << d.error << ")\n";
    }
  INFO(mismatches.str());
  CHECK(mismatches.str().empty());
}

/// Family F at every row count: the column's rows and the parameters of the composition's kind.
template <int F>
void check_family() {
  constexpr family f = all[F];
  constexpr const rdt::composition& c = rdt::spec<f.composition>;
  fd::rng r{5000 + static_cast<std::uint64_t>(F)};
  std::vector<std::size_t> counts(fixed_counts.begin(), fixed_counts.end());
  for (int k = 0; k < random_counts; ++k)
    counts.push_back(static_cast<std::size_t>(r.uniform(2, static_cast<double>(few_hundred) + 1)));
  const auto past_block = tl::detail::rows_block + 1 + static_cast<std::size_t>(r.uniform(0, 2 * lanes + 1));
  if (F % past_block_every == 0) counts.push_back(past_block);
  for (const std::size_t n : counts) {
    if constexpr (!c.of_matrices) {
      check_rows<F, double, double, double>(r, n);
    } else {
      constexpr auto N = static_cast<std::size_t>(c.n);
      using A = tl::matrix<double, N, N>;
      using V = tl::vector<double, N>;
      if constexpr (f.row == 1)
        check_rows<F, V, A, double>(r, n);
      else
        check_rows<F, double, A, V>(r, n);
    }
  }
}

// ---- the same compositions read by index, and as the step of a loop ---------------------------------

/// The scalar families read again by index and as a step: the first index_families of them.
constexpr int index_families = 8;
/// The parameter vector a sum over indices reads, and the most indices it sums over.
constexpr std::size_t index_extent = 64;
using index_vector = tl::vector<double, index_extent>;
/// The steps' size: s' = s + step_size term(s, p, q) stays near s for the steps counts drawn (at most
/// max_steps), so that the state stays where the compositions are defined.
constexpr double step_size = 1.0 / 64;
constexpr std::size_t max_steps = 24;

/// The parameter vector again with n elements, its size known at run time: the sum's loop of
/// sweep/run_time_rows.hpp, beside the numbers p and q; for the first run_time_families families (each
/// costs a few seconds of compile time).
using run_time_vector = tl::vector<double, tl::dynamic>;
constexpr int run_time_families = 4;

/// Scalar family F over tl::indices(n), its row read from a parameter vector x (an index_vector, or a
/// run_time_vector of n elements) by index: the value against the reference's sum, the gradient in p
/// and q against the sum of the terms' gradients and against differences, and in x: each element
/// i < n the term's gradient in its row, the others +0.
template <int F, class X>
void check_indices(fd::rng& r, std::size_t n) {
  constexpr family f = all[F];
  constexpr int I = f.composition, R = f.row;
  const rdt::composition& c = rdt::spec<I>;
  X x = [&] {
    if constexpr (tl::RunTimeMatrix<X>)
      return X(n);
    else
      return X{};
  }();
  for (auto& e : x) e = random_element<double>(r);
  const double p = random_element<double>(r), q = random_element<double>(r);
  const auto loss = [n](const auto& a, const auto& b, const auto& v) {
    const auto body = [](std::size_t i, const auto& a, const auto& b, const auto& v) {
      return term<I, R>{}(v[i], a, b);
    };
    if constexpr (f.mean)
      return tl::mean_over(tl::indices(n), body, a, b, v);
    else
      return tl::sum_over(tl::indices(n), body, a, b, v);
  };
  const auto value_and_gradient = tl::value_and_grad(loss)(p, q, x);
  const double value = value_and_gradient.first;
  const auto& gradient = value_and_gradient.second;
  const double count = static_cast<double>(n);
  const auto reference = [&](double pv, double qv) {
    std::array<double, 2> sum{};
    for (std::size_t i = 0; i < n; ++i) {
      const double t = rdt::evaluate_node(c, c.root, arguments<R>(x[i], pv, qv)).e[0];
      sum[0] += t;
      sum[1] += std::abs(t);
    }
    if (f.mean) sum = {sum[0] / count, sum[1] / count};
    return sum;
  };
  // Not structured bindings: clang 14 does not let INFO's lambdas capture them.
  const std::array<double, 2> sum_and_magnitude = reference(p, q);
  const double expected = sum_and_magnitude[0], magnitude = sum_and_magnitude[1];
  std::array<double, 3> by_terms{}, by_terms_magnitude{};  // in p, q, and x[i] of the term at i
  std::vector<double> in_x(x.size()), in_x_magnitude(x.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto g =
        tl::grad([](const auto& row, const auto& a, const auto& b) { return term<I, R>{}(row, a, b); })(x[i], p, q);
    const std::array<double, 3> each{std::get<1>(g), std::get<2>(g), std::get<0>(g)};
    for (std::size_t j = 0; j < 2; ++j) by_terms[j] += each[j], by_terms_magnitude[j] += std::abs(each[j]);
    in_x[i] = each[2];
    in_x_magnitude[i] = std::abs(each[2]);
  }
  const double scale = f.mean ? 1.0 / count : 1.0;  // over no indices the mean is NaN, as 0 / 0
  const std::string over = f.mean ? "averaged" : "summed";
  const std::string kind = tl::RunTimeMatrix<X> ? " of run-time size" : "";
  INFO("composition " << I << ", " << over << " over " << n << " indices, argument " << R << " read as x[i]" << kind
                      << ": " << rdt::describe(c));
  INFO("parameters " << fd::str(p) << " and " << fd::str(q) << "; value " << fd::str(value) << ", reference "
                     << fd::str(expected));
  CHECK(agree(value, expected, value_tol, magnitude));
  std::ostringstream mismatches;
  mismatches.precision(17);
  const std::array<double, 2> ad{std::get<0>(gradient), std::get<1>(gradient)};
  for (std::size_t j = 0; j < 2; ++j) {
    if (!agree(ad[j], by_terms[j] * scale, rows_tol, by_terms_magnitude[j] * std::abs(scale)))
      mismatches << "parameter " << j << ": AD " << ad[j] << ", the terms' gradients " << by_terms[j] * scale << "\n";
    if (!std::isfinite(expected)) continue;
    const fd::estimate d = fd::derivative_and_error(
        [&](double v) { return j == 0 ? reference(v, q)[0] : reference(p, v)[0]; }, j == 0 ? p : q);
    if (!(std::abs(ad[j] - d.value) <= fd_rtol * std::max(std::abs(ad[j]), std::abs(d.value)) + 2 * d.error + fd_atol))
      mismatches << "parameter " << j << ": AD " << ad[j] << ", FD " << d.value << "\n";
  }
  const X& gx = std::get<2>(gradient);
  REQUIRE(gx.size() == x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    // An element no term reads: +0, or NaN in a mean over no indices.
    const bool read = i < n, unread_nan = f.mean && n == 0;
    if (read ? !agree(gx[i], in_x[i] * scale, rows_tol, in_x_magnitude[i] * std::abs(scale))
             : !(unread_nan ? std::isnan(gx[i]) : gx[i] == 0 && !std::signbit(gx[i])))
      mismatches << "x[" << i << "]: AD " << gx[i] << ", the term's gradient " << (read ? in_x[i] * scale : 0.0)
                 << "\n";
  }
  INFO(mismatches.str());
  CHECK(mismatches.str().empty());
}

/// Scalar family F as the step of a loop, s' = s + step_size term(s, p, q), for n steps from s0, by
/// tl::iterate with every state stored and with tl::checkpoints<2>: the two gradients the same to the
/// bit, the value against the reference's loop, and the gradient in (s0, p, q) against its differences.
template <int F>
void check_steps(fd::rng& r, std::size_t n) {
  constexpr family f = all[F];
  constexpr int I = f.composition, R = f.row;
  const rdt::composition& c = rdt::spec<I>;
  const double s0 = random_element<double>(r), p = random_element<double>(r), q = random_element<double>(r);
  const auto step = [](const auto& s, std::size_t, const auto& a, const auto& b) {
    return s + step_size * term<I, R>{}(s, a, b);
  };
  const auto stored = [n, step](const auto& s, const auto& a, const auto& b) { return tl::iterate(n, s, step, a, b); };
  const auto kept = [n, step](const auto& s, const auto& a, const auto& b) {
    return tl::iterate(tl::checkpoints<2>{}, n, s, step, a, b);
  };
  // Not structured bindings: clang 14 does not let INFO's lambdas capture them.
  const auto stored_result = tl::value_and_grad(stored)(s0, p, q);
  const auto kept_result = tl::value_and_grad(kept)(s0, p, q);
  const double value = stored_result.first, value_kept = kept_result.first;
  const auto& g = stored_result.second;
  const auto& g_kept = kept_result.second;
  const auto reference = [&](const std::array<double, 3>& at) {
    double s = at[0];
    for (std::size_t k = 0; k < n; ++k)
      s += step_size * rdt::evaluate_node(c, c.root, arguments<R>(s, at[1], at[2])).e[0];
    return s;
  };
  const std::array<double, 3> at{s0, p, q};
  const double expected = reference(at);
  INFO("composition " << I << " as a step, " << n << " steps, argument " << R << " the state: " << rdt::describe(c));
  INFO("s0 " << fd::str(s0) << ", parameters " << fd::str(p) << " and " << fd::str(q) << "; value " << fd::str(value)
             << ", reference " << fd::str(expected));
  CHECK(std::bit_cast<std::uint64_t>(value) == std::bit_cast<std::uint64_t>(value_kept));
  CHECK(agree(value, expected, value_tol * static_cast<double>(n + 1), std::abs(expected)));
  const std::array<double, 3> ad{std::get<0>(g), std::get<1>(g), std::get<2>(g)},
      ad_kept{std::get<0>(g_kept), std::get<1>(g_kept), std::get<2>(g_kept)};
  std::ostringstream mismatches;
  mismatches.precision(17);
  for (std::size_t j = 0; j < 3; ++j) {
    if (std::bit_cast<std::uint64_t>(ad[j]) != std::bit_cast<std::uint64_t>(ad_kept[j]))
      mismatches << "argument " << j << ": stored " << ad[j] << ", checkpoints<2> " << ad_kept[j] << "\n";
    if (!std::isfinite(expected)) continue;
    const fd::estimate d = fd::derivative_and_error(
        [&](double v) {
          std::array<double, 3> moved = at;
          moved[j] = v;
          return reference(moved);
        },
        at[j]);
    if (!(std::abs(ad[j] - d.value) <= fd_rtol * std::max(std::abs(ad[j]), std::abs(d.value)) + 2 * d.error + fd_atol))
      mismatches << "argument " << j << ": AD " << ad[j] << ", FD " << d.value << "\n";
  }
  INFO(mismatches.str());
  CHECK(mismatches.str().empty());
}

/// Scalar family F over indices and as steps, at the fixed counts, random ones and the whole extent.
template <int F>
void check_indices_and_steps() {
  fd::rng r{7000 + static_cast<std::uint64_t>(F)};
  std::vector<std::size_t> counts(fixed_counts.begin(), fixed_counts.end());
  for (int k = 0; k < random_counts; ++k)
    counts.push_back(static_cast<std::size_t>(r.uniform(2, static_cast<double>(index_extent) + 1)));
  counts.push_back(index_extent);
  for (const std::size_t n : counts) {
    check_indices<F, index_vector>(r, n);
    if constexpr (F < run_time_families) check_indices<F, run_time_vector>(r, n);
    check_steps<F>(r, n % (max_steps + 1));
  }
}

}  // namespace

TEST_CASE("random sums over rows: value against a loop of std::, gradient against the rows' and differences") {
  []<int... F>(std::integer_sequence<int, F...>) { (check_family<F>(), ...); }
  (std::make_integer_sequence<int, family_count>{});
}

TEST_CASE("random sums over indices and loops of steps: the compositions read as x[i], and as a step") {
  []<int... F>(std::integer_sequence<int, F...>) { (check_indices_and_steps<F>(), ...); }
  (std::make_integer_sequence<int, index_families>{});
}
