// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/expression.hpp: the base every node derives from, giving it backward() and element access.
// Tests: test/unit/var_test.cpp test/unit/ops/shape/element_access_test.cpp
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/inline.hpp>

#include <cstddef>
#include <type_traits>

namespace tapeless {

namespace detail {
/// Selects the constructors of nodes that build their operands in place, from functions returning them.
/// A node holds its operands by value, so each level of a tree copies what is below it; built in place,
/// each level copies its operands once, not twice.
struct built_by {};

/// The tag of the calls a node makes into the layers above expr/, which it cannot include: the reverse
/// sweep of backward() (sweep/imperative.hpp, backward_from_root), the element of a matrix node
/// (ops/shape.hpp, element_of) and the cut of a deep tree (sweep/cut.hpp, cut). Each is an unqualified
/// call that passes this tag last, so that argument-dependent lookup finds the function in this
/// namespace where the call is instantiated, when the layer that defines it is included; nothing
/// below that layer declares it. A call made without that layer stops at "no matching function".
struct layer_above {};
}  // namespace detail

/// CRTP base of every node. A node is a recipe: it holds its operands (leaves hold their values, or a
/// pointer to them), not the values of its operations, so building and moving a tree copies no matrix
/// values. Each node type states value(), computed on demand; a sweep computes every value of a tree
/// once, into an evaluated<Node> beside it (expr/evaluated.hpp), and reads them from there.
template <class Derived>
struct expression : detail::expression_tag {
  /// Seeds adjoint 1 here and accumulates the gradient into every tl::var this node depends on,
  /// as PyTorch's Tensor.backward() does: gradients add up across calls until zero_grad().
  constexpr void backward() const { backward_from_root(self(), detail::layer_above{}); }

  /// Element (i, j) of a matrix-valued node, and element i of a vector-valued one: scalar nodes. Forced
  /// inline with element_of (expr/inline.hpp), so that the range check of a constant index folds away
  /// where the access is written, before g++'s inliner weighs the function that writes it.
  TAPELESS_BUILD_INLINE constexpr auto operator()(std::size_t i, std::size_t j) const {
    return element_of(self(), i, j, detail::layer_above{});
  }
  TAPELESS_BUILD_INLINE constexpr auto operator[](std::size_t i) const {
    return element_of(self(), i, detail::layer_above{});
  }

  /// The extents of a matrix-valued node, its value's: constants of its type, which f reads to size a
  /// loop or a slice (tl::indices(x.size() - 1)) without naming them again. A number-valued node has
  /// none, as a number has none.
  template <class D = Derived>
    requires Matrix<typename D::value_type>
  [[nodiscard]] static constexpr std::size_t rows() noexcept { return D::value_type::rows(); }
  template <class D = Derived>
    requires Matrix<typename D::value_type>
  [[nodiscard]] static constexpr std::size_t cols() noexcept { return D::value_type::cols(); }
  template <class D = Derived>
    requires Matrix<typename D::value_type>
  [[nodiscard]] static constexpr std::size_t size() noexcept { return D::value_type::size(); }
  /// Those of a node of run-time extents (a leaf of a tl::vector<double, tl::dynamic>), read from its
  /// value at run time; of an operation that states its extents (`extents()`, {rows, cols}), from there:
  /// the value of a loop (tl::iterate) is the whole loop's work, its extents those of its start.
  template <class D = Derived>
    requires RunTimeMatrix<typename D::value_type>
  [[nodiscard]] constexpr std::size_t rows() const noexcept { return run_time_extent<true, D>(); }
  template <class D = Derived>
    requires RunTimeMatrix<typename D::value_type>
  [[nodiscard]] constexpr std::size_t cols() const noexcept { return run_time_extent<false, D>(); }
  template <class D = Derived>
    requires RunTimeMatrix<typename D::value_type>
  [[nodiscard]] constexpr std::size_t size() const noexcept {
    const D& d = static_cast<const D&>(*this);
    if constexpr (requires { d.op.extents(); })
      return rows() * cols();
    else
      return d.value().size();  // one computation of the value, not one per extent
  }

  /// `s = s + term` and `s += term` in a loop: a node's type is its whole computation, so a node cannot
  /// take the value of one of another type. The copy or move assignment of s reaches another node only
  /// through this conversion, which no valid program makes; both stop at one sentence that names the fix.
  template <Expression Other>
    requires(!std::is_same_v<Other, Derived>)
  constexpr operator Other() const {  // NOLINT: implicit, for the assignment of s to find
    refuse_new_value<Other>();
    const Other* none = nullptr;
    return *none;  // only so that nothing else fails after the message
  }
  /// `m = e` and `M m = e` for a plain tl::matrix m (a state that starts as data and is assigned in a
  /// loop): the same sentence. The matrix's own assignment reaches the expression only through this
  /// conversion; any operation of a matrix and an expression is a template of an exact match, which wins.
  template <Matrix M>
  constexpr operator M() const {  // NOLINT: implicit, for the matrix's assignment to find
    refuse_new_value<M>();
    return M{};
  }
  template <class Term>
  constexpr Derived& operator+=(const Term& /*term*/) {
    refuse_new_value<Term>();
    return static_cast<Derived&>(*this);
  }
  template <class Term>
  constexpr Derived& operator-=(const Term& /*term*/) {
    refuse_new_value<Term>();
    return static_cast<Derived&>(*this);
  }

 private:
  [[nodiscard]] constexpr const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }
  /// The rows (Rows) or columns of a node of run-time extents: its operation's, where it states them.
  template <bool Rows, class D>
  [[nodiscard]] constexpr std::size_t run_time_extent() const noexcept {
    const D& d = static_cast<const D&>(*this);
    if constexpr (requires { d.op.extents(); }) {
      const auto extents = d.op.extents();
      return Rows ? extents.rows : extents.cols;
    } else {
      const auto& value = d.value();
      return Rows ? value.rows() : value.cols();
    }
  }

 protected:
  template <class Other>
  static constexpr void refuse_new_value() {
    static_assert(
        sizeof(Other) == 0,
        "tl: an expression cannot be assigned, or converted to, an expression of another type or a tl::matrix, "
        "nor be "
        "added to with += or -= (its type is the whole computation: declare it with auto); to sum terms "
        "over data or indices of run-time length use tl::sum_over(tl::rows(...) or tl::indices(n), body, "
        "params...); to carry a state through n steps (for (...) s = step(s);) use tl::iterate(n, init, "
        "step, params...)");
  }
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

namespace detail {
/// The value of an operand, by reference: a node's or var's value, or the plain number or matrix itself.
template <class E>
constexpr decltype(auto) value_of(const E& e) noexcept {
  if constexpr (Differentiable<E>)
    return e.value();
  else
    return (e);
}
}  // namespace detail

/// The number type of a value: the value itself, or the element type of a matrix.
template <class V>
struct scalar_of {
  using type = std::remove_cvref_t<V>;
};
template <Matrix M>
struct scalar_of<M> {
  using type = typename std::remove_cvref_t<M>::value_type;
};
template <RunTimeMatrix M>
struct scalar_of<M> {
  using type = typename std::remove_cvref_t<M>::value_type;
};
template <class V>
using scalar_of_t = typename scalar_of<V>::type;

/// The number type of an operand, whether a number, a matrix, or a node of either.
template <class E>
using scalar_type_of_t = scalar_of_t<value_type_of_t<E>>;

}  // namespace tapeless
