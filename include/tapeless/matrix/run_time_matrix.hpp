// SPDX-License-Identifier: BSL-1.0
// tapeless/matrix/run_time_matrix.hpp: matrix<T, R, C> where an extent is known only at run time
// (tl::dynamic: elements on the heap, or inside a gradient in its arena, detail/arena.hpp;
// tl::bounded<Max>: elements inline, constexpr).
//
// The same value type as a fixed matrix, with run-time rows() and cols(): row-major, zero when made,
// regular, and the same arithmetic on plain values (matrix/matrix.hpp's matrix_arithmetic). What a fixed
// matrix checks at compile time, this checks where the value is made or combined: a fixed extent that
// does not match and operands of two shapes throw std::invalid_argument, an extent above its bound
// std::length_error, each naming both numbers.
// Tests: test/unit/matrix/run_time_matrix_test.cpp
#pragma once

#include <tapeless/concepts/scalar.hpp>
#include <tapeless/detail/arena.hpp>
#include <tapeless/matrix/extent.hpp>
#include <tapeless/matrix/matrix.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

/// An extent as a user writes it: "3", "tl::dynamic", "tl::bounded<16>".
inline std::string extent_text(std::size_t extent) {
  if (fixed_extent(extent)) return std::to_string(extent);
  if (extent == dynamic) return "tl::dynamic";
  return "tl::bounded<" + std::to_string(max_extent(extent)) + ">";
}

/// A shape as the messages print it: "2 x 3".
inline std::string shape_text(std::size_t rows, std::size_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

/// The error of a run-time extent that its type's extent does not allow: out of line, so that the check
/// of every construction inlines to two comparisons.
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] inline void throw_extent_refused(std::size_t extent, std::size_t value,
                                                                              const char* what) {
  if (fixed_extent(extent))
    throw std::invalid_argument("tl::matrix: " + std::to_string(value) + " " + what + " where the type fixes " +
                                std::to_string(extent));
  throw std::length_error("tl::matrix: " + std::to_string(value) + " " + what + " where " + extent_text(extent) +
                          " holds at most " + std::to_string(max_extent(extent)));
}

/// Checks a run-time number of rows or columns (`what`) against the extent of its type: a fixed extent
/// must equal it (std::invalid_argument), a bound must hold it (std::length_error).
constexpr void check_extent(std::size_t extent, std::size_t value, const char* what) {
  if ((fixed_extent(extent) && value != extent) || (bounded_extent(extent) && value > max_extent(extent))) [[unlikely]]
    throw_extent_refused(extent, value, what);
}

[[noreturn]] [[gnu::cold]] [[gnu::noinline]] inline void throw_too_many_elements(std::size_t rows, std::size_t cols) {
  throw std::length_error("tl::matrix: " + shape_text(rows, cols) + " elements are more than memory holds");
}

/// The element count of a rows x cols matrix of T, or std::length_error where its bytes overflow
/// std::size_t.
template <class T>
constexpr std::size_t element_count(std::size_t rows, std::size_t cols) {
  std::size_t count = 0, bytes = 0;  // two multiplications checked for overflow, not a division
  if (__builtin_mul_overflow(rows, cols, &count) || __builtin_mul_overflow(count, sizeof(T), &bytes)) [[unlikely]]
    throw_too_many_elements(rows, cols);
  return count;
}

}  // namespace detail

/// A matrix whose rows, columns or both are known only at run time: tl::dynamic (on the heap) or
/// tl::bounded<Max> (inline, up to Max; usable in constant expressions).
///
///   tl::vector<double, tl::dynamic> x(n);          // n zeros
///   tl::matrix<double, tl::dynamic, 3> X(n, 3);    // n rows of 3
///   tl::vector<double, tl::bounded<8>> v{1, 2, 3}; // 3 elements, room for 8, no heap
template <class T, std::size_t R, std::size_t C>
  requires(!fixed_extent(R) || !fixed_extent(C))
class matrix<T, R, C> : public detail::matrix_arithmetic<matrix<T, R, C>, T> {
  static_assert(Real<T>, "tl::matrix<T, R, C>: T must be a floating-point type (float, double or long double)");
  static_assert((!fixed_extent(R) || R > 0) && (!fixed_extent(C) || C > 0),
                "tl::matrix<T, R, C>: a fixed extent is at least 1");
  static constexpr bool on_heap = R == dynamic || C == dynamic;
  static constexpr bool is_vector = C == 1 || R == 1;
  using elements = std::conditional_t<on_heap, detail::arena_elements<T>, std::array<T, max_extent(R) * max_extent(C)>>;

 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = T*;
  using const_iterator = const T*;

  /// The shape is known only at run time: two matrices of one type may differ in it.
  static constexpr bool fixed_shape = false;
  /// The extents of the type, as written: R and C (a fixed one is the number of rows or columns).
  static constexpr std::size_t rows_extent = R;
  static constexpr std::size_t cols_extent = C;

