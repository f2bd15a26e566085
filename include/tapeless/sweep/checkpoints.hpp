// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/checkpoints.hpp: binomial checkpointing (Griewank and Walther's "revolve"): the steps
// of a loop reversed from at most S states, each state the reverse needs recomputed from the nearest
// one kept, with the fewest recomputed steps there can be.
//
// A loop s(k+1) = step(s(k), k) of n steps is reversed step by step from n - 1 down to 0, and the reverse
// of step k needs s(k). Storing every state takes n of them; keeping a few and recomputing the others
// trades memory for time. With s states and each step run at most r times forward (besides its run in
// the reverse), Griewank and Walther's binomial schedule reverses up to
//     beta(s, r) = C(s + r, s)
// steps, and for beta(s, r - 1) < n <= beta(s, r) it recomputes
//     t(n, s) = r n - beta(s + 1, r - 1)
// steps, the least any schedule with s states can (ACM TOMS 26(1), 2000, "Algorithm 799: revolve").
// t counts every call of `advance`, the sweep from s(0) to the first state kept included; the step
// reversed runs once more inside `reverse`, which t does not count. t(0, s) = t(1, s) = 0, t(n, 1) =
// n (n - 1) / 2, and for S = 32 and n = 100,000, r = 5 and t = 433,955: 4.3 steps per step.
//
// Memory. The scheduler holds std::array<State, S> and nothing else of State: no heap, whatever n is.
// s(0) stays the caller's (tl::iterate's operand holds it anyway) and is read, never written. Revolve
// counts its first checkpoint, the one holding s(0), among its s, and runs the steps in one working
// state besides them; here s(0) is the caller's and the working state is one of the S slots: a slot is
// copied from the state below it, advanced in place to where the schedule keeps a state, and is that
// kept state from then on (a trivially copyable state of at most 64 bytes is advanced in registers and
// then copied to its slot). So S slots serve as revolve's s = S, and t(n, S) above is the count.
// Recursion is at most S + 1 calls deep (each nested call holds one more slot).
//
// The schedule. To reverse [b, e) from the state at b with s slots free: for e - b = 1, reverse step b
// from that state; otherwise copy it into the next slot, advance that m steps, reverse [b + m, e) from
// there with s - 1 slots, then [b, b + m) with s. The split m is one of the optimal ones: with r the
// repetitions of e - b, [b, b + m) needs r - 1 of them with s slots and [b + m, e) r with s - 1, which is
// m <= beta(s, r - 1) and e - b - m >= beta(s - 1, r - 1); m is the largest such. The two parts then
// cost m + t(m, s) + t(e - b - m, s - 1) = t(e - b, s) by Pascal's rule.
// Tests: test/unit/sweep/checkpoints_test.cpp
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <limits>
#include <type_traits>

namespace tapeless {

/// `tl::iterate(tl::checkpoints<S>{}, n, init, step, params...)`: the reverse sweep of the loop keeps at
/// most S states (on the stack, inside the call) and recomputes the others from them by Griewank and
/// Walther's binomial schedule, which recomputes t(n, S) = r n - C(S + r, S + 1) steps for
/// C(S + r - 1, S) < n <= C(S + r, S): no heap for any n, and the gradient of stored states.
/// S = 0 stops at a static_assert where tl::iterate takes it.
template <std::size_t S>
struct checkpoints {
  /// The most states the reverse sweep keeps.
  static constexpr std::size_t states = S;
};

}  // namespace tapeless

namespace tapeless::detail {

/// beta(s, r) from beta(s, r - 1), r >= 1: C(s + r, r) = C(s + r - 1, r - 1) (s + r) / r, exact; the
/// largest std::size_t where it is larger. beta = q r + m keeps the product in range: beta (s + r) / r
/// = q (s + r) + m s / r + m, where m s is divisible by r since beta (s + r) is.
constexpr std::size_t next_binomial_reach(std::size_t beta, std::size_t s, std::size_t r) noexcept {
  constexpr std::size_t most = std::numeric_limits<std::size_t>::max();
  const std::size_t q = beta / r;
  const std::size_t m = beta % r;
  const std::size_t rest = m * s / r + m;
  if (beta == most || q > (most - rest) / (s + r)) return most;
  return q * (s + r) + rest;
}

/// beta(s, r) = C(s + r, s), the most steps s checkpoints reverse with r repetitions; the largest
/// std::size_t where it is larger. beta(s, 0) = 1.
constexpr std::size_t binomial_reach(std::size_t s, std::size_t r) noexcept {
  std::size_t beta = 1;
  for (std::size_t j = 1; j <= r; ++j) beta = next_binomial_reach(beta, s, j);
  return beta;
}

/// What the binomial schedule of n >= 2 steps with s >= 1 slots needs: its repetitions r (the least r
/// with beta(s, r) >= n), beta(s, r - 1) and beta(s, r - 2) (0 for r = 1).
struct binomial_place {
  std::size_t repetitions;
  std::size_t reach_one_fewer;  // beta(s, r - 1)
  std::size_t reach_two_fewer;  // beta(s, r - 2)
};

constexpr binomial_place binomial_place_of(std::size_t n, std::size_t s) noexcept {
  if (s == 1) return {n - 1, n - 1, n - 2};  // beta(1, r) = r + 1
  binomial_place at{0, 0, 0};
  std::size_t beta = 1;  // beta(s, r)
  while (beta < n) {
    ++at.repetitions;
    at.reach_two_fewer = at.reach_one_fewer;
    at.reach_one_fewer = beta;
    beta = next_binomial_reach(beta, s, at.repetitions);  // O(r) a split: O(r n), t's order, a schedule
  }
  return at;
}

/// t(n, s) = r n - beta(s + 1, r - 1): the steps the binomial schedule recomputes to reverse n steps
/// with s slots, r the least repetitions with beta(s, r) >= n (t = 0 for n <= 1).
constexpr std::size_t checkpoint_advances(std::size_t n, std::size_t s) noexcept {
  if (n <= 1) return 0;
  const std::size_t r = binomial_place_of(n, s).repetitions;
  return r * n - binomial_reach(s + 1, r - 1);
}

/// What one reverse sweep with checkpoints did.
struct checkpoint_counts {
  std::size_t advances = 0;    // calls of advance: the steps recomputed
  std::size_t reversals = 0;   // calls of reverse: n
  std::size_t copies = 0;      // states copied into a slot
  std::size_t slots_used = 0;  // the most slots holding a state at once
};

template <std::size_t S, class State, class Advance, class Reverse>
class checkpoint_sweep {
 public:
  constexpr checkpoint_sweep(Advance& advance, Reverse& reverse) : advance_(advance), reverse_(reverse) {}

