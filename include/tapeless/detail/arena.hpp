// SPDX-License-Identifier: BSL-1.0
// tapeless/detail/arena.hpp: the memory that the intermediates of one gradient share, and the buffer
// of a run-time matrix's elements that takes its room there.
//
// A sweep over arrays of run-time extents makes values and adjoints whose sizes only the call knows: a
// product's value held for a factorisation, LU factors, dense adjoints. Each on the heap is one
// allocation per intermediate per call. While a sweep runs, its arena is current on the thread
// (arena_scope), and the operations that keep such intermediates (kept_scope, around their passes:
// operation/protocol.hpp) make the elements of their run-time matrices there instead, in order, from
// one buffer, all taken back together; so do tl::iterate's steps (loop_scope), each in the room of
// pieces the steps before gave back. Elsewhere buffers stay on the heap: a sum's partials, a
// log-sum-exp's exps and most other adjoints become the gradient itself, which takes them over from
// the heap rather than copying them. A lasting arena (a tl::workspace's) takes every buffer. What does
// not fit goes to the heap, and the arena counts it, so that the caller can make its next buffer large
// enough (sweep/sweep_memory.hpp).
//
// Where a buffer lives is fixed when it is made (its home: the arena current then, or the heap):
// assigning to a matrix never moves it from the heap into an arena, it copies. So a gradient made before
// the sweep and summed into inside it stays on the heap. A move takes over a buffer of an arena only
// where that arena is current, or is the result's (result_arena: a tl::workspace's room that tl::into
// copies the result out of, which outlives the sweeps inside it), and copies elsewhere: a result made
// under result_scope owns its elements.
// A buffer of an arena that has ended gives nothing back, since its memory went with the arena: arenas
// are told apart by a number that no other arena on the thread has had.
//
// Under AddressSanitizer the room of every buffer is unpoisoned when handed out and poisoned again when
// given back, and every buffer is followed by a poisoned gap, so a read past a matrix's end is found as
// on the heap. In a constant expression nothing of this runs: the elements come from std::allocator.
// Tests: test/unit/detail/arena_test.cpp
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#define TAPELESS_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TAPELESS_ARENA_ASAN 1
#endif
#endif
#ifdef TAPELESS_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace tapeless::detail {

/// Room handed out in order from a buffer the caller owns, all of it taken back once every piece is
/// given back. A piece given back while others are still out serves the next piece of the same room, so
/// that a loop whose steps make and give back their temporaries (tl::iterate's states and adjoints)
/// needs the room of a few steps, not of all; pieces of other rooms stay taken until then, as the
/// intermediates of one sweep mostly live to its end. The room a call needs is the same whether it fits
/// or not, which the next call's buffer is made from (largest()).
class arena {
 public:
  /// Every buffer's alignment: that of a SIMD batch of any width the library loads.
  static constexpr std::size_t alignment = 64;

  /// An arena of the caller's buffer of `capacity` bytes; where `buffer` is nullptr, of a buffer of
  /// that many bytes of its own, made when it is first asked for room (none for 0), so that a sweep that
  /// asks for none allocates nothing.
  /// `lasting`: the memory is the caller's to keep (a tl::workspace), so that every buffer made while
  /// it is current lies here, not only those of the operations that keep intermediates (kept_scope).
  arena(std::byte* buffer, std::size_t capacity, bool lasting = false) noexcept
      : buffer_(buffer), capacity_(capacity), owns_(buffer == nullptr), lasting_(lasting), serial_(next_serial()) {
    if (buffer_ != nullptr) poison(buffer_, capacity_);
  }
  arena(const arena&) = delete;
  arena& operator=(const arena&) = delete;
  ~arena() {
    if (buffer_ != nullptr) unpoison(buffer_, capacity_);
    if (owns_ && buffer_ != nullptr) delete_own_buffer();
  }

