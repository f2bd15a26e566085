// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/sum_over_rows.hpp: the loop of a sum over rows: its value and its partials, in one pass.
//
// A sum over rows of run-time count has one term type, body(row, params), whatever the count. So the
// loop builds that term for a row (or a SIMD batch of rows) on leaves: the row's values as constants,
// each parameter as an argument leaf, evaluates it and sweeps it with seed 1 into one adjoint per
// parameter, and adds those up: the sum's value and its partial derivatives in its parameters, which
// the node of the sum keeps for the outer sweep as a cut keeps its partials. Nothing is stored per
// row and nothing is allocated: the term's tree lives in the loop's registers and stack.
//
// Rows go in blocks of rows_block. Each block starts its sums afresh and the blocks' sums are added in
// order, so the grouping of the sum depends on the row count alone: the same bits whether the blocks
// run one after another or on threads (transforms/sum_over.hpp).
// Tests: test/unit/transforms/sum_over/
#pragma once

#include <tapeless/adjoint/structured.hpp>
#include <tapeless/detail/inline.hpp>
#include <tapeless/expr/children.hpp>
#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/cut.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/expr/in_place.hpp>
#include <tapeless/expr/inline.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/let.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/matrix_view.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/operation/traits.hpp>
#include <tapeless/simd/batch.hpp>
#include <tapeless/simd/transpose.hpp>
#include <tapeless/sweep/adjoints.hpp>
#include <tapeless/sweep/backward.hpp>
#include <tapeless/sweep/index_rows.hpp>
#include <tapeless/sweep/matrix_rows.hpp>

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

// TAPELESS_ROWS_TERMS_FLATTEN marks block_sum::add_terms, the evaluation and sweep of a group of rows'
// terms: every function it calls is inlined into it, with g++ as with clang. Left to itself, g++ 12
// inlines a let's sweep into the block's sum rather than the block's sum into its callers, and the
// logistic regression of bench/rows_bench.cpp (S11) runs 3% more instructions per gradient; flattened,
// it runs as many as with the whole loop in one function. Not at -O0 (no __OPTIMIZE__), where it only
// costs compile time; defined before this header, empty, it leaves add_terms to the compiler's inliner.
#ifndef TAPELESS_ROWS_TERMS_FLATTEN
#if defined(__GNUC__) && defined(__OPTIMIZE__)
#define TAPELESS_ROWS_TERMS_FLATTEN [[gnu::flatten]]
#else
#define TAPELESS_ROWS_TERMS_FLATTEN
#endif
#endif