  /// Reverses the steps [begin, end) from `base`, the state at begin, with the slots from `free` up.
  constexpr void reverse_range(const State& base, std::size_t begin, std::size_t end, std::size_t free) {
    if (end - begin <= S - free + 1) return reverse_in_slots(base, begin, end, free);
    while (end - begin > 1) {
      // Two steps or more need a slot to advance in; the split below leaves one step to the last slot.
      const std::size_t slots = S - free;
      const binomial_place at = binomial_place_of(end - begin, slots);
      // m <= beta(s, r - 1), and the right part keeps at least beta(s - 1, r - 1) = beta(s, r - 1) -
      // beta(s, r - 2) steps (Pascal's rule), the largest m that needs no more repetitions.
      const std::size_t right_least = at.reach_one_fewer - at.reach_two_fewer;
      const std::size_t left =
          at.reach_one_fewer < end - begin - right_least ? at.reach_one_fewer : end - begin - right_least;
      State& kept = slots_[free];
      advance_into(kept, base, begin, left);
      ++counts_.copies;
      if (free + 1 > counts_.slots_used) counts_.slots_used = free + 1;
      counts_.advances += left;
      reverse_range(kept, begin + left, end, free + 1);
      end = begin + left;
    }
    if (end - begin == 1) {
      reverse_(base, begin);
      ++counts_.reversals;
    }
  }

  [[nodiscard]] constexpr checkpoint_counts counts() const { return counts_; }

 private:
  /// Whether a state is advanced in a local, which the compiler keeps in registers, and copied to its
  /// slot after: advanced in the slot itself, through memory, each step waits for the store of the last
  /// to be read back. Only a small trivially copyable state: any other is advanced in its slot, so that
  /// the recursion's frames hold no state of their own and no object but the slots holds a state.
  static constexpr bool in_registers = std::is_trivially_copyable_v<State> && sizeof(State) <= 64;

  /// slot = from advanced `count` steps from step `first`.
  constexpr void advance_into(State& slot, const State& from, std::size_t first, std::size_t count) {
    if constexpr (in_registers) {
      State s = from;
      for (std::size_t k = first; k < first + count; ++k) advance_(s, k);
      slot = s;
    } else {
      slot = from;
      for (std::size_t k = first; k < first + count; ++k) advance_(slot, k);
    }
  }

  /// Reverses [begin, end) from `base` where each of its states but the first has a free slot (one
  /// repetition): the schedule above then advances one step per slot, s(begin + 1) into slot `free`,
  /// s(begin + 2) into the next, and reverses from the last back to base. The same steps, copies and
  /// order as its recursion, in two loops, without a split computed per step.
  constexpr void reverse_in_slots(const State& base, std::size_t begin, std::size_t end, std::size_t free) {
    if (end == begin) return;
    const std::size_t kept = end - begin - 1;  // s(begin + 1) ... s(end - 1), in slots free ... free + kept - 1
    if constexpr (in_registers) {
      State s = base;
      for (std::size_t j = 0; j < kept; ++j) {
        advance_(s, begin + j);
        slots_[free + j] = s;
      }
    } else {
      for (std::size_t j = 0; j < kept; ++j)
        advance_into(slots_[free + j], j == 0 ? base : slots_[free + j - 1], begin + j, 1);
    }
    counts_.copies += kept;
    counts_.advances += kept;
    if (kept > 0 && free + kept > counts_.slots_used) counts_.slots_used = free + kept;
    for (std::size_t j = kept; j > 0; --j) reverse_(slots_[free + j - 1], begin + j);
    reverse_(base, begin);
    counts_.reversals += kept + 1;
  }

  std::array<State, S> slots_{};
  Advance& advance_;
  Reverse& reverse_;
  checkpoint_counts counts_{};
};

/// Calls reverse(s(k), k) for k = n - 1 down to 0, each once, keeping at most S states besides s0
/// (whose reference the caller keeps valid and unchanged). advance(State& s, k) takes s(k) to s(k + 1).
/// The count of advance calls is checkpoint_advances(n, S), the least there can be.
template <std::size_t S, class State, class Advance, class Reverse>
  requires std::copyable<State> && std::default_initializable<State> && std::invocable<Advance&, State&, std::size_t> &&
      std::invocable<Reverse&, const State&, std::size_t>
constexpr checkpoint_counts reverse_with_checkpoints(std::size_t n, const State& s0, Advance advance, Reverse reverse) {
  static_assert(S >= 1, "reverse_with_checkpoints<S> needs S >= 1: the reverse advances the state in one of them");
  checkpoint_sweep<S, State, Advance, Reverse> sweep(advance, reverse);
  sweep.reverse_range(s0, 0, n, 0);
  return sweep.counts();
}

}  // namespace tapeless::detail
