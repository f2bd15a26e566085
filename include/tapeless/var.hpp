// SPDX-License-Identifier: BSL-1.0
// tapeless/var.hpp: tl::var, the imperative leaf for those who think in PyTorch terms.
#pragma once

#include <tapeless/concepts/scalar.hpp>
#include <tapeless/expr/leaf.hpp>

#include <concepts>

namespace tapeless {

/// A differentiable number that keeps its own gradient:
///
///   tl::var<double> x{3.0}, y{10.0};
///   auto z = x * x + x * y;
///   z.backward();          // x.grad() == 16, y.grad() == 3
///
/// Expressions built from a var refer to it, so the var must outlive them (as a tensor outlives its
/// graph). grad() accumulates across backward() calls, as in PyTorch; zero_grad() resets it.
/// grad() reads 0 before any backward().
template <std::floating_point T>
class var : public detail::variable_tag {
 public:
  using value_type = T;

  constexpr var(T value) noexcept : value_(value) {}  // NOLINT(google-explicit-constructor): reads as a number

  [[nodiscard]] constexpr T value() const noexcept { return value_; }
  [[nodiscard]] constexpr T grad() const noexcept { return grad_; }
  constexpr void zero_grad() noexcept { grad_ = T(0); }
  /// Changes the value for the next expression built from this var; gradients so far are kept.
  constexpr void set_value(T value) noexcept { value_ = value; }
  /// d(this)/d(this) = 1.
  constexpr void backward() noexcept { grad_ += T(1); }

  /// The leaf that stands for this var inside an expression.
  [[nodiscard]] constexpr var_ref<T> ref() noexcept { return var_ref<T>(value_, &grad_); }

 private:
  T value_;
  T grad_ = T(0);
};

}  // namespace tapeless
