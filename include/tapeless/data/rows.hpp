// SPDX-License-Identifier: BSL-1.0
// tapeless/data/rows.hpp: tl::rows, columns of data of run-time length read as rows.
//
// A sum over data points is a sum over rows of columns: times and measurements, feature vectors and
// labels. tl::rows zips such columns without copying them; row i is (c1[i], c2[i], ...). A column is
// a contiguous run of numbers (float or double) or of fixed-shape tl::matrix rows, held as a pointer
// and the row count. The columns must outlive the view, as the data of any view must.
#pragma once

#include <tapeless/matrix/matrix.hpp>

#include <concepts>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

namespace tapeless {

namespace detail {

/// What a column's elements may be: numbers, or fixed-shape matrices of numbers.
template <class E>
concept row_element = std::same_as<E, float> || std::same_as<E, double> ||(Matrix<E>&& Real<typename E::value_type>);

/// The element type of a contiguous column: what `data()` points at, without const.
template <class C>
using column_element_t = std::remove_cv_t<std::remove_pointer_t<decltype(std::declval<const C&>().data())>>;

/// A column: anything contiguous that states its `data()` and `size()` (std::vector, std::array,
/// std::span, Eigen's vectors and maps of them), of numbers or of fixed-shape matrices.
template <class C>
concept column = requires(const C& c) {
  { c.data() } -> std::convertible_to<const void*>;
  c.size();
}
&&row_element<column_element_t<C>>;

/// The elements of a column must be adjacent in memory: a strided Eigen map is not.
template <class C>
constexpr bool column_is_contiguous(const C& c) {
  if constexpr (requires { c.innerStride(); })
    return c.size() <= 1 || c.innerStride() == 1;
  else
    return true;
}

/// Where a column of a rows_view starts: a pointer to its first element, or, for a column that computes
/// its rows instead of holding them (an index, data/indices.hpp, which states computed_rows), the column
/// itself; either moves on k rows by `+ k`.
template <class E>
struct column_start {
  using type = const E*;
};
template <class E>
  requires(E::computed_rows)
struct column_start<E> {
  using type = E;
};
template <class E>
using column_start_t = typename column_start<E>::type;

}  // namespace detail

/// Columns of data of run-time length, read as rows: row i is (column<0>()[i], column<1>()[i], ...).
/// It copies nothing; it points at the columns it was made from.
template <class... E>
class rows_view {
 public:
  static constexpr std::size_t columns = sizeof...(E);

  constexpr explicit rows_view(std::size_t count, detail::column_start_t<E>... data) noexcept
      : count_(count), data_(data...) {}

  /// The number of rows.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return count_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return count_ == 0; }

  /// The first element of column K (a computed column: the column, from this view's first row).
  template <std::size_t K>
  [[nodiscard]] constexpr auto column() const noexcept {
    return std::get<K>(data_);
  }

  /// The rows [begin, begin + count) of the same columns.
  [[nodiscard]] constexpr rows_view part(std::size_t begin, std::size_t count) const noexcept {
    return std::apply([&](detail::column_start_t<E>... data) { return rows_view(count, (data + begin)...); }, data_);
  }

 private:
  std::size_t count_;
  std::tuple<detail::column_start_t<E>...> data_;
};

/// The columns c... read as rows, without copying them: row i is (c1[i], c2[i], ...), to sum over with
/// tl::sum_over or tl::mean_over. A column is a contiguous range of float or double (std::vector,
/// std::span, std::array, Eigen::VectorXd or a map of one) or of fixed-shape tl::matrix rows
/// (std::vector<tl::vector<double, 8>>). Throws std::invalid_argument, naming both lengths, where two
/// columns differ in length.
///
///   auto loss = [&](const auto& a, const auto& b) {
///     return tl::sum_over(tl::rows(t, y), [](auto ti, auto yi, const auto& a, const auto& b) {
///       return tl::square(a * ti + b - yi);
///     }, a, b);
///   };
template <class C, class... More>
  requires detail::column<C> &&(detail::column<More>&&...) constexpr auto rows(const C& first, const More&... more) {
    const auto count = static_cast<std::size_t>(first.size());
    std::size_t k = 1;
    [[maybe_unused]] const auto check = [&](const auto& c) {
      const auto length = static_cast<std::size_t>(c.size());
      if (length != count)
        throw std::invalid_argument("tl::rows: column " + std::to_string(k + 1) + " has " + std::to_string(length) +
                                    " rows where column 1 has " + std::to_string(count));
      if (!detail::column_is_contiguous(c))
        throw std::invalid_argument("tl::rows: column " + std::to_string(k + 1) +
                                    " is strided; a column's elements must be adjacent");
      ++k;
    };
    if (!detail::column_is_contiguous(first))
      throw std::invalid_argument("tl::rows: column 1 is strided; a column's elements must be adjacent");
    (check(more), ...);
    return rows_view<detail::column_element_t<C>, detail::column_element_t<More>...>(
        count, static_cast<const detail::column_element_t<C>*>(first.data()),
        static_cast<const detail::column_element_t<More>*>(more.data())...);
  }

}  // namespace tapeless
