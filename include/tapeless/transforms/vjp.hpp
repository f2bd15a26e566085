// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/vjp.hpp: vjp(f, args...), the value of f and its pullback u -> u^T J.
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/expression.hpp>
#include <tapeless/interop/eigen.hpp>
#include <tapeless/transforms/grad.hpp>
#include <tapeless/transforms/run_time_reduction.hpp>

#include <functional>
#include <tuple>
#include <utility>

namespace tapeless {

namespace detail {
/// u -> u^T J at the point it was made at. It keeps f and copies of the arguments, not a tape: each
/// call runs f once more and sweeps back from u, so it costs one gradient and allocates nothing.
/// Args are the caller's types: an Eigen argument is kept as its tl::matrix, and its part of u^T J
/// comes back as its own type. Where f returns an array of run-time extents (a formula over them),
/// u^T J is the gradient of tl::dot(f(args...), u): one sum over f's elements, u read in place.
template <class F, class... Args>
struct pullback {
  F f;
  std::tuple<owned_engine_t<Args>...> args;

  template <class U>
  constexpr auto operator()(const U& u) const {
    using R = decltype(std::apply(f, args));
    return gradient_as_caller<Args...>(
        std::index_sequence_for<Args...>{},
        std::apply(
            [&](const auto&... a) {
              if constexpr (RunTimeArray<R>) {
                const auto dot_u = [&](const auto&... x) {
                  return ::tapeless::dot(std::invoke(f, x...), ::tapeless::cref(u));
                };
                return gradient_transform<decltype(dot_u), false, false>{dot_u}.pull_back(1.0, a...);
              } else {
                return gradient_transform<F, false, false>{f}.pull_back(u, a...);
              }
            },
            args));
  }
};
}  // namespace detail

/// vjp(f, args...) returns std::pair{f(args...), pullback}; pullback(u), for u of the type of f's
/// result, is u^T J: for one argument a value of its type, for several a std::tuple of them. Arguments
/// of run-time extents too: the pullback keeps a copy of each (its heap, for a tl::dynamic one or an
/// Eigen object; none for tl::bounded). f may return an array of run-time extents (its value comes back
/// as a tl::matrix of them), and u is then one of its shape (std::invalid_argument if not).
template <class F, class... Args>
constexpr auto vjp(F f, const Args&... args) {
  static_assert(sizeof...(Args) > 0 && (... && (Real<Args> || Matrix<Args> || detail::run_time_argument<Args> ||
                                                detail::eigen_argument<Args>)),
                "tl::vjp(f, args...): every argument must be a floating-point number or a tl::matrix of them (or an "
                "Eigen matrix of them)");
  if constexpr (sizeof...(Args) > 0 && (... && (Real<Args> || Matrix<Args> || detail::run_time_argument<Args> ||
                                                detail::eigen_argument<Args>))) {
    std::tuple<detail::owned_engine_t<Args>...> engine_args{detail::as_owned_engine(args)...};
    // An expression of constants, or a formula over arrays of run-time extents, gives its value.
    auto value =
        detail::value_of_result(std::apply([&](const auto&... a) { return std::invoke(f, a...); }, engine_args));
    return std::pair{std::move(value), detail::pullback<F, Args...>{std::move(f), std::move(engine_args)}};
  }
}

}  // namespace tapeless