  /// Fixed extents as they are, run-time ones 0: `tl::vector<double, tl::dynamic>()` is empty.
  constexpr matrix() : matrix(fixed_extent(R) ? R : 0, fixed_extent(C) ? C : 0) {}

  /// A vector of n zeros.
  constexpr explicit matrix(size_type n) requires is_vector : matrix(C == 1 ? n : 1, C == 1 ? 1 : n) {}

  /// rows x cols zeros. Where an extent is fixed it must match (std::invalid_argument); where bounded,
  /// it must fit (std::length_error).
  constexpr matrix(size_type rows, size_type cols) : matrix(rows, cols, storage<on_heap>{}) {}
  /// rows x cols elements left unset, checked as the zeros are: for the library's own loops that write
  /// every element (detail::uninitialized). In a constant expression, zeros.
  constexpr matrix(size_type rows, size_type cols, detail::uninitialized_t)
      : matrix(rows, cols, storage<on_heap>{}, detail::uninitialized) {}

  // Inline storage makes, copies and moves only the elements its extents hold: a bounded<256> vector
  // of 16 elements is 16 numbers, not 256. (In a constant expression, where every element of an object
  // must be initialized, all of them.) A heap matrix moved from is empty, its run-time extents 0: its
  // elements went with the move.
  constexpr matrix(const matrix& other) : matrix(other, storage<on_heap>{}) {}
  constexpr matrix(matrix&& other) noexcept : matrix(std::move(other), storage<on_heap>{}) {}
  constexpr matrix& operator=(const matrix& other) {
    if (this != &other) {
      rows_ = other.rows_;
      cols_ = other.cols_;
      copy_from(other);
    }
    return *this;
  }
  constexpr matrix& operator=(matrix&& other) noexcept {
    if (this == &other) return *this;
    rows_ = other.rows_;
    cols_ = other.cols_;
    if constexpr (on_heap) {
      elements_ = std::move(other.elements_);
      other.forget_extents();
    } else {
      copy_from(other);
    }
    return *this;
  }
  constexpr ~matrix() = default;

  /// A vector of the elements given: `tl::vector<double, tl::dynamic> x{1.0, 2.0, 3.0}`.
  constexpr matrix(std::initializer_list<T> values) requires is_vector : matrix(values.size()) {
    std::copy(values.begin(), values.end(), begin());
  }

  /// A matrix of the rows given, as written on paper: `{{1, 2}, {3, 4}}`. Rows of different lengths
  /// throw std::invalid_argument.
  constexpr matrix(std::initializer_list<std::initializer_list<T>> rows) requires(C != 1)
      : matrix(rows.size(), rows.size() == 0 ? (fixed_extent(C) ? C : 0) : rows.begin()->size()) {
    T* to = data();
    for (const auto& row : rows) {
      if (row.size() != cols_)
        throw std::invalid_argument("tl::matrix: a row of " + std::to_string(row.size()) +
                                    " elements where the first has " + std::to_string(cols_));
      to = std::copy(row.begin(), row.end(), to);
    }
  }

  /// The same elements in a matrix of this type: from a fixed matrix whose shape fits it (implicit),
  /// or from another run-time matrix, checked as (rows, cols) is.
  template <std::size_t R2, std::size_t C2>
    requires(fixed_extent(R2) && fixed_extent(C2) && (fixed_extent(R) ? R == R2 : max_extent(R) >= R2) &&
             (fixed_extent(C) ? C == C2 : max_extent(C) >= C2))
  constexpr matrix(const matrix<T, R2, C2>& m)  // NOLINT(google-explicit-constructor): no information is lost
      : matrix(R2, C2, detail::uninitialized) {
    copy_elements(m.begin());
  }
  template <std::size_t R2, std::size_t C2>
    requires(!fixed_extent(R2) || !fixed_extent(C2))
  &&(R2 != R || C2 != C) constexpr explicit matrix(const matrix<T, R2, C2>& m)
      : matrix(m.rows(), m.cols(), detail::uninitialized) {
    copy_elements(m.begin());
  }

  /// rows x cols, every element `value`.
  static constexpr matrix filled(size_type rows, size_type cols, T value) {
    matrix m(rows, cols, detail::uninitialized);
    std::fill(m.begin(), m.end(), value);
    return m;
  }
  /// A vector of n elements, each `value`.
  static constexpr matrix filled(size_type n, T value) requires is_vector {
    matrix m(n);
    std::fill(m.begin(), m.end(), value);
    return m;
  }

  [[nodiscard]] constexpr size_type rows() const noexcept { return fixed_extent(R) ? R : rows_; }
  [[nodiscard]] constexpr size_type cols() const noexcept { return fixed_extent(C) ? C : cols_; }
  [[nodiscard]] constexpr size_type size() const noexcept { return rows() * cols(); }
  [[nodiscard]] constexpr bool empty() const noexcept { return size() == 0; }

