// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/index_batches.hpp: sums over tl::indices in SIMD batches, body still seeing a std::size_t.
//
// body receives an index as a std::size_t (it indexes std::vectors with it, computes i + 1, i / 2,
// static_cast<double>(i)), so a batch of indices is not one call of body. A batch of W rows is W calls,
// one per lane with that lane's index, whose terms have one type; stack_lanes then makes one term of
// them with batch leaves: a read x[k] of a parameter (ops::element of its argument leaf) becomes a leaf
// holding lane l's element k_l (one vector load where the k_l are consecutive, else a gather), a
// number computed from the index a constant holding each lane's, a number parameter the same in every
// lane. That term is evaluated and swept by the engine as a batch of data rows is. Each read leaf has
// a slot of its own, which says the parameter and the read; the store keeps the read's indices. A
// read of consecutive elements from 0 to W places past the batch's first index adds its adjoint to
// the parameter's window (simd/window.hpp), stored once per element; any other adds lane l's adjoint
// to element k_l, lane after lane, so lanes that read one element add up. The rows after the last
// whole batch run one at a time. A term with any other node (a let, a row of a matrix, an
// operation holding a value) runs a row at a time. A parameter may have run-time extents (read where
// it lies, the first block of sweep/run_time_rows.hpp): its consecutive reads are loaded as a fixed
// one's, a view's through strides gathered.
// Tests: test/unit/sweep/index_batches_test.cpp test/unit/transforms/sum_over/indices_test.cpp
//        test/unit/sweep/run_time_rows_test.cpp
#pragma once

#include <tapeless/sweep/sum_over_rows.hpp>

#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/unary.hpp>
#include <tapeless/ops/shape.hpp>
#include <tapeless/simd/window.hpp>

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// The slot of read K of parameter J in a term of lanes: above every parameter's slot.
inline constexpr std::size_t read_slot = 2 * parameter_slot;
inline constexpr std::size_t reads_per_parameter = std::size_t{1} << 16;
template <std::size_t J, std::size_t K>
inline constexpr std::size_t read_slot_of = read_slot + J* reads_per_parameter + K;

/// Whether element k of an M lies at &M[0] + k: not for a view through strides (an Eigen column-major
/// matrix's, a block's).
template <class M>
inline constexpr bool elements_contiguous = true;
template <class T, std::size_t R, std::size_t C>
inline constexpr bool elements_contiguous<matrix_view<T, R, C>> = false;

/// Where a contiguous M's elements start (x.size() > 0).
template <class M>
constexpr const auto* first_element(const M& x) {
  if constexpr (requires { x.data(); })
    return x.data();
  else
    return &x[0];
}

/// Whether a parameter of type P is a matrix, of fixed or run-time extents (else a number).
template <class P>
concept matrix_parameter = Matrix<P> || RunTimeMatrix<P>;

/// Whether P is a matrix of fixed extents and fewer than W elements.
template <class P, std::size_t W>
constexpr bool fixed_below_of() {
  if constexpr (RunTimeMatrix<P>)
    return false;
  else
    return std::remove_cvref_t<P>::size() < W;
}
template <class P, std::size_t W>
inline constexpr bool fixed_below = fixed_below_of<P, W>();

/// How a term's node of type N is stacked over lanes: `ok` where it can be, and its parameters' reads.
template <class N>
struct stacked {
  static constexpr bool ok = false;
  static constexpr std::size_t reads = 0;
};
template <class T>
  requires(!Matrix<T> && !RunTimeMatrix<T>)
struct stacked<constant<T>> {
  static constexpr bool ok = true;
  static constexpr std::size_t reads = 0;
  template <class L, std::size_t K, class Index, class... N>
  static constexpr auto make(Index&, const N&... lane) {
    return constant<L>(L{lane.value()...});
  }
};
template <std::size_t S, class T>
  requires(!Matrix<T> && !RunTimeMatrix<T> && S >= parameter_slot && S < read_slot)
struct stacked<argument<S, T>> {
  static constexpr bool ok = true;
  static constexpr std::size_t reads = 0;
  template <class L, std::size_t K, class Index, class First, class... N>
  static constexpr auto make(Index&, const First& first, const N&...) {
    return argument<S, L>(L(first.value()));
  }
};
template <std::size_t S, class M>
  requires((Matrix<M> || RunTimeMatrix<M>)&&S >= parameter_slot && S < read_slot)
