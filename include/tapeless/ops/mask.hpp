// SPDX-License-Identifier: BSL-1.0
// tapeless/ops/mask.hpp: comparisons of matrices element by element, and if_else with one condition per element.
//
//   auto m = A > 0.0;                 // tl::mask<R, C>: a plain array of bool, no derivative
//   auto y = tl::if_else(m, A, 0.1 * A);   // leaky relu: each element takes its own branch
//
// A < B, A > B, A <= B, A >= B compare values (as the scalar comparisons of ops/compare.hpp do) when
// either side is a matrix, a matrix expression; the other may be a matrix of the same shape or a
// number, a scalar expression or a tl::var, used for every element. They give a tl::mask of the
// matrix's shape. == and != keep their meaning on matrices (one bool: the whole matrices equal); the
// elementwise ones are tl::equal(a, b) and tl::not_equal(a, b). Masks combine with ~, &, | and ^ and
// reduce with tl::any, tl::all and tl::count; ~m negates.
//
// if_else(mask, a, b) is elementwise: element k is a_k where mask_k, else b_k; a and b are matrices of
// the mask's shape or numbers/scalar expressions (used for every element). Only the taken element
// receives adjoint; a scalar branch receives the sum of the adjoints of the elements that took it.
// The scalar if_else(bool, a, b) of ops/piecewise.hpp is untouched: a mask does not convert to bool.
#pragma once

