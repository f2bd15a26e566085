// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/leaf.hpp: the leaves of an expression graph: arguments, constants, let-bound names, var references.
// Tests: test/unit/transforms/grad_test.cpp test/unit/expr/in_place_test.cpp
#pragma once

#include <tapeless/expr/children.hpp>
#include <tapeless/expr/expression.hpp>
#include <tapeless/expr/in_place.hpp>
#include <tapeless/interop/eigen.hpp>

#include <concepts>
#include <cstddef>
#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {
/// Makes a matrix leaf that points nowhere: a cut's stand-in for a leaf whose type alone is read
/// (expr/cut.hpp). The constructors taking it are templates, which {} cannot call: argument({}) is
/// still a matrix.
struct stand_in_t {};

/// The slot of parameter J's argument leaf in a term of a sum (sweep/sum_over_rows.hpp) is
/// parameter_slot + J: far above the slots of f's own arguments, so that a leaf of f's expression that
/// the body captures is told from the parameters.
inline constexpr std::size_t parameter_slot = std::size_t{1} << 20;
}  // namespace detail

/// The argument in slot `Slot` of the gradient being taken by a transform (grad, value_and_grad):
/// its adjoint is accumulated into that slot.
template <std::size_t Slot, class T>
struct argument : expression<argument<Slot, T>> {
  using value_type = T;
  static constexpr std::size_t slot = Slot;
  static constexpr bool is_active = true;
  T value_;
  constexpr explicit argument(T v) noexcept : value_(v) {}
  [[nodiscard]] constexpr const T& value() const noexcept { return value_; }
};

/// A matrix argument refers to the caller's matrix, which outlives both the call of f and the sweep:
/// a leaf that is used many times (every x[i]) then costs a pointer, not a copy of the matrix. One of
/// run-time extents answers them at run time (expr/expression.hpp), so that f sizes its loops by them.
template <std::size_t Slot, class M>
  requires(Matrix<M> || RunTimeMatrix<M>)
struct argument<Slot, M> : expression<argument<Slot, M>> {
  using value_type = M;
  static constexpr std::size_t slot = Slot;
  static constexpr bool is_active = true;
  const M* ref_;
  constexpr explicit argument(const M& v) noexcept : ref_(&v) {}
  template <std::same_as<detail::stand_in_t> S>
  constexpr explicit argument(S) noexcept : ref_(nullptr) {}
  [[nodiscard]] constexpr const M& value() const noexcept { return *ref_; }
};

/// A number or matrix that receives no adjoint: data, literals, and arguments not differentiated.
/// A number is held by value.
template <class T>
struct constant : expression<constant<T>> {
  using value_type = T;
  static constexpr bool is_active = false;
  T value_;
  constexpr explicit constant(T v) noexcept : value_(v) {}
  [[nodiscard]] constexpr const T& value() const noexcept { return value_; }
};

/// A matrix constant reads its matrix in place where it outlives the call of f (expr/in_place.hpp:
/// data f captures by value). Else it copies the matrix once into the room the
/// transform keeps for such copies, and failing that (outside a transform, in a constant expression,
/// no room left) holds its own copy, so that a local matrix of f may appear in the expression f
/// returns. Read in place or in the room, each level of the tree above copies a pointer; an own copy
/// is copied at each level, and a copied leaf points at its own copy.
template <Matrix M>
struct constant<M> : expression<constant<M>> {
  using value_type = M;
  static constexpr bool is_active = false;
  static constexpr bool reads_in_place = true;  // data_bytes_of looks for it

  /// In place if v outlives the call of f, else a copy.
  constexpr explicit constant(const M& v) : ref_(&v) {
    if (std::is_constant_evaluated() || !detail::outlives_the_call(&v, sizeof(M))) copy(v);
  }
  /// A temporary, which dies before the sweep: a copy.
  constexpr explicit constant(M&& v) : ref_(nullptr) { copy(std::move(v)); }
  constexpr constant(const constant& other) : ref_(nullptr) { take(other); }
  constexpr constant(constant&& other) noexcept(std::is_nothrow_move_constructible_v<M>) : ref_(nullptr) {
    take(std::move(other));
  }
  constexpr constant& operator=(const constant& other) {
    if (this != &other) take(other);
    return *this;
  }
  constexpr constant& operator=(constant&& other) noexcept(std::is_nothrow_move_constructible_v<M>) {
    if (this != &other) take(std::move(other));
    return *this;
  }
  constexpr ~constant() { drop(); }

