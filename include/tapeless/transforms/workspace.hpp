// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/workspace.hpp: tl::workspace, memory a caller owns and passes to a gradient
// (tl::grad(f, ws)) and to tl::iterate, reused from one call to the next.
//
// A gradient over arrays of run-time extents takes the room of its intermediates from it
// (sweep/sweep_memory.hpp), and tl::iterate the room of its stored states. It grows, at the start of
// a use, to what the uses before it wanted at once, so from the second call of the same function on
// nothing is allocated.
// Tests: test/unit/transforms/workspace_test.cpp
#pragma once

#include <tapeless/detail/arena.hpp>
#include <tapeless/sweep/sweep_memory.hpp>

#include <cstddef>
#include <new>
#include <utility>

namespace tapeless {

namespace detail {
struct workspace_access;
}

/// Memory for a gradient's intermediates and tl::iterate's stored states, owned by the caller and
/// reused from one call to the next:
///
///   tl::workspace ws;                          // empty: the first gradient allocates
///   for (...) g = tl::grad(f, ws)(A);          // from the second call on, nothing is allocated
///   auto f = [&](const auto& k) { return loss(tl::iterate(ws, n, init, step, k)); };
///
/// It grows to hold what every use of one gradient keeps at once, and never shrinks; `reserve(bytes)`
/// makes it large enough beforehand. It is not copyable, and serves one thread at a time: each thread
/// that takes gradients keeps its own. Without one, a gradient over arrays of run-time extents makes one
/// allocation for its intermediates, and tl::iterate one for its states.
class workspace {
 public:
  workspace() = default;
  /// A workspace of `bytes` bytes at least.
  explicit workspace(std::size_t bytes) { reserve(bytes); }
  workspace(const workspace&) = delete;
  workspace& operator=(const workspace&) = delete;
  ~workspace() { release_buffer(); }

  /// Grows to `bytes` at least, unless something is kept in it at the moment (then at the next use).
  void reserve(std::size_t bytes) {
    if (bytes > wanted_) wanted_ = bytes;
    if (in_use_ == 0) grow();
  }
  /// Its size in bytes.
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }

 private:
  friend struct detail::workspace_access;
  /// The buffer's alignment: that of any state of a SIMD-aligned matrix.
  static constexpr std::size_t alignment = 64;

  void grow() {
    if (wanted_ <= capacity_) return;
    release_buffer();
    buffer_ = static_cast<std::byte*>(::operator new (wanted_, std::align_val_t{alignment}));
    capacity_ = wanted_;
  }
  void release_buffer() noexcept {
    if (buffer_ != nullptr) ::operator delete (buffer_, std::align_val_t{alignment});
    buffer_ = nullptr;
    capacity_ = 0;
  }
  /// Room for `bytes` aligned to `align`, after what is in use; nullptr where it does not fit while
  /// other things are kept (the caller then allocates, and the next use grows to hold both).
  std::byte* claim(std::size_t bytes, std::size_t align) {
    if (align > alignment) return nullptr;
    const std::size_t at = (used_ + align - 1) / align * align;
    if (at + bytes > wanted_) wanted_ = at + bytes;
    if (in_use_ == 0) grow();
    if (at + bytes > capacity_) return nullptr;
    used_ = at + bytes;
    ++in_use_;
    return buffer_ + at;
  }
  void release() noexcept {
    if (--in_use_ == 0) used_ = 0;
  }

  std::byte* buffer_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t wanted_ = 0;  // the bytes the uses so far needed at once
  std::size_t used_ = 0;
  std::size_t in_use_ = 0;        // the claims in it at the moment
  std::size_t sweep_bytes_ = 0;   // the most a gradient's intermediates wanted
  std::size_t result_bytes_ = 0;  // the most a gradient's result wanted (tl::into)
};

namespace detail {

struct workspace_access {
  static std::byte* claim(workspace& ws, std::size_t bytes, std::size_t align) { return ws.claim(bytes, align); }
  static void release(workspace& ws) noexcept { ws.release(); }
  static std::size_t& sweep_bytes(workspace& ws) noexcept { return ws.sweep_bytes_; }
  static std::size_t& result_bytes(workspace& ws) noexcept { return ws.result_bytes_; }
  static std::size_t wanted(const workspace& ws) noexcept { return ws.wanted_; }
};

/// The room of a gradient's intermediates in a workspace while the sweep runs: as much as its sweeps
/// have wanted (`wanted`: the workspace's count of it), or, where that does not fit beside what the
/// workspace holds, a buffer of that size of the sweep's own. Afterwards the workspace grows to hold
/// what the sweep wanted beside the rest, so that the next call allocates nothing.
class sweep_in_workspace {
 public:
  explicit sweep_in_workspace(workspace& ws) : sweep_in_workspace(ws, workspace_access::sweep_bytes(ws)) {}
  sweep_in_workspace(workspace& ws, std::size_t& wanted)
      : claim_(ws, wanted), memory_(claim_.room, claim_.bytes, wanted, true) {}

 private:
  struct claim {
    workspace& ws;
    std::size_t& wanted;
    std::size_t bytes;
    std::byte* room;
    claim(workspace& w, std::size_t& counted)
        : ws(w),
          wanted(counted),
          bytes(counted),
          room(bytes > 0 ? workspace_access::claim(w, bytes, arena::alignment) : nullptr) {}
    claim(const claim&) = delete;
    claim& operator=(const claim&) = delete;
    ~claim() {  // `wanted` is now what the sweep wanted: its memory, ended, has set it
      if (room != nullptr) workspace_access::release(ws);
      const std::size_t more = room != nullptr ? wanted - bytes : wanted;
      try {
        if (more > 0) ws.reserve(workspace_access::wanted(ws) + more);
      } catch (const std::bad_alloc&) {  // NOLINT(bugprone-empty-catch): the next call grows it, or allocates
      }
    }
  };

  claim claim_;  // first: given back after the sweep's memory ends
  sweep_memory memory_;
};

/// While it lives, a gradient's result, and the store its adjoints are summed in, take their room
/// from the workspace (result_arena): for tl::into, which copies the result into the caller's storage
/// before this ends, so that with a workspace large enough nothing is allocated. The room is current
/// for the whole call, f's evaluation too; a sweep's own room takes over inside it.
class result_in_workspace {
 public:
  explicit result_in_workspace(workspace& ws)
      : memory_(ws, workspace_access::result_bytes(ws)), previous_(std::exchange(result_arena, current_arena)) {}
  result_in_workspace(const result_in_workspace&) = delete;
  result_in_workspace& operator=(const result_in_workspace&) = delete;
  ~result_in_workspace() { result_arena = previous_; }

 private:
  sweep_in_workspace memory_;
  arena* previous_;
};

}  // namespace detail

}  // namespace tapeless
