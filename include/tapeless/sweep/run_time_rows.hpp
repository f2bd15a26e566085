// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/run_time_rows.hpp: the loop of a sum over rows whose parameters have run-time extents.
//
// A parameter of fixed shape gets a sum of its adjoints per block of rows, added block after block
// (sweep/sum_over_rows.hpp). For a tl::vector<double, tl::dynamic> read by tl::indices over its own
// elements, a dense sum per block would be a pass over all n elements per block: O(n²) for one
// gradient. Here the first block's adjoints go straight into the total, and each later block sums its
// own in a matrix written only where its terms read, whose written elements it lists and passes on to
// the total in block order: O(reads), with the fixed parameter's grouping, so the sum over threads
// gives the sequential bits. Each term reads the caller's matrix in place. The value is summed in
// blocks as sum_rows sums it. The first block, which adds into the totals, runs in SIMD batches where the
// term allows, as a fixed parameter's block does (sweep/index_batches.hpp) and with its bits; a later
// block a row at a time.
// Tests: test/unit/sweep/run_time_rows_test.cpp test/unit/transforms/sum_over/run_time_parameters_test.cpp
#pragma once

#include <tapeless/adjoint/structured.hpp>
#include <tapeless/detail/arena.hpp>
#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/evaluated.hpp>
#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/matrix_view.hpp>
#include <tapeless/meta/plain_tuple.hpp>
#include <tapeless/sweep/backward.hpp>
#include <tapeless/sweep/index_rows.hpp>
#include <tapeless/sweep/sum_over_rows.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tapeless::detail {

/// f(row...) for every row of `rows` in order, each column's value as row_lanes gives it for one lane
/// of T; a view read in runs (tl::pairs) run after run.
template <class T, class View, class F>
constexpr void each_row_in_order(const View& rows, const F& f) {
  if constexpr (in_segments<View>) {
    rows.each_segment([&](const auto& run) { each_row_in_order<T>(run, f); });
  } else {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      for (std::size_t i = 0; i < rows.size(); ++i) f(row_lanes<T>(rows.template column<K>(), i, 1)...);
    }
    (std::make_index_sequence<View::columns>{});
  }
}

/// The adjoints that one block of rows sends a parameter of run-time extents: sums of its extents, -0
/// but where the block wrote, and the elements written, in the order first written. An element access
/// writes one element, a row or column its line (adjoint/structured.hpp), so a block costs what its
/// rows read, not a pass over the parameter; `add_to` passes the sums on and leaves -0 again.
template <class P>
class block_partials {
  // Bounded extents keep it all inline, as the matrix does: no heap.
  static constexpr bool inline_storage = P::rows_extent != dynamic && P::cols_extent != dynamic;
  static constexpr std::size_t capacity = inline_storage ? max_extent(P::rows_extent) * max_extent(P::cols_extent) : 0;
  template <class E>
  using storage = std::conditional_t<inline_storage, std::array<E, capacity>, std::vector<E>>;

 public:
  using T = typename P::value_type;
  template <class Like>
  constexpr explicit block_partials(const Like& x) : sums_(x.rows(), x.cols()) {
    std::fill(sums_.begin(), sums_.end(), T(-0.0));
    if constexpr (!inline_storage) {
      written_.resize(x.size());
      order_.resize(x.size());
    }
  }

  /// What a term's sweep sends the parameter (the store of its only leaf).
  template <class Leaf, class G>
  constexpr void accumulate(const Leaf&, const G& g) {
    if constexpr (requires { g.each_element([](std::size_t, T) {}); })
      g.each_element([this](std::size_t i, const T& v) { add(i, v); });
    else if constexpr (is_scaled<G>)  // a nested sum's partials times its adjoint
      for (std::size_t i = 0; i < g.of->size(); ++i) add(i, (*g.of)[i] * g.factor);
    else
      for (std::size_t i = 0; i < g.size(); ++i) add(i, g[i]);
  }

  /// total += these sums, element by element in the order written; then -0 again.
  constexpr void add_to(P& total) {
    for (std::size_t k = 0; k < count_; ++k) {
      const std::size_t i = order_[k];
      total[i] += sums_[i];
      sums_[i] = T(-0.0);
      written_[i] = false;
    }
    count_ = 0;
  }

 private:
  constexpr void add(std::size_t i, T v) {
    if (written_[i]) {
      sums_[i] += v;
    } else {
      sums_[i] = v;
      written_[i] = true;
      order_[count_++] = i;
    }
  }

  P sums_;
  storage<bool> written_{};
  storage<std::size_t> order_{};
  std::size_t count_ = 0;
};

/// What a later block of rows sums a parameter P's adjoints in: for run-time extents a block_partials,
/// for a fixed shape or a number a sum of its own.
template <class P>
using block_sum_t = std::conditional_t<RunTimeMatrix<P>, block_partials<P>, P>;

