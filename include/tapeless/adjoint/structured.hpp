// SPDX-License-Identifier: BSL-1.0
// tapeless/adjoint/structured.hpp: adjoints that stand for a matrix without being one.
//
// A rule whose adjoint has a structure (every element one number, every row one row, zero outside one
// part, a scalar times a matrix the forward pass keeps) sends that structure instead of the matrix: an
// adjoint sum then writes or adds it in one pass (assign_adjoint, add_adjoint), without a matrix of its
// own to fill, copy and read back. A rule that knows a structure states a vjp taking it; every other rule
// receives the adjoint dense (operation/protocol.hpp).
#pragma once

#include <tapeless/matrix/matrix.hpp>
#include <tapeless/simd/batch.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// The adjoint of a matrix M whose every element is `value`: what sum and mean send back. A rule that
/// knows it (matmul: G B^T becomes row sums of B) states a vjp taking it; every other rule receives it
/// as a dense matrix (operation/protocol.hpp: unary_vjp and matrix_binary_vjp).
template <class M>
struct uniform {
  using matrix_type = M;
  typename M::value_type value;
  [[nodiscard]] constexpr M dense() const { return M::filled(value); }
};

template <class G>
inline constexpr bool is_uniform = false;
template <class M>
inline constexpr bool is_uniform<uniform<M>> = true;

/// The adjoint of a matrix M whose rows are all one row `line` (Rows) or whose columns are all one
/// column: what matmul's rules send back under a uniform G (G B^T: every row the row sums of B; A^T G:
/// every column the column sums of A). An adjoint sum adds it without forming the matrix, so that two
/// such contributions are not each written out whole and then added; a rule receives it dense.
template <class M, bool Rows>
struct repeated {
  using matrix_type = M;
  using T = typename M::value_type;
  using line_type = std::conditional_t<Rows, matrix<T, 1, M::cols()>, matrix<T, M::rows(), 1>>;
  line_type line;
  /// Element (i, j) of the matrix, read from l (line or a copy of it); a batch B of its row i from j.
  static constexpr T at(const line_type& l, std::size_t i, std::size_t j) { return Rows ? l[j] : l[i]; }
  template <class B>
  static B batch_at(const line_type& l, std::size_t i, std::size_t j) {
    if constexpr (Rows)
      return B::load_unaligned(&l[j]);
    else
      return B(l[i]);
  }
  /// f(element (i, j) of target, element (i, j) of this) for every element, row by row. The line is
  /// read from a local copy, so that the compiler need not fear that writing target changes it.
  /// At run time, a batch of a row at a time: left to itself, g++ vectorises this loop across rows,
  /// with shuffles.
  template <class Target, class F>
  constexpr void each(Target& target, const F& f) const {
    const auto copy = line;
#if TAPELESS_SIMD
    if constexpr (simd::whole_batches<T, M::cols()>()) {
      if (!std::is_constant_evaluated()) {
        using B = simd::batch<T>;
        for (std::size_t i = 0; i < M::rows(); ++i)
          for (std::size_t j = 0; j < M::cols(); j += simd::width<T>) {
            B e = B::load_unaligned(&target(i, j));
            f(e, batch_at<B>(copy, i, j));
            e.store_unaligned(&target(i, j));
          }
        return;
      }
    }
#endif
    for (std::size_t i = 0; i < M::rows(); ++i)
      for (std::size_t j = 0; j < M::cols(); ++j) f(target(i, j), at(copy, i, j));
  }
  [[nodiscard]] constexpr M dense() const {
    M m(uninitialized);
    each(m, [](auto& e, const auto& v) { e = v; });
    return m;
  }
};

template <class G>
inline constexpr bool is_repeated = false;
template <class M, bool Rows>
inline constexpr bool is_repeated<repeated<M, Rows>> = true;