struct stacked<unary_node<ops::element, argument<S, M>>> {
  static constexpr bool ok = true;
  static constexpr std::size_t reads = 1;
  template <class L, std::size_t K, class Index, class First, class... N>
  static auto make(Index& index, const First& first, const N&... lane) {
    auto& at = index[K];
    at = {first.op.index, lane.op.index...};
    const M& x = first.arg.value();
    bool consecutive = elements_contiguous<M>;
    for (std::size_t l = 1; l < L::size; ++l) consecutive = consecutive && at[l] == at[0] + l;
    const L v =
        consecutive ? L::load_unaligned(first_element(x) + at[0]) : [&]<std::size_t... U>(std::index_sequence<U...>) {
      return L{x[at[U]]...};
    }
    (std::make_index_sequence<L::size>{});
    return argument<read_slot_of<S - parameter_slot, K>, L>(v);
  }
};
template <class Op, class A>
  requires(std::is_empty_v<Op> && !is_matrix_operation<Op>)
struct stacked<unary_node<Op, A>> {
  // Only an operation written for batches: the stacked node's type alone computes its value's type on
  // batches, where another operation (pow of two expressions, cbrt, atan2) has no overload.
  static constexpr bool ok = runs_on_row_batches<Op> && stacked<A>::ok;
  static constexpr std::size_t reads = stacked<A>::reads;
  template <class L, std::size_t K, class Index, class First, class... N>
  static constexpr auto make(Index& index, const First& first, const N&... lane) {
    auto a = stacked<A>::template make<L, K>(index, first.arg, lane.arg...);
    return unary_node<Op, decltype(a)>(first.op, std::move(a));
  }
};
template <class Op, class A, class B>
  requires(std::is_empty_v<Op> && !is_matrix_operation<Op>)
struct stacked<binary_node<Op, A, B>> {
  static constexpr bool ok = runs_on_row_batches<Op> && stacked<A>::ok && stacked<B>::ok;
  static constexpr std::size_t reads = stacked<A>::reads + stacked<B>::reads;
  template <class L, std::size_t K, class Index, class First, class... N>
  static constexpr auto make(Index& index, const First& first, const N&... lane) {
    auto a = stacked<A>::template make<L, K>(index, first.lhs, lane.lhs...);
    auto b = stacked<B>::template make<L, K + stacked<A>::reads>(index, first.rhs, lane.rhs...);
    return binary_node<Op, decltype(a), decltype(b)>(first.op, std::move(a), std::move(b));
  }
};

/// The indices each read of a term of lanes L takes, lane by lane.
template <class L, class Term>
using read_indices = std::array<std::array<std::size_t, L::size>, stacked<Term>::reads == 0 ? 1 : stacked<Term>::reads>;

/// The term of lanes L stacked from the lanes' terms, which have one type; `index` receives the reads'
/// indices.
template <class L, class Term, class... N>
constexpr auto stack_lanes(read_indices<L, Term>& index, const Term& first, const N&... lane) {
  if constexpr (!Expression<Term>)
    return L{first, lane...};
  else
    return stacked<Term>::template make<L, 0>(index, first, lane...);
}

/// Whether a sum over View, with Body's term, runs in batches of L: every node stacks, the stacked term
/// batches (sum_over_rows.hpp, term_batches), and the view's rows are one run of indices.
template <class L, class Body, class T, wanted Wanted, class View, class... P>
constexpr bool index_rows_batch() {
  if constexpr (in_segments<View>) {
    return false;
  } else {
    using Term = typename term_of<Body, T, Wanted, View, P...>::type;
    if constexpr (!Expression<Term>) {
      return true;
    } else if constexpr (!stacked<Term>::ok || stacked<Term>::reads >= reads_per_parameter) {
      return false;
    } else {
      using Stacked = decltype(stack_lanes<L>(std::declval<read_indices<L, Term>&>(), std::declval<const Term&>(),
                                              std::declval<const Term&>()));
      return term_batches(std::type_identity<Stacked>{});
    }
  }
}

#if TAPELESS_SIMD
/// Where a sum over indices in lanes L adds a whole batch's adjoints: a matrix parameter's into its
/// sum in `sums` (each lane's adjoint added to its element, lane after lane), a number's into `lanes`.
template <class L, class Sums, class Lanes, class Windows, class Index>
struct index_sums {
  Sums& sums;
  Lanes& lanes;
  Windows& windows;
  std::size_t base;  // the first element of the matrix parameters' windows
  const Index& index;