  /// Room for `bytes`, or nullptr where it does not fit (the caller takes it from the heap, and tells
  /// heap_returned when it gives it back). A piece of the same room given back while others are still
  /// out serves again.
  void* allocate(std::size_t bytes) noexcept {
    const std::size_t room = rounded(bytes);
    ++out_;
    spare_pieces* spare = spares_of(room);
    if (spare != nullptr && spare->count > 0) {
      // An arena large enough for every piece would reuse one given back, and want no more room.
      --spare->count;
      if (spare->first != nullptr) return reused(*spare, bytes);
    } else {
      wanted_ += room;
      largest_ = std::max(largest_, wanted_);
    }
    if (room > capacity_ - top_) return nullptr;
    if (buffer_ == nullptr && !own_buffer()) return nullptr;
    std::byte* at = buffer_ + top_;
    top_ += room;
    unpoison(at, bytes);
    return at;
  }
  /// Gives back the room of `bytes` at p, for the next piece of that room.
  void deallocate(void* p, std::size_t bytes) noexcept {
    const std::size_t room = rounded(bytes);
    if (spare_pieces* spare = spares_for(room)) {
      unpoison(p, sizeof(void*));
      std::memcpy(p, &spare->first, sizeof(void*));  // the list of spare pieces runs through them
      spare->first = p;
      ++spare->count;
    }
    poison(p, room);
    given_back();
  }
  /// Gives back what the heap gave in place of the arena for `bytes`: a piece of that room that an
  /// arena large enough would now have spare.
  void heap_returned(std::size_t bytes) noexcept {
    if (spare_pieces* spare = spares_for(rounded(bytes))) ++spare->count;
    given_back();
  }
  /// Forgets a piece the heap gave in place of the arena, which now belongs elsewhere.
  void disowned() noexcept { given_back(); }

  /// The most bytes this arena was asked for since it was last empty: a buffer of that many would have
  /// held every piece.
  [[nodiscard]] std::size_t largest() const noexcept { return largest_; }
  /// Whether the caller keeps its memory beyond the call.
  [[nodiscard]] bool lasting() const noexcept { return lasting_; }
  /// The number that tells this arena from every other the thread has made.
  [[nodiscard]] std::uint64_t serial() const noexcept { return serial_; }

 private:
  // Each piece is followed by a gap of at least one alignment, poisoned under AddressSanitizer.
  static constexpr std::size_t rounded(std::size_t bytes) noexcept {
    return (bytes + 2 * alignment - 1) / alignment * alignment;
  }
  static std::uint64_t next_serial() noexcept {
    thread_local std::uint64_t count = 0;
    return ++count;
  }
  // The buffer of an arena that makes its own, or false where there is no memory for it.
  // (The throwing form: a program that replaces operator new replaces that one, and its delete.)
  bool own_buffer() noexcept {
    try {
      buffer_ = static_cast<std::byte*>(::operator new (capacity_, std::align_val_t{alignment}));
    } catch (const std::bad_alloc&) {
      capacity_ = 0;
      return false;
    }
    poison(buffer_, capacity_);
    return true;
  }
  // Out of line: inlined into a caller's function over an arena of a local buffer, g++ warns that the
  // local is deleted (-Wfree-nonheap-object) on a path that owns_ rules out.
  [[gnu::noinline]] void delete_own_buffer() noexcept { ::operator delete (buffer_, std::align_val_t{alignment}); }
  void given_back() noexcept {
    if (--out_ == 0) {
      top_ = wanted_ = 0;
      spares_used_ = 0;
    }
  }
  // The pieces of one room given back while others are out: `count` of them, of which those in this
  // buffer are listed from `first` (the others came from the heap, and count for largest() only).
  struct spare_pieces {
    std::size_t room = 0;
    std::size_t count = 0;
    void* first = nullptr;
  };
  spare_pieces* spares_of(std::size_t room) noexcept {
    for (std::size_t i = 0; i < spares_used_; ++i)
      if (spares_[i].room == room) return &spares_[i];
    return nullptr;
  }
  // Those of a room, kept from now on where there is place for another room; else nullptr.
  spare_pieces* spares_for(std::size_t room) noexcept {
    if (spare_pieces* spare = spares_of(room)) return spare;
    if (spares_used_ == spares_.size()) return nullptr;
    spares_[spares_used_] = spare_pieces{room, 0, nullptr};
    return &spares_[spares_used_++];
  }
  static void* reused(spare_pieces& spare, std::size_t bytes) noexcept {
    void* p = spare.first;
    unpoison(p, sizeof(void*));
    std::memcpy(&spare.first, p, sizeof(void*));
    poison(p, spare.room);
    unpoison(p, bytes);
    return p;
  }
  static void poison([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) noexcept {
#ifdef TAPELESS_ARENA_ASAN
    ASAN_POISON_MEMORY_REGION(p, bytes);
#endif
  }
  static void unpoison([[maybe_unused]] void* p, [[maybe_unused]] std::size_t bytes) noexcept {
#ifdef TAPELESS_ARENA_ASAN
    ASAN_UNPOISON_MEMORY_REGION(p, bytes);
#endif
  }

  std::byte* buffer_ = nullptr;
  std::size_t capacity_;
  bool owns_ = false;
  bool lasting_ = false;
  std::size_t top_ = 0;
  std::size_t out_ = 0;      // the pieces handed out, or refused, and not given back
  std::size_t wanted_ = 0;   // the bytes asked for since the arena was last empty
  std::size_t largest_ = 0;  // the most of wanted_
  std::uint64_t serial_;
  // The rooms whose spare pieces are kept: the few sizes a loop's temporaries have. A piece of another
  // room, given back, stays taken until the arena is empty.
  std::array<spare_pieces, 8> spares_{};
  std::size_t spares_used_ = 0;
};

/// The arena of the sweep running on this thread; none: the heap.
inline thread_local arena* current_arena = nullptr;
/// Whether the buffers made now take their room from the current arena (where it is not lasting): in
/// the operations that keep intermediates (kept_scope), not elsewhere, where a buffer often becomes
/// the gradient itself, which takes it over from the heap without a copy.
inline thread_local bool keeping_intermediates = false;

/// Makes `a` (nullptr: the heap) the thread's arena until it ends, then the one before it again; where
/// `only_over_one`, only if an arena is current (else it reads one thread-local and writes nothing). In
/// a constant expression, nothing.
class arena_scope {
 public:
  constexpr explicit arena_scope(arena* a, bool keeping = false, bool only_over_one = false) noexcept {
    if (std::is_constant_evaluated() || (only_over_one && current_arena == nullptr)) return;
    active_ = true;
    previous_ = current_arena;
    previous_keeping_ = keeping_intermediates;
    current_arena = a;
    keeping_intermediates = keeping;
  }
  arena_scope(const arena_scope&) = delete;
  arena_scope& operator=(const arena_scope&) = delete;
  constexpr ~arena_scope() {
    if (!active_) return;
    current_arena = previous_;
    keeping_intermediates = previous_keeping_;
  }