/// a + b, two repeated adjoints of one matrix, as a matrix written in one pass: matmul(A, A) under a
/// uniform G sends A both G Aᵀ (repeated rows) and Aᵀ G (repeated columns), which a sum of dense
/// matrices would write, read back and add to.
template <class M, bool RowsA, bool RowsB>
constexpr M sum_of_repeated(const repeated<M, RowsA>& a, const repeated<M, RowsB>& b) {
  const auto la = a.line;  // local copies: writing `out` cannot change them
  const auto lb = b.line;
  M out(uninitialized);
#if TAPELESS_SIMD
  using T = typename M::value_type;
  if constexpr (simd::whole_batches<T, M::cols()>()) {
    if (!std::is_constant_evaluated()) {
      using B = simd::batch<T>;
      for (std::size_t i = 0; i < M::rows(); ++i)
        for (std::size_t j = 0; j < M::cols(); j += simd::width<T>)
          (a.template batch_at<B>(la, i, j) + b.template batch_at<B>(lb, i, j)).store_unaligned(&out(i, j));
      return out;
    }
  }
#endif
  for (std::size_t i = 0; i < M::rows(); ++i)
    for (std::size_t j = 0; j < M::cols(); ++j) out(i, j) = a.at(la, i, j) + b.at(lb, i, j);
  return out;
}

/// The part of a matrix an adjoint is nonzero at (placed, strided_part). Not Owned, it points at the
/// adjoint the rule received, which a caller up the sweep holds until the operand's sweep has returned;
/// Owned, it holds the part, for an adjoint made dense for the rule.
template <class Part, bool Owned>
struct held_part {
  std::conditional_t<Owned, Part, const Part*> held;
  [[nodiscard]] constexpr const Part& part() const {
    if constexpr (Owned)
      return held;
    else
      return *held;
  }
};

/// The adjoint of a matrix M that is zero outside elements Start .. Start + L - 1 (row-major), which
/// are the L elements of part(): what slice's rule sends back. An adjoint sum writes or adds the part
/// and the zeros around it in one pass, where a dense adjoint would be a matrix of zeros written, then
/// the part, and then all of it copied or added by the sum.
template <class M, std::size_t Start, class Part, bool Owned>
struct placed : held_part<Part, Owned> {
  using matrix_type = M;
  static constexpr std::size_t start = Start, length = Part::size();
  template <class F>
  constexpr void each_element(const F& f) const {
    const Part& p = this->part();
    for (std::size_t i = 0; i < length; ++i) f(Start + i, p[i]);
  }
  [[nodiscard]] constexpr M dense() const {
    M m(uninitialized);
    write_to(m);
    return m;
  }
  /// target = this.
  template <class Target>
  constexpr void write_to(Target& target) const {
    using T = typename M::value_type;
    for (std::size_t i = 0; i < Start; ++i) target[i] = T(0);
    const Part& p = this->part();
    for (std::size_t i = 0; i < length; ++i) target[Start + i] = p[i];
    for (std::size_t i = Start + length; i < M::size(); ++i) target[i] = T(0);
  }
};

template <class G>
inline constexpr bool is_placed = false;
template <class M, std::size_t Start, class Part, bool Owned>
inline constexpr bool is_placed<placed<M, Start, Part, Owned>> = true;

/// Zeros of type M: its own shape where fixed, rows x cols where it has run-time extents.
template <class M>
constexpr M zeros_of([[maybe_unused]] std::size_t rows, [[maybe_unused]] std::size_t cols) {
  if constexpr (RunTimeMatrix<M>)
    return M(rows, cols);
  else
    return M{};
}

/// The adjoint of a matrix M that is zero but for one element, `value` at row-major `index`: what an
/// element access (A(i, j), v[i]) sends back. An adjoint sum adds it in O(1), so that a sum of n
/// element accesses costs O(n), where a dense adjoint per access would cost O(n) each.
template <class M>
struct one_element {
  using matrix_type = M;
  std::size_t index = 0;
  typename M::value_type value{};
  std::size_t rows = 0, cols = 0;  // M's, where they are run-time extents
  /// f(index, value) for its element: what an adjoint sum and a cut's list take (each_element).
  template <class F>
  constexpr void each_element(const F& f) const {
    f(index, value);
  }
  [[nodiscard]] constexpr M dense() const {
    M m = zeros_of<M>(rows, cols);
    m[index] = value;
    return m;
  }
};

template <class G>
inline constexpr bool is_one_element = false;
template <class M>
inline constexpr bool is_one_element<one_element<M>> = true;

