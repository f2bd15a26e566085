// SPDX-License-Identifier: BSL-1.0
// meta/type_hash.hpp: fnv1a against the published FNV-1a 64-bit values, and type_hash equal for one
// type and different for types whose names differ by one character. Not for two closures of one
// function: g++ spells both `<lambda()>`, so let's tag hashes the bound expression's type beside its
// body's (transforms/let.hpp).
#include <doctest/doctest.h>
#include <tapeless/meta/type_hash.hpp>

#include <cstdint>
#include <string_view>

namespace d = tapeless::detail;

namespace {
template <int N>
struct tagged {};
}  // namespace

TEST_CASE("fnv1a: the reference values of FNV-1a, 64 bits") {
  static_assert(d::fnv1a("") == 0xcbf29ce484222325ull);  // the offset basis
  static_assert(d::fnv1a("a") == 0xaf63dc4c8601ec8cull);
  static_assert(d::fnv1a("foobar") == 0x85944171f73967e8ull);
  // The second argument continues a hash: hashing "foo" then "bar" is hashing "foobar".
  static_assert(d::fnv1a("bar", d::fnv1a("foo")) == d::fnv1a("foobar"));
  CHECK(d::fnv1a(std::string_view{"foobar"}) == 0x85944171f73967e8ull);
}

TEST_CASE("type_hash: one value per type") {
  static_assert(d::type_hash<int> == d::type_hash<int>);
  static_assert(d::type_hash<int> != d::type_hash<long>);
  static_assert(d::type_hash<tagged<1>> != d::type_hash<tagged<2>>);
  static_assert(d::type_hash<const int> != d::type_hash<int>);
  CHECK(d::type_hash<tagged<1>> != d::type_hash<tagged<3>>);
}
