// SPDX-License-Identifier: BSL-1.0
// tapeless/check.hpp: check_gradient and finite_difference_gradient, grad(f) against finite differences of f.
//
//   CHECK(tl::check_gradient(f, x, y));                        // doctest; a failure prints the worst component
//   auto r = tl::check_gradient(f, A, tl::check_options{.rtol = 1e-8});
//   auto g = tl::finite_difference_gradient(f, x, y);          // std::tuple, typed like tl::grad(f)(x, y)
//   auto s = tl::compare_gradient(my_gradient, f, x, y);       // a hand-written gradient against f
//
// f is evaluated on plain numbers and matrices (every tl:: function is one on plain values too), one
// component perturbed at a time. Nothing here allocates; the result is a fixed-size value.
#pragma once

#include <tapeless/expr/expression.hpp>
#include <tapeless/math/functions.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/transforms/grad.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <iosfwd>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless {

/// Tolerances and step of a gradient check, each by default chosen for each component's working
/// precision: the coarser of the argument's type and the type f returns, whose epsilon is ε.
///
/// Component i passes when |AD − FD| <= rtol · max(|AD|, |FD|) + atol · max|f| / max(1, |xᵢ|) + δᵢ:
/// max|f| is the largest finite |f| met at the point and at the perturbed points (the scale of f, so
/// that a gradient that should be zero may carry the FD's rounding noise, ≈ ε |f| / h), and δᵢ is the
/// FD's own error estimate, the change the extrapolation made (≈ h² |f'''| / 6), plus 16 σ / h where
/// the noise σ measured in f exceeds the ε |f| its rounding would make (f computed by cancellation,
/// as 1 − cos x near 0), which widens the tolerance only where the FD itself is unsure.
///
/// rtol = ∛ε by default (6.1e-6 for double, 4.9e-3 for float, 4.8e-7 for x87 long double): halfway,
/// in orders of magnitude, between the FD's error (≈ ε^(2/3) relative) and the error of a wrong
/// gradient (a sign, a factor, a missing term: O(1) relative), so neither is mistaken for the other.
/// atol = 1000 ε^(2/3) by default (3.7e-8 for double, 0.024 for float): the FD's rounding error is
/// ≈ 3 ε^(2/3) max|f| / max(1, |xᵢ|) when f is evaluated to within an ulp, so this allows f about 300
/// ulps of evaluation error (sums, cancellation) while a wrong component far smaller than the largest
/// (1 % of one 5000 times smaller, in the tests) still fails.
///
/// A field left `automatic` (any negative value) takes that default. Plain doubles rather than
/// std::optional, which sets off g++'s -Wmaybe-uninitialized under sanitizers.
struct check_options {
  static constexpr double automatic = -1;
  double rtol = automatic;  ///< relative to max(|AD|, |FD|); default ∛ε
  double atol = automatic;  ///< in units of the scale max|f| / max(1, |xᵢ|); default 1000 ε^(2/3)
  double step = automatic;  ///< the first step: h = step · max(1, |xᵢ|); default ∛ε
};

/// The outcome of a gradient check: true when every component passed. Streamed, it names the worst
/// component; its fields are there for programs that want more than a yes or no.
struct [[nodiscard]] gradient_check {
  /// One compared component of the gradient.
  struct component {
    std::size_t argument = 0;  ///< position of the argument in f's parameter list
    std::size_t row = 0;       ///< element (row, col) of a matrix argument; 0, 0 for a number
    std::size_t col = 0;
    bool in_matrix = false;          ///< whether the argument is a matrix
    long double ad = 0;              ///< the gradient checked (tl::grad's, or the one given to compare_gradient)
    long double fd = 0;              ///< the finite-difference estimate
    long double difference = 0;      ///< |ad − fd|
    long double allowed = 0;         ///< the tolerance on difference (see check_options)
    long double relative_error = 0;  ///< difference / max(|ad|, |fd|), 0 when both are 0
    long double badness = 0;         ///< difference / allowed; +inf when ad or fd is not finite
    int digits = 17;                 ///< significant digits that show the component's type exactly
    bool passed = true;
  };

