// SPDX-License-Identifier: BSL-1.0
// tapeless/matrix/matrix.hpp: matrix<T, R, C>, the fixed-shape value type of inputs, values and gradients.
#pragma once

#include <tapeless/concepts/scalar.hpp>
#include <tapeless/matrix/extent.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <utility>

namespace tapeless {

template <class T, std::size_t R, std::size_t C>
class matrix;

namespace detail {
/// Selects the constructor that leaves the elements uninitialized, for the library's own loops that
/// write every element at once: a default-constructed matrix is zero, a fill the loop would repeat.
/// (In a constant expression, reading such an element before writing it does not compile.)
struct uninitialized_t {
  explicit uninitialized_t() = default;
};
inline constexpr uninitialized_t uninitialized{};

/// Whether every one of the conditions holds. Written `all_true({cond<U>...})`, not as a fold expression:
/// clang nests a fold of n terms n deep and stops at 256, so a vector of 300 values written out would
/// not compile.
constexpr bool all_true(std::initializer_list<bool> conditions) {
  for (const bool c : conditions)
    if (!c) return false;
  return true;
}

/// The matrices whose row constructor is declared with one parameter per row: up to this many rows.
/// Such a constructor takes a row written `{}` (zeros), which a deduced row length cannot; but it is
/// built, and inherited, for every matrix type, at a cost that grows with the row count (g++ takes most
/// of a minute and 7 GB for a 10000-element vector). Taller matrices deduce each row's length instead.
inline constexpr std::size_t rows_declared_max = 64;

/// The elements and the constructors, shared by tl::matrix and tl::mask: one parameter per row
/// (`{{1, 2}, {3, 4}}`), and for a vector, one parameter per element (`{1, 2, 3}`), so that a wrong
/// count does not compile.
template <class T, std::size_t R, std::size_t C,
          class DeclaredRows = std::make_index_sequence<(R <= rows_declared_max ? R : 0)>>
struct matrix_storage;

template <class T, std::size_t R, std::size_t C, std::size_t... Row>
struct matrix_storage<T, R, C, std::index_sequence<Row...>> {
  template <std::size_t>
  using row_ref = const T (&)[C];

  std::array<T, R * C> data_;

  constexpr matrix_storage() : data_{} {}
  constexpr explicit matrix_storage(uninitialized_t) {}  // NOLINT(cppcoreguidelines-pro-type-member-init)
  // Up to rows_declared_max rows: one parameter of C elements per row. Copied by copy_rows, through
  // lists of the rows' addresses and lengths rather than a fold expression (see `all_true`).
  constexpr matrix_storage(row_ref<Row>... rows)  // NOLINT: implicit, as the rows are written on paper
      requires(sizeof...(Row) == R)
      : data_{} {
    copy_rows({rows...}, {(static_cast<void>(Row), C)...});
  }
  // More rows: each row's length N is deduced from its braces; a shorter row ends in zeros, as an
  // array's would.
  template <std::size_t... N>
    requires(sizeof...(Row) == 0 && sizeof...(N) == R && all_true({(N <= C)...}))
  constexpr matrix_storage(const T (&... rows)[N]) : data_{} {  // NOLINT: implicit, as the rows are written on paper
    copy_rows({rows...}, {N...});
  }
  // Braces cannot deduce U, so `{{1}, {2}}` (rows of a column) never chooses this one.
  template <class... U>
    requires(C == 1 && R > 1 && sizeof...(U) == R && all_true({std::is_arithmetic_v<U>...}))
  constexpr matrix_storage(U... values) : data_{static_cast<T>(values)...} {}  // NOLINT

