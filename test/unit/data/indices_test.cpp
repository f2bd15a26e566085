// SPDX-License-Identifier: BSL-1.0
// tl::indices and tl::pairs as views: their row counts, the index each row holds, the parts the blocks
// of a sum take (pairs split inside a row of pairs), and tl::rows zipping indices with data, which
// refuses a column of another length. The sums over them: test/unit/transforms/sum_over/indices_test.cpp.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace tl = tapeless;

TEST_CASE("tl::indices(n): n rows, row r the index r, and a part starts where it is cut") {
  static_assert(tl::indices(5).size() == 5 && tl::indices(0).empty());
  const auto all = tl::indices(100);
  const auto part = all.part(37, 20);
  CHECK(part.size() == 20);
  CHECK(part.column<0>().first == 37);
  CHECK((part.column<0>() + 5).first == 42);
}

TEST_CASE("tl::rows(tl::indices(n), y): the index beside the data, of one length") {
  const std::vector<double> y{1.0, 2.0, 3.0}, z{4.0, 5.0, 6.0};
  const auto zipped = tl::rows(tl::indices(3), y, z);
  CHECK(zipped.size() == 3);
  CHECK(zipped.part(1, 2).column<0>().first == 1);
  CHECK(*zipped.part(1, 2).column<1>() == 2.0);
  CHECK(*zipped.part(2, 1).column<2>() == 6.0);
  CHECK_THROWS_WITH_AS(tl::rows(tl::indices(4), y), "tl::rows: column 2 has 3 rows where the indices have 4",
                       std::invalid_argument);
}

TEST_CASE("tl::pairs(n) visits each pair once, in row-major order, whichever blocks split it") {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{130}}) {
    const tl::pairs_view all = tl::pairs(n);
    CHECK(all.size() == (n < 2 ? 0 : n * (n - 1) / 2));
    for (const std::size_t begin : {std::size_t{0}, std::size_t{1}, all.size() / 3, all.size() / 2}) {
      if (begin > all.size()) continue;
      const tl::pairs_view part = all.part(begin, all.size() - begin);
      std::size_t row = 0, i = 0, j = 1;
      for (std::size_t skip = 0; skip < begin; ++skip) {
        if (++j == n) j = ++i + 1;
      }
      part.each_segment([&](const auto& run) {
        for (std::size_t r = 0; r < run.size(); ++r, ++row) {
          CHECK(run.template column<0>().index == i);
          CHECK((run.template column<1>() + r).first == j);
          if (++j == n) j = ++i + 1;
        }
      });
      CHECK(row == part.size());
    }
  }
}
