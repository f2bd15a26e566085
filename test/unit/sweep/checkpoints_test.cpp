// SPDX-License-Identifier: BSL-1.0
// Binomial checkpointing (sweep/checkpoints.hpp): every step reversed once, from n - 1 down to 0, from
// its own state; no more than S states held; the recomputed steps counted against Griewank and
// Walther's t(n, s) = r n - beta(s + 1, r - 1) and against the least any split schedule can do; no heap
// for any n; in constant expressions too. States are integers, so a wrong one is never equal by chance.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <allocation_counter.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace tl = tapeless;

namespace {

using test_support::allocations_during;

// s(k + 1) = next_state(s(k), k): a mix of the state and the step, so that a state advanced from the
// wrong place, or by the wrong steps, differs from the right one.
constexpr std::uint64_t next_state(std::uint64_t s, std::size_t k) {
  s ^= s >> 29;
  return s * 6364136223846793005ULL + 1442695040888963407ULL + k;
}
constexpr std::uint64_t first_state = 0x9e3779b97f4a7c15ULL;

/// What the test saw of one reverse sweep.
struct seen {
  tl::detail::checkpoint_counts counts;
  std::size_t reversals = 0;     // calls of reverse
  std::size_t out_of_order = 0;  // reverse calls not for the step expected next (n - 1 down to 0)
  std::size_t wrong_states = 0;  // advance or reverse calls handed a state other than s(k)
};

/// Runs the scheduler with S slots over n steps; `states` holds s(0) .. s(n), indexed by k.
template <std::size_t S, class States>
constexpr seen run(std::size_t n, const States& states) {
  seen out;
  std::size_t expected = n;  // the step to be reversed next, plus one
  out.counts = tl::detail::reverse_with_checkpoints<S>(
      n, states[0],
      [&](std::uint64_t& s, std::size_t k) {
        if (k >= n || s != states[k]) ++out.wrong_states;
        s = next_state(s, k);
      },
      [&](const std::uint64_t& s, std::size_t k) {
        ++out.reversals;
        if (expected == 0 || k != expected - 1) ++out.out_of_order;
        expected = k;
        if (k >= n || s != states[k]) ++out.wrong_states;
      });
  return out;
}

std::vector<std::uint64_t> states_up_to(std::size_t n) {
  std::vector<std::uint64_t> s(n + 1);
  s[0] = first_state;
  for (std::size_t k = 0; k < n; ++k) s[k + 1] = next_state(s[k], k);
  return s;
}

// C(m, k) by Pascal's triangle, apart from the header's product form.
std::uint64_t choose(std::size_t m, std::size_t k) {
  if (k > m) return 0;
  std::vector<std::uint64_t> row(k + 1, 0);
  row[0] = 1;
  for (std::size_t i = 1; i <= m; ++i)
    for (std::size_t j = std::min(i, k); j >= 1; --j) row[j] += row[j - 1];
  return row[k];
}

// Griewank and Walther's t(n, s) = r n - beta(s + 1, r - 1), r the least with beta(s, r) = C(s + r, s) >= n.
std::uint64_t formula(std::size_t n, std::size_t s) {
  if (n <= 1) return 0;
  std::size_t r = 0;
  while (choose(s + r, s) < n) ++r;
  return r * n - choose(s + r, s + 1);
}

// The least recomputed steps over every schedule that splits [b, e) as the scheduler does (copy the state
// at b into a new slot, advance it m steps, reverse [b + m, e) with one slot fewer, then [b, b + m)):
// least[s][l] = min over 0 < m < l of m + least[s][m] + least[s - 1][l - m]; one step costs nothing,
// and two or more with no slot cannot be reversed.
std::vector<std::vector<std::uint64_t>> least_split_costs(std::size_t most_steps, std::size_t most_slots) {
  constexpr std::uint64_t impossible = std::numeric_limits<std::uint64_t>::max() / 4;
  std::vector<std::vector<std::uint64_t>> least(most_slots + 1, std::vector<std::uint64_t>(most_steps + 1, 0));
  for (std::size_t l = 2; l <= most_steps; ++l) least[0][l] = impossible;
  for (std::size_t s = 1; s <= most_slots; ++s)
    for (std::size_t l = 2; l <= most_steps; ++l) {
      std::uint64_t best = impossible;
      for (std::size_t m = 1; m < l; ++m) best = std::min(best, m + least[s][m] + least[s - 1][l - m]);
      least[s][l] = best;
    }
  return least;
}

template <std::size_t S>
void check_schedule(std::size_t n, const std::vector<std::uint64_t>& states) {
  CAPTURE(S);
  CAPTURE(n);
  const seen s = run<S>(n, states);
  CHECK(s.reversals == n);
  CHECK(s.counts.reversals == n);
  CHECK(s.out_of_order == 0);
  CHECK(s.wrong_states == 0);
  CHECK(s.counts.advances == formula(n, S));
  CHECK(s.counts.advances == tl::detail::checkpoint_advances(n, S));
  CHECK(s.counts.slots_used <= S);
}

template <std::size_t S>
void check_edges(const std::vector<std::uint64_t>& states) {
  // n = 0, 1, 2, S - 1, S, S + 1, and beta(S, r) and beta(S, r) + 1, the most steps r repetitions
  // reverse and one past, for r up to 3 (and the schedule's edges within 10^4 steps)
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, S - 1, S, S + 1}) check_schedule<S>(n, states);
  for (std::size_t r = 1; r <= 3; ++r) {
    const std::size_t beta = choose(S + r, S);
    if (beta + 1 >= states.size()) break;
    check_schedule<S>(beta, states);
    check_schedule<S>(beta + 1, states);
    CHECK(tl::detail::checkpoint_advances(beta, S) == r * beta - choose(S + r, S + 1));
    // one step past the reach of r repetitions takes r + 1 of them: the formula's next piece
    CHECK(tl::detail::checkpoint_advances(beta + 1, S) == (r + 1) * (beta + 1) - choose(S + r + 1, S + 1));
  }
}

