// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/jacobian.hpp: jacobian(f), every first derivative of a number- or matrix-valued f.
//
// With n input elements and m output elements, the Jacobian takes n / 8 forward evaluations in dual
// numbers carrying 8 directions (8 columns each) or m reverse sweeps (a row each); it takes forward
// when n <= m, reverse otherwise.
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/expression.hpp>
#include <tapeless/transforms/blocks.hpp>
#include <tapeless/transforms/grad.hpp>
#include <tapeless/transforms/jvp.hpp>
#include <tapeless/transforms/run_time_reduction.hpp>
#include <tapeless/transforms/tangent.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

template <class F, std::size_t... I>
struct jacobian_transform {
  F f;

  template <class... Args>
  constexpr auto operator()(const Args&... args) const {
    if constexpr (any_eigen<Args...> || any_eigen_of_run_time_size<Args...>) {
      // Eigen arguments go in as tl::matrix (or views of run-time size); f's result is the engine's, so
      // the rows keep its order.
      using Result = decltype((*this)(as_engine(args)...));
      if constexpr (!std::is_same_v<Result, failed_call>)
        return blocks_as_caller(selected_sequence<sizeof...(Args), I...>{}, (*this)(as_engine(args)...),
                                static_cast<const engine_order*>(nullptr), args...);
    } else {
      return blocks_of(args...);
    }
  }

 private:
  template <class... Args>
  constexpr auto blocks_of(const Args&... args) const {
    static_assert(sizeof...(Args) > 0 && (... && (Real<Args> || Matrix<Args> || detail::run_time_argument<Args>)),
                  "tl::jacobian(f)(args...): every argument must be a floating-point number (write 1.0, not 1) or a "
                  "tl::matrix of them (or an Eigen matrix of them)");
    if constexpr (sizeof...(Args) > 0 && (... && (Real<Args> || Matrix<Args> || RunTimeMatrix<Args>))) {
      // f may return an expression of constants (tl::cref data), or a formula over arrays of run-time
      // extents: its value is the result.
      using Y = std::remove_cvref_t<decltype(value_of_result(std::invoke(f, args...)))>;
      static_assert(Data<Y> || RunTimeMatrix<Y>,
                    "tl::jacobian(f): f must return a number or a tl::matrix (of fixed or run-time extents)");
      if constexpr (Data<Y> || RunTimeMatrix<Y>)
        return blocks<Y>(selected_sequence<sizeof...(Args), I...>{}, args...);
      else
        return failed_call{};
    } else {
      return failed_call{};
    }
  }

  template <class Y, std::size_t... S, class... Args>
  constexpr auto blocks(std::index_sequence<S...>, const Args&... args) const {
    using ArgTuple = std::tuple<Args...>;
    constexpr std::size_t m = sizeof...(S);
    constexpr std::size_t position[] = {S...};
    const std::tuple<const Args&...> arg_refs{args...};
    // An output of run-time extents is sized by one evaluation of f on the arguments' values.
    const Y y = [&] {
      if constexpr (RunTimeMatrix<Y>)
        return value_of_result(std::invoke(f, args...));
      else
        return Y{};
    }();
    std::tuple<block_t<Y, std::tuple_element_t<S, ArgTuple>>...> J{zero_block(y, std::get<S>(arg_refs))...};
    // Forward: columns c0 ... c0 + C - 1 of argument K, the derivatives of f along e_c0 ... of K, from
    // one evaluation carrying them in C lanes.
    auto forward = [&] {
      auto fill = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
        constexpr std::size_t P = position[K];
        using X = std::tuple_element_t<P, ArgTuple>;
        constexpr std::size_t C = RunTimeMatrix<X> ? chunk_size : std::min(size_of<X>, chunk_size);
        const std::size_t n = element_count(std::get<P>(arg_refs));
        for (std::size_t c0 = 0; c0 < n; c0 += C)
          set_columns(
              std::get<K>(J), c0,
              value_of_result(std::apply(f, chunk_seeded_at<P, C>(c0, std::index_sequence_for<Args...>{}, args...))));
      };
      [&]<std::size_t... K>(std::index_sequence<K...>) { (fill(std::integral_constant<std::size_t, K>{}), ...); }
      (std::make_index_sequence<m>{});
    };
    // Reverse: row r is the gradient of output element r, one sweep from the seed e_r.
    auto reverse = [&] {
      if constexpr (!RunTimeMatrix<Y>) {
        const gradient_transform<F, false, false, I...> grad_f{f};
        for (std::size_t r = 0; r < size_of<Y>; ++r) {
          const auto rows = as_tuple<m>(grad_f.pull_back(unit_element<Y>(r), args...));
          [&]<std::size_t... K>(std::index_sequence<K...>) { (set_row(std::get<K>(J), r, std::get<K>(rows)), ...); }
          (std::make_index_sequence<m>{});
        }
      }
    };
    // Forward where there are at most as many inputs as outputs: known at compile time for fixed shapes.
    // An output of run-time extents is always forward: f then runs on dual numbers, and its formulas
    // are values; a sweep back from each output element would need its formula as a node.
    const bool forward_mode = [&] {
      if constexpr (RunTimeMatrix<Y>)
        return true;
      else if constexpr (!(RunTimeMatrix<Args> || ...))
        return (size_of<std::tuple_element_t<S, ArgTuple>> + ...) <= size_of<Y>;
      else
        return (element_count(std::get<S>(arg_refs)) + ...) <= size_of<Y>;
    }();
    if (forward_mode)
      forward();
    else
      reverse();
    return unwrap<m>(std::move(J));
  }
};

}  // namespace detail

/// jacobian(f)(args...): the derivatives of f's result (a number or a matrix, m elements) with respect
/// to its arguments. For one argument of n elements, an m x n matrix (a number when both are numbers;
/// a tl::matrix<T, m, tl::dynamic> of n columns for an argument of run-time extents);
/// for several, a std::tuple of such blocks in argument order. jacobian<I...>(f) takes the arguments
/// at positions I... only.
template <std::size_t... I, class F>
constexpr auto jacobian(F f) {
  return detail::jacobian_transform<F, I...>{std::move(f)};
}

}  // namespace tapeless