  template <class Leaf, class G>
  TAPELESS_SWEEP_INLINE constexpr void accumulate(const Leaf&, const G& g) {
    if constexpr (Leaf::slot >= read_slot) {
      constexpr std::size_t j = (Leaf::slot - read_slot) / reads_per_parameter;
      const auto& at = index[(Leaf::slot - read_slot) % reads_per_parameter];
      // Consecutive elements from at most W past the window's base go to the window; the others,
      // lane after lane, to the sum (lanes that read one element add up there).
      bool consecutive = at[0] >= base;
      for (std::size_t l = 1; l < L::size; ++l) consecutive = consecutive && at[l] == at[0] + l;
      if (consecutive && plain_get<j>(windows).add(static_cast<L>(g), at[0] - base)) return;
      auto* sum = plain_get<j>(sums).data();
      alignas(64) std::array<typename L::value_type, L::size> each{};
      static_cast<L>(g).store_aligned(each.data());
      for (std::size_t l = 0; l < L::size; ++l) sum[at[l]] += each[l];
    } else {
      plain_get<Leaf::slot - parameter_slot>(lanes) += static_cast<L>(g);
    }
  }
};

/// The store of the rows after the last whole batch, run one at a time on numbers (a batch of them, its
/// padding lanes gathered and selected away, costs more than the rows): a matrix parameter's adjoint
/// goes to its sum, a number's to a sum of its own, added to the lanes' at the end.
template <class Sums, class Numbers>
struct index_tail_sums {
  Sums& sums;
  Numbers& numbers;

  template <class Leaf, class G>
  TAPELESS_SWEEP_INLINE constexpr void accumulate(const Leaf&, const G& g) {
    constexpr std::size_t j = Leaf::slot - parameter_slot;
    if constexpr (matrix_parameter<decltype(plain_get<j>(sums))>)
      add_adjoint(plain_get<j>(sums), g);
    else
      add_adjoint(plain_get<j>(numbers), g);
  }
};

/// No sum in lanes: a matrix parameter's batches add into its own sum.
struct no_lanes {
  constexpr explicit no_lanes(double) {}
};

/// A parameter's sum in lanes in a sum over indices in lanes L: a number's, none for a matrix.
template <class L, class P>
using index_lanes_t = std::conditional_t<matrix_parameter<P>, no_lanes, L>;

/// No window: a number parameter's adjoint adds into its lanes.
struct no_window {};

/// A parameter's window in a sum over indices in lanes L: a matrix's, none for a number.
template <class L, class P>
using index_window_t = std::conditional_t<matrix_parameter<P>, simd::window<L>, no_window>;

/// The base of the windows of the batch of rows from row r: the index that row holds in the view's first
/// column of tl::indices, else r; either moves up by W from one batch to the next.
template <class View>
constexpr std::size_t window_base(const View& rows, std::size_t r) {
  std::size_t base = r;
  bool found = false;
  [&]<std::size_t... K>(std::index_sequence<K...>) {
    (
        [&] {
          if constexpr (std::is_same_v<std::remove_cvref_t<decltype(rows.template column<K>())>, index_column>)
            if (!found) {
              base = rows.template column<K>().first + r;
              found = true;
            }
        }(),
        ...);
  }
  (std::make_index_sequence<View::columns>{});
  return base;
}

/// One block's sum over indices in lanes L: each batch's W terms built with their rows' values, one
/// per lane, stacked into one term of lanes, evaluated, and swept. The block's value is returned; where
/// Wanted asks for them, the adjoints are added into `partials` as they come, a matrix parameter's
/// batches and rows straight into its sum (a copy of it costs as much as many batches). `partials`
/// holds -0 or a sum so far; a parameter P may be held by reference (a matrix of run-time extents, read
/// where it lies), its sum being the matrix of its extents.
template <class L, wanted Wanted, class T, std::size_t... J, class View, class Body, class I, class... P,
          class Partials>