namespace tapeless::detail {

/// The rows of one block: a sum over more rows adds the sums of its blocks in order.
inline constexpr std::size_t rows_block = 4096;

/// What a sum over rows computes: its value, its partials in the parameters, or both.
enum class wanted { value, partials, both };
constexpr bool wants_value(wanted w) { return w != wanted::partials; }
constexpr bool wants_partials(wanted w) { return w != wanted::value; }

/// What a sum over rows gives: its value and its partial derivative in each parameter.
template <class T, class... P>
struct rows_sum {
  T value;
  plain_tuple<P...> partials;
};

/// V with its numbers made L: a number L, or a matrix of L of V's shape.
template <class L, class V>
struct in_lanes {
  using type = L;
};
template <class L, class S, std::size_t R, std::size_t C>
struct in_lanes<L, matrix<S, R, C>> {
  using type = matrix<L, R, C>;
};
template <class L, class S, std::size_t R, std::size_t C>
struct in_lanes<L, matrix_view<S, R, C>> {
  using type = matrix_view<L, R, C>;
};
template <class L, class S, std::size_t R, std::size_t C>
struct in_lanes<L, dense_view<S, R, C>> {
  using type = dense_view<L, R, C>;
};
template <class L, class V>
using in_lanes_t = typename in_lanes<L, V>::type;

/// The number of rows a term of lane type L holds.
template <class L>
constexpr std::size_t lanes_of() {
  if constexpr (simd::is_batch<L>)
    return L::size;
  else
    return 1;
}

/// v in every lane of L.
template <class L, class V>
constexpr in_lanes_t<L, V> broadcast(const V& v) {
  if constexpr (Matrix<V>) {
    in_lanes_t<L, V> m(uninitialized);
    for (std::size_t e = 0; e < V::size(); ++e) m[e] = L(v[e]);
    return m;
  } else {
    return L(v);
  }
}

/// The lanes of column `c` from row i, `count` of them real (the others repeat row i, so that they hold
/// numbers of the data and never read past its end): a number of L, a matrix of L, or, for one lane of
/// the column's own type, a pointer to the row itself. A column of a matrix's rows and one of indices
/// have theirs (sweep/matrix_rows.hpp, sweep/index_rows.hpp). Inlined with either compiler (each macro names
/// one): out of line, g++ returns a matrix of batches through memory, a copy per batch.
template <class L, class E>
TAPELESS_SWEEP_INLINE TAPELESS_BUILD_INLINE constexpr auto row_lanes(const E* c, std::size_t i,
                                                                     [[maybe_unused]] std::size_t count) {
  if constexpr (!simd::is_batch<L>) {
    if constexpr (Matrix<E>) {
      if constexpr (std::is_same_v<typename E::value_type, L>)
        return c + i;  // read in place
      else
        return broadcast<L>(c[i]);
    } else {
      return L(c[i]);
    }
  }
#if TAPELESS_SIMD
  else {
    using T = typename L::value_type;
    const auto lanes = [&](const auto& element) {
      return [&]<std::size_t... K>(std::index_sequence<K...>) {
        return L{static_cast<T>(element(c[i + (K < count ? K : 0)]))...};
      }
      (std::make_index_sequence<L::size>{});
    };
    if constexpr (Matrix<E>) {
      in_lanes_t<L, E> m(uninitialized);
      std::size_t e = 0;
      if constexpr (std::is_same_v<typename E::value_type, T> && simd::transposes<T>) {
        const auto row = [&]<std::size_t... K>(std::index_sequence<K...>) {
          return std::array<const T*, L::size>{c[i + (K < count ? K : 0)].data()...};
        }
        (std::make_index_sequence<L::size>{});
        for (; e + L::size <= E::size(); e += L::size) simd::transpose(row.data(), e, m.data() + e);
      }
      for (; e < E::size(); ++e) m[e] = lanes([e](const E& row) { return row[e]; });
      return m;
    } else if constexpr (std::is_same_v<E, T>) {
      if (count == L::size) return L::load_unaligned(c + i);
      return lanes([](E x) { return x; });
    } else {
      return lanes([](E x) { return x; });
    }
  }
#endif
}

/// The leaf of a row's value in a term: a constant, held by value or pointing at the value; an index
/// (sweep/index_rows.hpp) is passed as it is.
template <class V>
constexpr auto row_leaf(const V& v) {
  if constexpr (is_row_index<V>)
    return v;
  else if constexpr (std::is_pointer_v<V>)
    return constant_ref<std::remove_cv_t<std::remove_pointer_t<V>>>(*v);
  else if constexpr (Matrix<V> || RunTimeMatrix<V>)
    return constant_ref<V>(v);
  else
    return constant<V>(v);
}

/// The leaf of parameter J in a term: an argument where the partials are wanted, else a constant.
template <wanted Wanted, std::size_t J, class V>
constexpr auto parameter_leaf(const V& v) {
  if constexpr (!wants_partials(Wanted))
    return row_leaf(v);
  else
    return argument<parameter_slot + J, V>(v);
}

/// Whether a term's leaf is one of the parameters' argument leaves.
template <class Leaf>
inline constexpr bool is_parameter_leaf = false;
template <std::size_t S, class V>
inline constexpr bool is_parameter_leaf<argument<S, V>> = S >= parameter_slot;

/// Whether a term of type N reads no active leaf but the parameters' (f's own expressions, captured by
/// body, are not: their adjoints would be lost).
template <class N>
constexpr bool reads_parameters_only() {
  if constexpr (!Expression<N>)
    return true;
  else
    return []<class... L>(leaf_list<L...>) { return (is_parameter_leaf<L> && ...); }(typename free_leaves<N>::type{});
}

/// to += from, in the lanes `real...` says are real (all where it says nothing). A padding lane is
/// selected away, not multiplied by 0, which would be NaN for an infinity.
template <class V, class... Real>
constexpr void add_lanes(V& to, const V& from, [[maybe_unused]] const Real&... real) {
  const auto pick = [&](const auto& x) {
    if constexpr (sizeof...(Real) == 0) {
      return x;
    } else {
#if TAPELESS_SIMD  // a mask is made only where there are batches
      return xsimd::select(real..., x, std::remove_cvref_t<decltype(x)>(0));
#endif
    }
  };
  if constexpr (Matrix<V>) {
    for (std::size_t e = 0; e < V::size(); ++e) to[e] += pick(from[e]);
  } else {
    to += pick(from);
  }
}

/// The sums over rows of the parameters' adjoints: each term's sweep adds into them as it goes, not
/// into sums of its own that are added afterwards (for a matrix parameter of batches, a copy of
/// hundreds of bytes per batch). In a partial batch, `real` marks the lanes to add.
template <class Partials, class... Real>
struct parameter_sums {
  Partials& partials;
  plain_tuple<Real...> real;