/// Where a later block of rows sends its parameters' adjoints: each parameter of run-time extents's to a
/// block_partials of its own; each other's to a sum of its own, -0 until written. `add_to` passes them
/// on to the totals, in the order the blocks come, and leaves -0 again. (The first block adds into the
/// totals themselves, which are -0 before it: -0 + s is s, bit for bit.)
template <class... P>
class block_sums {
 public:
  /// Each block_partials of the extents of its parameter in x.
  template <class X>
  constexpr explicit block_sums(const X& x)
      : sums_([&]<std::size_t... J>(std::index_sequence<J...>) {
          return plain_tuple<block_sum_t<P>...>{{[&] {
            if constexpr (RunTimeMatrix<P>)
              return block_partials<P>(plain_get<J>(x));
            else
              return filled<P>(-0.0);
          }()}...};
        }(std::index_sequence_for<P...>{})) {}

  /// What a term's sweep sends parameter Leaf::slot - parameter_slot.
  template <class Leaf, class G>
  constexpr void accumulate(const Leaf& leaf, const G& g) {
    constexpr std::size_t j = Leaf::slot - parameter_slot;
    if constexpr (RunTimeMatrix<std::tuple_element_t<j, std::tuple<P...>>>)
      plain_get<j>(sums_).accumulate(leaf, g);
    else
      add_adjoint(plain_get<j>(sums_), g);
  }

  /// totals += these sums; then -0 again.
  constexpr void add_to(plain_tuple<P...>& totals) {
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      (
          [&] {
            if constexpr (RunTimeMatrix<P>) {
              plain_get<J>(sums_).add_to(plain_get<J>(totals));
            } else {
              add_adjoint(plain_get<J>(totals), plain_get<J>(sums_));
              plain_get<J>(sums_) = filled<P>(-0.0);
            }
          }(),
          ...);
    }
    (std::index_sequence_for<P...>{});
  }

 private:
  plain_tuple<block_sum_t<P>...> sums_;
};

/// What a sum that computes its value alone sends its parameters' adjoints to: nothing.
struct no_partials {};

/// Whether the first block of a sum with body Body runs in SIMD batches where its term allows: true
/// unless the body's header says otherwise (an element of a whole-array formula,
/// transforms/run_time_reduction.hpp).
template <class Body>
inline constexpr bool batches_first_block = true;

/// Whether a block's adjoints go to sums of their own (a later block's), not into the totals.
template <class Partials>
inline constexpr bool is_block_sums = false;
template <class... P>
inline constexpr bool is_block_sums<block_sums<P...>> = true;

/// The value of body over one block of rows, summed from -0; where Wanted asks for partials, each
/// term's adjoints in the parameters sent to `partials` (the totals themselves for the first block,
/// parameter_sums; a block_sums for a later one). The first block runs in SIMD batches where the term
/// allows (sweep/index_batches.hpp), adding straight into the totals as a fixed parameter's block does;
/// a later one, whose adjoints go to a block_sums, a row at a time.
template <wanted Wanted, class T, class View, class Body, std::size_t... J, class... P, class Partials>
constexpr T run_time_block(const View& rows, const Body& body, const plain_tuple_of<std::index_sequence<J...>, P...>& x,
                           Partials* partials, [[maybe_unused]] bool first_block) {
#if TAPELESS_SIMD
  if constexpr (simd::available<T> && reads_indices<View> && !is_block_sums<Partials> && batches_first_block<Body>) {
    if constexpr (index_rows_batch<simd::batch<T>, Body, T, Wanted, View, std::remove_cvref_t<P>...>()) {
      if (first_block && !std::is_constant_evaluated()) {
        if constexpr (wants_partials(Wanted)) {
          return add_index_block_of<simd::batch<T>, Wanted, T, J...>(partials->partials, rows, body, x);
        } else {
          no_partials none;
          return add_index_block_of<simd::batch<T>, Wanted, T, J...>(none, rows, body, x);
        }
      }
    }
  }
#endif
  T value(-0.0);
  each_row_in_order<T>(rows, [&](const auto&... row) {
    const auto term = body(row_leaf(row)..., parameter_leaf<Wanted, J>(plain_get<J>(x))...);
    using Term = std::remove_cvref_t<decltype(term)>;
    if constexpr (!Expression<Term>) {
      if constexpr (wants_value(Wanted)) value += T(term);
    } else {
      const evaluated<Term, wants_value(Wanted)> values(term);
      if constexpr (wants_value(Wanted)) value += T(value_at(term, values));
      if constexpr (wants_partials(Wanted) && Term::is_active) backward_sweep(term, values, T(1), *partials);
    }
  });
  return value;
}

/// Runs f(0), f(1), ..., f(count - 1), one after another: the blocks of a sum in sequence.
struct blocks_in_sequence {
  template <class F>
  constexpr void operator()(std::size_t count, const F& f) const {
    for (std::size_t k = 0; k < count; ++k) f(k);
  }
};

