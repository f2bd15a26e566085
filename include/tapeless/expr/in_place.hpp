// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/in_place.hpp: which data a constant leaf may read where it lies, and the call of f that says so.
//
// A plain matrix used in f becomes a constant leaf (expr/leaf.hpp). A copy in the leaf is always safe,
// but the leaf is copied again into each node above it, a pass over the matrix per level. Read in
// place, it costs a pointer. That is safe for what f captures: the closure outlives the sweep, and so
// does what it refers to. It is not for a local of f, which dies when f returns while the returned
// expression still refers to it. The two are alike to the type system (each is an lvalue of type M),
// so the leaf asks where the matrix lies. A transform calls f through invoke_reading_data, which names
// f's closure: a matrix inside it is captured by value. Where the closure is smaller than the data f
// reads, the data cannot be in it, and f is called through a frame that marks the stack above it as
// outliving the call: a matrix there is the caller's, captured by reference. Whatever f makes lies
// below the mark (f's locals, temporaries) or off the stack, and is copied, as are all constants built
// in a constant expression or outside such a call. (A closure's words are not searched for the
// address: its padding may hold a stale one.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#if defined(__GLIBC__) && __has_include(<pthread.h>)
#include <pthread.h>
#define TAPELESS_KNOWS_THE_STACK 1
#else
#define TAPELESS_KNOWS_THE_STACK 0
#endif

namespace tapeless::detail {

/// The closure of the f that a transform is calling, as bytes: none outside such a call.
struct closure_bytes {
  const unsigned char* begin = nullptr;
  std::size_t size = 0;
};
inline thread_local closure_bytes calling_closure{};

/// A range [low, high) of this thread's stack, empty by default.
struct stack_range {
  std::uintptr_t low = 0, high = 0;
};

/// The part of this thread's stack that outlives the call of f under way: empty outside a call
/// through invoke_marking_the_stack.
inline thread_local stack_range outliving_stack{};

/// This thread's stack once asked for (empty until then, or where the platform does not say).
inline thread_local stack_range known_thread_stack{};

/// This thread's stack, or an empty range where the platform does not say: asked of the platform once
/// per thread (for the main thread glibc reads /proc/self/maps).
inline stack_range thread_stack() noexcept {
#if TAPELESS_KNOWS_THE_STACK
  if (known_thread_stack.high == 0) {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return {};
    void* base = nullptr;
    std::size_t size = 0;
    if (pthread_attr_getstack(&attr, &base, &size) == 0) {
      known_thread_stack.low = reinterpret_cast<std::uintptr_t>(base);
      known_thread_stack.high = known_thread_stack.low + size;
    }
    pthread_attr_destroy(&attr);
  }
  return known_thread_stack;
#else
  return {};
#endif
}

/// Whether the `size` bytes at `p` outlive the call of f under way, so that a leaf may point to them:
/// they lie in f's closure, or on the part of the stack marked as outliving the call.
inline bool outlives_the_call(const void* p, std::size_t size) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const auto begin = reinterpret_cast<std::uintptr_t>(calling_closure.begin);
  if (at >= begin && at + size <= begin + calling_closure.size) return true;
  return at >= outliving_stack.low && at + size <= outliving_stack.high;
}

/// Names f's closure for the leaves built while f runs, and the closure of the call it is inside
/// again once f returns (nested transforms).
class naming_the_closure {
 public:
  template <class F>
  explicit naming_the_closure(const F& f) noexcept : outer_(calling_closure) {
    calling_closure = {reinterpret_cast<const unsigned char*>(&f), sizeof(F)};
  }
  naming_the_closure(const naming_the_closure&) = delete;
  naming_the_closure& operator=(const naming_the_closure&) = delete;
  ~naming_the_closure() { calling_closure = outer_; }

 private:
  closure_bytes outer_;
};

/// f(a...) with f's closure named while it runs.
template <class F, class... A>
auto invoke_naming_the_closure(const F& f, const A&... a) {
  const naming_the_closure named(f);
  return std::invoke(f, a...);
}

/// Calls f on copies of a... made in this frame: a matrix passed by value (an argument not
/// differentiated) is a temporary of the caller that dies before the sweep, though it lies above the mark.
template <class F, class... A>
[[gnu::noinline]] auto invoke_on_own_copies(const F& f, const A&... a) {
  const std::tuple<A...> own(a...);
  return std::apply([&f](const A&... b) { return invoke_naming_the_closure(f, b...); }, own);
}

/// Calls f with the stack above this frame marked as outliving the call: what f builds there lies
/// below `mark`, in the frame of invoke_on_own_copies or deeper (the stack grows down), and is copied.
/// Not inlined, so that the mark stays above every frame of f; the mark is taken back on the way out,
/// which also keeps the call of invoke_on_own_copies from being a tail call that reuses this frame.
template <class F, class... A>
[[gnu::noinline]] auto invoke_marking_the_stack(const F& f, const A&... a) {
  volatile char mark = 0;
  const stack_range outer = outliving_stack;
  const stack_range stack = thread_stack();
  const auto low = reinterpret_cast<std::uintptr_t>(&mark);
  outliving_stack = stack.low <= low && low < stack.high ? stack_range{low, stack.high} : stack_range{};
  struct restore {
    stack_range outer;
    explicit restore(stack_range o) noexcept : outer(o) {}
    restore(const restore&) = delete;
    restore& operator=(const restore&) = delete;
    ~restore() { outliving_stack = outer; }
  } const restore_on_exit(outer);
  return invoke_on_own_copies(f, a...);
}