  template <class Leaf, class G>
  TAPELESS_SWEEP_INLINE constexpr void accumulate(const Leaf&, const G& g) {
    auto& sum = plain_get<Leaf::slot - parameter_slot>(partials);
    if constexpr (sizeof...(Real) == 0) {
      add_adjoint(sum, g);
    } else {
      const auto& dense = [&]() -> decltype(auto) {
        if constexpr (is_structured<G>)
          return g.dense();
        else
          return g;
      }();
      apply_plain([&](const auto&... r) { add_lanes(sum, dense, r...); }, real);
    }
  }
};

template <class L, class E>
using row_leaf_t = decltype(row_leaf(row_lanes<L>(std::declval<column_start_t<E>>(), 0, 0)));

/// The term body(row, params) with lanes L, as a sum that computes Wanted builds it: its type (an
/// expression, or a plain number where body reads no leaf).
template <class Body, class L, wanted Wanted, class View, class... P>
struct term_of;
template <class Body, class L, wanted Wanted, template <class...> class View, class... E, class... P>
struct term_of<Body, L, Wanted, View<E...>, P...> {
  template <std::size_t... J>
  static auto make(std::index_sequence<J...>)
      -> std::invoke_result_t<const Body&, const row_leaf_t<L, E>&...,
                              const decltype(parameter_leaf<Wanted, J>(std::declval<const in_lanes_t<L, P>&>()))&...>;
  using type = std::remove_cvref_t<decltype(make(std::index_sequence_for<P...>{}))>;
};
/// A view read in runs (tl::pairs): the term of a run's rows.
template <class Body, class L, wanted Wanted, in_segments View, class... P>
struct term_of<Body, L, Wanted, View, P...> : term_of<Body, L, Wanted, typename View::segment, P...> {};

/// Whether a term of type N may run a batch of rows at once: every node an operation that does (its
/// option `batches_rows`, operation/traits.hpp), or a let of such, on leaves (a cut is one), or a plain
/// number. Anything else (an if_else, which branches per row) runs a row at a time. Derived from what
/// each kind states (expr/children.hpp).
template <class N>
constexpr bool term_batches(std::type_identity<N>) {
  if constexpr (!Expression<N>) {
    return true;
  } else {
    static_assert(known_node_kind<N>,
                  "tl: node kind N is not known to the walk term_batches: declare its children in expr/children.hpp");
    constexpr bool children_batch = [] {
      if constexpr (known_node_kind<N>)
        return
            []<class... C>(type_list<C...>) { return (term_batches(std::type_identity<C>{}) && ...); }(children_t<N>{});
      else
        return false;
    }();
    if constexpr (is_leaf<N>)
      return true;
    else if constexpr (is_operation_node<N>)
      return runs_on_row_batches<operation_of_t<N>> && children_batch;
    else if constexpr (binds_a_name<N>)
      return children_batch;
    else
      return false;
  }
}

/// The sum of v's lanes, as a V of T (a number or a matrix).
template <class V, class W>
constexpr V lanes_total(const W& w) {
  const auto one = [](const auto& x) {
    if constexpr (!simd::is_batch<std::remove_cvref_t<decltype(x)>>) {
      return x;
    } else {
#if TAPELESS_SIMD
      return xsimd::hadd(x);
#endif
    }
  };
  if constexpr (Matrix<V>) {
    V v(uninitialized);
    for (std::size_t e = 0; e < V::size(); ++e) v[e] = one(w[e]);
    return v;
  } else {
    return V(one(w));
  }
}

/// One block's sum over rows with lanes L, as it runs: the parameters in every lane, and the sums of
/// the terms' values and of the parameters' adjoints, which each group of rows adds to.
template <class L, wanted Wanted, class View, class Body, class Params,
          class Columns = std::make_index_sequence<View::columns>>
struct block_sum;
template <class L, wanted Wanted, class View, class Body, std::size_t... J, class... P, std::size_t... K>
struct block_sum<L, Wanted, View, Body, plain_tuple_of<std::index_sequence<J...>, P...>, std::index_sequence<K...>> {
  static constexpr std::size_t w = lanes_of<L>();
  /// Whether every parameter is a number: then a group's sums of adjoints take one register each.
  static constexpr bool number_parameters = (!Matrix<P> && ...);
  const View& rows;
  const Body& body;
  const plain_tuple<in_lanes_t<L, P>...> wide;
  L value = L(-0.0);
  plain_tuple<in_lanes_t<L, P>...> partials{{filled<in_lanes_t<L, P>>(-0.0)}...};