/// A state that counts the live objects holding a value: default-constructed slots hold none, a copy or
/// an assignment from a held value makes one more, and the test's s(0) is one.
struct counted_state {
  struct tally {
    std::size_t live = 0;
    std::size_t most = 0;
    void add() { most = std::max(most, ++live); }
  };
  std::uint64_t value = 0;
  tally* holds = nullptr;

  counted_state() = default;
  counted_state(std::uint64_t v, tally* t) : value(v), holds(t) { holds->add(); }
  counted_state(const counted_state& o) : value(o.value), holds(o.holds) {
    if (holds) holds->add();
  }
  counted_state& operator=(const counted_state& o) {
    if (this == &o) return *this;
    if (!holds && o.holds) o.holds->add();
    if (holds && !o.holds) --holds->live;
    value = o.value;
    holds = o.holds;
    return *this;
  }
  ~counted_state() {
    if (holds) --holds->live;
  }
};

}  // namespace

TEST_CASE("checkpoints: the tag names how many states the reverse sweep keeps") {
  static_assert(tl::checkpoints<1>::states == 1);
  static_assert(tl::checkpoints<32>::states == 32);
  CHECK(tl::checkpoints<5>{}.states == 5);
}

TEST_CASE("checkpoints: beta(s, r) = C(s + r, s), exact up to the largest std::size_t and held there past it") {
  using tl::detail::binomial_reach;
  CHECK(binomial_reach(3, 0) == 1);
  CHECK(binomial_reach(0, 7) == 1);
  CHECK(binomial_reach(1, 9) == 10);
  CHECK(binomial_reach(2, 3) == 10);
  CHECK(binomial_reach(32, 5) == 435897);
  for (std::size_t s = 0; s <= 12; ++s)
    for (std::size_t r = 0; r <= 12; ++r) CHECK(binomial_reach(s, r) == choose(s + r, s));
  CHECK(binomial_reach(33, 33) == 7219428434016265740ULL);                   // C(66, 33)
  CHECK(binomial_reach(34, 33) == 14226520737620288370ULL);                  // C(67, 33), above 2^63
  CHECK(binomial_reach(34, 34) == std::numeric_limits<std::size_t>::max());  // C(68, 34) > 2^64
  CHECK(binomial_reach(64, 64) == std::numeric_limits<std::size_t>::max());
}

TEST_CASE("checkpoints: every step reversed once, in order, from its own state, with t(n, S) steps recomputed") {
  const auto states = states_up_to(6600);
  for (std::size_t n = 0; n <= 300; ++n) {
    check_schedule<1>(n, states);
    check_schedule<2>(n, states);
    check_schedule<3>(n, states);
    check_schedule<5>(n, states);
    check_schedule<32>(n, states);
  }
  check_edges<1>(states);
  check_edges<2>(states);
  check_edges<3>(states);
  check_edges<5>(states);
  check_edges<32>(states);  // beta(32, 2) = 561, beta(32, 3) = 6545
  // known values: one slot recomputes n (n - 1) / 2 steps; 32 slots over 10^5 steps repeat each 5 times
  CHECK(tl::detail::checkpoint_advances(300, 1) == 300 * 299 / 2);
  CHECK(tl::detail::checkpoint_advances(100000, 32) == 433955);
}