 private:
  arena* previous_ = nullptr;
  bool previous_keeping_ = false;
  bool active_ = false;
};

/// The current arena, where one is and this is no constant evaluation; else nullptr.
constexpr arena* arena_in_use() noexcept {
  if (std::is_constant_evaluated()) return nullptr;
  return current_arena;
}

/// The heap for what is made until it ends: what outlives the arena, and the temporaries of a sum over
/// rows (transforms/sum_over.hpp). Where no arena is current, as in every sweep with nothing of run-time
/// size to keep, it writes nothing.
class heap_scope : arena_scope {
 public:
  constexpr heap_scope() noexcept : arena_scope(nullptr, false, true) {}
};

/// A loop's temporaries (tl::iterate's states, adjoints and the buffers of its steps) in the current
/// arena, the sweep's or a workspace's: every step makes buffers of the sizes the one before gave back,
/// which serve again (detail::arena), so that a loop of any length needs one buffer for all of them, and
/// a gradient given a workspace (tl::grad(f, ws)) allocates nothing once it is large enough. Where no
/// arena is current, it writes nothing.
class loop_scope : arena_scope {
 public:
  constexpr loop_scope() noexcept : arena_scope(arena_in_use(), true, true) {}
};

/// The arena that a gradient's result takes its room from: none, the heap, unless the caller copies
/// the result into storage of its own before the arena ends (tl::into with a tl::workspace).
inline thread_local arena* result_arena = nullptr;

/// The buffers made while it lives are the gradient's result: in result_arena, mostly the heap.
class result_scope : arena_scope {
 public:
  result_scope() noexcept : arena_scope(result_arena, false, result_arena == nullptr) {}
};

/// The buffers an operation keeps for its rule (factors, a held value, dense adjoints) take their room
/// from the sweep's arena until it ends: tapeless's operations of run-time extents that keep
/// intermediates open one around their passes.
class kept_scope : arena_scope {
 public:
  constexpr kept_scope() noexcept : arena_scope(arena_in_use(), true) {}
};

/// Whether a buffer made now in arena `a` takes its room there: where an operation keeps it (kept_scope,
/// loop_scope) or the arena is lasting.
inline bool takes_buffers(const arena& a) noexcept { return keeping_intermediates || a.lasting(); }

/// The current arena where a buffer made now takes its room there, else nullptr: the heap.
inline arena* arena_taking_buffers() noexcept {
  arena* a = current_arena;
  return a != nullptr && takes_buffers(*a) ? a : nullptr;
}

/// Room for n objects of T, not constructed: in arena `a` (nullptr: none) where it has it, else from
/// the heap, which `a` counts; `in_arena` says which. give_back_room returns it the same way.
template <class T>
constexpr T* room_in(arena* a, std::size_t n, bool& in_arena) {
  in_arena = false;
  if (a != nullptr)
    if (void* room = a->allocate(n * sizeof(T))) {
      in_arena = true;
      return static_cast<T*>(room);
    }
  return std::allocator<T>().allocate(n);
}
template <class T>
constexpr void give_back_room(arena* a, T* p, std::size_t n, bool in_arena) noexcept {
  if (in_arena) {
    a->deallocate(p, n * sizeof(T));
    return;
  }
  std::allocator<T>().deallocate(p, n);
  if (a != nullptr) a->heap_returned(n * sizeof(T));  // it was asked first, and had no room
}

/// n elements of T, value-initialized (zeros), copied and moved as a std::vector's are, but that each
/// buffer has a home, fixed when it is made: the arena current then, or the heap. Its elements lie in
/// its home where that arena is current and keeps them (kept_scope, or a lasting arena), else on the
/// heap. An assignment keeps the buffer's home, and a buffer in an arena is taken over only where that
/// arena is current: elsewhere its elements are copied (the file's comment). A move of a heap buffer,
/// the common case, costs what a std::vector's does; the arena's cases are out of line.
template <class T>
class arena_elements {
 public:
  constexpr arena_elements() noexcept : home_(current_home()) {}
  constexpr explicit arena_elements(std::size_t n) : home_(current_home()) { make(n, true); }
  /// n elements, zeros only where `zeros` (else left as they are, at run time: for the library's loops
  /// that write every element).
  constexpr arena_elements(std::size_t n, bool zeros) : home_(current_home()) { make(n, zeros); }
  constexpr arena_elements(const arena_elements& other) : home_(current_home()) { copy_from(other); }
  // A move that must copy (a buffer of an arena moved where that arena is not current) and finds no
  // memory ends the program, as a matrix's move is noexcept. A moved buffer keeps its home.
  // The copy lies out of line, so that the move a returned matrix makes is a few stores where it is made.
  constexpr arena_elements(arena_elements&& other) noexcept
      : data_(other.data_), size_(other.size_), home_(other.home_), on_heap_(other.on_heap_), counted_(other.counted_) {
    if (!on_heap_ && !std::is_constant_evaluated() && current_arena_of(home_) == nullptr) [[unlikely]] {
      copy_out_of_arena(other);
      return;
    }
    other.forget();
  }
  constexpr arena_elements& operator=(const arena_elements& other) {
    if (this != &other) {
      if (other.size_ != size_) {
        release();
        make(other.size_, false);
      }
      std::copy_n(other.data_, size_, data_);
    }
    return *this;
  }
  constexpr arena_elements& operator=(arena_elements&& other) noexcept {
    if (this == &other) return *this;
    if (other.on_heap_ || (home_ == other.home_ && current_arena_of(home_) != nullptr)) {
      release();
      data_ = other.data_;
      size_ = other.size_;
      on_heap_ = other.on_heap_;
      counted_ = other.counted_;
      if (counted_ && home_ != other.home_) [[unlikely]]
        counted_ = disown(other.home_);
      other.forget();
    } else {
      *this = std::as_const(other);  // NOLINT(misc-unconventional-assign-operator): a copy keeps each home
    }
    return *this;
  }
  constexpr ~arena_elements() {
    if (data_ != nullptr) free_elements();  // a moved-from buffer: one comparison
  }