  constexpr block_sum(const View& r, const Body& b, const plain_tuple_of<std::index_sequence<J...>, P...>& params)
      : rows(r), body(b), wide{{broadcast<L>(plain_get<J>(params))}...} {}

  /// The sum of the block, its lanes added up.
  template <class T>
  constexpr rows_sum<T, P...> total() const {
    return {lanes_total<T>(value), {{lanes_total<P>(plain_get<J>(partials))}...}};
  }

  /// Adds the terms of Groups row groups of `count` rows from i; `real...` marks the real lanes of a
  /// partial batch, or is empty.
  template <std::size_t Groups, class... Real>
  constexpr void add_groups(std::size_t i, std::size_t count, const Real&... real) {
    with_terms<Groups>(i, count, [&](const auto&... term) { add_terms(plain_tuple<Real...>{{real}...}, term...); });
  }

 private:
  /// The term of a row group, from the group's row values.
  template <class... Row>
  constexpr auto term_at(const Row&... row) const {
    return body(row_leaf(row)..., parameter_leaf<Wanted, J>(plain_get<J>(wide))...);
  }

  /// Calls then(term...) with the terms of Groups row groups of `count` rows from i (one partial group,
  /// or whole batches), each built on its rows' values: the arguments of a lambda, made in place (held in
  /// a tuple, a matrix of batches would be copied into it), which live as long as the call.
  template <std::size_t Groups, class Then, class... Term>
  constexpr void with_terms(std::size_t i, std::size_t count, const Then& then, const Term&... term) {
    if constexpr (Groups == 0) {
      then(term...);
    } else {
      const auto at_row = [&](const auto&... row) {
        with_terms<Groups - 1>(i + w, count, then, term..., term_at(row...));
      };
      at_row(row_lanes<L>(rows.template column<K>(), i, count)...);
    }
  }

