// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/into.hpp: tl::into, gradients written into the caller's storage.
//
// grad(f, into(g...))(args...) writes the gradient of each differentiated argument into its target
// and returns nothing; value_and_grad(f, into(g...)) returns f's value. A target is a tl::matrix of
// the argument's shape, a number for a number, an Eigen matrix or vector of any size (fixed or set at
// run time), or a std::span. Every target's size is checked before f is evaluated, so a wrong one
// throws std::invalid_argument and leaves every target as it was.
#pragma once

#include <tapeless/interop/eigen.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/meta/selected.hpp>
#include <tapeless/transforms/grad.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

template <class T>
inline constexpr bool is_span = false;
template <class T, std::size_t N>
inline constexpr bool is_span<std::span<T, N>> = true;

/// A target held by value rather than by reference: a view, writing through to storage it does not own
/// (std::span, an Eigen Map or Ref), which may be made in the call of tl::into.
template <class T>
concept target_view = is_span<T> ||(eigen_dense<T> && !std::is_same_v<eigen_plain_t<T>, T>);

/// An Eigen vector, one row or one column at compile time: a flat target, indexed by one number.
template <class T>
concept eigen_vector = eigen_dense<T> &&(T::RowsAtCompileTime == 1 || T::ColsAtCompileTime == 1);

/// What tl::into writes a gradient into.
template <class T>
concept gradient_target = std::floating_point<T> || Matrix<T> || RunTimeMatrix<T> || eigen_dense<T> ||
    (is_span<T>&& std::floating_point<typename T::element_type> && !std::is_const_v<typename T::element_type>);

/// Rows and columns of an argument a, as the caller sees it: of its type, or of a at run time.
template <class A>
constexpr std::pair<std::size_t, std::size_t> shape_of_argument(const A& a) {
  if constexpr (eigen_argument<A>)
    return {std::size_t(A::RowsAtCompileTime), std::size_t(A::ColsAtCompileTime)};
  else if constexpr (Matrix<A>)
    return {A::rows(), A::cols()};
  else if constexpr (RunTimeMatrix<A> || eigen_run_time_argument<A>)
    return {std::size_t(a.rows()), std::size_t(a.cols())};
  else
    return {1, 1};
}

/// Whether target t can take the gradient of an argument of `shape`: a number or a tl::matrix of
/// fixed shape is checked at compile time, the others here. A flat target (a span, an Eigen vector)
/// takes the gradient's elements in the argument's storage order; an Eigen matrix of its shape takes
/// them by (i, j).
template <class T>
constexpr bool fits(const T& t, std::pair<std::size_t, std::size_t> shape) {
  const std::size_t size = shape.first * shape.second;
  if constexpr (is_span<T>) {
    return t.size() == size;
  } else if constexpr (eigen_dense<T>) {
    const bool same_shape = std::size_t(t.rows()) == shape.first && std::size_t(t.cols()) == shape.second;
    return same_shape || (eigen_vector<T> && std::size_t(t.rows() * t.cols()) == size);
  } else if constexpr (RunTimeMatrix<T>) {
    return t.rows() == shape.first && t.cols() == shape.second;
  } else {
    return true;
  }
}

/// The size of target t, for the message of one that does not fit.
template <class T>
std::string size_text(const T& t) {
  if constexpr (is_span<T>)
    return "a span of " + std::to_string(t.size());
  else if constexpr (eigen_dense<T> || RunTimeMatrix<T>)
    return std::to_string(t.rows()) + " x " + std::to_string(t.cols());
  else
    return "of the argument's type";  // checked at compile time: never printed
}