 private:
  // Row r of `rows` into row r of the matrix: its first lengths[r] elements, the rest left 0.
  constexpr void copy_rows(std::initializer_list<const T*> rows, std::initializer_list<std::size_t> lengths) {
    const auto* length = lengths.begin();
    std::size_t r = 0;
    for (const T* row : rows) {
      for (std::size_t c = 0; c < *length; ++c) data_[r * C + c] = row[c];
      ++length;
      ++r;
    }
  }
};
}  // namespace detail

namespace detail {
/// Arithmetic on plain values, so results and inputs need no other matrix library: one definition for
/// fixed and run-time extents. M states size(), data(), fixed_shape, and check_same_shape(a, b,
/// operation), which throws where the shapes of a and b differ (fixed shapes cannot: nothing throws).
template <class M, class T>
struct matrix_arithmetic {
  friend constexpr M& operator+=(M& a, const M& b) noexcept(M::fixed_shape) {
    M::check_same_shape(a, b, "+=");
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] += b.data()[i];
    return a;
  }
  friend constexpr M& operator-=(M& a, const M& b) noexcept(M::fixed_shape) {
    M::check_same_shape(a, b, "-=");
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] -= b.data()[i];
    return a;
  }
  /// Elementwise (Hadamard) product and quotient, as `*` and `/` are on matrix expressions.
  friend constexpr M& operator*=(M& a, const M& b) noexcept(M::fixed_shape) {
    M::check_same_shape(a, b, "*=");
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] *= b.data()[i];
    return a;
  }
  friend constexpr M& operator/=(M& a, const M& b) noexcept(M::fixed_shape) {
    M::check_same_shape(a, b, "/=");
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] /= b.data()[i];
    return a;
  }
  friend constexpr M& operator*=(M& a, T s) noexcept {
    for (auto& e : a) e *= s;
    return a;
  }
  friend constexpr M& operator/=(M& a, T s) noexcept {
    for (auto& e : a) e /= s;
    return a;
  }
  // Each returns its operand taken by value, moved out (`return a += b` would copy it): a run-time
  // matrix's elements go with it, allocated once.
  friend constexpr M operator+(M a, const M& b) noexcept(M::fixed_shape) {
    a += b;
    return a;
  }
  friend constexpr M operator-(M a, const M& b) noexcept(M::fixed_shape) {
    a -= b;
    return a;
  }
  friend constexpr M operator*(M a, const M& b) noexcept(M::fixed_shape) {
    a *= b;
    return a;
  }
  friend constexpr M operator/(M a, const M& b) noexcept(M::fixed_shape) {
    a /= b;
    return a;
  }
  friend constexpr M operator-(M a) noexcept {
    a *= T(-1);
    return a;
  }
  friend constexpr M operator*(M a, T s) noexcept {
    a *= s;
    return a;
  }
  friend constexpr M operator*(T s, M a) noexcept {
    a *= s;
    return a;
  }
  friend constexpr M operator/(M a, T s) noexcept {
    a /= s;
    return a;
  }
  friend constexpr M operator/(T s, M a) noexcept {
    for (auto& e : a) e = s / e;
    return a;
  }
  friend constexpr M operator+(M a, T s) noexcept {
    for (auto& e : a) e += s;
    return a;
  }
  friend constexpr M operator+(T s, M a) noexcept { return std::move(a) + s; }
  friend constexpr M operator-(M a, T s) noexcept { return std::move(a) + -s; }
  friend constexpr M operator-(T s, M a) noexcept { return -std::move(a) + s; }
};
}  // namespace detail

/// A dense R x C matrix of T, row-major, held by value: a regular constexpr type.
///
///   tl::matrix<double, 2, 2> A{{1, 2}, {3, 4}};   // rows, as written on paper
///   tl::vector<double, 3> v{1.0, 2.0, 3.0};       // a column vector, one value per element
template <class T, std::size_t R, std::size_t C>
class matrix : public detail::matrix_storage<T, R, C>, public detail::matrix_arithmetic<matrix<T, R, C>, T> {
  // A matrix of SIMD batches (a type with an `arch_type`, as xsimd's) is the library's own: a sum over
  // rows runs a batch of rows' matrices at once (sweep/sum_over_rows.hpp).
  static_assert(
      Real<T> || requires { typename T::arch_type; },
      "tl::matrix<T, R, C>: T must be a floating-point type (float, double or long double)");
  static_assert(R > 0 && C > 0, "tl::matrix<T, R, C>: a matrix has at least one row and one column");
  using storage = detail::matrix_storage<T, R, C>;

 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = typename std::array<T, R * C>::iterator;
  using const_iterator = typename std::array<T, R * C>::const_iterator;

