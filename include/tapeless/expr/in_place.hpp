// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/in_place.hpp: which data a constant leaf may read where it lies, and room for copies of the rest.
//
// A plain matrix used in f becomes a constant leaf (expr/leaf.hpp). A leaf that held its matrix would
// be copied again into each node above it, a pass over the matrix per level; a leaf that points to it
// costs a pointer per level. Pointing is safe for data that outlives the sweep: what f captures by
// value (the closure outlives it), and what f captures by reference or reads through `this`, which lies
// outside f's frames. It is not for a local of f, which dies when f returns while the returned
// expression still refers to it. The two are alike to the type system (each is an lvalue of type M), so
// the leaf asks where the matrix lies. A transform names f's closure and the top of its own frame while
// it calls f and sweeps (data_scope): a matrix inside the closure, or outside the stack between the top
// of that frame and the leaf being made (f's frames and its callees', and the transform's own
// temporaries), is read in place. Any other matrix is copied once, into room the data scope keeps until
// the sweep is done, and read there. Under AddressSanitizer, whose fake stacks put locals on the heap,
// a local in a fake frame is copied too. Constants built in a constant expression, or outside a
// transform's call, hold their own copy (expr/leaf.hpp).
#pragma once

#include <tapeless/expr/children.hpp>
#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/run_time_elementwise.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

// Whether the stack between a transform's frame and a leaf being made is known: where frame addresses
// are (g++ and clang). Under AddressSanitizer, whose fake stacks hold locals on the heap, a fake frame is
// asked of the sanitizer too.
#if defined(__SANITIZE_ADDRESS__)
#define TAPELESS_FAKE_STACKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TAPELESS_FAKE_STACKS 1
#endif
#endif
#if defined(TAPELESS_FAKE_STACKS) && !__has_include(<sanitizer/asan_interface.h>)
#define TAPELESS_STACK_BOUNDS 0
#elif defined(__GNUC__)
#define TAPELESS_STACK_BOUNDS 1
#else
#define TAPELESS_STACK_BOUNDS 0
#endif
#if TAPELESS_STACK_BOUNDS && defined(TAPELESS_FAKE_STACKS)
#include <sanitizer/asan_interface.h>
#endif

#if TAPELESS_STACK_BOUNDS
#define TAPELESS_FRAME_OF_CALLER [[gnu::always_inline]] inline
#else
#define TAPELESS_FRAME_OF_CALLER
#endif

namespace tapeless::detail {

/// What the leaves built while a transform calls f and sweeps need to know: f's closure, whose data
/// they read in place, and the room left for copies of all other data. Empty outside such a call.
struct data_in_use {
  const unsigned char* closure = nullptr;
  std::size_t closure_size = 0;
  void* room = nullptr;
  std::size_t room_size = 0;
  // The top of the outermost transform's frame under way (0: none, or the stack is not known): the
  // stack from there to the leaf being made holds f's frames.
  std::uintptr_t frame_top = 0;
};
inline thread_local data_in_use data_of_f{};

#if TAPELESS_STACK_BOUNDS
/// An address below every frame live in the caller: this function's own frame, never inlined.
[[gnu::noinline]] inline std::uintptr_t stack_below_caller() noexcept {
  return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
}
#endif

/// Whether the `size` bytes at `p` outlive the call of f under way, so that a leaf may point to them:
/// they lie in f's closure, or off the stack between the transform's frame and here.
inline bool outlives_the_call(const void* p, std::size_t size) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const auto begin = reinterpret_cast<std::uintptr_t>(data_of_f.closure);
  if (at >= begin && at + size <= begin + data_of_f.closure_size) return true;
#if TAPELESS_STACK_BOUNDS
  if (data_of_f.frame_top == 0) return false;
#ifdef TAPELESS_FAKE_STACKS
  // A local moved to the heap by AddressSanitizer, of f's frames or any other.
  if (__asan_addr_is_in_fake_stack(__asan_get_current_fake_stack(), const_cast<void*>(p), nullptr, nullptr) != nullptr)
    return false;
#endif
  const std::uintptr_t here = stack_below_caller();
  // Either way the stack grows, f's frames lie between here and the transform's frame.
  return at + size <= std::min(here, data_of_f.frame_top) || at >= std::max(here, data_of_f.frame_top);
#else
  return false;
#endif
}