#include <tapeless/expr/make.hpp>
#include <tapeless/expr/select.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/shape.hpp>
#include <tapeless/ops/compare.hpp>
#include <tapeless/ops/elementwise.hpp>

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tapeless {

/// One bool per element of an R x C matrix, row-major: the result of comparing matrices, the
/// condition of an elementwise if_else. A regular constexpr value type, built like a matrix:
///
///   tl::mask<2, 2> m{{true, false}, {false, true}};
///   tl::mask<3, 1> v{true, false, true};
template <std::size_t R, std::size_t C>
class mask : public detail::matrix_storage<bool, R, C> {
  static_assert(R > 0 && C > 0, "tl::mask<R, C>: a mask has at least one row and one column");
  using storage = detail::matrix_storage<bool, R, C>;

 public:
  using value_type = bool;
  using size_type = std::size_t;
  using iterator = typename std::array<bool, R * C>::iterator;
  using const_iterator = typename std::array<bool, R * C>::const_iterator;

  using storage::storage;
  constexpr mask() = default;

  /// Every element set to `value`.
  static constexpr mask filled(bool value) {
    mask m;
    for (auto& e : m.data_) e = value;
    return m;
  }

  [[nodiscard]] static constexpr size_type rows() noexcept { return R; }
  [[nodiscard]] static constexpr size_type cols() noexcept { return C; }
  [[nodiscard]] static constexpr size_type size() noexcept { return R * C; }

  constexpr bool& operator()(size_type i, size_type j) noexcept { return this->data_[i * C + j]; }
  constexpr bool operator()(size_type i, size_type j) const noexcept { return this->data_[i * C + j]; }
  /// The i-th element in row-major order.
  constexpr bool& operator[](size_type i) noexcept { return this->data_[i]; }
  constexpr bool operator[](size_type i) const noexcept { return this->data_[i]; }

  constexpr iterator begin() noexcept { return this->data_.begin(); }
  constexpr iterator end() noexcept { return this->data_.end(); }
  constexpr const_iterator begin() const noexcept { return this->data_.begin(); }
  constexpr const_iterator end() const noexcept { return this->data_.end(); }

  friend constexpr bool operator==(const mask& a, const mask& b) noexcept { return a.data_ == b.data_; }

  /// The elementwise negation. (Not `!`: g++ warns about `!a | b` and `!a == b` as about bools.)
  friend constexpr mask operator~(mask a) noexcept {
    for (auto& e : a.data_) e = !e;
    return a;
  }
  friend constexpr mask operator&(mask a, const mask& b) noexcept {
    for (size_type i = 0; i < R * C; ++i) a.data_[i] = a.data_[i] && b.data_[i];
    return a;
  }
  friend constexpr mask operator|(mask a, const mask& b) noexcept {
    for (size_type i = 0; i < R * C; ++i) a.data_[i] = a.data_[i] || b.data_[i];
    return a;
  }
  friend constexpr mask operator^(mask a, const mask& b) noexcept {
    for (size_type i = 0; i < R * C; ++i) a.data_[i] = a.data_[i] != b.data_[i];
    return a;
  }
};

/// Whether any element of the mask is true.
template <std::size_t R, std::size_t C>
constexpr bool any(const mask<R, C>& m) noexcept {
  for (bool e : m)
    if (e) return true;
  return false;
}
/// Whether every element of the mask is true.
template <std::size_t R, std::size_t C>
constexpr bool all(const mask<R, C>& m) noexcept {
  for (bool e : m)
    if (!e) return false;
  return true;
}
/// How many elements of the mask are true.
template <std::size_t R, std::size_t C>
constexpr std::size_t count(const mask<R, C>& m) noexcept {
  std::size_t n = 0;
  for (bool e : m) n += e ? 1 : 0;
  return n;
}

namespace detail {

// clang-format 14 would write `&&(` in this concept.
// clang-format off
/// Two plain operands of which one is a plain matrix, of fixed or run-time extents, and the other plain
/// data or such a matrix.
template <class X, class Y>
concept plain_matrix_operands = (Data<X> || RunTimeMatrix<X>) && (Data<Y> || RunTimeMatrix<Y>) &&
    (Matrix<X> || Matrix<Y> || RunTimeMatrix<X> || RunTimeMatrix<Y>);
// clang-format on

struct less_op {
  static constexpr bool gives_bools = true;  // of arrays of run-time extents, a formula of bools
  static constexpr const char* name = "operator<";
  template <class A, class B>
  constexpr bool operator()(const A& a, const B& b) const {
    return a < b;
  }
};
struct greater_op {
  static constexpr bool gives_bools = true;  // of arrays of run-time extents, a formula of bools
  static constexpr const char* name = "operator>";
  template <class A, class B>
  constexpr bool operator()(const A& a, const B& b) const {
    return a > b;
  }
};
struct less_equal_op {
  static constexpr bool gives_bools = true;  // of arrays of run-time extents, a formula of bools
  static constexpr const char* name = "operator<=";
  template <class A, class B>
  constexpr bool operator()(const A& a, const B& b) const {
    return a <= b;
  }
};
struct greater_equal_op {
  static constexpr bool gives_bools = true;  // of arrays of run-time extents, a formula of bools
  static constexpr const char* name = "operator>=";
  template <class A, class B>
  constexpr bool operator()(const A& a, const B& b) const {
    return a >= b;
  }
};
struct equal_op {
  static constexpr bool gives_bools = true;  // of arrays of run-time extents, a formula of bools
  static constexpr const char* name = "tl::equal";
  template <class A, class B>
  constexpr bool operator()(const A& a, const B& b) const {
    return a == b;
  }
};
struct not_equal_op {
  static constexpr bool gives_bools = true;  // of arrays of run-time extents, a formula of bools
  static constexpr const char* name = "tl::not_equal";
  template <class A, class B>
  constexpr bool operator()(const A& a, const B& b) const {
    return a != b;
  }
};

/// The mask of cmp(x_k, y_k), a number beside a matrix used for every element.
template <class Cmp, class X, class Y>
constexpr auto compare_elements(Cmp cmp, const X& x, const Y& y) {
  using VX = value_type_of_t<X>;
  using VY = value_type_of_t<Y>;
  constexpr shape a = shape_of<VX>, b = shape_of<VY>;
  constexpr shape a_used = Matrix<VX> ? a : b, b_used = Matrix<VY> ? b : a;
  if constexpr (RunTimeArray<X> || RunTimeArray<Y>) {
    return make_run_time_elementwise(cmp, x, y);  // a formula of bools (expr/run_time_elementwise.hpp)
  } else if constexpr (shapes::mask_shapes<a_used, b_used>::ok) {
    const auto& vx = value_of(x);
    const auto& vy = value_of(y);
    mask<a_used.rows, a_used.cols> m;
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = cmp(broadcast_element(vx, i), broadcast_element(vy, i));
    return m;
  }
}

}  // namespace detail

// Matrix expressions (the scalar comparisons of ops/compare.hpp exclude them), and plain matrices.
template <class X, class Y>
  requires BinaryOperands<X, Y> && detail::matrix_valued<X, Y>
constexpr auto operator<(const X& x, const Y& y) { return detail::compare_elements(detail::less_op{}, x, y); }
template <class X, class Y>
  requires BinaryOperands<X, Y> && detail::matrix_valued<X, Y>
constexpr auto operator>(const X& x, const Y& y) { return detail::compare_elements(detail::greater_op{}, x, y); }
template <class X, class Y>
  requires BinaryOperands<X, Y> && detail::matrix_valued<X, Y>
constexpr auto operator<=(const X& x, const Y& y) { return detail::compare_elements(detail::less_equal_op{}, x, y); }
template <class X, class Y>
  requires BinaryOperands<X, Y> && detail::matrix_valued<X, Y>
constexpr auto operator>=(const X& x, const Y& y) { return detail::compare_elements(detail::greater_equal_op{}, x, y); }

template <class X, class Y>
  requires detail::plain_matrix_operands<X, Y>
constexpr auto operator<(const X& x, const Y& y) { return detail::compare_elements(detail::less_op{}, x, y); }
template <class X, class Y>
  requires detail::plain_matrix_operands<X, Y>
constexpr auto operator>(const X& x, const Y& y) { return detail::compare_elements(detail::greater_op{}, x, y); }
template <class X, class Y>
  requires detail::plain_matrix_operands<X, Y>
constexpr auto operator<=(const X& x, const Y& y) { return detail::compare_elements(detail::less_equal_op{}, x, y); }
template <class X, class Y>
  requires detail::plain_matrix_operands<X, Y>
constexpr auto operator>=(const X& x, const Y& y) { return detail::compare_elements(detail::greater_equal_op{}, x, y); }

/// x_k == y_k for every element, as a mask (x == y on matrices is one bool: whether all are equal).
template <Operand X, Operand Y>
  requires detail::matrix_valued<X, Y>
constexpr auto equal(const X& x, const Y& y) { return detail::compare_elements(detail::equal_op{}, x, y); }
/// x_k != y_k for every element, as a mask.
template <Operand X, Operand Y>
  requires detail::matrix_valued<X, Y>
constexpr auto not_equal(const X& x, const Y& y) { return detail::compare_elements(detail::not_equal_op{}, x, y); }

namespace ops {

/// z_k = mask_k ? a_k : b_k, each side a matrix of the mask's shape or a number used for every element.
/// The adjoint of a matrix side is g where it was taken and 0 elsewhere; a number side receives the
/// sum of g over the elements that took it.
template <std::size_t R, std::size_t C>
struct select_elements : ::tapeless::detail::matrix_operation {
  static constexpr operation_traits traits{.name = "if_else", .vjp_reads = reads_nothing};
  mask<R, C> condition;
  constexpr explicit select_elements(const mask<R, C>& m) : condition(m) {}

  template <class A, class B>
  constexpr auto value(const A& a, const B& b) const {
    using T = std::common_type_t<scalar_of_t<A>, scalar_of_t<B>>;
    matrix<T, R, C> z;
    for (std::size_t i = 0; i < R * C; ++i)
      z[i] = ::tapeless::detail::branch_value(condition[i], static_cast<T>(::tapeless::detail::broadcast_element(a, i)),
                                              static_cast<T>(::tapeless::detail::broadcast_element(b, i)));
    return z;
  }
  template <class M, class A, class B>
  constexpr A vjp_lhs(const M& g, const A&, const B&, const M&) const {
    return taken<A, true>(g);
  }
  template <class M, class A, class B>
  constexpr B vjp_rhs(const M& g, const A&, const B&, const M&) const {
    return taken<B, false>(g);
  }

 private:
  template <class S, bool When, class M>
  constexpr S taken(const M& g) const {
    S s = ::tapeless::detail::filled<S>(0.0);
    for (std::size_t i = 0; i < R * C; ++i) {
      if (condition[i] != When && !::tapeless::detail::finds_pattern<M>) continue;  // a pattern takes both
      if constexpr (Matrix<S>)
        s[i] = g[i];
      else
        s += static_cast<S>(g[i]);
    }
    return s;
  }
};

}  // namespace ops

/// Elementwise cond ? a : b: a matrix of the mask's shape whose element k is a_k where cond_k, else
/// b_k. a and b are matrices of that shape, numbers, scalar expressions or vars. Both are built;
/// each element's adjoint goes to the branch it took only.
///
///   tl::if_else(x > 0.0, x, 0.01 * x)
template <std::size_t R, std::size_t C, Operand A, Operand B>
constexpr auto if_else(const mask<R, C>& cond, A&& a, B&& b) {
  constexpr shape sm{R, C};
  constexpr shape sa = Matrix<value_type_of_t<A>> ? shape_of<value_type_of_t<A>> : sm;
  constexpr shape sb = Matrix<value_type_of_t<B>> ? shape_of<value_type_of_t<B>> : sm;
  if constexpr (detail::any_shape_error<A, B> || !detail::fixed_extents_selected<A, B>() ||
                !shapes::mask_shapes<sm, sa>::ok)
    return detail::shape_error{};
  else
    return detail::checked_node<shapes::mask_shapes<sm, sb>, true>(ops::select_elements<R, C>(cond), std::forward<A>(a),
                                                                   std::forward<B>(b));
}

// After a comparison that could not give a mask has said why (ops/compare.hpp): nothing more to say.
template <Operand A, Operand B>
constexpr detail::shape_error if_else(detail::shape_error /*cond*/, A&& /*a*/, B&& /*b*/) {
  return {};
}
constexpr bool any(detail::shape_error /*m*/) noexcept { return false; }
constexpr bool all(detail::shape_error /*m*/) noexcept { return false; }
constexpr std::size_t count(detail::shape_error /*m*/) noexcept { return 0; }

}  // namespace tapeless
