// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/in_place.hpp: which data a constant leaf may read where it lies, and the call of f that says so.
//
// A plain matrix used in f becomes a constant leaf (expr/leaf.hpp). A copy in the leaf is always safe,
// but the leaf is copied again into each node above it, a pass over the matrix per level. Read in
// place, it costs a pointer. That is safe for what f captures: the closure outlives the sweep, and so
// does what it refers to. It is not for a local of f, which dies when f returns while the returned
// expression still refers to it. The two are alike to the type system (each is an lvalue of type M),
// so the leaf asks where the matrix lies: a transform calls f through invoke_reading_data, which names
// f's closure, and a leaf reads in place a matrix that lies inside the closure (captured by value) or
// whose address the closure holds (captured by reference). Everything else (f's locals, temporaries,
// a member of data captured by reference) is copied, as are all constants built in a constant
// expression or outside such a call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <type_traits>
#include <utility>

namespace tapeless::detail {

/// The closure of the f that a transform is calling, as bytes: none outside such a call.
struct closure_bytes {
  const unsigned char* begin = nullptr;
  std::size_t size = 0;
};
inline thread_local closure_bytes calling_closure{};

/// A closure up to this size is searched for the address of a matrix it captures by reference: a
/// search costs a comparison per word, where a larger closure holds data by value, found without one.
inline constexpr std::size_t searched_closure_max = 32 * sizeof(void*);

/// Whether the `size` bytes at `p` outlive the call of f under way, so that a leaf may point to them:
/// they lie in f's closure, or the closure holds their address.
inline bool outlives_the_call(const void* p, std::size_t size) noexcept {
  const closure_bytes c = calling_closure;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const auto begin = reinterpret_cast<std::uintptr_t>(c.begin);
  if (at >= begin && at + size <= begin + c.size) return true;
  if (c.size > searched_closure_max) return false;
  for (std::size_t k = 0; k + sizeof(std::uintptr_t) <= c.size; k += alignof(std::uintptr_t)) {
    std::uintptr_t word = 0;
    std::memcpy(&word, c.begin + k, sizeof word);
    if (word == at) return true;
  }
  return false;
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

/// f(a...) with f's closure named while it runs.
template <class F, class... A>
auto invoke_naming_the_closure(const F& f, const A&... a) {
  const naming_the_closure named(f);
  return std::invoke(f, a...);
}

/// f(a...) as a transform calls it: with f's closure named where the result holds data that may be
/// read in place (outside a constant expression), else plainly.
template <class F, class... A>
constexpr auto invoke_reading_data(const F& f, const A&... a) {
  if constexpr (holds_data_read_in_place<std::invoke_result_t<const F&, const A&...>>()) {
    if (!std::is_constant_evaluated()) return invoke_naming_the_closure(f, a...);
  }
  return std::invoke(f, a...);
}

}  // namespace tapeless::detail