  /// Evaluates the terms, then adds their values and sweeps them, each phase for every term before the
  /// next, so that the terms' chains of dependent operations (an exp, then a division) overlap in the
  /// processor, where alone each step of one would wait for the step before. `real` holds the mask of
  /// the real lanes of a partial batch, or nothing.
  template <class Real, class... Term>
  TAPELESS_ROWS_TERMS_FLATTEN constexpr void add_terms(const Real& real, const Term&... term) {
    using First = std::remove_cvref_t<decltype((term, ...))>;
    constexpr std::size_t count = sizeof...(term);
    constexpr bool adds_value = wants_value(Wanted);
    apply_plain(
        [&](const auto&... r) {
          if constexpr (!Expression<First>) {
            if constexpr (adds_value) (add_lanes(value, L(term), r...), ...);
          } else {
            const std::array<const First*, count> terms{&term...};
            const std::array<evaluated<First, adds_value>, count> values{evaluated<First, adds_value>(term)...};
            [&]<std::size_t... U>(std::index_sequence<U...>) {
              if constexpr (adds_value) (add_lanes(value, L(value_at(*terms[U], values[U])), r...), ...);
              if constexpr (wants_partials(Wanted) && First::is_active) {
                parameter_sums<decltype(partials), std::remove_cvref_t<decltype(r)>...> store{partials, {{r}...}};
                (backward_sweep(*terms[U], values[U], L(1), store), ...);
              }
            }
            (std::make_index_sequence<count>{});
          }
        },
        real);
  }
};

/// The batches of rows evaluated and swept side by side (block_sum::add_terms says why): two, and three
/// where every parameter is a number and the build has AVX-512's 32 vector registers, whatever the
/// batches' width. Three groups of a term of numbers fit there; with 16 registers they spill, and run
/// more instructions than two groups do.
template <class Block>
constexpr std::size_t batches_side_by_side() {
#if defined(__AVX512F__)
  return Block::number_parameters ? 3 : 2;
#else
  return 2;
#endif
}

/// Adds the terms of the n rows of the block's view: whole batches batches_side_by_side at a time, then
/// one at a time, then the rows that fill no batch as one partial batch. The terms are added in the order
/// of their rows whatever the grouping.
template <class L, class Block>
constexpr void add_rows(Block& block, std::size_t n) {
  constexpr std::size_t w = lanes_of<L>();
  constexpr std::size_t together = w > 1 ? batches_side_by_side<Block>() : 1;
  std::size_t i = 0;
  for (; i + together * w <= n; i += together * w) block.template add_groups<together>(i, w);
  for (; i + w <= n; i += w) block.template add_groups<1>(i, w);
#if TAPELESS_SIMD
  if constexpr (w > 1) {
    if (i < n) block.template add_groups<1>(i, n - i, simd::lanes_below<typename L::value_type>(n - i));
  }
#endif
}

/// The sum of one block's rows with lanes L; of a view read in runs, each run's rows in turn.
template <class L, wanted Wanted, class T, class View, class Body, class Params>
constexpr auto sum_block_in_lanes(const View& rows, const Body& body, const Params& params) {
  if constexpr (in_segments<View>) {
    typename View::segment run(0, {}, {});
    block_sum<L, Wanted, typename View::segment, Body, Params> block(run, body, params);
    rows.each_segment([&](const auto& next) {
      run = next;
      add_rows<L>(block, run.size());
    });
    return block.template total<T>();
  } else {
    block_sum<L, Wanted, View, Body, Params> block(rows, body, params);
    add_rows<L>(block, rows.size());
    return block.template total<T>();
  }
}

/// Whether a sum over indices runs in batches of L, and its sum of one block so (sweep/index_batches.hpp).
template <class L, class Body, class T, wanted Wanted, class View, class... P>
constexpr bool index_rows_batch();
template <class L, wanted Wanted, class T, class View, class Body, class I, class... P>
rows_sum<T, P...> sum_index_block(const View& rows, const Body& body, const plain_tuple_of<I, P...>& params);

/// body's closure as the data in use (in_place.hpp) while this lives: the block's sum is returned as
/// it is made, not copied out of a local before the scope closes.
class body_data_scope {
 public:
  constexpr body_data_scope(const void* body, std::size_t size) noexcept {
    if (!std::is_constant_evaluated()) outer_ = open_data_scope(body, size, nullptr, 0);
  }
  body_data_scope(const body_data_scope&) = delete;
  body_data_scope& operator=(const body_data_scope&) = delete;
  body_data_scope(body_data_scope&&) = delete;
  body_data_scope& operator=(body_data_scope&&) = delete;
  constexpr ~body_data_scope() {
    if (!std::is_constant_evaluated()) close_data_scope(outer_);
  }