  using storage::storage;
  constexpr matrix() = default;  // every element 0

  /// Every element set to `value`. A large matrix is filled by a loop at run time: g++ folds the call
  /// into a constant, and writes a constant that is not all zeros (-0.0, the empty sum's) one element
  /// at a time, a store per element that its dead-store pass then compares with every other: a sum
  /// over indices with a parameter of 12,000 elements took 100 s to compile, and takes 5 s.
  static constexpr matrix filled(T value) {
    matrix m(detail::uninitialized);
    // Below 512 elements its stores cost little to compile, and are as fast.
    if constexpr (R * C >= 512) {
      if (!std::is_constant_evaluated()) {  // not folded: the call runs, and its loop stays a loop
        std::fill_n(m.data_.data(), R * C, value);
        return m;
      }
    }
    for (auto& e : m.data_) e = value;
    return m;
  }

  [[nodiscard]] static constexpr size_type rows() noexcept { return R; }
  [[nodiscard]] static constexpr size_type cols() noexcept { return C; }
  [[nodiscard]] static constexpr size_type size() noexcept { return R * C; }

  constexpr T& operator()(size_type i, size_type j) noexcept { return this->data_[i * C + j]; }
  constexpr const T& operator()(size_type i, size_type j) const noexcept { return this->data_[i * C + j]; }
  /// The i-th element in row-major order; for a vector, its i-th entry.
  constexpr T& operator[](size_type i) noexcept { return this->data_[i]; }
  constexpr const T& operator[](size_type i) const noexcept { return this->data_[i]; }

  constexpr T* data() noexcept { return this->data_.data(); }
  constexpr const T* data() const noexcept { return this->data_.data(); }
  constexpr iterator begin() noexcept { return this->data_.begin(); }
  constexpr iterator end() noexcept { return this->data_.end(); }
  constexpr const_iterator begin() const noexcept { return this->data_.begin(); }
  constexpr const_iterator end() const noexcept { return this->data_.end(); }

  friend constexpr bool operator==(const matrix& a, const matrix& b) noexcept { return a.data_ == b.data_; }

  /// Whether the shape is a compile-time constant; then two matrices of one type never differ in it.
  static constexpr bool fixed_shape = true;
  static constexpr void check_same_shape(const matrix&, const matrix&, const char*) noexcept {}
};

/// A column vector: tl::vector<double, 3> is tl::matrix<double, 3, 1>.
template <class T, std::size_t N>
using vector = matrix<T, N, 1>;

/// Whether M is a tl::matrix, and its parts.
template <class M>
struct matrix_traits {
  static constexpr bool is_matrix = false;
};
template <class T, std::size_t R, std::size_t C>
  requires(fixed_extent(R) && fixed_extent(C))
struct matrix_traits<matrix<T, R, C>> {
  static constexpr bool is_matrix = true;
  using scalar = T;
  static constexpr std::size_t rows = R;
  static constexpr std::size_t cols = C;
};

/// A tl::matrix of floating-point numbers, of a fixed shape (one with a run-time extent is a
/// RunTimeMatrix, matrix/run_time_matrix.hpp).
template <class M>
concept Matrix = matrix_traits<std::remove_cvref_t<M>>::is_matrix;

namespace detail {
/// A number, or a matrix with every element, equal to `x`.
template <class V>
constexpr V filled(double x) {
  if constexpr (Matrix<V>)
    return V::filled(typename V::value_type(x));
  else
    return V(x);
}
}  // namespace detail

}  // namespace tapeless

// Declared with the class template, so that no matrix of a run-time extent is ever made of the fixed one.
#include <tapeless/matrix/run_time_matrix.hpp>  // IWYU pragma: export