[[gnu::always_inline]] inline T add_index_block_of(Partials& partials, const View& rows, const Body& body,
                                                   const plain_tuple_of<I, P...>& params) {
  constexpr std::size_t w = L::size;
  L value = L(-0.0);
  plain_tuple<index_lanes_t<L, P>...> lanes{{index_lanes_t<L, P>(-0.0)}...};
  // Row r's term, on numbers.
  const auto term_at = [&](std::size_t r) {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
      return body(row_leaf(row_lanes<T>(rows.template column<K>(), r, 1))...,
                  parameter_leaf<Wanted, J>(plain_get<J>(params))...);
    }
    (std::make_index_sequence<View::columns>{});
  };
  using Term = typename term_of<Body, T, Wanted, View, std::remove_cvref_t<P>...>::type;
  // The matrix parameters' windows, from the batch's base (window_base) on.
  plain_tuple<index_window_t<L, P>...> windows{};
  const auto add_batch = [&](std::size_t i) TAPELESS_BATCH_FLATTEN {
    read_indices<L, Term> index;
    const auto term = [&]<std::size_t... U>(std::index_sequence<U...>) {
      return stack_lanes<L>(index, term_at(i + U)...);
    }
    (std::make_index_sequence<w>{});
    using Stacked = std::remove_cvref_t<decltype(term)>;
    if constexpr (!Expression<Stacked>) {
      if constexpr (wants_value(Wanted)) value += term;
    } else {
      const evaluated<Stacked, wants_value(Wanted)> values(term);
      if constexpr (wants_value(Wanted)) value += L(value_at(term, values));
      if constexpr (wants_partials(Wanted) && Stacked::is_active) {
        index_sums<L, Partials, decltype(lanes), decltype(windows), read_indices<L, Term>> store{
            partials, lanes, windows, window_base(rows, i), index};
        backward_sweep(term, values, L(1), store);
      }
    }
  };
  // Adds the windows' lower batches, of the elements from the base of the batch of rows from row i, to
  // the sums and moves the windows up.
  const auto advance_windows = [&](std::size_t i) {
    if constexpr (wants_partials(Wanted))
      (
          [&] {
            if constexpr (matrix_parameter<P>) {
              auto& sum = plain_get<J>(partials);
              if constexpr (fixed_below<P, w>)
                plain_get<J>(windows).advance_past_end(sum.data(), window_base(rows, i), sum.size());
              else
                plain_get<J>(windows).advance(sum.data(), window_base(rows, i), sum.size());
            }
          }(),
          ...);
  };
  const std::size_t n = rows.size();
  std::size_t i = 0;
  for (; i + w <= n; i += w) {
    add_batch(i);
    advance_windows(i);
  }
  advance_windows(i);  // the upper batches of the last batch of rows
  T tail_value = T(-0.0);
  using tail_numbers_t = plain_tuple<std::conditional_t<matrix_parameter<P>, T, std::remove_cvref_t<P>>...>;
  tail_numbers_t tail_numbers{{std::conditional_t<matrix_parameter<P>, T, std::remove_cvref_t<P>>(-0.0)}...};
  for (; i < n; ++i) {
    const Term term = term_at(i);
    if constexpr (!Expression<Term>) {
      if constexpr (wants_value(Wanted)) tail_value += term;
    } else {
      const evaluated<Term, wants_value(Wanted)> values(term);
      if constexpr (wants_value(Wanted)) tail_value += value_at(term, values);
      if constexpr (wants_partials(Wanted) && Term::is_active) {
        index_tail_sums<Partials, tail_numbers_t> store{partials, tail_numbers};
        backward_sweep(term, values, T(1), store);
      }
    }
  }
  if constexpr (wants_partials(Wanted))
    (
        [&] {
          if constexpr (!matrix_parameter<P>)
            plain_get<J>(partials) +=
                lanes_total<std::remove_cvref_t<P>>(plain_get<J>(lanes)) + plain_get<J>(tail_numbers);
        }(),
        ...);
  return lanes_total<T>(value) + tail_value;
}

/// One block's sum over indices in lanes L, with sums of its own: a local of the function that runs
/// the batches (add_index_block_of, inlined), so that g++ knows no store into them changes a parameter
/// (through a reference, the fixed parameter's block takes a quarter more instructions).
template <class L, wanted Wanted, class T, std::size_t... J, class View, class Body, class I, class... P>
rows_sum<T, P...> sum_index_block_of(const View& rows, const Body& body, const plain_tuple_of<I, P...>& params) {
  rows_sum<T, P...> sum{T(-0.0), {{filled<P>(-0.0)}...}};  // written where it is returned
  sum.value = add_index_block_of<L, Wanted, T, J...>(sum.partials, rows, body, params);
  return sum;
}

template <class L, wanted Wanted, class T, class View, class Body, class I, class... P>
rows_sum<T, P...> sum_index_block(const View& rows, const Body& body, const plain_tuple_of<I, P...>& params) {
  return [&]<std::size_t... J>(std::index_sequence<J...>) {
    return sum_index_block_of<L, Wanted, T, J...>(rows, body, params);
  }
  (std::index_sequence_for<P...>{});
}

#endif

}  // namespace tapeless::detail
