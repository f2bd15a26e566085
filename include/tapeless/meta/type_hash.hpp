// SPDX-License-Identifier: BSL-1.0
// tapeless/meta/type_hash.hpp: a 64-bit hash of a type's name, computed at compile time.
//
// let needs a short type that is unique to one let (see transforms/let.hpp). A type's own name may
// be long (a closure inside a function template spells out the template arguments); a number made
// from that name is not, so the types built from it stay short, and so do the names the compiler
// writes into debug information.
#pragma once

#include <cstdint>
#include <string_view>

namespace tapeless::detail {

/// The compiler's spelling of T, inside the signature of this function (g++ and clang++ both give it).
template <class T>
constexpr std::string_view spelled_signature() noexcept {
  return __PRETTY_FUNCTION__;
}

/// FNV-1a, 64 bits: simple, constexpr, and spreads names that differ in one character.
constexpr std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 14695981039346656037ull) noexcept {
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

template <class T>
inline constexpr std::uint64_t type_hash = fnv1a(spelled_signature<T>());

}  // namespace tapeless::detail