/// g, the gradient of an argument of type A in the engine's type, written into target t.
template <class A, class T, class G>
constexpr void write_gradient(T& t, const G& g) {
  if constexpr (!gradient_target<T>) {
    return;  // tl::into has said why, in one sentence
  } else if constexpr (!Matrix<G> && !RunTimeMatrix<G>) {
    if constexpr (is_span<T>)
      t[0] = g;
    else if constexpr (eigen_dense<T>)
      t(0, 0) = g;
    else if constexpr (std::is_same_v<T, G>)
      t = g;
  } else if constexpr (std::is_same_v<T, G> && RunTimeMatrix<G>) {
    std::copy(g.begin(), g.end(), t.begin());  // of one shape (fits() has said so): no allocation
  } else if constexpr (std::is_same_v<T, G>) {
    t = g;
  } else if constexpr (is_span<T> || eigen_dense<T>) {
    // An Eigen target of the gradient's shape by (i, j); else a vector, and a span, in A's storage order
    // (fits() has let no other through). The extents are the gradient's, constants where it has a
    // fixed shape.
    const std::size_t rows = g.rows(), cols = g.cols();
    bool by_element = true;
    if constexpr (eigen_vector<T>) by_element = std::size_t(t.rows()) == rows && std::size_t(t.cols()) == cols;
    for (std::size_t k = 0; k < g.size(); ++k) {
      std::size_t to = k;
      if constexpr (eigen_argument<A>)
        to = storage_index<A>(k);
      else if constexpr (eigen_run_time_argument<A>)
        to = storage_index_in<A>(k, rows, cols);
      if constexpr (is_span<T>)
        t[to] = g[k];
      else if (by_element)
        t(eigen_index(k / cols), eigen_index(k % cols)) = g[k];
      else if constexpr (eigen_vector<T>)
        t(eigen_index(to)) = g[k];
    }
  }
}

/// The room of the result that into_transform copies into its targets: the heap, or f's workspace.
template <class F>
struct result_room {
  constexpr explicit result_room(const F& /*f*/) noexcept {}
};
template <class F>
struct result_room<with_workspace<F>> : result_in_workspace {
  explicit result_room(const with_workspace<F>& f) : result_in_workspace(*f.ws) {}
};

/// The callable grad(f, into(g...)) and value_and_grad(f, into(g...)) return.
template <class F, bool WithValue, class Targets, std::size_t... I>
struct into_transform {
  gradient_transform<F, WithValue, false, I...> gradient;
  mutable Targets targets;  // writable through a view held by value (an Eigen Map) in a const call

  template <class... Args>
  constexpr auto operator()(const Args&... args) const {
    return write(selected_sequence<sizeof...(Args), I...>{}, std::index_sequence_for<Args...>{}, args...);
  }

 private:
  template <std::size_t... S, std::size_t... P, class... Args>
  constexpr auto write(std::index_sequence<S...>, std::index_sequence<P...>, const Args&... args) const {
    using A = std::tuple<Args...>;
    constexpr std::size_t count = std::tuple_size_v<Targets>;
    static_assert(count == sizeof...(S),
                  "tl::into(g...): give one target per argument differentiated, in the order of the gradient");
    static_assert(!(Differentiable<Args> || ...),
                  "tl::into(g...): a gradient inside a function being differentiated is an expression; write "
                  "tl::grad(f) there");
    if constexpr (count == sizeof...(S) && !(Differentiable<Args> || ...)) {
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        (check_target<K, S>(std::get<K>(targets), std::get<S>(std::tie(args...))), ...);
      }
      (std::make_index_sequence<count>{});
      [[maybe_unused]] const result_room<F> room(gradient.f);  // outlives the result
      auto result = gradient(as_engine(args)...);
      auto& g = [&]() -> auto& {
        if constexpr (WithValue)
          return result.second;
        else
          return result;
      }
      ();
      if constexpr (count == 1) {
        write_gradient<std::tuple_element_t<S, A>...>(std::get<0>(targets), g);
      } else {
        [&]<std::size_t... K>(std::index_sequence<K...>) {
          (write_gradient<std::tuple_element_t<S, A>>(std::get<K>(targets), std::get<K>(g)), ...);
        }
        (std::make_index_sequence<count>{});
      }
      if constexpr (WithValue) return result.first;
    }
  }

  // Target K, for the argument at position P of type A: one that cannot fit at compile time stops
  // here, one that does not fit at run time throws before f is evaluated.
  template <std::size_t K, std::size_t P, class T, class A>
  static constexpr void check_target(const T& t, const A& a) {
    using G = matrix_of_view_t<engine_t<A>>;  // the gradient of a view is the tl::matrix it views
    constexpr bool compatible = !(Matrix<T> || RunTimeMatrix<T> || std::floating_point<T>) || std::is_same_v<T, G>;
    static_assert(compatible,
                  "tl::into(g...): a tl::matrix or number target must have its argument's type; for another shape "
                  "use an Eigen matrix or a std::span");
    const auto shape = shape_of_argument(a);
    if (!fits(t, shape)) {
      throw std::invalid_argument("tl::into: target " + std::to_string(K) + " is " + size_text(t) +
                                  ", but the gradient of argument " + std::to_string(P) + " is " +
                                  std::to_string(shape.first) + " x " + std::to_string(shape.second));
    }
  }
};

}  // namespace detail