/// The adjoint of a matrix M that is zero but for the elements start, start + stride, ... (row-major),
/// which are the elements of part(): what a row (stride 1) or a column (stride M::cols()) sends back,
/// at an index known at run time. An adjoint sum adds it in O(length of the part).
template <class M, class Part, bool Owned>
struct strided_part : held_part<Part, Owned> {
  using matrix_type = M;
  std::size_t start = 0, stride = 1;
  std::size_t rows = 0, cols = 0;  // M's, where they are run-time extents
  template <class F>
  constexpr void each_element(const F& f) const {
    const Part& p = this->part();
    for (std::size_t k = 0; k < Part::size(); ++k) f(start + k * stride, p[k]);
  }
  [[nodiscard]] constexpr M dense() const {
    M m = zeros_of<M>(rows, cols);
    each_element([&m](std::size_t i, const auto& v) { m[i] = v; });
    return m;
  }
};

template <class G>
inline constexpr bool is_strided_part = false;
template <class M, class Part, bool Owned>
inline constexpr bool is_strided_part<strided_part<M, Part, Owned>> = true;

/// The adjoint of a matrix M that is zero but for at most K listed elements, (index, value) pairs in
/// row-major indices, an index listed again adding to it: what a cut of a deep tree keeps for a matrix
/// it reads a few elements of (expr/cut.hpp), where a dense partial would cost a pass over M per cut
/// and per node above it. `add` takes the adjoints of element accesses and of other lists.
template <class M, std::size_t K>
struct element_list {
  using matrix_type = M;
  using T = typename M::value_type;
  static constexpr std::size_t capacity = K;
  std::array<std::size_t, K> index{};
  std::array<T, K> value{};
  std::size_t count = 0;

  constexpr void push(std::size_t i, T v) {
    index[count] = i;
    value[count] = v;
    ++count;
  }
  /// Appends g, the adjoint of a part of M (one_element, strided_part, placed, scaled_elements).
  template <class G>
  constexpr void add(const G& g);
};

template <class G>
inline constexpr bool is_element_list = false;
template <class M, std::size_t K>
inline constexpr bool is_element_list<element_list<M, K>> = true;

/// factor times the elements of *list: what a cut sends a matrix it keeps an element_list for.
template <class M, std::size_t K>
struct scaled_elements {
  using matrix_type = M;
  using T = typename M::value_type;
  const element_list<M, K>* list;
  T factor;
  template <class F>
  constexpr void each_element(const F& f) const {
    for (std::size_t k = 0; k < list->count; ++k) f(list->index[k], list->value[k] * factor);
  }
  [[nodiscard]] constexpr M dense() const {
    M m{};
    each_element([&m](std::size_t i, const auto& v) { m[i] += v; });  // an index may be listed twice
    return m;
  }
};

template <class G>
inline constexpr bool is_scaled_elements = false;
template <class M, std::size_t K>
inline constexpr bool is_scaled_elements<scaled_elements<M, K>> = true;

template <class M, std::size_t K>
template <class G>
constexpr void element_list<M, K>::add(const G& g) {
  static_assert(
      requires { g.each_element([](std::size_t, T) {}); },
      "an element_list takes the adjoints of parts of its matrix only");
  g.each_element([this](std::size_t i, const T& v) { push(i, v); });
}

/// The dense matrix of a line's adjoint G (filled_line, scaled_line) of a matrix of run-time extents, for
/// a rule that takes dense adjoints only: zeros, and the line's elements.
template <class G>
constexpr typename G::matrix_type dense_of_elements(const G& g) {
  typename G::matrix_type m(g.rows, g.cols);
  g.each_element([&m](std::size_t i, const auto& v) { m[i] += v; });
  return m;
}

