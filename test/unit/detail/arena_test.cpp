// SPDX-License-Identifier: BSL-1.0
// detail::arena and detail::arena_elements: room handed out aligned and in order, refused beyond the
// buffer and counted, taken back once all is given back; a piece given back serving the next of its
// room, and one the heap gave counting as spare; a loop's buffers in the current arena; buffers in
// the arena where an operation keeps them or the arena is lasting, else on the heap; each buffer's
// home kept by assignments; a buffer of an arena moved where that arena is not current copied;
// buffers that outlive their arena; constant evaluation.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

namespace tl = tapeless;
using tl::detail::arena;
using tl::detail::arena_elements;
using tl::detail::arena_scope;
using tl::detail::heap_scope;
using tl::detail::kept_scope;
using tl::detail::loop_scope;

namespace {
/// A buffer of an arena's alignment.
struct alignas(arena::alignment) room {
  std::byte bytes[4096];
};

bool inside(const void* p, const room& r) {
  const auto* b = static_cast<const std::byte*>(p);
  return b >= r.bytes && b < r.bytes + sizeof(r.bytes);
}

constexpr double sum_of_made_in_constant_evaluation() {
  arena_elements<double> a(3);
  a[0] = 1.0;
  a[2] = 2.0;
  arena_elements<double> b(a);
  b = std::move(a);
  return b[0] + b[1] + b[2] + static_cast<double>(b.size());
}
}  // namespace

TEST_CASE("an arena hands out aligned room in order, refuses what does not fit, and counts it") {
  room r;
  arena a(r.bytes, sizeof(r.bytes));
  void* p = a.allocate(8);
  void* q = a.allocate(100);
  REQUIRE(p != nullptr);
  REQUIRE(q != nullptr);
  CHECK(reinterpret_cast<std::uintptr_t>(p) % arena::alignment == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(q) % arena::alignment == 0);
  CHECK(static_cast<std::byte*>(q) - static_cast<std::byte*>(p) >= static_cast<std::ptrdiff_t>(8 + arena::alignment));
  CHECK(a.allocate(8192) == nullptr);  // too large: the heap's
  const std::size_t largest = a.largest();
  CHECK(largest >= 8 + 100 + 8192);
  a.heap_returned(8192);
  a.deallocate(q, 100);
  a.deallocate(p, 8);
  CHECK(a.allocate(8) == p);  // all given back: from the start again
  CHECK(a.largest() == largest);
}

TEST_CASE("a piece given back while others are out serves the next piece of its room, and no more is wanted") {
  room r;
  arena a(r.bytes, sizeof(r.bytes));
  void* kept = a.allocate(8);  // out throughout, as a loop's stored states
  void* step = a.allocate(300);
  a.deallocate(step, 300);
  const std::size_t wanted = a.largest();
  for (int k = 0; k < 100; ++k) {  // a loop whose steps make a buffer and give back the one before
    void* next = a.allocate(290);  // of the same room
    CHECK(next == step);
    a.deallocate(next, 290);
  }
  CHECK(a.largest() == wanted);
  void* other = a.allocate(1000);  // another room: from the top
  CHECK(other != step);
  CHECK(static_cast<std::byte*>(other) > static_cast<std::byte*>(step));
  a.deallocate(other, 1000);
  a.deallocate(kept, 8);
}

#ifdef TAPELESS_ARENA_ASAN
// Under AddressSanitizer (the clang++ part of the test command): a piece given back, the list of spare
// pieces that runs through it included, stays poisoned until it serves again, then only its bytes are
// readable.
TEST_CASE("a spare piece is poisoned, all of it, until it serves again") {
  room r;
  arena a(r.bytes, sizeof(r.bytes));
  void* kept = a.allocate(8);
  auto* p = static_cast<std::byte*>(a.allocate(100));
  CHECK_FALSE(__asan_address_is_poisoned(p));
  CHECK_FALSE(__asan_address_is_poisoned(p + 99));
  CHECK(__asan_address_is_poisoned(p + 100));
  a.deallocate(p, 100);
  for (std::size_t i = 0; i < 100; ++i) CHECK(__asan_address_is_poisoned(p + i));
  auto* q = static_cast<std::byte*>(a.allocate(90));  // the same room
  REQUIRE(q == p);
  CHECK_FALSE(__asan_address_is_poisoned(q + 89));
  CHECK(__asan_address_is_poisoned(q + 90));
  CHECK(__asan_address_is_poisoned(q + 99));
  a.deallocate(q, 90);
  a.deallocate(kept, 8);
}
#endif

TEST_CASE("a piece the heap gave in the arena's place counts as spare for the room the next call wants") {
  room r;
  arena a(r.bytes, sizeof(r.bytes));
  void* kept = a.allocate(8);
  for (int k = 0; k < 10; ++k) {
    CHECK(a.allocate(8000) == nullptr);  // too large: the heap's
    a.heap_returned(8000);
  }
  CHECK(a.largest() < 8 + 2 * 8000);  // one piece of 8000 at a time: a buffer of one would do
  CHECK(a.allocate(8000) == nullptr);
  a.disowned();  // taken over elsewhere: not spare
  CHECK(a.allocate(8000) == nullptr);
  CHECK(a.largest() > 8 + 2 * 8000);
  a.heap_returned(8000);
  a.deallocate(kept, 8);
}

