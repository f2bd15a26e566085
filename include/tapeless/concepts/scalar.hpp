// SPDX-License-Identifier: BSL-1.0
// tapeless/concepts/scalar.hpp: the plain numbers tapeless accepts beside expressions.
#pragma once

#include <tapeless/math/dual.hpp>

#include <concepts>
#include <type_traits>

namespace tapeless {

/// A number that may be differentiated: float, double or long double (or a dual number of one, which
/// the forward-mode transforms pass through the engine, see math/dual.hpp).
template <class T>
concept Real = std::floating_point<std::remove_cvref_t<T>> || detail::is_dual<std::remove_cvref_t<T>>;

/// A plain number that may appear as a constant in an expression (`2 * x`, `x + 1.5`).
template <class T>
concept Constant = (std::is_arithmetic_v<std::remove_cvref_t<T>> && !std::same_as<std::remove_cvref_t<T>, bool>) ||
                   detail::is_dual<std::remove_cvref_t<T>>;

}  // namespace tapeless
