// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/sparse_derivatives.hpp: hessian_pattern and jacobian_pattern, which entries of a
// derivative matrix can be nonzero, and sparse_hessian and sparse_jacobian, which compute those
// entries alone, in as many directions as a coloring of the pattern has colors.
//
// The pattern is found by the engine itself: f (for a Jacobian) or its reverse sweep (for a Hessian)
// runs once with dual numbers whose tangents are sets of argument elements (math/dependencies.hpp), so
// every operation that has a forward-mode rule has a pattern rule, and the pattern of a Hessian is the
// structure forward over reverse sees. It is structural: a number times a set is the set, whatever the
// number, and a branch keeps the sets of both sides, so it holds at every point; it is found at a
// point away from the values that rules treat apart (detail::pattern_point). sparse_hessian and
// sparse_jacobian find it in a constant expression, from f's type and x's type, so that the pattern,
// its coloring (matrix/column_coloring.hpp) and the positions of the values are constants of the
// result's type; then one sweep in dual numbers carries one direction per color (8 at a time,
// detail::chunk_size), the sum of the unit vectors of the color's columns, and each entry is read from
// the direction of its column's color.
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/math/dependencies.hpp>
#include <tapeless/matrix/column_coloring.hpp>
#include <tapeless/matrix/sparse_matrix.hpp>
#include <tapeless/matrix/sparsity_pattern.hpp>
#include <tapeless/transforms/blocks.hpp>
#include <tapeless/transforms/grad.hpp>
#include <tapeless/transforms/run_time_reduction.hpp>
#include <tapeless/transforms/tangent.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

/// x as dual numbers whose tangents are sets: element j depends on {j}.
template <class X>
constexpr auto dependency_seeded(const X& x) {
  return with_tangents(x, [](std::size_t j) { return dependencies<size_of<X>>::of(j); });
}

/// The pattern whose row i is the tangent of element i of v (empty where v is a plain value).
template <std::size_t N, class V>
constexpr auto pattern_of_tangents(const V& v) {
  sparsity_pattern<size_of<V>, N> p{};
  if constexpr (is_dual<scalar_of_t<V>>)
    for (std::size_t i = 0; i < size_of<V>; ++i) p.row_sets[i] = element_at(v, i).tangent;
  return p;
}

/// x as dual numbers carrying L directions, lane l the sum of the unit vectors of the columns of
/// color c0 + l.
template <std::size_t L, class X, std::size_t N>
constexpr auto color_seeded(const X& x, const column_coloring<N>& coloring, std::size_t c0) {
  using T = scalar_of_t<X>;
  return with_tangents(x, [&](std::size_t j) {
    tangents<T, L> t{};
    if (coloring.color[j] >= c0 && coloring.color[j] - c0 < L) t.lane[coloring.color[j] - c0] = T(1);
    return t;
  });
}

/// Where each value of a sparse derivative of structure S is read when directions go L to a sweep:
/// entries[start[s]] ... entries[start[s + 1] - 1] are read after sweep s, value `value` from lane
/// `lane` of the tangent of element `row` of the sweep's result. A table of the type, so that reading
/// a value costs a load and a store, not a search for its column's color.
template <class S, std::size_t L>
struct recovery_plan {
  static constexpr std::size_t nnz = S::pattern.nonzeros();
  static constexpr std::size_t sweeps = (S::coloring.count + L - 1) / L;
  struct entry {
    std::size_t value, row, lane;
  };
  struct tables {
    std::array<entry, nnz> entries{};
    std::array<std::size_t, sweeps + 1> start{};
  };
  static constexpr tables plan = [] {
    using H = sparse_matrix<double, S>;
    tables t;
    std::size_t e = 0;
    for (std::size_t s = 0; s < sweeps; ++s) {
      t.start[s] = e;
      for (std::size_t k = 0; k < nnz; ++k)
        if (const std::size_t c = S::coloring.color[H::col_index(k)]; c / L == s)
          t.entries[e++] = entry{k, H::row_index(k), c % L};
    }
    t.start[sweeps] = e;
    return t;
  }();
};

template <class X>
inline constexpr bool fixed_shape_argument = Real<X> || Matrix<X>;

/// The point at which a pattern is found: its elements are distinct numbers between 0.5 and 0.75,
/// inside the domain of most functions and away from the values their rules treat apart (0, where
/// hypot's adjoint is 0; 1; a tie between two elements). The sets ignore values, and a branch keeps
/// both sides, so the point matters only there.
template <class X>
constexpr X pattern_point() {
  X x{};
  for (std::size_t j = 0; j < size_of<X>; ++j) element_at(x, j) = 0.5 + 0.25 * double((j * 40503U) % 65536U) / 65536.0;
  return x;
}

/// The pattern of the Hessian of f at x (both triangles): row i is the set of elements that the
/// derivative along element i depends on, from one reverse sweep in sets.
template <class F, class X>
constexpr auto hessian_pattern_at(const F& f, const X& x) {
  const auto g = gradient_transform<F, false, false>{f}(dependency_seeded(x));
  return symmetric_closure(pattern_of_tangents<size_of<X>>(g));
}

/// The pattern of the Jacobian of f at x: row i is the set of elements that element i of f depends on.
template <class F, class X>
constexpr auto jacobian_pattern_at(const F& f, const X& x) {
  return pattern_of_tangents<size_of<X>>(value_of_result(std::invoke(f, dependency_seeded(x))));
}