  [[nodiscard]] constexpr T* data() noexcept { return data_; }
  [[nodiscard]] constexpr const T* data() const noexcept { return data_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  constexpr T& operator[](std::size_t i) noexcept { return data_[i]; }
  constexpr const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  /// Whether the elements lie in an arena (else on the heap, or there are none).
  [[nodiscard]] constexpr bool in_arena() const noexcept { return !on_heap_; }

 private:
  static_assert(alignof(T) <= arena::alignment, "arena_elements: T is aligned beyond what an arena hands out");
  // Only elements that need no destructor lie in an arena, which runs none.
  static constexpr bool may_use_arena = std::is_trivially_destructible_v<T>;

  static constexpr std::uint64_t current_home() noexcept {
    if (std::is_constant_evaluated() || !may_use_arena) return 0;
    const arena* a = current_arena;
    return a == nullptr ? 0 : a->serial();
  }
  // The arena of that serial where it is the current one, or the result's (which outlives every arena
  // made while it is set), else nullptr.
  static constexpr arena* current_arena_of(std::uint64_t serial) noexcept {
    if (serial == 0 || std::is_constant_evaluated()) return nullptr;
    arena* a = current_arena;
    if (a != nullptr && a->serial() == serial) return a;
    a = result_arena;
    return a != nullptr && a->serial() == serial ? a : nullptr;
  }
  // Tells the arena of that serial, where current, that a buffer it counted is no longer its; false.
  [[gnu::cold]] [[gnu::noinline]] static bool disown(std::uint64_t serial) noexcept {
    if (arena* a = current_arena_of(serial)) a->disowned();
    return false;
  }
  // Tells the arena of that serial, where current, that a buffer of `bytes` it counted is given back.
  [[gnu::cold]] [[gnu::noinline]] static void uncount(std::uint64_t serial, std::size_t bytes) noexcept {
    if (arena* a = current_arena_of(serial)) a->heap_returned(bytes);
  }
  constexpr void forget() noexcept {
    data_ = nullptr;
    size_ = 0;
    on_heap_ = true;
    counted_ = false;
  }
  constexpr void copy_from(const arena_elements& other) {
    make(other.size_, false);
    std::copy_n(other.data_, size_, data_);
  }
  // What a move does with a buffer of an arena not current here: a copy in this thread's current home.
  [[gnu::cold]] [[gnu::noinline]] void copy_out_of_arena(const arena_elements& other) noexcept {
    data_ = nullptr;
    home_ = current_home();
    on_heap_ = true;
    counted_ = false;
    copy_from(other);
  }
  // Room for n elements in this home, zeros where `zero`.
  constexpr void make(std::size_t n, bool zero) {
    size_ = n;
    on_heap_ = true;
    if (n == 0) return;
    if (home_ != 0 && !std::is_constant_evaluated() && make_in_arena(n, zero)) return;
    data_ = std::allocator<T>().allocate(n);
    if (std::is_constant_evaluated() || !std::is_trivially_default_constructible_v<T>) {
      for (std::size_t i = 0; i < n; ++i) std::construct_at(data_ + i);  // zeros
    } else if (zero) {
      std::fill_n(data_, n, T());  // one memset
    }
  }
  // The room of n elements in the home arena where it is current and keeps them; false where it is
  // not, or they do not fit (then counted by it, and made on the heap).
  [[gnu::noinline]] bool make_in_arena(std::size_t n, bool zero) {
    arena* a = current_arena_of(home_);
    if (a == nullptr || !takes_buffers(*a)) return false;
    void* room = a->allocate(n * sizeof(T));
    if (room == nullptr) {
      counted_ = true;
      return false;
    }
    data_ = static_cast<T*>(room);
    on_heap_ = false;
    if (zero) std::fill_n(data_, n, T());
    return true;
  }
  constexpr void release() noexcept {
    if (data_ != nullptr) free_elements();
    forget();
  }
  constexpr void free_elements() noexcept {
    if (on_heap_) [[likely]] {
      std::allocator<T>().deallocate(data_, size_);
      if (counted_) [[unlikely]]
        uncount(home_, size_ * sizeof(T));
    } else if (!std::is_constant_evaluated()) {
      give_back();
    }
  }
  // Gives the room of elements in an arena back to it, where it is current.
  [[gnu::noinline]] void give_back() noexcept {
    if (arena* a = current_arena_of(home_)) a->deallocate(data_, size_ * sizeof(T));
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::uint64_t home_ = 0;  // the serial of the arena this buffer belongs to, or 0: the heap
  bool on_heap_ = true;     // whether data_ came from the heap (always where home_ is 0)
  bool counted_ = false;    // whether its home arena refused these elements, and counts them
};

}  // namespace tapeless::detail
