// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/reduction.hpp: operations over all the elements of a matrix, each a coarse node with a
// closed-form adjoint.
//
//   matrix to number:  sum, mean, prod, squared_norm, norm, max_element, min_element, log_sum_exp
//   matrix to matrix:  softmax, log_softmax (over all the elements, whatever the shape)
//
// Conventions, where the derivative is not unique:
//   norm(0) has gradient 0 (the smallest subgradient), like hypot(0, 0).
//   max_element and min_element give the whole adjoint to one element: the first arg-max (arg-min)
//   in row-major order at a tie. A NaN element wins: the value is NaN, and that (first) NaN element's
//   adjoint is NaN, so NaN reaches the gradient; the others receive 0 (as tl::max and tl::min do).
//   log_sum_exp, softmax and log_softmax subtract the largest element first, so no exp overflows
//   (the first two at run time only where one did: where every exp(x) is normal and their sum at
//   most 2^64, the unshifted ones are as accurate); when that largest element is infinite they take
//   the limit (+inf elements share softmax equally, all -inf gives the uniform softmax and
//   log_sum_exp = -inf). A NaN element makes everything NaN.
#pragma once

#include <tapeless/adjoint/structured.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/math/functions.hpp>
#include <tapeless/math/softmax.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/operation/protocol.hpp>
#include <tapeless/simd/map.hpp>
#include <tapeless/simd/reduce.hpp>

#include <cstddef>
#include <limits>
#include <string_view>
#include <utility>

namespace tapeless {
namespace ops {

/// y = sum of x's elements: every element's adjoint is g (a uniform adjoint, see adjoint/structured.hpp).
struct sum : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "sum", .vjp_reads = reads_nothing, .batches_rows = true};
  template <class M>
  static constexpr auto value(const M& x) {
    using T = typename M::value_type;
    return ::tapeless::detail::simd::map_sum<M::size(), true, T>([](const auto& e) { return e; }, x.data());
  }
  template <class M, class G, class T>
  static constexpr auto vjp(G g, const M&, T) {
    return ::tapeless::detail::uniform<M>{static_cast<typename M::value_type>(g)};
  }
};

/// y = sum / size: every element's adjoint is g / size (uniform).
struct mean : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "mean", .vjp_reads = reads_nothing, .batches_rows = true};
  template <class M>
  static constexpr auto value(const M& x) {
    return sum::value(x) / static_cast<typename M::value_type>(M::size());
  }
  template <class M, class G, class T>
  static constexpr auto vjp(G g, const M&, T) {
    using S = typename M::value_type;
    return ::tapeless::detail::uniform<M>{static_cast<S>(g) / static_cast<S>(M::size())};
  }
};

/// y = product of x's elements: the adjoint of x_i is g times the product of the others, computed from
/// prefix and suffix products (no division), so it is exact where elements are 0.
struct prod : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "prod", .vjp_reads = reads_operands};
  template <class M>
  static constexpr auto value(const M& x) {
    typename M::value_type p(1);
    for (const auto& e : x) p *= e;
    return p;
  }
  template <class M, class G, class T>
  static constexpr M vjp(G g, const M& x, T) {
    using S = typename M::value_type;
    M gx(::tapeless::detail::uninitialized);
    S p(1);
    for (std::size_t i = 0; i < M::size(); ++i) {  // gx_i = x_0 ... x_{i-1}
      gx[i] = p;
      p *= x[i];
    }
    S s = static_cast<S>(g);
    for (std::size_t i = M::size(); i-- > 0;) {  // times g x_{i+1} ... x_{n-1}
      gx[i] *= s;
      s *= x[i];
    }
    return gx;
  }
};

/// y = sum of x_i^2: the adjoint of x_i is 2 g x_i.
struct squared_norm : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "squared_norm", .vjp_reads = reads_operands};
  template <class M>
  static constexpr auto value(const M& x) {
    using T = typename M::value_type;
    return ::tapeless::detail::simd::map_sum<M::size(), true, T>([](const auto& e) { return e * e; }, x.data());
  }
  template <class M, class G, class T>
  static constexpr M vjp(G g, const M& x, T) {
    using S = typename M::value_type;
    return x * (S(2) * static_cast<S>(g));
  }
};

