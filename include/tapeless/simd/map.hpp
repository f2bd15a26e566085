// SPDX-License-Identifier: BSL-1.0
// tapeless/simd/map.hpp: the loop that writes a function of a matrix's elements, element by element.
//
// At run time, where the caller asks for batches and T has them, a batch of elements at a time, calling
// the function with xsimd::batch<T> in place of T; the last, partial batch is padded, so every element
// goes through the same code. In a constant expression, and for a T without batches, one element at a
// time. A loop's operands are pointers to the elements, or one number used for every element.
#pragma once

#include <tapeless/simd/batch.hpp>
#include <tapeless/simd/reduce.hpp>  // sum_storing, the one loop that stores and sums

#include <cstddef>
#include <type_traits>

namespace tapeless::detail::simd {

#if TAPELESS_SIMD
/// out[i] = f(in[i]...) for i < count (count_c<N> or a number), a batch of elements at a time.
template <class T, class Count, class F, class... In>
void transform(Count count, T* out, const F& f, In... in) {
  (void)sum_storing<T>(count, out, f, in...);  // the unused sum is dropped once inlined
}
#endif

/// out[i] = f(in[i]...) for i < N; at run time, where Batched and T has batches, a batch of elements at
/// a time (transform).
template <std::size_t N, bool Batched, class T, class F, class... In>
constexpr void map(T* out, const F& f, In... in) {
#if TAPELESS_SIMD
  if constexpr (Batched && available<T>) {
    if (!std::is_constant_evaluated()) {
      transform(count_c<N>, out, f, in...);
      return;
    }
  }
#endif
  for (std::size_t i = 0; i < N; ++i) out[i] = f(element<T>(in, i)...);
}

}  // namespace tapeless::detail::simd