/// The adjoint of a matrix M of run-time extents that is zero but for `length` elements start, start +
/// stride, ... (row-major), each `value`: what the sum of one of its rows or columns sends it
/// (ops::line_sum). An adjoint sum adds it in O(length).
template <class M>
struct filled_line {
  using matrix_type = M;
  using T = typename M::value_type;
  std::size_t start, stride, length;
  T value;
  std::size_t rows, cols;  // the matrix's
  template <class F>
  constexpr void each_element(const F& f) const {
    each_in_line([&](std::size_t k, const T& v) { f(start + k * stride, v); });
  }
  /// f(k, value) for k < length: element k of the line.
  template <class F>
  constexpr void each_in_line(const F& f) const {
    for (std::size_t k = 0; k < length; ++k) f(k, value);
  }
  [[nodiscard]] constexpr M dense() const { return dense_of_elements(*this); }
};

template <class G>
inline constexpr bool is_filled_line = false;
template <class M>
inline constexpr bool is_filled_line<filled_line<M>> = true;

/// The adjoint of a matrix M of run-time extents that is zero but for `length` elements start, start +
/// stride, ... (row-major), element k of which is factor times element k of line `other_line` of
/// *other (its row where OtherRow, else its column): what element (i, j) of a product of two such
/// matrices sends each of them (ops::line_dot), g times the other's line in its own. An adjoint sum adds
/// it in O(length), reading the other matrix where it lies.
template <class M, class Other, bool OtherRow>
struct scaled_line {
  using matrix_type = M;
  using T = typename M::value_type;
  const Other* other;
  std::size_t start, stride, length, other_line;
  T factor;
  std::size_t rows, cols;  // the matrix's
  template <class F>
  constexpr void each_element(const F& f) const {
    each_in_line([&](std::size_t k, const T& v) { f(start + k * stride, v); });
  }
  /// f(k, v) for k < length, v element k of the line.
  template <class F>
  constexpr void each_in_line(const F& f) const {
    const Other& o = *other;
    for (std::size_t k = 0; k < length; ++k) f(k, factor * (OtherRow ? o(other_line, k) : o(k, other_line)));
  }
  [[nodiscard]] constexpr M dense() const { return dense_of_elements(*this); }
};

template <class G>
inline constexpr bool is_scaled_line = false;
template <class M, class Other, bool OtherRow>
inline constexpr bool is_scaled_line<scaled_line<M, Other, OtherRow>> = true;

/// The adjoint factor times the matrix *of: what log_sum_exp's rule sends back (its exps times g / their
/// sum). An adjoint sum writes or adds the products in one pass, where a dense adjoint would be a
/// matrix of the rule's own, written and then copied by the sum. `of` points into the
/// forward pass's values, which outlive the sweep. Where nothing reads them after this adjoint, `spare`
/// points to them too (spare_values), and a sum that has no adjoint yet may take them instead of copying
/// them: a gradient of run-time extents then owns the sum's partials and allocates nothing of its own.
template <class M>
struct scaled {
  using matrix_type = M;
  using T = typename M::value_type;
  const M* of;
  T factor;
  M* spare = nullptr;
  [[nodiscard]] constexpr M dense() const { return *of * factor; }
  /// The matrix the adjoint stands for, made of *spare's elements, which it takes: nothing copied, and
  /// no multiplication where the factor is a plain 1 (x * 1 is x).
  [[nodiscard]] constexpr M taken() const {
    M m = std::move(*spare);
    if (!std::is_floating_point_v<T> || factor != T(1))
      for (auto& e : m) e *= factor;
    return m;
  }
  /// f(element i of target, element i of this) for every element.
  template <class Target, class F>
  constexpr void each(Target& target, const F& f) const {
    const M& m = *of;
    const T c = factor;
    for (std::size_t i = 0; i < m.size(); ++i) f(target[i], m[i] * c);  // a fixed M's size is a constant
  }
};

/// Whether a T keeps its elements on the heap: a matrix with a tl::dynamic extent.
template <class T>
inline constexpr bool elements_on_heap = false;
template <RunTimeMatrix T>
inline constexpr bool elements_on_heap<T> = T::rows_extent == dynamic || T::cols_extent == dynamic;

/// Values of the forward pass that only one rule reads, once (a sum's partials in a parameter of
/// tl::dynamic extents): the rule may send them as the `spare` of its scaled adjoint. Mutable, so that
/// a store may take them from the forward pass's values, which the sweep reads as constants. (Inline
/// elements, as tl::bounded keeps them, would be copied all the same, and a constant expression may not
/// read a mutable member: those are kept as they are, spare_kept_t.)
template <class M>
struct spare_values {
  mutable M values;
};

