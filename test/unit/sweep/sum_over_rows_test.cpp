// SPDX-License-Identifier: BSL-1.0
// The loop of a sum over rows (sweep/sum_over_rows.hpp) below tl::sum_over: which terms run on SIMD
// batches of rows, told by the operations' option `batches_rows` (operation/traits.hpp) and not by
// their types; and what each of `wanted`'s three sums computes. The sums themselves, at every row
// count, are tested through tl::sum_over (unit/transforms/sum_over/).
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace tl = tapeless;
namespace d = tapeless::detail;

namespace {

/// Operations that state the option, and that do not.
struct stated_batches_rows {
  static constexpr tl::operation_traits traits{.name = "stated", .batches_rows = true};
};
struct unstated {
  static constexpr tl::operation_traits traits{.name = "unstated"};
};

static_assert(d::runs_on_row_batches<stated_batches_rows>);
static_assert(!d::runs_on_row_batches<unstated>);
// The reductions and products whose loops are plain sums of products state it; the others do not.
static_assert(d::runs_on_row_batches<tl::ops::dot> && d::runs_on_row_batches<tl::ops::sum> &&
              d::runs_on_row_batches<tl::ops::mean>);
static_assert(!d::runs_on_row_batches<tl::ops::prod> && !d::runs_on_row_batches<tl::ops::norm>);
// A scalar operation applied to each element runs on batches where the scalar operation does.
static_assert(d::runs_on_row_batches<d::elementwise_unary<stated_batches_rows>>);
static_assert(!d::runs_on_row_batches<d::elementwise_unary<unstated>>);
static_assert(d::runs_on_row_batches<d::elementwise_binary<stated_batches_rows>>);
static_assert(!d::runs_on_row_batches<d::elementwise_binary<unstated>>);

template <class E>
constexpr bool batches(const E&) {
  return d::term_batches(std::type_identity<E>{});
}

/// A row's leaves and a parameter's, as the loop builds them.
using v3 = tl::matrix<double, 3, 1>;
const v3 x{1.0, 2.0, 3.0};
const tl::constant<double> t(0.5);
const tl::constant_ref<v3> xi(x);
const tl::argument<d::parameter_slot, double> a(2.0);
const tl::argument<d::parameter_slot + 1, v3> w(x);

/// The sum of S10's term, a (e^(-b t) - y)^2, over three rows, by the loop for `Wanted`.
template <d::wanted Wanted>
d::rows_sum<double, double, double> decay_sum() {
  static const std::vector<double> times{0.0, 0.5, 1.0}, ys{1.0, 0.6, 0.4};
  const auto body = [](const auto& ti, const auto& yi, const auto& a, const auto& b) {
    return a * tl::square(tl::exp(-b * ti) - yi);
  };
  return d::sum_rows<Wanted, double>(tl::rows(times, ys), body, d::plain_tuple<double, double>{{1.5}, {0.7}});
}

}  // namespace

TEST_CASE("a term runs on batches of rows where every operation in it does") {
  CHECK(batches(a * tl::exp(-a * t)));
  CHECK(batches(tl::square(a - t)));
  CHECK(batches(tl::dot(w, xi)));
  CHECK(batches(tl::sum(tl::exp(w)) + tl::mean(w - xi)));
  CHECK_FALSE(batches(tl::prod(w)));
  CHECK_FALSE(batches(a * tl::prod(w)));
}

TEST_CASE("each of wanted's sums computes what it names, with the same bits") {
  const auto both = decay_sum<d::wanted::both>();
  const auto value = decay_sum<d::wanted::value>();
  const auto partials = decay_sum<d::wanted::partials>();
  CHECK(both.value == value.value);
  CHECK(d::plain_get<0>(both.partials) == d::plain_get<0>(partials.partials));
  CHECK(d::plain_get<1>(both.partials) == d::plain_get<1>(partials.partials));
  CHECK(d::plain_get<0>(both.partials) != 0.0);
  // What is not computed is +0: the finished sum of no terms.
  CHECK(partials.value == 0.0);
  CHECK_FALSE(std::signbit(partials.value));
  CHECK(d::plain_get<0>(value.partials) == 0.0);
  CHECK(d::plain_get<1>(value.partials) == 0.0);
}