/// y = sqrt(sum of x_i^2), the Euclidean (Frobenius) norm: the adjoint of x_i is g x_i / y, and 0 at
/// the zero matrix. The value is computed directly when the sum of squares neither overflows nor
/// underflows, and else rescaled by the largest |x_i|, as hypot does.
struct norm : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "norm"};
  template <class M>
  static constexpr auto value(const M& x) {
    using S = typename M::value_type;
    const S s = squared_norm::value(x);
    if (s >= std::numeric_limits<S>::min() && s <= std::numeric_limits<S>::max()) return math::sqrt(s);
    // Overflow, underflow, 0, infinity or NaN: scale by the largest magnitude.
    S m(0);
    for (const auto& e : x) {
      const S a = math::abs(e);
      if (a != a) return a;  // NaN
      if (a > m) m = a;
    }
    if (m == S(0) || m > std::numeric_limits<S>::max()) return m;  // 0, or +inf
    S t(0);
    for (const auto& e : x) t += (e / m) * (e / m);
    return m * math::sqrt(t);
  }
  template <class M, class G, class T>
  static constexpr M vjp(G g, const M& x, T y) {
    using S = typename M::value_type;
    if (static_cast<S>(y) == S(0)) return M{};
    return x * (static_cast<S>(g) / static_cast<S>(y));
  }
};

namespace detail {
/// Element k of x, picked for its value. Where x's numbers find a sparsity pattern
/// (math/dependencies.hpp), another point may pick another element: the pick carries every element's set.
template <class M>
constexpr auto picked_element(std::size_t k, const M& x) {
  auto y = x[k];
  if constexpr (::tapeless::detail::is_dependency_dual<typename M::value_type>)
    for (std::size_t i = 0; i < M::size(); ++i) y.tangent += x[i].tangent;
  return y;
}

/// The adjoint of picking element k of x: g there (NaN if x_k is NaN), 0 elsewhere; g everywhere where x's
/// numbers find a sparsity pattern, for the reason above.
template <class M, class G>
constexpr M to_picked(std::size_t k, G g, const M& x) {
  M gx{};
  if constexpr (::tapeless::detail::is_dependency_dual<typename M::value_type>)
    for (std::size_t i = 0; i < M::size(); ++i) gx[i] = static_cast<typename M::value_type>(g);
  else
    gx[k] = x[k] != x[k] ? x[k] : static_cast<typename M::value_type>(g);
  return gx;
}
}  // namespace detail

/// y = the largest element; its adjoint goes to the first arg-max (the first NaN element if any).
struct max_element : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "max_element", .vjp_reads = reads_operands};
  template <class M>
  static constexpr auto value(const M& x) {
    return detail::picked_element(math::detail::extreme_index<true>(x), x);
  }
  template <class M, class G, class T>
  static constexpr M vjp(G g, const M& x, T) {
    return detail::to_picked(math::detail::extreme_index<true>(x), g, x);
  }
};

/// y = the smallest element; its adjoint goes to the first arg-min (the first NaN element if any).
struct min_element : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "min_element", .vjp_reads = reads_operands};
  template <class M>
  static constexpr auto value(const M& x) {
    return detail::picked_element(math::detail::extreme_index<false>(x), x);
  }
  template <class M, class G, class T>
  static constexpr M vjp(G g, const M& x, T) {
    return detail::to_picked(math::detail::extreme_index<false>(x), g, x);
  }
};

/// y = log(sum of exp(x_i)), from exps scaled so that no exp overflows and their sum lies within
/// [1, 2^64] (exp_scaled). The adjoint of x_i is g softmax(x)_i; the forward pass keeps softmax(x) for
/// it, so the backward pass computes no exp. It takes an argument of run-time extents whose elements
/// lie contiguous too (transforms/run_time_reduction.hpp): the same passes, of its size, and exps of
/// tl::dynamic extents that the gradient takes as its own (adjoint/structured.hpp, spare_values).
struct log_sum_exp : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "log_sum_exp", .takes_run_time_extents = true};
  /// What the rule needs: the scaled exps and 1 / their sum, whose product is softmax(x). The rule
  /// scales by g / sum in one pass, where scaling into softmax first would take a pass of its own.
  template <class M>
  struct exps {
    ::tapeless::detail::spare_kept_t<M> kept;
    typename M::value_type inverse_sum;
    /// Room for the exps of x: uninitialized for a fixed M, of x's extents for a run-time one.
    template <class X>
    constexpr explicit exps(const X& x) : kept(room(x)) {}
    /// The exps, where they are kept, for the forward pass to write.
    constexpr M& e() {
      if constexpr (::tapeless::detail::elements_on_heap<M>)
        return kept.values;
      else
        return kept;
    }

   private:
    template <class X>
    static constexpr auto room(const X& x) {
      if constexpr (Matrix<M>)
        return ::tapeless::detail::uninitialized;
      else
        return ::tapeless::detail::spare_kept_t<M>{M(x.rows(), x.cols(), ::tapeless::detail::uninitialized)};
    }
  };
  template <class X>
  static constexpr auto forward(const X& x) {
    return computed<true>(x);
  }
  /// The rule's part only, under grad: no log (the value is left NaN).
  template <class X>
  static constexpr auto forward(const X& x, ::tapeless::detail::value_unread_t) {
    return computed<false>(x);
  }
  template <class X, class G, class T, class C>
  static constexpr auto vjp(G g, const X&, T, const C& c) {
    return ::tapeless::detail::scaled_by(c.kept, static_cast<decltype(c.inverse_sum)>(g) * c.inverse_sum);
  }

 private:
  // One local and one return, for any X: g++ elides the copy of the cache only so.
  template <bool Value, class X>
  static constexpr auto computed(const X& x) {
    using M = ::tapeless::detail::matrix_of_view_t<X>;
    using S = typename M::value_type;
    ::tapeless::detail::with_cache<S, exps<M>> out(math::quiet_nan<S>(), std::in_place, x);
    if (x.size() == 0) {  // a run-time array of no elements: the log of an empty sum, nothing to scale
      out.value = -std::numeric_limits<S>::infinity();
      out.cache.inverse_sum = S(0);
    } else {
      const auto [s, log_sum] = math::detail::exp_scaled<Value, true>(x, out.cache.e());
      out.cache.inverse_sum = S(1) / s;
      out.value = log_sum;
    }
    return out;
  }
};