/// How a forward pass keeps values that one rule reads once.
template <class M>
using spare_kept_t = std::conditional_t<elements_on_heap<M>, spare_values<M>, M>;

/// g times the values kept: a scaled adjoint, whose receiver may take spare values.
template <class M, class G>
constexpr scaled<M> scaled_by(const M& kept, const G& g) {
  return {&kept, g};
}
template <class M, class G>
constexpr scaled<M> scaled_by(const spare_values<M>& kept, const G& g) {
  return {&kept.values, g, &kept.values};
}

template <class G>
inline constexpr bool is_scaled = false;
template <class M>
inline constexpr bool is_scaled<scaled<M>> = true;

/// Adjoints that name the elements they write, each_element(f) calling f(index, value) for each: an
/// adjoint sum adds them one by one.
template <class G>
inline constexpr bool lists_elements = is_placed<G> || is_one_element<G> || is_strided_part<G> ||
                                       is_scaled_elements<G> || is_scaled_line<G> || is_filled_line<G>;

/// Adjoints that stand for a matrix without being one: a rule that does not take them receives them dense.
template <class G>
inline constexpr bool is_structured =
    is_uniform<G> || is_repeated<G> || is_placed<G> || is_scaled<G> || is_one_element<G> || is_strided_part<G> ||
    is_scaled_elements<G> || is_scaled_line<G> || is_filled_line<G>;

/// An adjoint as a plain number, matrix or uniform matrix (for what knows uniform adjoints only).
template <class G>
constexpr decltype(auto) dense_or_uniform(const G& g) {
  if constexpr (is_structured<G> && !is_uniform<G>)
    return g.dense();
  else
    return (g);
}

/// Adjoints along one row or column of a matrix (filled_line, scaled_line).
template <class G>
inline constexpr bool is_line = is_filled_line<G> || is_scaled_line<G>;

/// A line adjoint of a matrix of type M, which holds its elements contiguous in row-major order.
template <class G, class M>
concept line_adjoint_of = is_line<G> && std::same_as<M, typename G::matrix_type>;

/// Adds line adjoint g to its elements from `first` on, g.stride apart. A row's (stride 1) is a loop
/// over contiguous elements, which the compiler runs in SIMD registers; each element is added to once,
/// so the sums are those of one element at a time, bit for bit.
template <class P, class G>
constexpr void add_line(P* first, const G& g) {
  if (g.stride == 1) {
    g.each_in_line([first](std::size_t k, const auto& v) { first[k] += v; });
  } else {
    const std::size_t stride = g.stride;
    g.each_in_line([first, stride](std::size_t k, const auto& v) { first[k * stride] += v; });
  }
}

/// target += g, for an adjoint g that may be structured.
template <class T, class G>
constexpr void add_adjoint(T& target, const G& g) {
  if constexpr (is_uniform<G>) {
    for (auto& e : target) e += g.value;
  } else if constexpr (is_repeated<G> || is_scaled<G>) {
    g.each(target, [](auto& e, const auto& v) { e += v; });
  } else if constexpr (line_adjoint_of<G, T>) {
    add_line(target.data() + g.start, g);
  } else if constexpr (lists_elements<G>) {
    g.each_element([&target](std::size_t i, const auto& v) { target[i] += v; });
  } else {
    target += g;
  }
}

/// target = g, for an adjoint g that may be structured.
template <class T, class G>
constexpr void assign_adjoint(T& target, const G& g) {
  if constexpr (is_uniform<G>) {
    for (auto& e : target) e = g.value;
  } else if constexpr (is_repeated<G> || is_scaled<G>) {
    g.each(target, [](auto& e, const auto& v) { e = v; });
  } else if constexpr (is_placed<G>) {
    g.write_to(target);
  } else if constexpr (lists_elements<G>) {
    for (auto& e : target) e = std::remove_cvref_t<decltype(e)>(0);
    add_adjoint(target, g);
  } else {
    target = g;
  }
}

}  // namespace tapeless::detail