  std::size_t components = 0;  ///< how many components were compared
  std::size_t failures = 0;    ///< how many failed, a non-finite AD or FD value included
  component worst{};           ///< the component with the largest badness: the first failure to look at

  [[nodiscard]] constexpr bool passed() const noexcept { return failures == 0; }
  explicit constexpr operator bool() const noexcept { return failures == 0; }

  /// One line: passed or failed, and the worst component (argument, element, AD, FD, errors).
  /// A template so that this header needs only <iosfwd>; the stream's format is restored afterwards.
  template <class CharT, class Traits>
  friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, const gradient_check& c) {
    const auto flags = os.flags();
    const auto precision = os.precision();
    os.unsetf(os.floatfield);
    const component& w = c.worst;
    if (c.failures == 0)
      os << "gradient check passed: " << c.components << " component" << (c.components == 1 ? "" : "s")
         << ", the closest to its tolerance: ";
    else
      os << "gradient check FAILED: " << c.failures << " of " << c.components << " component"
         << (c.components == 1 ? "" : "s") << " outside the tolerance, the worst: ";
    os << "argument " << w.argument;
    if (w.in_matrix) os << ", element (" << w.row << ", " << w.col << ")";
    os.precision(w.digits);
    os << ": AD " << w.ad << ", FD " << w.fd;
    os.precision(3);
    if (!is_finite(w.ad) || !is_finite(w.fd))
      os << " (" << (is_finite(w.ad) ? "FD is" : is_finite(w.fd) ? "AD is" : "AD and FD are") << " not finite)";
    else
      os << ", relative error " << w.relative_error << ", |AD - FD| = " << w.difference << (w.passed ? " <= " : " > ")
         << w.allowed << " allowed";
    os.flags(flags);
    os.precision(precision);
    return os;
  }

 private:
  static constexpr bool is_finite(long double x) noexcept {
    return x == x && x != std::numeric_limits<long double>::infinity() &&
           x != -std::numeric_limits<long double>::infinity();
  }
};

