// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/let.hpp: let(e, body), naming a shared intermediate so it is evaluated and swept once.
#pragma once

#include <tapeless/expr/let.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/meta/type_hash.hpp>

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {
/// The tag of one let: a number made from the spelling of its body's closure type and of its bound
/// expression's type. Nested lets differ in one or the other (an inner body is a lambda inside a
/// different scope or instantiation); let refuses, at compile time, a body holding a let with its own tag.
/// The tag is a number rather than those types themselves because every use of the name spells the tag:
/// in a chain of lets each level would spell all the levels below it several times, an exponentially
/// long type that slows clang's front end down and makes g++ with -g exhaust memory writing debug names.
template <std::uint64_t Id>
struct let_tag {};

template <class Body, class Bound>
using let_tag_for = let_tag<fnv1a(spelled_signature<Bound>(), type_hash<Body>)>;

/// What body returns, as a node: an expression is built in place, a tl::var becomes a reference to it.
template <class T, class Body, class Name>
constexpr auto body_node(Body& body, Name name) {
  if constexpr (Expression<std::invoke_result_t<Body&, Name>>)
    return body(name);
  else
    return as_node<T>(body(name));
}
}  // namespace detail

/// let(e, body) calls body(t), where t is a leaf standing for e, and returns what body returns.
/// However often body uses t, e is evaluated once and receives its adjoint once, summed over the uses:
/// a chain of k lets each using its predecessor three times costs O(k), where plain copies cost O(3^k).
/// The one thing refused: a let nested in the body of a let with the same body lambda and bound type
/// (a lambda reaching itself recursively), whose names the compiler spells alike.
///
///   tl::let(x1 - x2, [](auto t) { return t * t + tl::sin(t); })
template <Operand E, class Body>
constexpr auto let(E&& e, Body&& body) {
  if constexpr (!Differentiable<E>) {
    static_assert(std::invocable<Body&, E>,
                  "tl::let(e, body): body must be callable with one argument, the name for e");
    return std::forward<Body>(body)(std::forward<E>(e));
  } else {
    using T = value_type_of_t<E>;
    using Shared = decltype(detail::as_node<T>(std::forward<E>(e)));
    using Tag = detail::let_tag_for<std::remove_cvref_t<Body>, Shared>;
    using Name = bound<Tag, T>;
    static_assert(std::invocable<Body&, Name>,
                  "tl::let(e, body): body must be callable with one argument, the name for e");
    if constexpr (std::invocable<Body&, Name>) {
      using R = std::invoke_result_t<Body&, Name>;
      static_assert(Operand<R>, "tl::let(e, body): body must return a scalar expression or a number");
      if constexpr (!Differentiable<R>) {
        return body(Name(detail::as_node<T>(std::forward<E>(e)).value()));  // body ignored its name
      } else {
        using Out = decltype(detail::body_node<value_type_of_t<R>>(body, std::declval<Name>()));
        static_assert(
            !detail::contains_let<Tag, Out>,
            "tl::let(e, body): a let inside this body has the same body lambda and bound-expression type, "
            "so the two names cannot be told apart; give the inner let a lambda of its own or bind an expression of "
            "another type");
        return let_node<Tag, Shared, Out>(
            [&] { return detail::as_node<T>(std::forward<E>(e)); },
            [&](const T& v) { return detail::body_node<value_type_of_t<R>>(body, Name(v)); });
      }
    }
  }
}

}  // namespace tapeless
