// SPDX-License-Identifier: BSL-1.0
// tl::sum_over and tl::mean_over under std::execution::par: on 1, 2 and 8 threads (TBB's
// max_allowed_parallelism, in an arena of as many slots) the value and the gradient are the same bits, and the same
// bits as the sequential sum's, which groups its terms in the same blocks; and they are the sum by hand, within its
// rounding. At 10^5 rows and at 10^6 + 3 (a last block part full), for number, vector and matrix parameters, and
// through hessian; under the sanitizers at fewer blocks, still more than the threads (row_sums::many_blocks).
#include <doctest/doctest.h>
#include <tapeless/parallel.hpp>

#include <row_sum_check.hpp>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <execution>
#include <tuple>
#include <vector>

namespace tl = tapeless;
using namespace row_sums;

namespace {

constexpr std::size_t thread_counts[] = {1, 2, 8};

/// Every number of a and b the same, bit for bit.
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (std::bit_cast<std::uint64_t>(a[k]) != std::bit_cast<std::uint64_t>(b[k])) return false;
  return true;
}

/// work() on `threads` threads: TBB's limit raised or lowered to it, in an arena of that many slots,
/// where the parallel algorithms behind std::execution::par run.
template <class Work>
void on_threads(std::size_t threads, const Work& work) {
  const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
  tbb::task_arena arena(static_cast<int>(threads));
  arena.execute([&] {
    CHECK(tbb::this_task_arena::max_concurrency() == static_cast<int>(threads));
    work();
  });
}

/// The value and gradient of `parallel` on each thread count, each the bits of `sequential`'s.
template <class Sequential, class Parallel, class... P>
void check_same_on_every_thread_count(const Sequential& sequential, const Parallel& parallel, const P&... p) {
  const auto [value, gradient] = tl::value_and_grad(sequential)(p...);
  const std::vector<double> expected = flatten(value, gradient);
  for (const std::size_t threads : thread_counts) {
    CAPTURE(threads);
    on_threads(threads, [&] {
      const auto [par_value, par_gradient] = tl::value_and_grad(parallel)(p...);
      CHECK(same_bits(flatten(par_value, par_gradient), expected));
      CHECK(std::bit_cast<std::uint64_t>(parallel(p...)) == std::bit_cast<std::uint64_t>(sequential(p...)));
    });
  }
}

}  // namespace

TEST_CASE("S10's decay sum and mean over threads: the sequential bits on 1, 2 and 8 threads") {
  for (const std::size_t n : distinct({many_blocks, many_rows})) {
    CAPTURE(n);
    const auto d = decay_data(n);
    const auto sum = decay_sum(d.t, d.y);
    const auto par_sum = decay_sum(std::execution::par, d.t, d.y);
    const auto mean = decay_mean(d.t, d.y);
    const auto par_mean = decay_mean(std::execution::par, d.t, d.y);
    const auto e = decay_expected(d, decay_a, decay_b, decay_c);
    check_close(e, value_and_gradient(par_sum, decay_a, decay_b, decay_c));
    check_close(e, value_and_gradient(par_mean, decay_a, decay_b, decay_c), static_cast<long double>(n));
    check_same_on_every_thread_count(sum, par_sum, decay_a, decay_b, decay_c);
    check_same_on_every_thread_count(mean, par_mean, decay_a, decay_b, decay_c);
  }
}

TEST_CASE("float data, a vector parameter and a matrix parameter over threads") {
  constexpr std::size_t n = many_blocks;
  const auto single = decay_data<float>(n);
  const auto f_seq = decay_sum(single.t, single.y);
  const auto f_par = decay_sum(std::execution::par, single.t, single.y);
  check_close(decay_expected(single, decay_a, decay_b, decay_c), value_and_gradient(f_par, decay_a, decay_b, decay_c));
  check_same_on_every_thread_count(f_seq, f_par, decay_a, decay_b, decay_c);

  const auto l = logistic_data(n);
  const auto l_seq = [&](const auto& beta) { return tl::mean_over(tl::rows(l.x, l.y), logistic_term, beta); };
  const auto l_par = [&](const auto& beta) {
    return tl::mean_over(std::execution::par, tl::rows(l.x, l.y), logistic_term, beta);
  };
  check_close(logistic_expected(l, logistic_beta), value_and_gradient(l_par, logistic_beta),
              static_cast<long double>(n));
  check_same_on_every_thread_count(l_seq, l_par, logistic_beta);

  const auto m = matrix_data(n);
  const auto m_seq = [&](const auto& M) { return tl::sum_over(tl::rows(m.A, m.y), matrix_term, M); };
  const auto m_par = [&](const auto& M) {
    return tl::sum_over(std::execution::par, tl::rows(m.A, m.y), matrix_term, M);
  };
  check_close(matrix_expected(m, matrix_M), value_and_gradient(m_par, matrix_M));
  check_same_on_every_thread_count(m_seq, m_par, matrix_M);
}

TEST_CASE("the Hessian through a sum over threads is the sequential one, bit for bit") {
  constexpr std::size_t n = many_blocks;
  const auto d = decay_data(n);
  const auto seq = decay_sum(d.t, d.y);
  const auto par = decay_sum(std::execution::par, d.t, d.y);
  const auto flat = [](const auto& H) {
    std::vector<double> out;
    std::apply([&](const auto&... row) { (std::apply([&](auto... h) { (out.push_back(h), ...); }, row), ...); }, H);
    return out;
  };
  const auto expected = flat(tl::hessian(seq)(decay_a, decay_b, decay_c));
  for (const std::size_t threads : thread_counts) {
    CAPTURE(threads);
    on_threads(threads, [&] { CHECK(same_bits(flat(tl::hessian(par)(decay_a, decay_b, decay_c)), expected)); });
  }
}

TEST_CASE("fewer rows than a block, and none, over threads") {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, lanes + 1, block - 1, block, block + 1}) {
    CAPTURE(n);
    const auto d = decay_data(n);
    const auto seq = decay_sum(d.t, d.y);
    const auto par = decay_sum(std::execution::par, d.t, d.y);
    check_same_on_every_thread_count(seq, par, decay_a, decay_b, decay_c);
    check_close(decay_expected(d, decay_a, decay_b, decay_c), value_and_gradient(par, decay_a, decay_b, decay_c));
  }
  const std::vector<double> none;
  CHECK(tl::sum_over(std::execution::par, tl::rows(none, none), decay_term, 1.0, 1.0, 1.0) == 0.0);
}
