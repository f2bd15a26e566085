// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/jvp.hpp: jvp(f, primals, tangents), the value of f and its derivative along a
// direction, in one forward evaluation with dual numbers.
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/expression.hpp>
#include <tapeless/interop/eigen.hpp>
#include <tapeless/transforms/run_time_reduction.hpp>
#include <tapeless/transforms/tangent.hpp>

#include <cstddef>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {
/// (value, tangent) of what f returned in dual numbers; a result that depends on no argument stays a
/// plain number or matrix, whose tangent is 0.
template <class Out>
constexpr auto split_dual(const Out& out) {
  if constexpr (is_dual<Out> || ((Matrix<Out> || RunTimeMatrix<Out>)&&is_dual<scalar_of_t<Out>>))
    return std::pair{primal_part(out), tangent_part(out)};
  else if constexpr (RunTimeMatrix<Out>)
    return std::pair{out, Out(out.rows(), out.cols())};
  else
    return std::pair{out, Out{}};
}

/// jvp for the engine's own types.
template <class F, class... X, class... V>
constexpr auto jvp_of(const F& f, const std::tuple<X...>& primals, const std::tuple<V...>& tangents) {
  static_assert(sizeof...(X) > 0 && (... && (Real<X> || Matrix<X> || detail::run_time_argument<X>)),
                "tl::jvp(f, primals, tangents): every primal must be a floating-point number or a tl::matrix of them "
                "(or an Eigen matrix of them)");
  static_assert(sizeof...(X) == sizeof...(V), "tl::jvp(f, primals, tangents): give one tangent per primal");
  if constexpr (sizeof...(X) == sizeof...(V)) {
    static_assert((std::is_same_v<X, V> && ...),
                  "tl::jvp(f, primals, tangents): each tangent must have its primal's type");
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      // f may return an expression of constants (tl::cref data): its value is the result.
      return detail::split_dual(detail::value_of_result(
          std::invoke(f, detail::with_tangent(std::get<K>(primals), std::get<K>(tangents))...)));
    }
    (std::index_sequence_for<X...>{});
  } else {
    return std::pair<failed_call, failed_call>{};  // (value, J v), after the message above: no other
  }
}
}  // namespace detail

/// jvp(f, std::tuple{x...}, std::tuple{v...}) returns std::pair{f(x...), J v}: f's value and its
/// derivative along v (one v per argument, each of its argument's type), from one evaluation.
template <class F, class... X, class... V>
constexpr auto jvp(const F& f, const std::tuple<X...>& primals, const std::tuple<V...>& tangents) {
  if constexpr ((detail::any_eigen<X...> || detail::any_eigen_of_run_time_size<X...>)&&sizeof...(X) == sizeof...(V) &&
                (std::is_same_v<X, V> && ...)) {
    // Eigen primals and their tangents go in as tl::matrix; f's result, and so J v, is the engine's.
    auto engine = [](const auto& values) {
      return std::apply(
          [](const auto&... v) { return std::tuple<detail::owned_engine_t<X>...>{detail::as_owned_engine(v)...}; },
          values);
    };
    return jvp(f, engine(primals), engine(tangents));
  } else {
    return detail::jvp_of(f, primals, tangents);
  }
}

}  // namespace tapeless
