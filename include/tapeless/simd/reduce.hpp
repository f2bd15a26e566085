// SPDX-License-Identifier: BSL-1.0
// tapeless/simd/reduce.hpp: the loops that sum (or take the largest of) a function of a matrix's elements.
//
// At run time, where the caller asks for batches and T has them, a batch of elements at a time, added
// per lane and the lanes at the end (an order that differs from one number at a time by a few
// roundings); in a constant expression, and for a T without batches, one element at a time from 0.
// A loop's operands are pointers to the elements, or one number used for every element.
// Tests: test/unit/simd/map_test.cpp
#pragma once

#include <tapeless/simd/batch.hpp>

#include <array>
#include <cstddef>
#include <limits>
#include <type_traits>

namespace tapeless::detail::simd {

/// A number of elements, as the loops take it: N as a type, whose value they fold as they would a
/// template argument's, or a std::size_t known at run time (an array of run-time extents).
template <std::size_t N>
inline constexpr std::integral_constant<std::size_t, N> count_c{};

/// The number of m's elements as the loops take it: count_c where its type fixes it, else m.size().
template <class M>
constexpr auto count_of(const M& m) {
  if constexpr (requires { std::integral_constant<std::size_t, M::size()>{}; })
    return count_c<M::size()>;
  else
    return m.size();
}

/// Element i of a loop's operand, as a T: in[i] of a pointer, or the number itself, used for every element.
template <class T, class In>
constexpr decltype(auto) element(In in, std::size_t i) {
  if constexpr (std::is_pointer_v<In> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<In>>, T>)
    return in[i];  // a reference: no copy of a large T (a dual number)
  else if constexpr (std::is_pointer_v<In>)
    return T(in[i]);
  else
    return T(in);
}

#if TAPELESS_SIMD
/// What transform_sum_least returns: the sum of the f(in[i]...) and the least of them.
template <class T>
struct sum_and_least {
  T sum;
  T least;
};

/// The sum over i < count of f(in[i]...), a batch of elements at a time, added per lane and the lanes at
/// the end (an order that differs from a scalar loop's by a few roundings); with an `out` pointer, each
/// f(in[i]...) is also stored to out[i]; where Least, also the least of them (a lane-wise min, so NaN
/// may or may not win: a caller that cares tests the sum). The one loop of transform and sum.
/// Flattened: g++ otherwise calls xsimd's exp out of line for every batch of log_sum_exp, with the batch
/// passed through memory, where a hand-written loop that calls it directly inlines it. The operands are pointers and
/// numbers, taken by value: by reference, each store to out might have changed them, and each batch loaded the pointer
/// again.
template <class T, bool Least = false, class Count, class Out, class F, class... In>
[[gnu::flatten]] auto sum_storing(Count count, Out out, const F& f, In... in) {
  constexpr bool stores = !std::is_null_pointer_v<Out>;
  const std::size_t n = count;
  constexpr std::size_t w = width<T>;
  batch<T> s(T(0));
  batch<T> least(std::numeric_limits<T>::infinity());
  std::size_t i = 0;
  for (; i + w <= n; i += w) {
    const batch<T> y = f(load<T>(in, i)...);
    if constexpr (stores) y.store_unaligned(out + i);
    s += y;
    if constexpr (Least) least = xsimd::min(least, y);
  }
  T total = xsimd::hadd(s);
  if (n % w != 0) {  // a constant where the count is
    alignas(batch<T>::arch_type::alignment()) std::array<T, w> lanes;
    // The padding lanes repeat element i (load_partial), so they leave the least as it is.
    const batch<T> y = f(load_partial<T>(in, i, n - i)...);
    y.store_aligned(lanes.data());
    if constexpr (Least) least = xsimd::min(least, y);
    for (std::size_t k = 0; i + k < n; ++k) {
      if constexpr (stores) out[i + k] = lanes[k];
      total += lanes[k];
    }
  }
  if constexpr (Least)
    return sum_and_least<T>{total, extreme_lane<false>(least)};
  else
    return total;
}

/// out[i] = f(in[i]...) for i < count; returns the sum of the out[i].
template <class T, class Count, class F, class... In>
T transform_sum(Count count, T* out, const F& f, In... in) {
  return sum_storing<T>(count, out, f, in...);
}

/// out[i] = f(in[i]...) for i < count; returns the sum and the least of the out[i].
template <class T, class Count, class F, class... In>
sum_and_least<T> transform_sum_least(Count count, T* out, const F& f, In... in) {
  return sum_storing<T, true>(count, out, f, in...);
}

/// The sum over i < N of f(in[i]...).
template <std::size_t N, class T, class F, class... In>
T sum(const F& f, In... in) {
  return sum_storing<T>(count_c<N>, nullptr, f, in...);
}

/// The largest of p[0], ..., p[count - 1], count at least 1; NaN if one is NaN.
template <class T, class Count>
T max(Count count, const T* p) {
  constexpr std::size_t w = width<T>;
  const std::size_t n = count;
  batch<T> m = load_partial<T>(p, 0, n);
  auto nan = xsimd::isnan(m);  // not m != m: xsimd 8's != is ordered with AVX, false for NaN
  for (std::size_t i = w; i < n; i += w) {
    const batch<T> v = load_partial<T>(p, i, n - i);
    nan = nan || xsimd::isnan(v);
    m = xsimd::max(m, v);
  }
  if (xsimd::any(nan)) return std::numeric_limits<T>::quiet_NaN();
  return extreme_lane<true>(m);
}
#endif

/// The sum over i < N of f(in[i]...), S(0) plus each term in turn; at run time, where Batched and T
/// has batches, a batch of elements at a time (sum).
template <std::size_t N, bool Batched, class T, class S = T, class F, class... In>
constexpr S map_sum(const F& f, In... in) {
#if TAPELESS_SIMD
  if constexpr (Batched && available<T>) {
    if (!std::is_constant_evaluated()) return static_cast<S>(sum<N, T>(f, in...));
  }
#endif
  S s(0);
  for (std::size_t i = 0; i < N; ++i) s += f(element<T>(in, i)...);
  return s;
}

}  // namespace tapeless::detail::simd
