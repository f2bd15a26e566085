// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/let.hpp: let(e, body), naming a shared intermediate so it is evaluated and swept once.
#pragma once

#include <tapeless/expr/let.hpp>
#include <tapeless/expr/make.hpp>

#include <concepts>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {
/// Tags a let by its body's closure type. A let nested in another's body is a lambda inside a
/// different instantiation, so no two nested lets share a tag. (The tag must not contain the bound
/// expression's type: every level would then spell out all the levels below it three times, and
/// clang's front end slows down exponentially with the length of a let chain.)
template <class Body>
struct let_tag {};
}  // namespace detail

/// let(e, body) calls body(t), where t is a leaf standing for e, and returns what body returns.
/// However often body uses t, e is evaluated once and receives its adjoint once, summed over the uses:
/// a chain of k lets each using its predecessor three times costs O(k), where plain copies cost O(3^k).
///
///   tl::let(x1 - x2, [](auto t) { return t * t + tl::sin(t); })
template <Operand E, class Body>
constexpr auto let(E&& e, Body&& body) {
  if constexpr (!Differentiable<E>) {
    static_assert(std::invocable<Body&, E>, "tl::let(e, body): body must be callable with one argument, the name for e");
    return std::forward<Body>(body)(std::forward<E>(e));
  } else {
    using T = value_type_of_t<E>;
    using Tag = detail::let_tag<std::remove_cvref_t<Body>>;
    static_assert(std::invocable<Body&, bound<Tag, T>>,
                  "tl::let(e, body): body must be callable with one argument, the name for e");
    auto shared = detail::as_node<T>(std::forward<E>(e));
    auto result = body(bound<Tag, T>(shared.value()));
    using R = decltype(result);
    static_assert(Operand<R>, "tl::let(e, body): body must return a scalar expression or a number");
    if constexpr (!Differentiable<R>) {
      return result;  // body did not depend on anything differentiable
    } else {
      auto out = detail::as_node<value_type_of_t<R>>(std::move(result));
      return let_node<Tag, decltype(shared), decltype(out)>(std::move(shared), std::move(out));
    }
  }
}

}  // namespace tapeless
