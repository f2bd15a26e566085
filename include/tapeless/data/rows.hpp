// SPDX-License-Identifier: BSL-1.0
// tapeless/data/rows.hpp: tl::rows, columns of data of run-time length read as rows.
//
// A sum over data points is a sum over rows of columns: times and measurements, feature vectors and
// labels. tl::rows zips such columns without copying them; row i is (c1[i], c2[i], ...). A column is
// a contiguous run of numbers (float or double) or of fixed-shape tl::matrix rows, held as a pointer
// and the row count, or the rows of a matrix whose column count is known at compile time, read in
// place (data/rows_of_matrices.hpp). A matrix whose column count is known at run time only is not read:
// as a run of numbers it would be a column of N C numbers, which fails far from the cause. The columns
// must outlive the view, as the data of any view must.
#pragma once

#include <tapeless/data/rows_of_matrices.hpp>
#include <tapeless/matrix/matrix.hpp>

#include <concepts>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

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

/// The value of a row of a column of elements E: E, or the row type a computed column states.
template <class E>
constexpr auto row_value() {
  if constexpr (requires { typename E::row_type; })
    return std::type_identity<typename E::row_type>{};
  else
    return std::type_identity<E>{};
}
template <class E>
using row_value_t = typename decltype(row_value<E>())::type;

/// Whether tl::rows reads X as the rows of a matrix, each a tl::vector of its C columns: a matrix whose
/// C is fixed at compile time and above 1, or tl::row_vectors<C>(X).
template <class X>
concept matrix_rows_argument = is_row_vectors_view<X> ||(ordered_dense_matrix<X>&& int(X::ColsAtCompileTime) > 1) ||
                               (Matrix<X> && X::cols() > 1) ||
                               (RunTimeMatrix<X> && fixed_extent(X::cols_extent) && X::cols_extent > 1);

/// Whether X is a matrix with a run-time number of columns (not a vector): tl::rows refuses it.
template <class X>
concept run_time_columns = (ordered_dense_matrix<X> && int(X::ColsAtCompileTime) < 0 &&
                            int(X::RowsAtCompileTime) != 1) ||
                           (RunTimeMatrix<X> && !fixed_extent(X::cols_extent) && X::rows_extent != 1);

/// What tl::rows takes as a column: a contiguous column, the rows of a matrix, or (to be refused with
/// its fix) a matrix of run-time columns.
template <class X>
concept column_argument = column<X> || matrix_rows_argument<X> || run_time_columns<X>;

/// The column of a matrix of run-time columns, which tl::rows refuses: a view of it is never summed
/// over (transforms/sum_over.hpp stops at it), so that the refusal is the one error.
struct unread_column {
  static constexpr bool computed_rows = true;
  using row_type = double;
  constexpr unread_column operator+(std::size_t) const noexcept { return *this; }
};

/// A column as tl::rows reads it: where it starts, and its length.
template <class E>
struct column_read {
  column_start_t<E> start;
  std::size_t length;
};

/// Reads argument x of tl::rows, its column k (from 1, for the errors).
template <class X>
constexpr auto read_column(const X& x, std::size_t k) {
  const auto name = [k] { return "tl::rows: column " + std::to_string(k); };
  if constexpr (run_time_columns<X>) {
    return column_read<unread_column>{{}, 0};
  } else if constexpr (is_row_vectors_view<X>) {
    return column_read<decltype(x.column())>{x.column(), x.size()};
  } else if constexpr (matrix_rows_argument<X>) {
    constexpr std::size_t c = [] {
      if constexpr (Matrix<X>)
        return X::cols();
      else if constexpr (RunTimeMatrix<X>)
        return X::cols_extent;
      else
        return static_cast<std::size_t>(X::ColsAtCompileTime);
    }();
    const auto view = read_matrix_rows<c>(x, name);
    return column_read<decltype(view.column())>{view.column(), view.size()};
  } else {
    using E = column_element_t<X>;
    if (!column_is_contiguous(x))
      throw std::invalid_argument(name() + " is strided; a column's elements must be adjacent");
    return column_read<E>{static_cast<const E*>(x.data()), static_cast<std::size_t>(x.size())};
  }
}

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

namespace detail {

/// The columns read as one view. Throws std::invalid_argument, naming both lengths, where a column's
/// length differs from the first's.
template <class First, class... E>
constexpr rows_view<First, E...> zip_columns(const column_read<First>& first, const column_read<E>&... more) {
  std::size_t k = 1;
  [[maybe_unused]] const auto check = [&](std::size_t length) {
    ++k;
    if (length != first.length)
      throw std::invalid_argument("tl::rows: column " + std::to_string(k) + " has " + std::to_string(length) +
                                  " rows where column 1 has " + std::to_string(first.length));
  };
  (check(more.length), ...);
  return rows_view<First, E...>(first.length, first.start, more.start...);
}

/// The columns x... read as one view.
template <class... X, std::size_t... K>
constexpr auto read_columns(std::index_sequence<K...>, const X&... x) {
  return zip_columns(read_column(x, K + 1)...);
}

}  // namespace detail

/// The columns c... read as rows, without copying them: row i is (c1[i], c2[i], ...), to sum over with
/// tl::sum_over or tl::mean_over. A column is
/// - a contiguous range of float or double (std::vector, std::span, std::array, Eigen::VectorXd or a
///   map of one, a tl::vector);
/// - a contiguous range of fixed-shape tl::matrix rows (std::vector<tl::vector<double, 8>>);
/// - a matrix, read as its rows, each a tl::vector<T, C>, in place in either storage order: an Eigen
///   matrix whose C is fixed at compile time (Eigen::Matrix<double, Eigen::Dynamic, 3>, row- or
///   column-major, its maps and refs), a tl::matrix<T, R, C> (R rows), or tl::row_vectors<C>(X) for a
///   matrix whose column count is known at run time only (Eigen::MatrixXd), which tl::rows refuses at
///   compile time.
/// Throws std::invalid_argument, naming both lengths, where two columns differ in length, and where a
/// column is strided (a map with an inner stride).
///
///   auto loss = [&](const auto& a, const auto& b) {
///     return tl::sum_over(tl::rows(t, y), [](auto ti, auto yi, const auto& a, const auto& b) {
///       return tl::square(a * ti + b - yi);
///     }, a, b);
///   };
template <class... C>
  requires(sizeof...(C) > 0)
&&(detail::column_argument<C>&&...) constexpr auto rows(const C&... c) {
  static_assert((!detail::run_time_columns<C> && ...),
                "tl::rows(X, ...): X has a run-time number of columns; state it with tl::row_vectors<C>(X)");
  return detail::read_columns(std::index_sequence_for<C...>{}, c...);
}

}  // namespace tapeless