/// y = x - m, m the largest element of the array x is one of (a constant), and 0 where x is m: the
/// limit where m is infinite, as log_sum_exp takes it. The shifted element of a log_sum_exp over an
/// array of run-time extents, summed one element at a time (transforms/run_time_reduction.hpp).
struct minus_largest {
  static constexpr operation_traits traits{.name = "minus_largest", .batched = true, .vjp_reads = reads_nothing};
  template <class T>
  static constexpr T value(T x, T m) {
    return math::detail::shifted(x, m);
  }
  template <class T>
  static constexpr std::pair<T, T> vjp(T g, T, T, T) {
    return {g, -g};
  }
};

/// y = x, an element picked for its value (max_element and min_element of an array of run-time
/// extents, transforms/run_time_reduction.hpp): its adjoint is g, or NaN where x is NaN, as
/// detail::to_picked gives the fixed-shape ones'.
struct picked {
  static constexpr operation_traits traits{.name = "picked", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T x) {
    return x;
  }
  template <class T>
  static constexpr T derivative(T x, T) {
    return math::select(math::isnan(x), x, T(1));
  }
};

/// y = 0, with slope c in x (a constant): a term of a sum whose value lies elsewhere, and whose
/// adjoint of x is g c. tl::prod of an array of run-time extents is the product plus a sum of these,
/// c the product of the other elements (transforms/run_time_reduction.hpp).
struct with_slope {
  static constexpr operation_traits traits{.name = "with_slope", .batched = true, .vjp_reads = reads_operands};
  template <class T>
  static constexpr T value(T, T) {
    return T(0);
  }
  template <class T>
  static constexpr std::pair<T, T> vjp(T g, T, T c, T) {
    return {g * c, T(0)};
  }
};

/// y = sqrt(s), s a sum of squares: its derivative is 0 at s = 0, where the norm's gradient is 0 (the
/// smallest subgradient, as for norm above).
struct norm_root {
  static constexpr operation_traits traits{.name = "norm_root", .vjp_reads = reads_value};
  template <class T>
  static constexpr T value(T s) {
    return math::sqrt(s);
  }
  template <class T>
  static constexpr T derivative(T, T y) {
    return y == T(0) ? T(0) : T(0.5) / y;
  }
};

/// y_i = exp(x_i) / sum of exp(x_j), over all the elements, computed with the largest subtracted.
/// Adjoint: y * (g - sum(g * y)).
struct softmax : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "softmax", .vjp_reads = reads_value};
  template <class M>
  static constexpr M value(const M& x) {
    M e(::tapeless::detail::uninitialized);
    const auto s = math::detail::exp_scaled<false, false>(x, e).sum;
    ::tapeless::detail::simd::map<M::size(), true>(
        e.data(), [](const auto& ei, const auto& sum) { return ei / sum; }, e.data(), s);
    return e;
  }
  template <class M>
  static constexpr M vjp(const M& g, const M&, const M& y) {
    namespace simd = ::tapeless::detail::simd;
    using T = typename M::value_type;
    M gx(::tapeless::detail::uninitialized);
    const T gy =
        simd::map_sum<M::size(), true, T>([](const auto& gi, const auto& yi) { return gi * yi; }, g.data(), y.data());
    simd::map<M::size(), true>(
        gx.data(), [](const auto& gi, const auto& yi, const auto& c) { return yi * (gi - c); }, g.data(), y.data(), gy);
    return gx;
  }
};