namespace detail::check {

/// False for NaN and ±inf; comparisons only, so it also holds in constant expressions.
template <class T>
constexpr bool finite(T x) noexcept {
  return x == x && x != std::numeric_limits<T>::infinity() && x != -std::numeric_limits<T>::infinity();
}

template <class V>
constexpr std::size_t size_of() noexcept {
  if constexpr (Matrix<V>)
    return V::size();
  else
    return 1;
}

/// The number of columns: a number counts as 1 x 1.
template <class V>
constexpr std::size_t columns_of() noexcept {
  if constexpr (Matrix<V>)
    return V::cols();
  else
    return 1;
}

/// Component k of a number (k = 0) or of a matrix, row-major.
template <class V>
constexpr auto& element(V& v, std::size_t k) noexcept {
  if constexpr (Matrix<V>)
    return v[k];
  else
    return v;
}

/// The number type f returns on plain arguments (an integer constant counts as double).
template <class F, class... Args>
using result_t = std::conditional_t<std::floating_point<std::invoke_result_t<const F&, const Args&...>>,
                                    std::invoke_result_t<const F&, const Args&...>, double>;

/// ε of the coarser of T (an argument's number type) and R (f's), in the arithmetic type W.
template <class T, class R, class W>
constexpr W epsilon() noexcept {
  return std::numeric_limits<T>::epsilon() > std::numeric_limits<R>::epsilon()
             ? static_cast<W>(std::numeric_limits<T>::epsilon())
             : static_cast<W>(std::numeric_limits<R>::epsilon());
}

/// ∛ε: the step that balances the central difference's truncation error h² f''' / 6 against its
/// rounding error ε f / h, and the default rtol.
template <class T, class R, class W>
constexpr W cbrt_epsilon() noexcept {
  return math::cbrt(epsilon<T, R, W>());
}

/// The FD gradient, typed like tl::grad's as a tuple, its error estimate per component, and the
/// largest finite |f| seen.
template <class... Args>
struct estimate {
  std::tuple<Args...> gradient{};
  std::tuple<Args...> error{};
  long double f_scale = 0;
};

/// The largest power of two that divides x (finite, not 0): the spacing of the coarsest binary grid x
/// lies on, ulp(x) or coarser. Halving and doubling only, so it is exact and constexpr.
template <class W>
constexpr W grid_of(W x) noexcept {
  W a = x < 0 ? -x : x;
  W p = 1;                            // the largest power of two <= a
  constexpr W big = W(4294967296.0);  // 2^32, to move p in large strides first
  while (a >= p * big) p *= big;
  while (a >= p * 2) p *= 2;
  while (a < p / big) p /= big;
  while (a < p) p /= 2;
  W lowest = p;  // a's binary digits from p down: the last one set
  for (W bit = p; a > 0 && bit > 0; bit /= 2)
    if (a >= bit) {
      a -= bit;
      lowest = bit;
    }
  return lowest;
}

constexpr void note_scale(long double& scale, long double v) noexcept {
  const long double a = v < 0 ? -v : v;
  if (finite(a) && a > scale) scale = a;
}

/// Each component of one argument: central differences at steps h and h/2, Richardson-extrapolated.
///
/// Why this, over one central difference: the extrapolation cancels the h² term, so the truncation
/// error is O(h⁴) (negligible at h = ∛ε) and only the rounding error ≈ 3 ε |f| / h remains; the
/// change it makes, |extrapolated − coarse|, estimates the plain difference's error, which the check
/// adds to its tolerance. The points stay within x ± h, as close to x as a plain central difference at
/// its best step, which matters near the edge of a domain (log, sqrt).
///
/// h = ∛ε max(1, |x|) assumes f varies on the scale of max(1, |x|); when it varies faster (sin at
/// x = 1e6) that change exceeds the rounding estimate, and when a step crosses the edge of a domain
/// the difference is not finite: then h is divided by 8 and the difference taken again, up to 12
/// times, keeping the estimate with the smallest total error. A smooth, well-scaled f costs 4
/// evaluations per component.
///
/// ε |f| counts the rounding of f's value only. Where f is far smaller than the intermediates it is
/// computed from (1 − cos x near 0: f ≈ x² / 2 from cos x ≈ 1, rounded to ε absolute), the real noise
/// is far larger, and the change the extrapolation makes is that noise, not truncation: a change that
/// happens to be small (or 0: such noise comes in steps of ε) is no sign that the step is good. So the
/// noise of f is also measured at each step, as q, from its five points x, x ± h/2, x ± h:
///  - the third difference behind |extrapolated − coarse| and the fourth difference, orthogonal
///    combinations whose variances are 10 σ² and 70 σ² where noise σ dominates them; and at least
///    G / √12, the rounding to the grid of spacing G that the differences f − f(x) all lie on (the
///    largest power of two dividing them, ε |f| or finer for an f computed without cancellation,
///    ε for 1 − cos x: noise in steps that large often cancels from the differences exactly).
///    Where truncation dominates, q falls by 512 or more from one step to the next; where noise
///    does, it stays.
///  - A step whose change is below the rounding estimate ends the search only when q, there and at
///    the step before, is within 64 ε |f|: the rounding the estimate assumes.
///  - Where q did not fall by 16 from one step to the next (or fell by more than 32768, faster than
///    any truncation: the larger was noise that the smaller step's points cancel), and, pooled over
///    the two steps, is either below 1/64 of the range of f over their points or that range fell by
///    4 or more (where h is too large for f, the differences are of the size of f's range, which does
///    not fall with h), q is taken as the noise σ: each step's error is then its change plus
///    16 σ / h (the extrapolated value's noise is ≈ 1.9 σ / h), the step with the smallest is kept,
///    and that error is its estimate δ, so the tolerance covers the FD's own noise. Smaller steps
///    would only add noise.
/// An f whose noise cancels from all five points of a step at once (an exact product of a smooth
/// function and quantized noise, rarely) can still pass for a clean one.
///
/// The divisor is the distance between the points actually evaluated (the h = (x + h) − x trick, for
/// both sides at once), computed in W: exact by Sterbenz's lemma for |x| >= 1, where x ± h lie within
/// a factor of 2, and wrong by at most one rounding otherwise, instead of the ε|x| / h relative error
/// of dividing by 2h.
template <class R, class V, class Eval>
constexpr void estimate_argument(const Eval& f_at_point, R f_center, V& x, V& gradient, V& error, long double& f_scale,
                                 const check_options& options) {
  using T = scalar_of_t<V>;
  using W = std::common_type_t<T, R>;
  constexpr W eps = epsilon<T, R, W>();
  constexpr int max_shrinks = 12;
  constexpr W modelled_noise = 64;    // q within 64 ε |f|: the rounding estimate holds
  constexpr W noise_falls = 16;       // q falling by less than this from one step to the next: noise
  constexpr W noise_cancels = 32768;  // by more than this: faster than truncation (4096), noise again
  constexpr W noise_share = 64;       // q above 1/64 of f's range: noise only if that range falls with h
  constexpr W noise_bound = 16;       // the extrapolated value's noise is ≈ 1.9 σ / h: 8 standard deviations
  const W step = options.step >= 0 ? static_cast<W>(options.step) : cbrt_epsilon<T, R, W>();
  const W f0 = static_cast<W>(f_center);
  for (std::size_t k = 0; k < size_of<V>(); ++k) {
    T& xk = element(x, k);
    const T x0 = xk;
    T h = static_cast<T>(step * static_cast<W>(math::abs(x0) > T(1) ? math::abs(x0) : T(1)));
    W best = std::numeric_limits<W>::quiet_NaN(), best_error = std::numeric_limits<W>::quiet_NaN();
    W best_total = std::numeric_limits<W>::infinity();
    // Per step: the extrapolated value, its change, the divisor d2, q², the range of f over its points,
    // and whether q is within the rounding estimate.
    std::array<W, max_shrinks + 1> estimates{}, changes{}, divisors{}, noise_squares{}, variations{};
    std::array<bool, max_shrinks + 1> modelled{};
    for (int attempt = 0; attempt <= max_shrinks; ++attempt, h /= T(8)) {
      W f_local = 0;
      const auto f_at = [&](T xi) {
        xk = xi;
        const W v = static_cast<W>(f_at_point());
        note_scale(f_scale, static_cast<long double>(v));
        if (finite(v) && math::abs(v) > f_local) f_local = math::abs(v);
        return v;
      };
      const T xp1 = x0 + h, xm1 = x0 - h, xp2 = x0 + h / 2, xm2 = x0 - h / 2;
      if (!(xp2 > xm2)) break;  // the step is below the spacing of numbers at x
      const W d1 = static_cast<W>(xp1) - static_cast<W>(xm1);
      const W d2 = static_cast<W>(xp2) - static_cast<W>(xm2);
      const W fp1 = f_at(xp1), fm1 = f_at(xm1), fp2 = f_at(xp2), fm2 = f_at(xm2);
      const W coarse = (fp1 - fm1) / d1;
      const W fine = (fp2 - fm2) / d2;
      const W ratio = d1 / d2;  // 2, up to the rounding of the points
      const W extrapolated = fine + (fine - coarse) / (ratio * ratio - W(1));
      const W truncation = math::abs(extrapolated - coarse);
      const W rounding = W(3) * eps * f_local / d2;
      const W total = truncation + rounding;
      if (attempt == 0 || (finite(extrapolated) && total < best_total)) {
        best = extrapolated;
        best_error = truncation;
        best_total = finite(total) ? total : std::numeric_limits<W>::infinity();
      }

      const auto i = static_cast<std::size_t>(attempt);
      const W third = W(1.5) * truncation * d2;  // 2 (f(x + h/2) − f(x − h/2)) − (f(x + h) − f(x − h))
      const W fourth = fp1 - W(4) * fp2 + W(6) * f0 - W(4) * fm2 + fm1;  // NaN where f(x) is not finite
      estimates[i] = extrapolated;
      changes[i] = truncation;
      divisors[i] = d2;
      noise_squares[i] =
          finite(fourth) ? (third * third / W(10) + fourth * fourth / W(70)) / W(2) : third * third / W(10);
      const std::array<W, 5> points{fm1, fm2, f0, fp2, fp1};
      W grid = 0, low = f0, high = f0;  // the coarsest grid the differences f − f(x) share; f's range
      for (const W v : points) {
        const W d = v - f0;
        if (finite(d) && d != W(0) && (grid == W(0) || grid_of(d) < grid)) grid = grid_of(d);
        if (finite(v) && (!finite(low) || v < low)) low = v;
        if (finite(v) && (!finite(high) || v > high)) high = v;
      }
      if (grid * grid / W(12) > noise_squares[i]) noise_squares[i] = grid * grid / W(12);
      modelled[i] = noise_squares[i] <= (modelled_noise * eps * f_local) * (modelled_noise * eps * f_local);
      variations[i] = high - low;

      if (finite(extrapolated) && truncation <= rounding && modelled[i] && (i == 0 || modelled[i - 1]))
        break;  // smaller steps would only add rounding
      if (i == 0 || !finite(extrapolated) || !finite(noise_squares[i - 1]) ||
          !(noise_squares[i] * (noise_falls * noise_falls) > noise_squares[i - 1] ||
            noise_squares[i] * (noise_cancels * noise_cancels) < noise_squares[i - 1]))
        continue;
      const W noise = math::sqrt((noise_squares[i] + noise_squares[i - 1]) / W(2));
      const W spread = variations[i] > variations[i - 1] ? variations[i] : variations[i - 1];
      // Noise, not a step too large for f: small beside f's range, or that range falls with h.
      if (!finite(noise) || !(noise * noise_share <= spread || variations[i] * W(4) <= variations[i - 1])) continue;
      // Noise dominates from this step on: keep the step with the smallest change plus noise bound.
      best_total = std::numeric_limits<W>::infinity();
      for (std::size_t j = 0; j <= i; ++j) {
        const W with_noise = changes[j] + noise_bound * noise / divisors[j];
        if (finite(estimates[j]) && with_noise < best_total) {
          best = estimates[j];
          best_error = with_noise;
          best_total = with_noise;
        }
      }
      break;
    }
    xk = x0;
    element(gradient, k) = static_cast<T>(best);
    element(error, k) = static_cast<T>(best_error);
  }
}

template <class F, class... Args>
constexpr estimate<Args...> finite_differences(const F& f, const check_options& options, const Args&... args) {
  using R = result_t<F, Args...>;
  estimate<Args...> out{};
  std::tuple<Args...> point{args...};
  const auto f_at_point = [&] { return static_cast<R>(std::apply(f, std::as_const(point))); };
  const R f_center = f_at_point();
  note_scale(out.f_scale, static_cast<long double>(f_center));
  const auto estimate_each = [&]<std::size_t... A>(std::index_sequence<A...>) {
    (estimate_argument<R>(f_at_point, f_center, std::get<A>(point), std::get<A>(out.gradient), std::get<A>(out.error),
                          out.f_scale, options),
     ...);
  };
  estimate_each(std::index_sequence_for<Args...>{});
  return out;
}

/// Compares every component of argument A's gradient and records it in the result.
template <std::size_t A, class R, class V>
constexpr void compare_argument(gradient_check& result, const V& x, const V& ad, const V& fd, const V& error,
                                long double f_scale, const check_options& options) {
  using T = scalar_of_t<V>;
  using W = std::common_type_t<T, R>;
  const W rtol = options.rtol >= 0 ? static_cast<W>(options.rtol) : cbrt_epsilon<T, R, W>();
  constexpr W cbrt_eps = cbrt_epsilon<T, R, W>();
  const W atol = options.atol >= 0 ? static_cast<W>(options.atol) : W(1000) * cbrt_eps * cbrt_eps;
  for (std::size_t k = 0; k < size_of<V>(); ++k) {
    const W a = static_cast<W>(element(ad, k)), d = static_cast<W>(element(fd, k));
    const W xk = static_cast<W>(element(x, k));
    const W scale = static_cast<W>(f_scale) / (math::abs(xk) > W(1) ? math::abs(xk) : W(1));
    const W magnitude = math::abs(a) > math::abs(d) ? math::abs(a) : math::abs(d);
    const W difference = math::abs(a - d);
    const W allowed = rtol * magnitude + atol * scale + static_cast<W>(element(error, k));
    const bool both_finite = finite(a) && finite(d);
    // NaN anywhere (the FD error estimate included) fails: the comparison is false.
    const bool passed = both_finite && difference <= allowed;
    const W badness = !both_finite || !finite(allowed) ? std::numeric_limits<W>::infinity()
                      : allowed > W(0)                 ? difference / allowed
                      : difference == W(0)             ? W(0)
                                                       : std::numeric_limits<W>::infinity();
    ++result.components;
    if (!passed) ++result.failures;
    if (result.components == 1 || badness > static_cast<W>(result.worst.badness)) {
      auto& w = result.worst;
      w.argument = A;
      w.in_matrix = Matrix<V>;
      w.row = Matrix<V> ? k / columns_of<V>() : 0;
      w.col = Matrix<V> ? k % columns_of<V>() : 0;
      w.ad = static_cast<long double>(a);
      w.fd = static_cast<long double>(d);
      w.difference = static_cast<long double>(difference);
      w.allowed = static_cast<long double>(allowed);
      w.relative_error = difference == W(0) ? 0.0L : static_cast<long double>(difference / magnitude);
      w.badness = static_cast<long double>(badness);
      w.digits = std::numeric_limits<T>::max_digits10;
      w.passed = passed;
    }
  }
}

template <class F, class... Args>
constexpr gradient_check compare(const std::tuple<Args...>& ad, const F& f, const check_options& options,
                                 const Args&... args) {
  using R = result_t<F, Args...>;
  const estimate<Args...> fd = finite_differences(f, options, args...);
  gradient_check result{};
  const auto compare_each = [&]<std::size_t... A>(std::index_sequence<A...>) {
    (compare_argument<A, R>(result, args, std::get<A>(ad), std::get<A>(fd.gradient), std::get<A>(fd.error), fd.f_scale,
                            options),
     ...);
  };
  compare_each(std::index_sequence_for<Args...>{});
  return result;
}

/// Whether a pack of arguments ends with check_options.
template <class... Ts>
constexpr bool ends_with_options() {
  if constexpr (sizeof...(Ts) == 0)
    return false;
  else
    return std::same_as<std::remove_cvref_t<std::tuple_element_t<sizeof...(Ts) - 1, std::tuple<Ts...>>>, check_options>;
}

/// run(options, args...) with the trailing check_options split off, or the default options.
template <class Run, class... Ts>
constexpr decltype(auto) split_options(const Run& run, const Ts&... ts) {
  if constexpr (ends_with_options<Ts...>()) {
    const std::tuple<const Ts&...> all{ts...};
    // clang-format 14 would write `)->decltype(auto)` after a template parameter pack.
    // clang-format off
    const auto run_with = [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
      return run(std::get<sizeof...(Ts) - 1>(all), std::get<I>(all)...);
    };
    // clang-format on
    return run_with(std::make_index_sequence<sizeof...(Ts) - 1>{});
  } else {
    return run(check_options{}, ts...);
  }
}

/// One static_assert per misuse, as tl::grad has; false stops the instantiation there.
template <class F, class... Args>
constexpr bool arguments_are_valid() {
  constexpr bool valid_types = sizeof...(Args) > 0 && (... && (Real<Args> || Matrix<Args>));
  static_assert(sizeof...(Args) > 0,
                "tl::check_gradient(f, args...): call it with the arguments of f (and optionally tl::check_options "
                "last)");
  static_assert((... && (Real<Args> || Matrix<Args>)),
                "tl::check_gradient(f, args...): every argument must be a floating-point number (write 1.0, not 1) "
                "or a tl::matrix of them; tl::check_options goes last");
  if constexpr (valid_types) {
    constexpr bool invocable = std::is_invocable_v<const F&, const Args&...>;
    static_assert(invocable,
                  "tl::check_gradient(f, args...): f cannot be called with plain numbers and matrices; write it as a "
                  "generic lambda taking auto (or const auto&) parameters");
    if constexpr (invocable) {
      using raw = std::invoke_result_t<const F&, const Args&...>;
      static_assert(Constant<raw>,
                    "tl::check_gradient(f, args...): f applied to plain numbers and matrices must return a number");
      return Constant<raw>;
    } else {
      return false;
    }
  } else {
    return false;
  }
}

/// A gradient as tl::grad returns it (one argument's type, or a tuple), as a tuple.
template <class... Args, class G>
constexpr std::tuple<Args...> as_tuple(const G& g) {
  if constexpr (std::same_as<G, std::tuple<Args...>>)
    return g;
  else
    return std::tuple<Args...>{g};
}

/// The gradient of f at args by finite differences, of the types tl::grad(f)(args...) returns: the
/// argument's type for one argument, a std::tuple in argument order for several. Central differences
/// at steps h and h/2, h = ∛ε max(1, |xᵢ|), Richardson-extrapolated: 4 evaluations of f per component.
/// A trailing tl::check_options may set the step.
struct finite_difference_gradient_fn {
  template <class F, class... Ts>
  constexpr auto operator()(const F& f, const Ts&... ts) const {
    return detail::check::split_options(
        [&f](const check_options& options, const auto&... args) {
          if constexpr (detail::check::arguments_are_valid<F, std::remove_cvref_t<decltype(args)>...>()) {
            auto g = detail::check::finite_differences(f, options, args...).gradient;
            if constexpr (sizeof...(args) == 1)
              return std::get<0>(g);
            else
              return g;
          }
        },
        ts...);
  }
};

/// Compares a given gradient g (of the types tl::grad(f)(args...) returns: a hand-written adjoint, say)
/// with finite differences of f at args, as check_gradient does. A trailing tl::check_options may follow.
struct compare_gradient_fn {
  template <class G, class F, class... Ts>
  constexpr gradient_check operator()(const G& g, const F& f, const Ts&... ts) const {
    return detail::check::split_options(
        [&](const check_options& options, const auto&... args) {
          if constexpr (detail::check::arguments_are_valid<F, std::remove_cvref_t<decltype(args)>...>()) {
            constexpr bool typed_like_grad =
                std::same_as<G, std::tuple<std::remove_cvref_t<decltype(args)>...>> ||
                std::same_as<std::tuple<G>, std::tuple<std::remove_cvref_t<decltype(args)>...>>;
            static_assert(typed_like_grad,
                          "tl::compare_gradient(g, f, args...): g must have the type tl::grad(f)(args...) returns: "
                          "the argument's type for one argument, a std::tuple of the arguments' types for several");
            if constexpr (typed_like_grad)
              return detail::check::compare(detail::check::as_tuple<std::remove_cvref_t<decltype(args)>...>(g), f,
                                            options, args...);
            else
              return gradient_check{};
          } else {
            return gradient_check{};
          }
        },
        ts...);
  }
};

/// Checks tl::grad(f) at args against finite differences of f; true when every component of the
/// gradient agrees within the tolerance of check_options (given last, or the defaults). Streamed, the
/// result names the worst component: argument, element, AD and FD values, relative error.
///
///   CHECK(tl::check_gradient(f, x, A));
///   CHECK(tl::check_gradient(f, x, tl::check_options{.rtol = 1e-8}));
struct check_gradient_fn {
  template <class F, class... Ts>
  constexpr gradient_check operator()(const F& f, const Ts&... ts) const {
    return detail::check::split_options(
        [&f](const check_options& options, const auto&... args) {
          if constexpr (detail::check::arguments_are_valid<F, std::remove_cvref_t<decltype(args)>...>()) {
            using detail::check::as_tuple;
            return detail::check::compare(as_tuple<std::remove_cvref_t<decltype(args)>...>(grad(f)(args...)), f,
                                          options, args...);
          } else {
            return gradient_check{};
          }
        },
        ts...);
  }
};

}  // namespace detail::check

/// Function objects, not function templates, as in Boost.Hana: argument-dependent lookup does not
/// find them, so an unqualified call of a user's own check_gradient(name, f, A) with tl::matrix
/// arguments is not taken over by this one (the project's own tests had such a helper).
inline constexpr detail::check::finite_difference_gradient_fn finite_difference_gradient{};
inline constexpr detail::check::compare_gradient_fn compare_gradient{};
inline constexpr detail::check::check_gradient_fn check_gradient{};

}  // namespace tapeless