  constexpr T& operator()(size_type i, size_type j) noexcept { return data()[i * cols() + j]; }
  constexpr const T& operator()(size_type i, size_type j) const noexcept { return data()[i * cols() + j]; }
  /// The i-th element in row-major order; for a vector, its i-th entry.
  constexpr T& operator[](size_type i) noexcept { return data()[i]; }
  constexpr const T& operator[](size_type i) const noexcept { return data()[i]; }

  constexpr T* data() noexcept { return elements_.data(); }
  constexpr const T* data() const noexcept { return elements_.data(); }
  constexpr iterator begin() noexcept { return data(); }
  constexpr iterator end() noexcept { return data() + size(); }
  constexpr const_iterator begin() const noexcept { return data(); }
  constexpr const_iterator end() const noexcept { return data() + size(); }

  /// Equal shapes and equal elements.
  friend constexpr bool operator==(const matrix& a, const matrix& b) noexcept {
    return a.rows() == b.rows() && a.cols() == b.cols() && std::equal(a.begin(), a.end(), b.begin());
  }

  /// Throws std::invalid_argument, naming the operation and both shapes, where a and b differ in shape.
  static constexpr void check_same_shape(const matrix& a, const matrix& b, const char* operation) {
    if (a.rows() != b.rows() || a.cols() != b.cols())
      throw std::invalid_argument(std::string("tl::matrix ") + operation + ": shapes " +
                                  detail::shape_text(a.rows(), a.cols()) + " and " +
                                  detail::shape_text(b.rows(), b.cols()) + " differ");
  }

 private:
  constexpr void forget_extents() noexcept { (fixed_extent(R) ? cols_ : rows_) = 0; }

  /// This matrix's elements from `from` on. Inline storage takes no more than it holds: g++ does not see
  /// that a source too large threw in `make`, and warns of the copy past the end it would be.
  constexpr void copy_elements(const T* from) noexcept {
    size_type count = size();
    if constexpr (!on_heap) count = std::min(count, max_extent(R) * max_extent(C));
    std::copy_n(from, count, begin());
  }

  // The constructors of each storage: the heap's makes its vector in place; inline storage is left as
  // it is but for the elements the extents hold.
  template <bool OnHeap>
  struct storage {};
  constexpr matrix(size_type rows, size_type cols, storage<true>)
      : rows_(rows), cols_(cols), elements_(checked_count(rows, cols)) {}
  constexpr matrix(size_type rows, size_type cols, storage<false>) : rows_(rows), cols_(cols) {
    const size_type count = checked_count(rows, cols);
    if (std::is_constant_evaluated())
      elements_.fill(T(0));
    else
      std::fill_n(elements_.data(), std::min(count, elements_.size()), T(0));
  }
  constexpr matrix(size_type rows, size_type cols, storage<true>, detail::uninitialized_t)
      : rows_(rows), cols_(cols), elements_(checked_count(rows, cols), false) {}
  constexpr matrix(size_type rows, size_type cols, storage<false>, detail::uninitialized_t) : rows_(rows), cols_(cols) {
    checked_count(rows, cols);
    if (std::is_constant_evaluated()) elements_.fill(T(0));
  }
  constexpr matrix(const matrix& other, storage<true>)
      : rows_(other.rows_), cols_(other.cols_), elements_(other.elements_) {}
  constexpr matrix(const matrix& other, storage<false>) : rows_(other.rows_), cols_(other.cols_) { copy_from(other); }
  constexpr matrix(matrix&& other, storage<true>) noexcept
      : rows_(other.rows_), cols_(other.cols_), elements_(std::move(other.elements_)) {
    other.forget_extents();
  }
  constexpr matrix(matrix&& other, storage<false>) noexcept : matrix(other, storage<false>{}) {}

  /// The elements of other, whose extents this matrix has taken.
  constexpr void copy_from(const matrix& other) {
    if (on_heap || std::is_constant_evaluated())
      elements_ = other.elements_;
    else
      copy_elements(other.elements_.data());
  }

  static constexpr size_type checked_count(size_type rows, size_type cols) {
    detail::check_extent(R, rows, "rows");
    detail::check_extent(C, cols, "columns");
    return detail::element_count<T>(rows, cols);
  }

  size_type rows_ = 0;
  size_type cols_ = 0;
  elements elements_;  // inline: only the first size() are set, at run time
};

/// Whether M is a tl::matrix with an extent known only at run time.
template <class M>
inline constexpr bool is_run_time_matrix = false;
template <class T, std::size_t R, std::size_t C>
inline constexpr bool is_run_time_matrix<matrix<T, R, C>> = !fixed_extent(R) || !fixed_extent(C);

/// A tl::matrix with an extent known only at run time: tl::dynamic or tl::bounded<Max>.
template <class M>
concept RunTimeMatrix = is_run_time_matrix<std::remove_cvref_t<M>>;

}  // namespace tapeless