/// A copy of v in the room, or nullptr where there is no room left for it (then the leaf holds its own).
template <class M>
const M* copy_into_room(const M& v) noexcept(std::is_nothrow_copy_constructible_v<M>) {
  void* at = data_of_f.room;
  if (at == nullptr || std::align(alignof(M), sizeof(M), at, data_of_f.room_size) == nullptr) return nullptr;
  data_of_f.room = static_cast<unsigned char*>(at) + sizeof(M);
  data_of_f.room_size -= sizeof(M);
  return ::new (at) M(v);
}

/// Makes the data in use f's closure and the room given, until close_data_scope(the result). The top of
/// the transform's frame, `frame_top`, is the outermost one's: data in an outer transform's f is not
/// known to outlive it. A scope of no transform (a sum's body, a loop's step) passes 0 and keeps it.
inline data_in_use open_data_scope(const void* closure, std::size_t closure_size, void* room, std::size_t room_size,
                                   std::uintptr_t frame_top = 0) noexcept {
  const data_in_use outer = data_of_f;
  data_of_f = {static_cast<const unsigned char*>(closure), closure_size, room, room_size,
               outer.frame_top != 0 ? outer.frame_top : frame_top};
  return outer;
}
inline void close_data_scope(const data_in_use& outer) noexcept { data_of_f = outer; }

/// The room that the copies of an expression of type E's data leaves (constant leaves that may read
/// their matrix in place, marked by `reads_in_place`) take at most, in bytes: 0 without one. Nodes
/// are searched through their children (expr/children.hpp); a pair (f's loss and aux) through both.
template <class E>
constexpr std::size_t data_bytes_of() {
  using N = std::remove_cvref_t<E>;
  if constexpr (requires { N::reads_in_place; }) {
    using M = typename N::value_type;
    return sizeof(M) + alignof(M) - 1;
  } else if constexpr (requires {
                         typename N::first_type;
                         typename N::second_type;
                       }) {
    return data_bytes_of<typename N::first_type>() + data_bytes_of<typename N::second_type>();
  } else if constexpr (Expression<N> && !RunTimeRecord<N>) {
    static_assert(known_node_kind<N>,
                  "tl: node kind N is not known to the walk data_bytes_of: declare its children in "
                  "expr/children.hpp");
    if constexpr (known_node_kind<N>)
      return []<class... C>(type_list<C...>) { return (std::size_t{0} + ... + data_bytes_of<C>()); }(children_t<N>{});
    else
      return std::size_t{0};
  } else {
    // Not a node; or a formula of run-time extents (f's aux output), which keeps its data where the
    // nodes it reads keep it, as a formula summed in the loss does.
    return std::size_t{0};
  }
}

/// The scope of a transform's call of f and its sweep, for the data f uses: names f's closure and
/// keeps `Bytes` bytes of room for copies, from construction to destruction. A transform makes one
/// before calling f and keeps it until its sweep is done; the scope of the call it is inside is open
/// again afterwards (nested transforms). Nothing is done in a constant expression.
template <std::size_t Bytes>
class data_scope {
 public:
  // Inlined, so that the frame it names is the transform's, which holds its temporaries too.
  template <class F>
  TAPELESS_FRAME_OF_CALLER constexpr explicit data_scope(const F& f) noexcept {  // NOLINT: room_ is for copies
    if (!std::is_constant_evaluated()) outer_ = open_data_scope(&f, sizeof(F), room_, Bytes, frame_top());
  }
  data_scope(const data_scope&) = delete;
  data_scope& operator=(const data_scope&) = delete;
  constexpr ~data_scope() {
    if (!std::is_constant_evaluated()) close_data_scope(outer_);
  }

 private:
  TAPELESS_FRAME_OF_CALLER static std::uintptr_t frame_top() noexcept {
#if TAPELESS_STACK_BOUNDS
    return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
#else
    return 0;
#endif
  }

  data_in_use outer_{};
  alignas(alignof(std::max_align_t)) unsigned char room_[Bytes];  // uninitialized: leaves copy matrices into it
};
/// f returns no data leaves: nothing to name or keep, and nothing done.
template <>
class data_scope<0> {
 public:
  template <class F>
  constexpr explicit data_scope(const F&) noexcept {}
};

/// The data scope for f(a...), with room for a copy of each data leaf of its result.
template <class F, class... A>
using data_scope_for = data_scope<data_bytes_of<std::invoke_result_t<const F&, const A&...>>()>;

}  // namespace tapeless::detail