  /// In a constant expression an own copy is read directly: g++ 12 does not follow a pointer into
  /// the leaf itself there.
  [[nodiscard]] constexpr const M& value() const noexcept {
    if (std::is_constant_evaluated() && owns_) return own_;
    return *ref_;
  }
  /// Whether the leaf holds its own copy, rather than reading the matrix where it lies.
  [[nodiscard]] constexpr bool owns() const noexcept { return owns_; }

 private:
  const M* ref_;
  bool owns_ = false;  // a flag, not ref_ == &own_: g++ cannot compare those in a constant expression
  union {
    M own_;  // the copy, constructed only when the matrix cannot be read in place
  };

  /// A copy of v in the transform's room, or failing that, of its own.
  template <class V>
  constexpr void copy(V&& v) {
    if constexpr (std::is_trivially_destructible_v<M>) {
      if (!std::is_constant_evaluated()) {
        ref_ = detail::copy_into_room(v);
        if (ref_ != nullptr) return;
      }
    }
    own(std::forward<V>(v));
  }
  template <class V>
  constexpr void own(V&& v) {
    std::construct_at(&own_, std::forward<V>(v));
    ref_ = &own_;
    owns_ = true;
  }
  /// Reads where other reads, or holds a copy of other's own copy.
  template <class Other>
  constexpr void take(Other&& other) {
    drop();
    ref_ = other.ref_;
    if (other.owns_) own(std::forward<Other>(other).own_);
  }
  constexpr void drop() noexcept {
    if (owns_) std::destroy_at(&own_);
    owns_ = false;
  }
};

/// A constant held by reference, made by tl::cref: the data must outlive the gradient call.
template <class T>
struct constant_ref : expression<constant_ref<T>> {
  using value_type = T;
  static constexpr bool is_active = false;
  const T* ref_;
  constexpr explicit constant_ref(const T& v) noexcept : ref_(&v) {}
  [[nodiscard]] constexpr const T& value() const noexcept { return *ref_; }
};

/// Data used in f by reference, always. A plain matrix is read in place only where grad finds it in
/// f's closure, and else copied (once under grad, at each level of the expression elsewhere: see the
/// matrix constant above); tl::cref(X) costs a pointer everywhere. X must outlive the gradient call:
/// data captured by f, or declared outside f, does; a local of f that the returned expression refers
/// to does not.
///
///   auto loss = [&X](const auto& beta) { return tl::sum(tl::matmul(tl::cref(X), beta)); };
///
/// A tl::matrix of run-time extents is read in place too; inside f its rows(), cols() and size() are
/// run-time values, and X(i, j), x[i], tl::row and tl::col of it are constants of the data there.
template <class T>
  requires(Matrix<T> || RunTimeMatrix<T> || Real<T>)
constexpr constant_ref<T> cref(const T& data) noexcept { return constant_ref<T>(data); }
template <class T>
  requires(Matrix<T> || RunTimeMatrix<T> || Real<T> || detail::eigen_run_time_argument<T>)
