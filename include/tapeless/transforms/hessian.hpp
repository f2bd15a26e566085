// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/hessian.hpp: hessian(f), every second derivative of a scalar f, forward over reverse.
//
// Column j of the Hessian is the derivative of the gradient along e_j: a reverse sweep of f run with
// dual numbers whose tangent is e_j. Each sweep carries 8 such directions at once (tangents<T, 8>,
// math/dual.hpp), so a function of n numbers costs n / 8 sweeps, each of them some 8 tangent lanes
// wide; no tape and no heap, and the whole Hessian can be a constant expression.
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/transforms/blocks.hpp>
#include <tapeless/transforms/grad.hpp>
#include <tapeless/transforms/tangent.hpp>

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

/// The table of blocks d2f / d(arg R) d(arg C), a tuple of rows.
template <class ArgTuple, class Rows, class Cols>
struct block_table;
template <class ArgTuple, std::size_t... R, std::size_t... C>
struct block_table<ArgTuple, std::index_sequence<R...>, std::index_sequence<C...>> {
  template <std::size_t Row>
  using row = std::tuple<block_t<std::tuple_element_t<Row, ArgTuple>, std::tuple_element_t<C, ArgTuple>>...>;
  using type = std::tuple<row<R>...>;
};

template <class F, std::size_t... I>
struct hessian_transform {
  F f;

  template <class... Args>
  constexpr auto operator()(const Args&... args) const {
    if constexpr (any_eigen<Args...> || any_eigen_of_run_time_size<Args...>) {
      // Eigen arguments go in as tl::matrix (or views of run-time size), and each block involving one
      // comes back as an Eigen matrix.
      using Result = decltype((*this)(as_engine(args)...));
      if constexpr (!std::is_same_v<Result, failed_call>)
        return as_caller_table(selected_sequence<sizeof...(Args), I...>{}, (*this)(as_engine(args)...), args...);
    } else {
      return table_of(args...);
    }
  }

 private:
  // The block or table of blocks of the arguments args... at positions S..., as the caller's types.
  template <std::size_t... S, class Table, class... Args>
  static constexpr auto as_caller_table(std::index_sequence<S...> selected, const Table& table, const Args&... args) {
    const std::tuple<const Args&...> arg_refs{args...};
    if constexpr (sizeof...(S) == 1)
      return blocks_as_caller(selected, table, &std::get<S>(arg_refs)..., args...);
    else
      return std::apply(
          [&](const auto&... row) {
            return std::tuple{blocks_as_caller(selected, row, &std::get<S>(arg_refs), args...)...};
          },
          table);
  }

  template <class... Args>
  constexpr auto table_of(const Args&... args) const {
    static_assert(sizeof...(Args) > 0 && (... && (Real<Args> || Matrix<Args> || detail::run_time_argument<Args>)),
                  "tl::hessian(f)(args...): every argument must be a floating-point number (write 1.0, not 1) or a "
                  "tl::matrix of them (or an Eigen matrix of them)");
    if constexpr (sizeof...(Args) > 0 && (... && (Real<Args> || Matrix<Args> || RunTimeMatrix<Args>)))
      return columns(selected_sequence<sizeof...(Args), I...>{}, args...);
    else
      return failed_call{};
  }

  template <std::size_t... S, class... Args>
  constexpr auto columns(std::index_sequence<S...> selected, const Args&... args) const {
    constexpr std::size_t m = sizeof...(S);
    constexpr std::size_t position[] = {S...};
    const std::tuple<const Args&...> arg_refs{args...};
    // Row R of the table: the blocks d2f / d(arg R) d(arg C) for every selected C, zero and of their
    // arguments' element counts.
    auto zero_row = [&]<std::size_t R>(std::integral_constant<std::size_t, R>) {
      return std::tuple{zero_block(std::get<R>(arg_refs), std::get<S>(arg_refs))...};
    };
    typename block_table<std::tuple<Args...>, decltype(selected), decltype(selected)>::type table{
        zero_row(std::integral_constant<std::size_t, S>{})...};
    const gradient_transform<F, false, false, I...> grad_f{f};
    // Columns c0 ... c0 + C - 1 of argument K's blocks: the tangents of every selected gradient, from
    // one sweep with elements c0 ... c0 + C - 1 of argument K moving, one along each lane.
    auto fill = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
      constexpr std::size_t P = position[K];
      using X = std::tuple_element_t<P, std::tuple<Args...>>;
      constexpr std::size_t C = RunTimeMatrix<X> ? chunk_size : std::min(size_of<X>, chunk_size);
      const std::size_t n = element_count(std::get<P>(arg_refs));
      for (std::size_t c0 = 0; c0 < n; c0 += C) {
        const auto moved =
            as_tuple<m>(std::apply(grad_f, chunk_seeded_at<P, C>(c0, std::index_sequence_for<Args...>{}, args...)));
        [&]<std::size_t... R>(std::index_sequence<R...>) {
          (set_columns(std::get<K>(std::get<R>(table)), c0, std::get<R>(moved)), ...);
        }
        (std::make_index_sequence<m>{});
      }
    };
    [&]<std::size_t... K>(std::index_sequence<K...>) { (fill(std::integral_constant<std::size_t, K>{}), ...); }
    (std::make_index_sequence<m>{});
    if constexpr (m == 1)
      return std::get<0>(std::get<0>(table));
    else
      return table;
  }
};

}  // namespace detail

/// hessian(f)(args...): the second derivatives of the scalar function f. For one argument, a number
/// for a number and an n x n matrix for a matrix of n elements (row-major); for several, a std::tuple
/// of rows of blocks, std::get<k>(std::get<i>(H)) = d2f / d(arg i) d(arg k), each block a number or a
/// matrix of size(arg i) x size(arg k), of tl::dynamic extents along an argument of run-time extents.
/// hessian<I...>(f) takes the arguments at positions I... only. It costs one gradient sweep in dual
/// numbers per 8 selected elements (detail::chunk_size).
template <std::size_t... I, class F>
constexpr auto hessian(F f) {
  return detail::hessian_transform<F, I...>{std::move(f)};
}

}  // namespace tapeless