/// The targets of tl::into: references to the caller's storage, views (spans, Eigen maps) by value.
template <class... T>
struct into_t {
  std::tuple<T...> targets;
};

/// into(g...): where grad or value_and_grad writes the gradient, one target per argument
/// differentiated, in the order of the gradient (argument order, or that of grad<I...>).
///
///   Eigen::VectorXd g(8);
///   tl::grad(f, tl::into(g))(x);   // x a tl::vector<double, 8>: g holds the gradient
template <class... T>
constexpr auto into(T&&... targets) {
  static_assert((detail::gradient_target<std::remove_cvref_t<T>> && ...),
                "tl::into(g...): a target is a number, a tl::matrix, an Eigen matrix or vector, or a std::span of "
                "numbers that are not const");
  static_assert(((std::is_lvalue_reference_v<T> || detail::target_view<std::remove_cvref_t<T>>)&&...),
                "tl::into(g...): a target must be a named object (the gradient is written into it), or a view "
                "such as std::span or Eigen::Map");
  static_assert(((!std::is_const_v<std::remove_reference_t<T>> || detail::target_view<std::remove_cvref_t<T>>)&&...),
                "tl::into(g...): a target must not be const");
  return into_t<T...>{std::tuple<T...>(std::forward<T>(targets)...)};
}

/// grad(f, into(g...))(args...) writes the gradient into g... and returns nothing.
template <std::size_t... I, class F, class... T>
constexpr auto grad(F f, into_t<T...> targets) {
  return detail::into_transform<F, false, std::tuple<T...>, I...>{{std::move(f)}, std::move(targets.targets)};
}

/// value_and_grad(f, into(g...))(args...) writes the gradient into g... and returns f's value.
template <std::size_t... I, class F, class... T>
constexpr auto value_and_grad(F f, into_t<T...> targets) {
  return detail::into_transform<F, true, std::tuple<T...>, I...>{{std::move(f)}, std::move(targets.targets)};
}

/// grad(f, into(g...), ws) and value_and_grad(f, into(g...), ws): the same, the sweep's intermediates
/// in the workspace ws (tl::grad(f, ws)).
template <std::size_t... I, class F, class... T>
constexpr auto grad(F f, into_t<T...> targets, workspace& ws) {
  return detail::into_transform<detail::with_workspace<F>, false, std::tuple<T...>, I...>{{{std::move(f), &ws}},
                                                                                          std::move(targets.targets)};
}
template <std::size_t... I, class F, class... T>
constexpr auto value_and_grad(F f, into_t<T...> targets, workspace& ws) {
  return detail::into_transform<detail::with_workspace<F>, true, std::tuple<T...>, I...>{{{std::move(f), &ws}},
                                                                                         std::move(targets.targets)};
}

}  // namespace tapeless