/// What the constant leaves that may read their matrix in place (marked by `reads_in_place`) need:
/// the size of the smallest such matrix (none_read_in_place without one), and room for a copy of each.
inline constexpr std::size_t none_read_in_place = ~std::size_t{0};
struct data_leaves {
  std::size_t smallest = none_read_in_place;
  std::size_t bytes = 0;
  constexpr data_leaves operator+(const data_leaves& o) const noexcept {
    return {smallest < o.smallest ? smallest : o.smallest, bytes + o.bytes};
  }
};

/// The data leaves of an expression of type E, found through the operand members of its nodes.
template <class E>
constexpr data_leaves data_leaves_of() {
  using N = std::remove_cvref_t<E>;
  if constexpr (requires { N::reads_in_place; }) {
    using M = typename N::value_type;
    return {sizeof(M), sizeof(M) + alignof(M) - 1};
  } else if constexpr (requires {
                         typename N::first_type;
                         typename N::second_type;
                       }) {
    return data_leaves_of<typename N::first_type>() + data_leaves_of<typename N::second_type>();
  } else if constexpr (requires(const N& n) { n.arg; }) {
    return data_leaves_of<decltype(N::arg)>();
  } else if constexpr (requires(const N& n) {
                         n.lhs;
                         n.rhs;
                       }) {
    return data_leaves_of<decltype(N::lhs)>() + data_leaves_of<decltype(N::rhs)>();
  } else if constexpr (requires(const N& n) {
                         n.if_true;
                         n.if_false;
                       }) {
    return data_leaves_of<decltype(N::if_true)>() + data_leaves_of<decltype(N::if_false)>();
  } else if constexpr (requires(const N& n) {
                         n.bound_expr;
                         n.body;
                       }) {
    return data_leaves_of<decltype(N::bound_expr)>() + data_leaves_of<decltype(N::body)>();
  } else {
    return {};
  }
}

/// The room left for copies of data that dies before the sweep (f's locals, temporaries): a leaf
/// copies such a matrix there once, and each node above it copies a pointer. Opened by a data_room
/// for the call of a transform, with room for each data leaf of the expression f returns; empty
/// elsewhere, or once full (then a leaf holds its copy itself).
struct room_left {
  void* next = nullptr;
  std::size_t size = 0;
};
inline thread_local room_left copy_room{};

/// A copy of v in the room, or nullptr where there is no room for it.
template <class M>
const M* copy_into_room(const M& v) noexcept(std::is_nothrow_copy_constructible_v<M>) {
  void* at = copy_room.next;
  if (at == nullptr || std::align(alignof(M), sizeof(M), at, copy_room.size) == nullptr) return nullptr;
  copy_room.next = static_cast<unsigned char*>(at) + sizeof(M);
  copy_room.size -= sizeof(M);
  return ::new (at) M(v);
}

inline room_left open_room(void* bytes, std::size_t size) noexcept {
  const room_left outer = copy_room;
  copy_room = {bytes, size};
  return outer;
}
inline void close_room(room_left outer) noexcept { copy_room = outer; }

/// Room for copies of `Bytes` bytes of data, open from construction to destruction: a transform makes
/// one before calling f and keeps it until its sweep is done. The room of the call it is inside is
/// open again afterwards (nested transforms).
template <std::size_t Bytes>
class data_room {
 public:
  constexpr data_room() noexcept {
    if (!std::is_constant_evaluated()) outer_ = open_room(bytes_, Bytes);
  }
  data_room(const data_room&) = delete;
  data_room& operator=(const data_room&) = delete;
  constexpr ~data_room() {
    if (!std::is_constant_evaluated()) close_room(outer_);
  }

 private:
  room_left outer_{};
  alignas(alignof(std::max_align_t)) unsigned char bytes_[Bytes];
};
/// No data leaves: no room, and nothing done.
template <>
class data_room<0> {};

/// The room for the data leaves of f(a...).
template <class F, class... A>
using data_room_for = data_room<data_leaves_of<std::invoke_result_t<const F&, const A&...>>().bytes>;

/// f(a...) as a transform calls it, where its result holds data that may be read in place (outside a
/// constant expression): with f's closure named, and through invoke_marking_the_stack (a call that is
/// not inlined, once per gradient) where the closure is smaller than the smallest such matrix, which
/// then lies elsewhere. Else plainly.
template <class F, class... A>
constexpr auto invoke_reading_data(const F& f, const A&... a) {
  constexpr std::size_t smallest = data_leaves_of<std::invoke_result_t<const F&, const A&...>>().smallest;
  if constexpr (smallest != none_read_in_place) {
    if (!std::is_constant_evaluated()) {
      if constexpr (sizeof(F) < smallest)
        return invoke_marking_the_stack(f, a...);
      else
        return invoke_naming_the_closure(f, a...);
    }
  }
  return std::invoke(f, a...);
}

}  // namespace tapeless::detail