/// The pattern of f's Hessian (Hessian = true) or Jacobian for an argument of type X.
template <bool Hessian, class X, class F>
constexpr auto derivative_pattern(const F& f) {
  if constexpr (Hessian)
    return hessian_pattern_at(f, pattern_point<X>());
  else
    return jacobian_pattern_at(f, pattern_point<X>());
}

/// What a sparse derivative of f at an argument of type X is made of: its pattern and the coloring of
/// its columns, constants computed from f's type (F{}) and X.
template <class F, class X, bool Hessian>
struct derivative_structure {
  static constexpr auto pattern = derivative_pattern<Hessian, X>(F{});
  static constexpr auto coloring = color_columns(pattern);
};

/// The structure of what a call refused returns: nothing to read, so no further error.
struct no_structure {
  static constexpr sparsity_pattern<1, 1> pattern{};
};

/// One sparse derivative of f: the Hessian (Hessian = true) or the Jacobian.
template <class F, bool Hessian>
struct sparse_derivative_transform {
  F f;

  template <class X>
  constexpr auto operator()(const X& x) const {
    static_assert(fixed_shape_argument<X>,
                  "tl::sparse_hessian(f)(x) and tl::sparse_jacobian(f)(x): x must be a floating-point number or a "
                  "tl::matrix of them with extents fixed at compile time, since its pattern is a constant");
    static_assert(std::is_default_constructible_v<F>,
                  "tl::sparse_hessian(f) and tl::sparse_jacobian(f): f must be a lambda without captures (or a "
                  "default-constructible function object), since the pattern is found at compile time from f's "
                  "type; read data through a static or constexpr object instead of a capture");
    if constexpr (fixed_shape_argument<X> && std::is_default_constructible_v<F>)
      return compute(x);
    else
      return sparse_matrix<double, no_structure>{};  // after the message above: no other
  }

 private:
  template <class X>
  constexpr auto compute(const X& x) const {
    using S = derivative_structure<F, X, Hessian>;
    using T = scalar_of_t<X>;
    sparse_matrix<T, S> out;
    constexpr std::size_t L = std::clamp<std::size_t>(S::coloring.count, 1, chunk_size);
    using reading = recovery_plan<S, L>;
    for (std::size_t s = 0; s < reading::sweeps; ++s) {
      const auto seeded = color_seeded<L>(x, S::coloring, s * L);
      auto read = [&](const auto& v) {
        if constexpr (is_dual<scalar_of_t<std::remove_cvref_t<decltype(v)>>>)
          for (std::size_t e = reading::plan.start[s]; e < reading::plan.start[s + 1]; ++e) {
            const auto& where = reading::plan.entries[e];
            out.values()[where.value] = element_at(v, where.row).tangent.lane[where.lane];
          }
      };
      if constexpr (Hessian)
        read(gradient_transform<F, false, false>{f}(seeded));
      else
        read(value_of_result(std::invoke(f, seeded)));
    }
    return out;
  }
};

}  // namespace detail

/// The pattern of the Hessian of the scalar function f, of one argument of x's type (a number or a
/// fixed-shape matrix of n elements, counted row-major): an n x n sparsity_pattern holding both
/// triangles, entry (i, j) set wherever d2f / dx_i dx_j can be nonzero at some point. x gives the type
/// only: the pattern is the same for every value, and the one sparse_hessian(f) computes. A constant
/// expression where f is.
template <class F, class X>
constexpr auto hessian_pattern(const F& f, const X&) {
  static_assert(detail::fixed_shape_argument<X>,
                "tl::hessian_pattern(f, x): x must be a floating-point number or a tl::matrix of them with "
                "extents fixed at compile time");
  if constexpr (detail::fixed_shape_argument<X>) return detail::derivative_pattern<true, X>(f);
}

/// The pattern of the Jacobian of f, of one argument of x's type (as hessian_pattern's) and returning m
/// numbers (a number or a fixed-shape matrix, counted row-major): an m x n sparsity_pattern.
template <class F, class X>
constexpr auto jacobian_pattern(const F& f, const X&) {
  static_assert(detail::fixed_shape_argument<X>,
                "tl::jacobian_pattern(f, x): x must be a floating-point number or a tl::matrix of them with "
                "extents fixed at compile time");
  if constexpr (detail::fixed_shape_argument<X>) return detail::derivative_pattern<false, X>(f);
}

/// sparse_hessian(f)(x): the Hessian of the scalar function f at x, as a sparse_matrix holding the
/// entries of hessian_pattern (both triangles), in one sweep per 8 colors of its coloring. f must be
/// default-constructible (a lambda without captures): the pattern is a constant of the result's type.
template <class F>
constexpr auto sparse_hessian(F f) {
  return detail::sparse_derivative_transform<F, true>{std::move(f)};
}

/// sparse_jacobian(f)(x): the Jacobian of f at x (m x n, m the number of elements f returns), as a
/// sparse_matrix holding the entries of jacobian_pattern, in one forward evaluation per 8 colors.
template <class F>
constexpr auto sparse_jacobian(F f) {
  return detail::sparse_derivative_transform<F, false>{std::move(f)};
}

}  // namespace tapeless
