// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/in_place.hpp: which data a constant leaf may read where it lies, and the call of f that says so.
//
// A plain matrix used in f becomes a constant leaf (expr/leaf.hpp). A copy in the leaf is always safe,
// but the leaf is copied again into each node above it, a pass over the matrix per level. Read in
// place, it costs a pointer. That is safe for data that outlives the sweep: what f captures by value
// (the closure outlives the call), by reference, and the locals of the functions that called the
// transform. It is not for a local of f, which dies when f returns while the returned expression still
// refers to it. The two are alike to the type system (each is an lvalue of type M), so the leaf asks
// where the matrix lies: a transform calls f through invoke_reading_data, which marks the stack above
// the frame that calls f as outliving it, and a leaf reads in place a matrix that lies there.
// Everything else (f's locals, temporaries, static and heap data) is copied, as are all constants
// built in a constant expression or outside such a call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
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

/// A range [low, high) of this thread's stack, empty by default.
struct stack_range {
  std::uintptr_t low = 0, high = 0;
};

/// The part of this thread's stack that outlives the call of f under way: empty outside such a call.
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

/// Whether the `size` bytes at `p` outlive the call of f under way, so that a leaf may point to them.
inline bool outlives_the_call(const void* p, std::size_t size) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return a >= outliving_stack.low && a + size <= outliving_stack.high;
}

/// Calls f on copies of a... made in this frame. The copies: a matrix passed by value (an argument not
/// differentiated) is a temporary of the caller that dies before the sweep, though it lies above the mark.
template <class F, class... A>
[[gnu::noinline]] auto invoke_on_own_copies(const F& f, const A&... a) {
  const std::tuple<A...> own(a...);
  return std::apply([&f](const A&... b) -> decltype(auto) { return std::invoke(f, b...); }, own);
}

/// Calls f with the stack above this frame marked as outliving the call: what f builds there lies
/// below `mark`, in the frame of invoke_on_own_copies or deeper (the stack grows down), and is copied.
/// Not inlined, so that mark stays above every frame of f; the mark is taken back on the way out,
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

/// Whether an expression of type E holds a constant leaf that may read its matrix in place: such a
/// leaf is marked by `reads_in_place`. Nodes are searched by their operand members.
template <class E>
constexpr bool holds_data_read_in_place() {
  using N = std::remove_cvref_t<E>;
  if constexpr (requires { N::reads_in_place; })
    return true;
  else if constexpr (requires {
                       typename N::first_type;
                       typename N::second_type;
                     })
    return holds_data_read_in_place<typename N::first_type>() || holds_data_read_in_place<typename N::second_type>();
  else if constexpr (requires(const N& n) { n.arg; })
    return holds_data_read_in_place<decltype(N::arg)>();
  else if constexpr (requires(const N& n) {
                       n.lhs;
                       n.rhs;
                     })
    return holds_data_read_in_place<decltype(N::lhs)>() || holds_data_read_in_place<decltype(N::rhs)>();
  else if constexpr (requires(const N& n) {
                       n.if_true;
                       n.if_false;
                     })
    return holds_data_read_in_place<decltype(N::if_true)>() || holds_data_read_in_place<decltype(N::if_false)>();
  else if constexpr (requires(const N& n) {
                       n.bound_expr;
                       n.body;
                     })
    return holds_data_read_in_place<decltype(N::bound_expr)>() || holds_data_read_in_place<decltype(N::body)>();
  else
    return false;
}

/// f(a...) as a transform calls it: where the result holds data that may be read in place, through
/// invoke_marking_the_stack (a call that is not inlined, once per gradient), else directly.
template <class F, class... A>
constexpr auto invoke_reading_data(const F& f, const A&... a) {
  if constexpr (holds_data_read_in_place<std::invoke_result_t<const F&, const A&...>>()) {
    if (!std::is_constant_evaluated()) return invoke_marking_the_stack(f, a...);
  }
  return std::invoke(f, a...);
}

}  // namespace tapeless::detail
