// SPDX-License-Identifier: BSL-1.0
// tapeless/math/softmax.hpp: the exponentials of softmax, log_softmax and log_sum_exp, scaled so that
// none overflows, with their sum; and the index of a matrix's largest or least element.
//
// At run time, where T has SIMD batches, the passes run a batch of elements at a time (simd/map.hpp,
// simd/reduce.hpp), and the exponentials are first tried unscaled, one pass where that is accurate;
// in a constant expression, and for a T without batches, they are shifted by the largest element.
// Tests: test/unit/ops/reduction/log_sum_exp_test.cpp
#pragma once

#include <tapeless/math/functions.hpp>
#include <tapeless/simd/batch.hpp>
#include <tapeless/simd/map.hpp>
#include <tapeless/simd/reduce.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>

namespace tapeless::math::detail {

/// The index of the largest (Largest) or smallest element: the first at a tie, the first NaN if any.
template <bool Largest, class M>
constexpr std::size_t extreme_index(const M& x) {
  std::size_t k = 0;
  for (std::size_t i = 1; i < x.size(); ++i) {
    if (x[k] != x[k]) break;  // a NaN wins, and the first one stays
    if (x[i] != x[i] || (Largest ? x[i] > x[k] : x[i] < x[k])) k = i;
  }
  return k;
}

/// x - m, where m is the largest element: 0 for the elements equal to m, so that an infinite m gives
/// the limit (exp(0) = 1 for the infinite elements) instead of inf - inf = NaN. For numbers and batches.
template <class T>
constexpr T shifted(const T& x, const T& m) {
  return math::select(x == m, T(0), x - m);
}

/// The stable parts of softmax: e_i = exp(x_i - max) written into e, of x's extents (x may be a view,
/// e the matrix of its extents); returns {max, sum of e}. x has at least one element.
/// The sum is at least 1 (the largest element contributes exp(0)), unless a NaN made it NaN.
template <class M, class E, class T = typename E::value_type>
constexpr std::pair<T, T> exp_shifted(const M& x, E& e) {
#if TAPELESS_SIMD
  if constexpr (::tapeless::detail::simd::available<T>) {
    if (!std::is_constant_evaluated()) {
      namespace simd = ::tapeless::detail::simd;
      const T m = simd::max(simd::count_of(x), x.data());
      const simd::batch<T> b(m);
      if (math::isinf(m)) {  // shifted(), which only an infinite m needs: x - m is 0 where x == m otherwise
        const auto exp_shifted = [&b](const simd::batch<T>& xi) { return math::exp(shifted(xi, b)); };
        return {m, simd::transform_sum(simd::count_of(x), e.data(), exp_shifted, x.data())};
      }
      const auto exp_shifted = [&b](const simd::batch<T>& xi) { return math::exp(xi - b); };
      return {m, simd::transform_sum(simd::count_of(x), e.data(), exp_shifted, x.data())};
    }
  }
#endif
  const T m = x[extreme_index<true>(x)];
  T s(0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    e[i] = math::exp(shifted(x[i], m));
    s += e[i];
  }
  return {m, s};
}

/// What exp_scaled leaves beside its e_i: their sum, at most 2^64, and (where asked for) the log
/// of the sum of the unscaled exp(x_i).
template <class T>
struct exp_sum {
  T sum;
  T log_sum;
};

/// e_i = c exp(x_i) written into e, for a c that keeps every e_i accurate and their sum s within
/// [1, 2^64] (within (0, 2^64] unless AtLeastOne: softmax divides by s itself, so a sum below 1 needs
/// no pass to scale it); returns s, and log(sum of exp(x_i)) where Log (else NaN).
/// Why that range: log_sum_exp's rule scales the e_i by g / s, which then neither overflows nor
/// underflows where g e_i / s does not (short of g < 2^-958); with s = 1e-300, g = 1e10 would make it inf.
/// At run time, one pass first takes c = 1, no shift: exp(x_i) itself, with the least of them. Where
/// every one is normal (none flushed to 0) and the sum finite, they are as accurate as the shifted ones,
/// exp(x_i) more so (x_i - m rounds), and log_sum_exp's value log(s) as well; a sum below 1 is then
/// scaled by a power of 2 (exact) into [1, 2). Else, and in a constant expression, exp_shifted: two
/// passes, the largest element m and then c = exp(-m). log_softmax keeps the shift: x_i - log(s)
/// cancels where (x_i - m) - log(s) does not.
template <bool Log, bool AtLeastOne, class M, class E, class T = typename E::value_type>
constexpr exp_sum<T> exp_scaled(const M& x, E& e) {
#if TAPELESS_SIMD
  if constexpr (::tapeless::detail::simd::available<T>) {
    if (!std::is_constant_evaluated()) {
      namespace simd = ::tapeless::detail::simd;
      using B = simd::batch<T>;
      // The tests on the sum and the least alone: a mask of the elements accumulated across the
      // batches goes through memory, a store and a load per batch.
      const auto [s, least] = simd::transform_sum_least(
          simd::count_of(x), e.data(), [](const B& xi) { return math::exp_unguarded(xi); }, x.data());
      if (least >= std::numeric_limits<T>::min() && s <= T(0x1p64)) {  // false for NaN
        T log_sum = math::quiet_nan<T>();
        if constexpr (Log) log_sum = math::log(s);
        if (!AtLeastOne || s >= T(1)) return {s, log_sum};
        const T c = std::ldexp(T(1), -std::ilogb(s));  // s c in [1, 2); the e_i, normal, stay exact
        simd::transform(
            simd::count_of(x), e.data(), [](const B& ei, const B& scale) { return ei * scale; }, e.data(), c);
        return {s * c, log_sum};
      }
    }
  }
#endif
  const auto [m, s] = exp_shifted(x, e);
  T log_sum = math::quiet_nan<T>();
  if constexpr (Log) log_sum = m + math::log(s);
  return {s, log_sum};
}

}  // namespace tapeless::math::detail