/// y_i = x_i - log_sum_exp(x) = (x_i - m) - log(sum of exp(x_j - m)): exact where softmax would
/// underflow to 0 and its log be -inf. Adjoint: g - softmax(x) sum(g); the forward pass keeps softmax(x).
struct log_softmax : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "log_softmax"};
  template <class M>
  static constexpr auto forward(const M& x) {
    using S = typename M::value_type;
    M y(::tapeless::detail::uninitialized), e(::tapeless::detail::uninitialized);
    const auto [m, s] = math::detail::exp_shifted(x, e);
    const auto log_s = math::log(s);
    const S inverse_sum = S(1) / s;
    namespace simd = ::tapeless::detail::simd;
    simd::map<M::size(), true>(
        y.data(),
        [](const auto& xi, const auto& max, const auto& log_sum) { return math::detail::shifted(xi, max) - log_sum; },
        x.data(), m, log_s);
    simd::map<M::size(), true>(
        e.data(), [](const auto& ei, const auto& c) { return ei * c; }, e.data(), inverse_sum);
    return ::tapeless::detail::with_cache<M, M>{y, e};
  }
  template <class M>
  static constexpr M vjp(const M& g, const M&, const M&, const M& softmax) {
    using S = typename M::value_type;
    namespace simd = ::tapeless::detail::simd;
    M gx(::tapeless::detail::uninitialized);
    const S gs = simd::map_sum<M::size(), true, S>([](const auto& gi) { return gi; }, g.data());
    simd::map<M::size(), true>(
        gx.data(), [](const auto& gi, const auto& pi, const auto& c) { return gi - pi * c; }, g.data(), softmax.data(),
        gs);
    return gx;
  }
};

}  // namespace ops

namespace detail {
/// The node of an operation over a whole matrix; a plain matrix gives the plain result.
template <class Op, class X>
constexpr auto make_reduction(Op op, X&& x) {
  static_assert(Matrix<value_type_of_t<X>> || ShapeError<X> || !fixed_extents_in<X>(),
                "this operation (tl::sum, tl::mean, tl::prod, tl::norm, tl::max_element, tl::log_sum_exp, tl::softmax "
                "...) takes a matrix or a matrix expression; for one number, write the number itself");
  if constexpr (Matrix<value_type_of_t<X>>)
    return make_unary(op, std::forward<X>(x));
  else
    return shape_error{};  // a failed check has spoken (here or before)
}
}  // namespace detail

/// The sum of all the elements.
template <Operand X>
constexpr auto sum(X&& x) {
  return detail::make_reduction(ops::sum{}, std::forward<X>(x));
}
/// The mean of all the elements.
template <Operand X>
constexpr auto mean(X&& x) {
  return detail::make_reduction(ops::mean{}, std::forward<X>(x));
}
/// The product of all the elements; its gradient is exact where elements are 0.
template <Operand X>
constexpr auto prod(X&& x) {
  return detail::make_reduction(ops::prod{}, std::forward<X>(x));
}
/// The sum of the squares of all the elements.
template <Operand X>
constexpr auto squared_norm(X&& x) {
  return detail::make_reduction(ops::squared_norm{}, std::forward<X>(x));
}
/// The Euclidean norm of a vector, the Frobenius norm of a matrix; gradient 0 at the zero matrix.
template <Operand X>
constexpr auto norm(X&& x) {
  return detail::make_reduction(ops::norm{}, std::forward<X>(x));
}
/// The largest element; the adjoint goes to the first arg-max. NaN propagates.
template <Operand X>
constexpr auto max_element(X&& x) {
  return detail::make_reduction(ops::max_element{}, std::forward<X>(x));
}
/// The smallest element; the adjoint goes to the first arg-min. NaN propagates.
template <Operand X>
constexpr auto min_element(X&& x) {
  return detail::make_reduction(ops::min_element{}, std::forward<X>(x));
}
/// log(sum(exp(x))) over all the elements, without overflow; its gradient is softmax(x).
template <Operand X>
constexpr auto log_sum_exp(X&& x) {
  return detail::make_reduction(ops::log_sum_exp{}, std::forward<X>(x));
}
/// exp(x) / sum(exp(x)) over all the elements, without overflow; a matrix of x's shape.
template <Operand X>
constexpr auto softmax(X&& x) {
  return detail::make_reduction(ops::softmax{}, std::forward<X>(x));
}
/// x - log_sum_exp(x) over all the elements; a matrix of x's shape.
template <Operand X>
constexpr auto log_softmax(X&& x) {
  return detail::make_reduction(ops::log_softmax{}, std::forward<X>(x));
}

}  // namespace tapeless