/// The sum over all rows of body(row, x...), where a parameter has run-time extents, and its partials
/// in x where Wanted asks for them; +0 where nothing was added. Any number of parameters have run-time
/// extents, beside any number of fixed ones and numbers. The parameters may be held by reference (P a const
/// reference): a matrix of run-time extents is read where it lies. Blocks run `at_once` at a time, by
/// run_blocks(count, f), which calls f(k) for each k < count in any order or at once
/// (blocks_in_sequence, or threads); their sums are added in block order, so the result depends on the
/// row count alone.
template <wanted Wanted, class T, class View, class Body, class I, class... P, class RunBlocks = blocks_in_sequence>
constexpr auto sum_rows_run_time(const View& rows, const Body& body, const plain_tuple_of<I, P...>& x,
                                 std::size_t at_once = 1, const RunBlocks& run_blocks = {}) {
  // The sums of a parameter read through a view (an Eigen matrix's) are the tl::matrix of its extents.
  // Made by their own constructors, empty: braces would have g++ clear the whole object first, all the
  // room of a bounded matrix.
  rows_sum<T, matrix_of_view_t<P>...> total;
  total.value = T(-0.0);
  // In sequence, nothing is allocated but the run-time parameter's sums (the total, and one block's
  // past the first block): none at all for bounded extents.
  constexpr bool in_sequence = std::is_same_v<RunBlocks, blocks_in_sequence>;
  const std::size_t blocks = blocks_of(rows.size());
  at_once = in_sequence ? 1 : std::max<std::size_t>(1, std::min(at_once, blocks));
  auto values = [&] {
    if constexpr (in_sequence)
      return std::array<T, 1>{};
    else
      return std::vector<T>(at_once);
  }();
  // Block 0 sends its adjoints straight into the totals (parameter_sums); each later block in flight
  // sums its own apart (block_sums, one per slot k), added to the totals in order.
  // The sums above lie in a gradient's arena, the blocks' temporaries on the heap (detail/arena.hpp).
  const auto run = [&](auto* direct, auto* partials) {
    const heap_scope blocks_on_heap;
    for (std::size_t first = 0; first < blocks; first += at_once) {
      const std::size_t count = std::min(at_once, blocks - first);
      run_blocks(count, [&](std::size_t k) {
        const View block = block_rows(rows, first + k);
        if (!wants_partials(Wanted) || first + k == 0)
          values[k] = run_time_block<Wanted, T>(block, body, x, direct, first + k == 0);
        else if constexpr (wants_partials(Wanted))
          values[k] = run_time_block<Wanted, T>(block, body, x, partials + k, false);
      });
      for (std::size_t k = 0; k < count; ++k) {
        total.value = first + k == 0 ? values[k] : total.value + values[k];
        if constexpr (wants_partials(Wanted))
          if (first + k != 0) partials[k].add_to(total.partials);
      }
    }
  };
  if constexpr (wants_partials(Wanted)) {
    using Sums = block_sums<matrix_of_view_t<P>...>;
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      (
          [&] {
            using X = matrix_of_view_t<decltype(plain_get<J>(x))>;
            if constexpr (RunTimeMatrix<X>) {
              // +0, not -0 then +0 at the end (as the others): every write here adds, and a sum from +0
              // is the sum from -0 plus 0, bit for bit, one pass over the elements fewer.
              auto& sums = plain_get<J>(total.partials);
              const auto& xj = plain_get<J>(x);
              if constexpr (elements_on_heap<X>) {
                sums = X(xj.rows(), xj.cols());
              } else {
                // Made where they lie: elements held inline would be zeroed apart and copied. Nothing
                // throws here, as the extents are those of a matrix of the same kind.
                std::destroy_at(&sums);
                std::construct_at(&sums, xj.rows(), xj.cols());
              }
            } else {
              plain_get<J>(total.partials) = filled<X>(-0.0);
            }
          }(),
          ...);
    }
    (std::index_sequence_for<P...>{});
    parameter_sums<decltype(total.partials)> direct{total.partials, {}};
    // Sums of its own for a later block only where there is one: none for a sum of one block.
    if (blocks <= 1) {
      run(&direct, static_cast<Sums*>(nullptr));
    } else if constexpr (in_sequence) {
      Sums one(x);
      run(&direct, &one);
    } else {
      std::vector<Sums> in_flight;
      in_flight.reserve(at_once);
      for (std::size_t k = 0; k < at_once; ++k) in_flight.emplace_back(x);
      run(&direct, in_flight.data());
    }
  } else {
    run(static_cast<no_partials*>(nullptr), static_cast<no_partials*>(nullptr));
  }
  // The run-time parameter's sums started at +0 (above), and make_zeros_positive leaves them.
  make_zeros_positive(total);
  return total;
}

}  // namespace tapeless::detail