TEST_CASE("a loop's buffers take their room in the current arena; over none, on the heap") {
  room r;
  {
    const loop_scope loop;
    CHECK_FALSE(arena_elements<double>(4).in_arena());
  }
  arena a(r.bytes, sizeof(r.bytes));
  const arena_scope scope(&a);
  const loop_scope loop;
  std::optional<arena_elements<double>> previous;
  previous.emplace(8);
  const double* first = previous->data();
  CHECK(inside(first, r));
  for (int k = 0; k < 5; ++k) {
    arena_elements<double> next(8);
    CHECK(next.in_arena());
    previous = std::move(next);
  }
  previous.reset();
  CHECK(arena_elements<double>(8).data() == first);  // all given back: from the start again
}

TEST_CASE("an arena that makes its own buffer makes it when first asked, and none for 0 bytes") {
  arena none(nullptr, 0);
  CHECK(none.allocate(8) == nullptr);
  CHECK(none.largest() > 0);
  arena own(nullptr, 1024);
  void* p = own.allocate(8);
  CHECK(p != nullptr);
  own.deallocate(p, 8);
  CHECK(arena(nullptr, 0).serial() != own.serial());
}

TEST_CASE("elements lie in the current arena where an operation keeps them, else on the heap") {
  room r;
  const arena_elements<double> before(4);
  CHECK_FALSE(before.in_arena());
  arena a(r.bytes, sizeof(r.bytes));
  const arena_scope scope(&a);
  CHECK_FALSE(arena_elements<double>(4).in_arena());  // the sweep's, but kept by no operation
  const kept_scope keep;
  arena_elements<double> made(5);
  CHECK(made.in_arena());
  CHECK(inside(made.data(), r));
  for (std::size_t i = 0; i < 5; ++i) CHECK(made[i] == 0.0);  // zeros, as a std::vector's
  const arena_elements<double> copy(before);
  CHECK(copy.in_arena());
  {
    const heap_scope heap;
    const arena_elements<double> on_heap(3);
    CHECK_FALSE(on_heap.in_arena());
  }
  const tl::matrix<double, tl::dynamic, tl::dynamic> m(3, 2);
  CHECK(inside(m.data(), r));
  CHECK(arena_elements<double>(100000).size() == 100000);  // too large for the buffer: on the heap
}

TEST_CASE("an assignment keeps each buffer's home; a move takes an arena's buffer only where it is current") {
  room r;
  arena_elements<double> heap_home(2);
  arena_elements<double> result;  // made before the arena: the heap's, as a gradient's store
  arena a(r.bytes, sizeof(r.bytes));
  {
    const arena_scope scope(&a);
    const kept_scope keep;
    arena_elements<double> temporary(3);
    temporary[1] = 7.0;
    const double* in_arena = temporary.data();
    heap_home = temporary;  // copied, on the heap
    CHECK_FALSE(heap_home.in_arena());
    result = std::move(temporary);  // copied out, not taken
    CHECK_FALSE(result.in_arena());
    CHECK(result[1] == 7.0);

    arena_elements<double> other(3);
    other[2] = 5.0;
    const double* others = other.data();
    arena_elements<double> moved(std::move(other));  // in its own arena: taken over
    CHECK(moved.data() == others);
    CHECK(other.size() == 0);
    arena_elements<double> assigned;
    assigned = std::move(moved);  // made in the arena too: taken over
    CHECK(assigned.data() == others);
    {
      const heap_scope heap;
      const arena_elements<double> escaped(std::move(assigned));  // where the arena is not current: copied
      CHECK_FALSE(escaped.in_arena());
      CHECK(escaped[2] == 5.0);
    }
    arena_elements<double> from_heap(4);
    from_heap[3] = 1.0;
    {
      const heap_scope heap;
      arena_elements<double> on_heap(4);
      on_heap[3] = 2.0;
      const double* heap_elements = on_heap.data();
      from_heap = std::move(on_heap);  // heap elements may go anywhere: taken over
      CHECK(from_heap.data() == heap_elements);
    }
    CHECK(from_heap[3] == 2.0);
    CHECK(in_arena != nullptr);
  }
  CHECK(result[1] == 7.0);
  CHECK(heap_home[1] == 7.0);
}

TEST_CASE("a buffer of an arena that is no longer current gives nothing back to the current one") {
  room r1, r2;
  arena second(r2.bytes, sizeof(r2.bytes));
  const arena_scope scope(&second);
  void* p = second.allocate(8);
  {
    arena third(r1.bytes, sizeof(r1.bytes));
    std::optional<arena_elements<double>> stale;
    {
      const arena_scope inner(&third);
      const kept_scope keep;
      stale.emplace(2);
      CHECK(stale->in_arena());
    }
    stale.reset();  // third is not current: second is told nothing
  }
  second.deallocate(p, 8);  // its only piece: second is empty, and starts again from p
  CHECK(second.allocate(8) == p);
}

TEST_CASE("a lasting arena (a workspace's) takes every buffer made while it is current") {
  room r;
  arena a(r.bytes, sizeof(r.bytes), true);
  const arena_scope scope(&a);
  const arena_elements<double> made(6);
  CHECK(made.in_arena());
  CHECK(inside(made.data(), r));
  const heap_scope heap;
  CHECK_FALSE(arena_elements<double>(6).in_arena());
}

TEST_CASE("in a constant expression the elements come from std::allocator") {
  static_assert(sum_of_made_in_constant_evaluation() == 6.0);
  CHECK(sum_of_made_in_constant_evaluation() == 6.0);
}
