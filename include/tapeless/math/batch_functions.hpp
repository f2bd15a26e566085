// SPDX-License-Identifier: BSL-1.0
// tapeless/math/batch_functions.hpp: the elementary functions of math/functions.hpp on SIMD batches, and the one
// branch that serves numbers and batches alike.
//
// An operation whose value and rule are written with these (its option `batched`, operation/traits.hpp) runs
// its matrix loops a batch at a time: the same source as for one number. The functions are xsimd's,
// but for exp, tapeless's own (math/batch_exp.hpp, half the instructions); each agrees with the
// standard library's within 2 ulp over its domain, and on NaN, infinities and the domain rules
// (test/unit/math/batch_functions_test.cpp sweeps them): only those that do are here.
#pragma once

#include <tapeless/detail/inline.hpp>
#include <tapeless/math/batch_exp.hpp>
#include <tapeless/math/dependencies.hpp>
#include <tapeless/simd/batch.hpp>

#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <type_traits>

namespace tapeless::math {

/// Whether C is the mask of a comparison of batches rather than a bool. Not `!convertible_to<C, bool>`:
/// an AVX-512 mask converts to its bits, and so to bool (true where any lane is).
template <class C>
inline constexpr bool is_mask = requires {
  typename C::batch_type;
};

/// `condition ? if_true() : if_false()` for a number; for a batch, whose condition is a mask, the side
/// every lane takes, or both blended lane by lane. Lazy: a side no element takes is not computed.
/// Inlined under clang (detail/inline.hpp): it runs once per batch of a fused loop (sigmoid's rule), and
/// out of line its call costs more than its body.
template <class C, class A, class B>
TAPELESS_SWEEP_INLINE constexpr auto lazy_select(const C& condition, const A& if_true, const B& if_false) {
  if constexpr (::tapeless::detail::is_dependency_dual<decltype(if_true())>) {
    return ::tapeless::detail::both_sides(condition, if_true(), if_false());  // a pattern holds on both sides
  } else if constexpr (!is_mask<C>) {
    return condition ? if_true() : if_false();
  } else {
#if TAPELESS_SIMD
    if (xsimd::all(condition)) return if_true();
    if (xsimd::none(condition)) return if_false();
    return xsimd::select(condition, if_true(), if_false());
#endif
  }
}

/// `condition ? if_true : if_false` with both sides at hand: for a batch, a blend and no branch. For
/// sides cheaper than a mispredicted branch (a constant, a value already computed).
template <class C, class T>
constexpr T select(const C& condition, const T& if_true, const T& if_false) {
  if constexpr (::tapeless::detail::is_dependency_dual<T>) {
    return ::tapeless::detail::both_sides(condition, if_true, if_false);  // a pattern holds on both sides
  } else if constexpr (!is_mask<C>) {
    return condition ? if_true : if_false;
  } else {
#if TAPELESS_SIMD
    return xsimd::select(condition, if_true, if_false);
#endif
  }
}

/// T itself, or the element type of a batch T.
template <class T>
struct number_of {
  using type = T;
};
template <class T>
  requires ::tapeless::detail::simd::is_batch<T>
struct number_of<T> {
  using type = typename T::value_type;
};

/// NaN as a number (or dual number) or a batch.
template <class T>
constexpr T quiet_nan() {
  return T(std::numeric_limits<typename number_of<T>::type>::quiet_NaN());
}

#if TAPELESS_SIMD
/// The NaN lanes of a batch. Not x != x: xsimd 8's != compares ordered with AVX (_CMP_NEQ_OQ), false
/// for NaN, where SSE2's is unordered, true for NaN.
template <class A>
inline xsimd::batch_bool<double, A> isnan(const xsimd::batch<double, A>& x) {
  return xsimd::isnan(x);
}

namespace detail {
/// f's batch form where it is trusted, and the standard library's in the other lanes: exact there, and
/// a branch not taken elsewhere. The batch form sees 0 in those lanes, never an argument it mishandles:
/// xsimd's expm1 and tanh convert doubles to integers in plain C++ on SSE2 and AVX2, which is
/// undefined for NaN, infinities and huge values (UndefinedBehaviorSanitizer reports it). Inlined
/// under clang (detail/inline.hpp), with the functions below that call it: called out of line, the
/// batch goes through memory.
template <class T, class A, class Batch, class Scalar>
TAPELESS_SWEEP_INLINE xsimd::batch<T, A> guarded(const xsimd::batch<T, A>& x, const xsimd::batch_bool<T, A>& trusted,
                                                 Batch batch_form, Scalar scalar_form) {
  using B = xsimd::batch<T, A>;
  if (xsimd::all(trusted)) return batch_form(x);
  constexpr std::size_t n = B::size;
  alignas(A::alignment()) std::array<T, n> xs, ys;
  std::array<bool, n> ok;
  x.store_aligned(xs.data());
  batch_form(xsimd::select(trusted, x, B(T(0)))).store_aligned(ys.data());
  trusted.store_unaligned(ok.data());
  for (std::size_t k = 0; k < n; ++k)
    if (!ok[k]) ys[k] = scalar_form(xs[k]);
  return B::load_aligned(ys.data());
}
}  // namespace detail

// Exact as they are: sqrt (correctly rounded), and within 2 ulp of std over the whole domain, NaN and
// infinities included: log1p, sin, cos (to |x| = 1e308), asin, acos, atan, asinh, atanh, abs.
#define TAPELESS_BATCH_1(name)                                            \
  template <class A>                                                      \
  inline xsimd::batch<double, A> name(const xsimd::batch<double, A>& x) { \
    return xsimd::name(x);                                                \
  }
TAPELESS_BATCH_1(log1p)
TAPELESS_BATCH_1(sqrt)
TAPELESS_BATCH_1(sin)
TAPELESS_BATCH_1(cos)
TAPELESS_BATCH_1(asin)
TAPELESS_BATCH_1(acos)
TAPELESS_BATCH_1(atan)
TAPELESS_BATCH_1(asinh)
TAPELESS_BATCH_1(atanh)
TAPELESS_BATCH_1(abs)
#undef TAPELESS_BATCH_1

// Trusted ranges (NaN fails every comparison, so it goes to std too). The batch exp (tapeless's own,
// math/batch_exp.hpp) is exact to 1 ulp for x in [-708.39, 709.43] (e^x normal and below 2^1023
// sqrt(2)); xsimd's expm1 overflows early; its log, log2 and log10 are off for subnormal x; tanh is ±1
// exactly from |x| = 20; its exp2 is off where 2^x is subnormal or overflows, its sinh and cosh where
// they overflow, and these three convert NaN and infinities to integers in plain C++ (undefined); its
// acosh is not NaN below 1.
#define TAPELESS_BATCH_GUARDED(name, batch_form, trusted_if)                                             \
  template <class A>                                                                                     \
  TAPELESS_SWEEP_INLINE inline xsimd::batch<double, A> name(const xsimd::batch<double, A>& x) {          \
    using B = xsimd::batch<double, A>;                                                                   \
    return detail::guarded(                                                                              \
        x, trusted_if, [](const B& v) { return batch_form(v); }, [](double v) { return std::name(v); }); \
  }
TAPELESS_BATCH_GUARDED(exp, detail::exp_normal, x > B(-708.39) && x < B(709.43))
TAPELESS_BATCH_GUARDED(expm1, xsimd::expm1, x > B(-700.0) && x < B(709.0))
TAPELESS_BATCH_GUARDED(log, xsimd::log, !(x > B(0) && x < B(std::numeric_limits<double>::min())))
TAPELESS_BATCH_GUARDED(tanh, xsimd::tanh, xsimd::abs(x) < B(20.0))
TAPELESS_BATCH_GUARDED(exp2, xsimd::exp2, x > B(-1022.0) && x < B(1023.0))
TAPELESS_BATCH_GUARDED(log2, xsimd::log2, !(x > B(0) && x < B(std::numeric_limits<double>::min())))
TAPELESS_BATCH_GUARDED(log10, xsimd::log10, !(x > B(0) && x < B(std::numeric_limits<double>::min())))
TAPELESS_BATCH_GUARDED(sinh, xsimd::sinh, xsimd::abs(x) < B(709.0))
TAPELESS_BATCH_GUARDED(cosh, xsimd::cosh, xsimd::abs(x) < B(709.0))
TAPELESS_BATCH_GUARDED(acosh, xsimd::acosh, x >= B(1.0))
#undef TAPELESS_BATCH_GUARDED

/// exp without the guard's branch, for a caller that tests the results instead (math/softmax.hpp's
/// exp_scaled, once for all the elements): within 1 ulp of std::exp for x in [-708.39, 709.43];
/// elsewhere, NaN included, the right value or one below the smallest normal number (zero or
/// negative) or +-inf, which such a test rejects (math/batch_exp.hpp). The argument is clamped to
/// [-750, 750] first, where that holds (beyond, the exponent bits wrap onto plausible values); min
/// puts its second operand where the first is NaN. 23 instructions a batch with the clamp.
template <class A>
inline xsimd::batch<double, A> exp_unguarded(const xsimd::batch<double, A>& x) {
  using B = xsimd::batch<double, A>;
  return detail::exp_normal(xsimd::max(xsimd::min(x, B(750.0)), B(-750.0)));
}
#endif

}  // namespace tapeless::math
