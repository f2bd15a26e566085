// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/sum_over_parallel.hpp: tl::sum_over and tl::mean_over under std::execution::par.
// Included by <tapeless/parallel.hpp>, not by the umbrella header, since <execution> brings threads.
//
// The blocks of the rows (sweep/sum_over_rows.hpp) run over threads through the standard parallel algorithms,
// on the runtime behind them (TBB with libstdc++; the tapeless::tapeless target links it where found),
// not a pool of tapeless's own. Each block's sum is made as the sequential sum makes it and the sums are
// added in block order, so the result is the sequential one, bit for bit, on any number of threads.
// Blocks run a bounded batch at a time, their sums kept on the stack: nothing is allocated by tapeless
// (the runtime may allocate for its tasks).
#pragma once

#include <tapeless/detail/arena.hpp>
#include <tapeless/transforms/sum_over.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <execution>
#include <numeric>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace tapeless {

namespace detail {

/// The blocks of a sum run over threads.
struct over_threads {
  template <wanted Wanted, class T, class View, class Body, class I, class... P>
  constexpr auto operator()(const View& rows, const Body& body, const plain_tuple_of<I, P...>& params) const {
    using Sum = rows_sum<T, P...>;
    const heap_scope loop_on_heap;  // as in_sequence (transforms/sum_over.hpp)
    if (std::is_constant_evaluated() || blocks_of(rows.size()) <= 1) return sum_rows<Wanted, T>(rows, body, params);
    // Blocks in flight at once: enough to keep the threads busy, their sums at most 64 KiB of stack.
    constexpr std::size_t at_once = std::clamp<std::size_t>(65536 / sizeof(Sum), 1, 64);
    std::array<Sum, at_once> sums{};
    std::array<std::size_t, at_once> index{};
    std::iota(index.begin(), index.end(), std::size_t{0});
    auto total = empty_sum<T, P...>();
    const std::size_t blocks = blocks_of(rows.size());
    for (std::size_t first = 0; first < blocks; first += at_once) {
      const std::size_t count = std::min(at_once, blocks - first);
      std::for_each(std::execution::par, index.begin(), index.begin() + static_cast<std::ptrdiff_t>(count),
                    [&](std::size_t k) { sums[k] = sum_block<Wanted, T>(block_rows(rows, first + k), body, params); });
      for (std::size_t k = 0; k < count; ++k) add_block(total, sums[k]);
    }
    return with_positive_zeros(total);
  }

  /// The sum where a parameter has run-time extents (sweep/run_time_rows.hpp): two blocks per thread in
  /// flight, each with sums of the parameter's extents of its own.
  template <wanted Wanted, class T, class View, class Body, class I, class... P>
  constexpr auto run_time(const View& rows, const Body& body, const plain_tuple_of<I, P...>& params) const {
    if (std::is_constant_evaluated()) return sum_rows_run_time<Wanted, T>(rows, body, params);
    const std::size_t at_once = std::size_t{2} * std::max(1u, std::thread::hardware_concurrency());
    return sum_rows_run_time<Wanted, T>(rows, body, params, at_once, [](std::size_t count, const auto& f) {
      const std::vector<std::size_t> index = [&] {
        std::vector<std::size_t> k(count);
        std::iota(k.begin(), k.end(), std::size_t{0});
        return k;
      }();
      std::for_each(std::execution::par, index.begin(), index.end(), f);
    });
  }
};

/// Whether Policy asks for threads: par or par_unseq. seq and unseq run in sequence.
template <class Policy>
inline constexpr bool on_threads = std::is_same_v<Policy, std::execution::parallel_policy> ||
                                   std::is_same_v<Policy, std::execution::parallel_unsequenced_policy>;

/// An execution policy of the standard library: seq, par, par_unseq or unseq.
template <class Policy>
concept execution_policy = std::is_execution_policy_v<std::remove_cvref_t<Policy>>;

template <class Policy>
using runner_for = std::conditional_t<on_threads<std::remove_cvref_t<Policy>>, over_threads, in_sequence>;

}  // namespace detail

/// tl::sum_over(rows, body, params...) run over threads where policy is std::execution::par (or
/// par_unseq): the same result, bit for bit, whatever the number of threads.
template <class Policy, class View, class Body, class... Params>
  requires detail::before_rows<Policy> && detail::rows_of_data<View> && detail::execution_policy<Policy>
constexpr auto sum_over(Policy&&, const View& rows, Body body, Params&&... params) {
  return detail::sum_over_with(detail::runner_for<Policy>{}, rows, std::move(body), std::forward<Params>(params)...);
}

/// tl::mean_over(rows, body, params...) run over threads where policy is std::execution::par.
template <class Policy, class View, class Body, class... Params>
  requires detail::before_rows<Policy> && detail::rows_of_data<View> && detail::execution_policy<Policy>
constexpr auto mean_over(Policy&& policy, const View& rows, Body body, Params&&... params) {
  return detail::per_row(
      rows, sum_over(std::forward<Policy>(policy), rows, std::move(body), std::forward<Params>(params)...));
}

}  // namespace tapeless
