// SPDX-License-Identifier: BSL-1.0
// test/support/trace_check.hpp: the checks of the tl::trace and tl::to_dot tests (test/unit/inspect/):
// a trace's gradient against tl::grad's, a line of the text whatever its columns' widths, and DOT
// that a renderer reads; and the two functions both tests draw, the walkthrough's and a logistic loss.
#pragma once

#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cstddef>
#include <set>
#include <sstream>
#include <string>

namespace trace_check {

namespace tl = tapeless;

/// The walkthrough's function, (x1 - x2)^2 + cos(x1 + x2).
inline const auto walkthrough = [](auto x1, auto x2) { return tl::pow(x1 - x2, 2) + tl::cos(x1 + x2); };

/// Logistic regression over four samples: p shared with let, the data by reference.
inline const tl::matrix<double, 4, 3> logistic_data{
    {0.5, -1.0, 1.0}, {1.5, 0.5, 1.0}, {-0.5, 2.0, 1.0}, {-1.5, -0.5, 1.0}};
inline const tl::vector<double, 4> logistic_labels{1.0, 1.0, 0.0, 0.0};
inline const auto logistic_loss = [](const auto& beta) {
  return tl::let(tl::sigmoid(tl::matmul(tl::cref(logistic_data), beta)), [](auto p) {
    return -tl::mean(tl::cref(logistic_labels) * tl::log(p) + (1.0 - tl::cref(logistic_labels)) * tl::log(1.0 - p));
  });
};

/// The trace's gradient is tl::grad's, exactly.
template <class F, class... Args>
void check_exact(const F& f, const Args&... args) {
  CHECK(tl::trace(f, args...).gradient() == tl::grad(f)(args...));
}

/// Whether the text has this line, its runs of spaces taken as one (the columns' widths aside).
inline bool has_line(const std::string& text, const std::string& line) {
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) {
    std::string squeezed;
    for (char c : l)
      if (c != ' ' || (!squeezed.empty() && squeezed.back() != ' ')) squeezed += c;
    if (squeezed == line) return true;
  }
  return false;
}

/// Balanced braces, and every edge between declared nodes.
inline void check_dot(const std::string& dot) {
  REQUIRE(dot.rfind("digraph tapeless {", 0) == 0);
  int depth = 0;
  bool quoted = false;
  for (std::size_t i = 0; i < dot.size(); ++i) {
    if (dot[i] == '\\')
      ++i;
    else if (dot[i] == '"')
      quoted = !quoted;
    else if (!quoted && dot[i] == '{')
      ++depth;
    else if (!quoted && dot[i] == '}')
      CHECK(--depth >= 0);
  }
  CHECK(depth == 0);
  CHECK(!quoted);
  std::istringstream lines(dot);
  std::set<std::string> declared;
  std::size_t edges = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string a, arrow, b;
    words >> a >> arrow;
    if (a.size() > 1 && a[0] == 'n' && arrow == "->") {
      words >> b;
      if (b.back() == ';') b.pop_back();
      INFO(line);
      CHECK(declared.count(a) == 1);
      CHECK(declared.count(b) == 1);
      ++edges;
    } else if (a.size() > 1 && a[0] == 'n' && arrow.rfind("[label=", 0) == 0) {
      declared.insert(a);
    }
  }
  CHECK(edges > 0);
}

}  // namespace trace_check
