// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/sweep_memory.hpp: the arena of one gradient call over arrays of run-time extents.
//
// The intermediates of a sweep over run-time extents (a product's value, an LU factorisation, a dense
// adjoint) take their room from one buffer (detail/arena.hpp) rather than one allocation each. The
// buffer, made when the sweep first asks for room, is as large as the most that a call on this thread
// has wanted, so from the second call of a function on everything fits in it: one allocation per call,
// none for a sweep that asks for no room. The thread keeps only that number, no memory, between calls.
// A caller's buffer (a tl::workspace's, transforms/grad.hpp) takes the place of that one.
// Tests: test/unit/sweep/sweep_memory_test.cpp
#pragma once

#include <tapeless/detail/arena.hpp>

#include <algorithm>
#include <cstddef>

namespace tapeless::detail {

/// While it lives, the thread's run-time matrices take their elements from its buffer: the caller's,
/// or one of its own made when first needed.
class sweep_memory {
 public:
  /// A buffer of its own, as large as the most a sweep on this thread has wanted.
  sweep_memory() noexcept : sweep_memory(nullptr, thread_wanted(), thread_wanted()) {}
  /// `capacity` bytes at `buffer` (nullptr: a buffer of its own of that size), `lasting` where the
  /// caller keeps it (detail::arena); the most the sweep wants is kept in `wanted` where it is more.
  sweep_memory(std::byte* buffer, std::size_t capacity, std::size_t& wanted, bool lasting = false) noexcept
      : wanted_(wanted), arena_(buffer, capacity, lasting), scope_(&arena_) {}
  sweep_memory(const sweep_memory&) = delete;
  sweep_memory& operator=(const sweep_memory&) = delete;
  ~sweep_memory() { wanted_ = std::max(wanted_, arena_.largest()); }

 private:
  static std::size_t& thread_wanted() noexcept {
    thread_local std::size_t bytes = 0;
    return bytes;
  }

  std::size_t& wanted_;
  arena arena_;
  arena_scope scope_;
};

}  // namespace tapeless::detail
