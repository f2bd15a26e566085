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
/// A var has identity, as a tensor does: expressions built from it refer to it, so it must outlive
/// them, and it can be neither copied nor moved (a copy would silently receive the gradient meant for
/// the original). Generic functions take it as `const auto&` or `auto&`. Do not define a var const:
/// backward() writes its gradient. grad() accumulates across backward() calls, as in PyTorch;
/// zero_grad() resets it; grad() reads 0 before any backward().
template <std::floating_point T>
class var : public detail::variable_tag {
 public:
  using value_type = T;

  constexpr var(T value) noexcept : value_(value) {}  // NOLINT(google-explicit-constructor): reads as a number

  var(const var&) = delete;  // tl::var cannot be copied or moved: expressions refer to it; take it as const auto&
  var& operator=(const var&) = delete;

  [[nodiscard]] constexpr T value() const noexcept { return value_; }
  [[nodiscard]] constexpr T grad() const noexcept { return grad_; }
  constexpr void zero_grad() noexcept { grad_ = T(0); }
  /// Changes the value for the next expression built from this var; gradients so far are kept.
  constexpr void set_value(T value) noexcept { value_ = value; }
  /// d(this)/d(this) = 1.
  constexpr void backward() const noexcept { *grad_slot() += T(1); }

  /// The leaf that stands for this var inside an expression.
  [[nodiscard]] constexpr var_ref<T> ref() const noexcept { return var_ref<T>(value_, grad_slot()); }

 private:
  // The gradient is written through a const var&, as generic code passes vars; the var itself is never
  // defined const. (Not `mutable`: g++ 12 rejects reading mutable members in constant expressions.)
  constexpr T* grad_slot() const noexcept { return const_cast<T*>(&grad_); }

  T value_;
  T grad_ = T(0);
};

}  // namespace tapeless
