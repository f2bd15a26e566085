// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/expression.hpp: the base every node derives from, giving it value() and backward().
#pragma once

#include <tapeless/concepts/expression.hpp>

namespace tapeless {

namespace detail {
// Defined in sweep/imperative.hpp: seeds the adjoint 1 at `root` and sweeps it into its tl::var leaves.
template <class E>
constexpr void backward_from_root(const E& root);
}  // namespace detail

/// CRTP base of every node. A node stores its own value, computed when it is built, so that the
/// reverse sweep reads values instead of recomputing them and a node never refers to a temporary.
template <class Derived>
struct expression : detail::expression_tag {
  /// The value of this node, computed when the node was built.
  [[nodiscard]] constexpr const auto& value() const noexcept { return self().value_; }

  /// Seeds adjoint 1 here and accumulates the gradient into every tl::var this node depends on,
  /// as PyTorch's Tensor.backward() does: gradients add up across calls until zero_grad().
  constexpr void backward() const { detail::backward_from_root(self()); }

 private:
  [[nodiscard]] constexpr const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }
};

/// The number type of an operand: the node's value type, or the plain number itself.
template <class E>
struct value_type_of {
  using type = std::remove_cvref_t<E>;
};
template <Differentiable E>
struct value_type_of<E> {
  using type = typename std::remove_cvref_t<E>::value_type;
};
template <class E>
using value_type_of_t = typename value_type_of<E>::type;

}  // namespace tapeless