TEST_CASE("checkpoints: t(n, s) is the least any schedule of splits recomputes") {
  // Griewank and Walther prove the binomial schedule optimal; this checks that the formula, with the
  // convention of the header (S slots, s(0) the caller's), is the optimum of the scheduler's own model.
  constexpr std::size_t most_steps = 300;
  const auto least = least_split_costs(most_steps, 5);
  for (std::size_t s = 1; s <= 5; ++s)
    for (std::size_t n = 0; n <= most_steps; ++n) {
      CAPTURE(s);
      CAPTURE(n);
      CHECK(least[s][n] == tl::detail::checkpoint_advances(n, s));
    }
}

TEST_CASE("checkpoints: 10^5 steps with 32 slots, in order and with no heap") {
  constexpr std::size_t n = 100000;
  const auto states = states_up_to(n);
  seen s{};
  CHECK(allocations_during([&] { s = run<32>(n, states); }) == 0);
  CHECK(s.reversals == n);
  CHECK(s.out_of_order == 0);
  CHECK(s.wrong_states == 0);
  CHECK(s.counts.advances == 433955);  // r = 5: 5 n - C(37, 4)
  CHECK(s.counts.advances == formula(n, 32));
  CHECK(s.counts.slots_used == 32);
  // two slots repeat each step some 200 times here: the schedule's own work stays of that order
  const seen two = run<2>(20000, states);
  CHECK(two.reversals == 20000);
  CHECK(two.out_of_order == 0);
  CHECK(two.wrong_states == 0);
  CHECK(two.counts.advances == formula(20000, 2));
}

TEST_CASE("checkpoints: the scheduler holds no state besides its S slots") {
  // Every object holding a state is counted while the sweep runs: s(0) (the caller's) and the slots the
  // schedule fills; a working copy or a temporary besides them would raise the count past S + 1.
  const auto check = [](auto slots, std::size_t n) {
    constexpr std::size_t S = decltype(slots)::value;
    CAPTURE(S);
    CAPTURE(n);
    counted_state::tally tally;
    const counted_state s0(first_state, &tally);
    std::size_t reversals = 0;
    const auto counts = tl::detail::reverse_with_checkpoints<S>(
        n, s0, [](counted_state& s, std::size_t k) { s.value = next_state(s.value, k); },
        [&](const counted_state&, std::size_t) { ++reversals; });
    CHECK(reversals == n);
    CHECK(tally.most - 1 <= S);
    CHECK(tally.most - 1 == counts.slots_used);
    CHECK(tally.live == 1);  // the slots are let go
    // the slots a schedule fills: none for one step, then one more for each level of its splits
    if (n >= 2 && n > S) CHECK(counts.slots_used == S);
  };
  for (std::size_t n : {0, 1, 2, 3, 4, 6, 7, 20, 100, 1000}) {
    check(std::integral_constant<std::size_t, 1>{}, n);
    check(std::integral_constant<std::size_t, 3>{}, n);
    check(std::integral_constant<std::size_t, 8>{}, n);
  }
}

TEST_CASE("checkpoints: a schedule runs in a constant expression") {
  constexpr auto states = [] {
    std::array<std::uint64_t, 41> s{};
    s[0] = first_state;
    for (std::size_t k = 0; k < 40; ++k) s[k + 1] = next_state(s[k], k);
    return s;
  }();
  // beta(3, 4) = 35 < 40 <= beta(3, 5) = 56: r = 5, and t = 5 * 40 - beta(4, 4) = 200 - 70
  constexpr seen three = run<3>(40, states);
  static_assert(three.reversals == 40 && three.out_of_order == 0 && three.wrong_states == 0);
  static_assert(three.counts.advances == 130 && tl::detail::checkpoint_advances(40, 3) == 130);
  constexpr seen one = run<1>(6, states);
  static_assert(one.counts.advances == 15 && one.reversals == 6 && one.wrong_states == 0);
  CHECK(three.counts.slots_used == 3);
}