 private:
  data_in_use outer_;
};

/// The sum of one block of rows (at most rows_block), in SIMD batches of rows where T and the term
/// allow, else a row at a time.
template <wanted Wanted, class T, class View, class Body, class I, class... P>
constexpr rows_sum<T, P...> sum_block(const View& rows, const Body& body, const plain_tuple_of<I, P...>& params) {
  // The sum with lanes L. The term's data leaves may read matrices that body holds by value, in place:
  // body outlives every term (nothing to name in a constant expression).
  const auto in_lanes_of = [&]<class L>(std::type_identity<L>) {
    const body_data_scope scope(&body, sizeof(Body));
    return sum_block_in_lanes<L, Wanted, T>(rows, body, params);
  };
#if TAPELESS_SIMD
  if constexpr (simd::available<T>) {
    if constexpr (reads_indices<View>) {
      if constexpr (index_rows_batch<simd::batch<T>, Body, T, Wanted, View, P...>()) {
        if (!std::is_constant_evaluated()) {
          const body_data_scope scope(&body, sizeof(Body));
          return sum_index_block<simd::batch<T>, Wanted, T>(rows, body, params);
        }
      }
    } else if constexpr (term_batches(std::type_identity<typename term_of<Body, T, Wanted, View, P...>::type>{})) {
      if (!std::is_constant_evaluated()) return in_lanes_of(std::type_identity<simd::batch<T>>{});
    }
  }
#endif
  return in_lanes_of(std::type_identity<T>{});
}

/// to += from, for the sums of two blocks.
template <class T, class... P>
constexpr void add_block(rows_sum<T, P...>& to, const rows_sum<T, P...>& from) {
  to.value += from.value;
  [&]<std::size_t... J>(std::index_sequence<J...>) {
    (add_lanes(plain_get<J>(to.partials), plain_get<J>(from.partials)), ...);
  }
  (std::index_sequence_for<P...>{});
}

/// An empty sum: -0 everywhere, the identity of IEEE addition.
template <class T, class... P>
constexpr rows_sum<T, P...> empty_sum() {
  return {T(-0.0), {{filled<P>(-0.0)}...}};
}

/// x + 0 in place, element by element for a matrix: +0 where x is -0, x elsewhere. Nothing for a matrix
/// of run-time extents: its sums start at +0 (sweep/run_time_rows.hpp), and a pass over it would cost
/// a read and a write of each element for nothing.
template <class V>
constexpr void add_positive_zero(V& x) {
  if constexpr (Matrix<V>) {
    for (std::size_t e = 0; e < V::size(); ++e) x[e] += std::remove_cvref_t<decltype(x[e])>(0.0);
  } else if constexpr (RunTimeMatrix<V>) {
    static_cast<void>(x);
  } else {
    x += V(0.0);
  }
}

/// The sum finished in place: +0 where it is -0 (no row added anything), x + 0 = x elsewhere.
template <class T, class... P>
constexpr void make_zeros_positive(rows_sum<T, P...>& sum) {
  add_positive_zero(sum.value);
  [&]<std::size_t... J>(std::index_sequence<J...>) { (add_positive_zero(plain_get<J>(sum.partials)), ...); }
  (std::index_sequence_for<P...>{});
}

/// The sum finished, as make_zeros_positive.
template <class T, class... P>
constexpr rows_sum<T, P...> with_positive_zeros(rows_sum<T, P...> sum) {
  make_zeros_positive(sum);
  return sum;
}

/// The number of blocks of n rows.
constexpr std::size_t blocks_of(std::size_t n) { return (n + rows_block - 1) / rows_block; }

/// The rows of block b.
template <class View>
constexpr View block_rows(const View& rows, std::size_t b) {
  const std::size_t begin = b * rows_block;
  const std::size_t end = rows.size() - begin < rows_block ? rows.size() : begin + rows_block;
  return rows.part(begin, end - begin);
}

/// The sum over all rows, block after block; +0 where it is empty.
template <wanted Wanted, class T, class View, class Body, class I, class... P>
constexpr rows_sum<T, P...> sum_rows(const View& rows, const Body& body, const plain_tuple_of<I, P...>& params) {
  // The first block's sum is the total so far as it is (-0 + s = s, bit for bit), not copied into an
  // empty sum: at one block, the common case, the sum is written once where it is returned.
  rows_sum<T, P...> total =
      rows.size() == 0 ? empty_sum<T, P...>() : sum_block<Wanted, T>(block_rows(rows, 0), body, params);
  for (std::size_t b = 1; b < blocks_of(rows.size()); ++b)
    add_block(total, sum_block<Wanted, T>(block_rows(rows, b), body, params));
  make_zeros_positive(total);
  return total;
}

}  // namespace tapeless::detail

#include <tapeless/sweep/index_batches.hpp>  // sum_index_block, which builds on this header