constexpr auto cref(const T&& data) noexcept {
  static_assert(sizeof(T) == 0,
                "tl::cref(x): x must be a named object that outlives the gradient call, not a temporary; "
                "pass a temporary by value instead");
  if constexpr (detail::eigen_run_time_argument<T>)
    return detail::shape_error{};  // passed on quietly by every operation, after the message
  else
    return constant<T>(data);  // only so that nothing else fails after the message
}
/// A fixed-size Eigen matrix is read as a constant tl::matrix of its shape, element (i, j) to (i, j)
/// whatever its storage order: a copy, made once (into the room a transform keeps for data, under
/// grad), since tapeless's loops read row-major storage. So a temporary is as good as a named matrix.
template <detail::eigen_argument T>
constexpr constant<detail::eigen_matrix_t<T>> cref(const T& data) {
  return constant<detail::eigen_matrix_t<T>>(detail::to_matrix(data));
}
/// An Eigen VectorXd or MatrixXd, or a Map, Ref or block of one, is read where it lies, through its
/// strides (matrix/matrix_view.hpp), as a tl::matrix of run-time extents would be: X must outlive the
/// gradient call.
/// A Map or block of a temporary views memory that outlives it; a temporary VectorXd does not.
template <detail::eigen_run_time_argument T>
  requires(std::is_lvalue_reference_v<T> || !std::is_same_v<detail::eigen_plain_t<T>, std::remove_cvref_t<T>>)
constexpr constant<detail::eigen_view_t<T>> cref(T&& data) noexcept {
  return constant<detail::eigen_view_t<T>>(detail::view_of(data));
}
/// A std::vector, std::span or any other contiguous range is data of run-time length, which no node
/// can hold: a sum over it is tl::sum_over(tl::rows(data), ...).
template <class T>
  requires(!Matrix<T> && !RunTimeMatrix<T> && !Real<T> && !detail::eigen_dense<T> && requires(const T& data) {
    std::data(data);
    std::size(data);
  })
constexpr detail::shape_error cref(const T& /*data*/) noexcept {
  static_assert(sizeof(T) == 0,
                "tl::cref(x): x is data of run-time length; pass it to tl::rows(...) and sum over it with "
                "tl::sum_over");
  return {};  // passed on quietly by every operation, so that nothing else fails after the message
}

/// The name `let` gives to a shared intermediate inside its body. `Tag` is unique to that let
/// (see transforms/let.hpp), so nested lets never mix their adjoints.
template <class Tag, class T>
struct bound : expression<bound<Tag, T>> {
  using value_type = T;
  static constexpr bool is_active = true;
  T value_;
  constexpr explicit bound(T v) noexcept : value_(v) {}
  [[nodiscard]] constexpr const T& value() const noexcept { return value_; }
};

/// A matrix name points to the value its let keeps: each use of the name in the body, and each level
/// of the body above it, then copies a pointer instead of the matrix, whose copies would otherwise
/// cost a pass over it per level. A copied or moved let points its names at its own copy (expr/let.hpp).
template <class Tag, Matrix M>
struct bound<Tag, M> : expression<bound<Tag, M>> {
  using value_type = M;
  static constexpr bool is_active = true;
  const M* ref_;
  constexpr explicit bound(const M& v) noexcept : ref_(&v) {}
  template <std::same_as<detail::stand_in_t> S>
  constexpr explicit bound(S) noexcept : ref_(nullptr) {}
  [[nodiscard]] constexpr const M& value() const noexcept { return *ref_; }
};

/// A tl::var as it appears inside an expression: its value, and where its gradient accumulates.
template <class T>
struct var_ref : expression<var_ref<T>> {
  using value_type = T;
  static constexpr bool is_active = true;
  T value_;
  T* grad_;
  constexpr var_ref(T v, T* g) noexcept : value_(v), grad_(g) {}
  [[nodiscard]] constexpr const T& value() const noexcept { return value_; }
};

namespace detail {
/// A name bound by the let of Tag.
template <class Leaf, class Tag>
inline constexpr bool is_bound_to = false;
template <class Tag, class T>
inline constexpr bool is_bound_to<bound<Tag, T>, Tag> = true;

template <class Leaf>
inline constexpr bool is_var_ref = false;
template <class T>
inline constexpr bool is_var_ref<var_ref<T>> = true;

/// Leaves whose type names one number (an argument slot, a let name): two of the same type are equal.
template <class Leaf>
inline constexpr bool names_one_value = false;
template <std::size_t Slot, class T>
inline constexpr bool names_one_value<argument<Slot, T>> = true;
template <class Tag, class T>
inline constexpr bool names_one_value<bound<Tag, T>> = true;
}  // namespace detail

}  // namespace tapeless
