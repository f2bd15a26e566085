// SPDX-License-Identifier: BSL-1.0
// tl::sparsity_pattern (matrix/sparsity_pattern.hpp): entries, counts, the symmetric closure and the
// text form, in a constant expression.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cstddef>
#include <string>

namespace tl = tapeless;

TEST_CASE("a pattern counts its entries and closes under transposition") {
  constexpr auto p = [] {
    tl::sparsity_pattern<3, 3> q{};
    q.insert(0, 0);
    q.insert(0, 2);
    q.insert(2, 1);
    return q;
  }();
  static_assert(p.rows() == 3 && p.cols() == 3 && p.nonzeros() == 3);
  static_assert(p(0, 2) && !p(2, 0) && p.nonzeros_in_row(0) == 2 && p.nonzeros_in_row(1) == 0);
  constexpr auto s = tl::symmetric_closure(p);
  static_assert(s.nonzeros() == 5 && s(2, 0) && s(1, 2) && s(0, 0));
  static_assert(tl::symmetric_closure(s) == s);
  CHECK(tl::to_string(p) == std::string("*.*\n...\n.*.\n"));
  // Rows longer than a word of bits.
  constexpr auto wide = [] {
    tl::sparsity_pattern<2, 200> q{};
    for (std::size_t j = 0; j < 200; j += 3) q.insert(1, j);
    return q;
  }();
  static_assert(wide.nonzeros() == 67 && wide(1, 198) && !wide(1, 199) && !wide(0, 0));
}
