// SPDX-License-Identifier: BSL-1.0
// tl::to_dot: valid DOT, its nodes labelled with values and adjoints and its edges with the local
// derivatives, matrices by their shape, let's sharing, constants' edges. (The graph's rows and
// gradient: trace_test.cpp; its repeats: repeats_test.cpp.)
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <trace_check.hpp>

#include <string>

namespace tl = tapeless;
using trace_check::check_dot;
using trace_check::logistic_loss;
using trace_check::walkthrough;

TEST_CASE("to_dot: valid DOT, labelled with values, adjoints and local derivatives") {
  const std::string dot = tl::to_dot(walkthrough, 1.0, 2.0);
  check_dot(dot);
  for (const char* part :
       {"n0 [label=\"x1 = 1\\ng = -2.14112\", shape=ellipse];", "n5 [label=\"t4 = cos(t3)\\n= -0.989992\\ng = 1\"];",
        "n1 -> n2 [label=\" -1 \"];", "n4 -> n5 [label=\" -0.14112 \"];", "peripheries=2"}) {
    INFO(part);
    CHECK(dot.find(part) != std::string::npos);
  }
  const std::string matrices = tl::to_dot(logistic_loss, tl::vector<double, 3>{0.5, -0.25, 0.1});
  check_dot(matrices);
  CHECK(matrices.find("t1 = matmul(c1, x1)\\n= matrix 4x1\\ng = matrix 4x1") != std::string::npos);
  CHECK(matrices.find("shared by let, 2 uses") != std::string::npos);
  CHECK(matrices.find("style=dashed") != std::string::npos);  // the edges from constants
}

TEST_CASE("to_dot: if_else's branch not taken is drawn dotted") {
  const auto f = [](auto x, auto y) { return tl::if_else(x > y, x * y, tl::sqrt(y) / x); };
  check_dot(tl::to_dot(f, 1.0, 4.0));
  CHECK(tl::to_dot(f, 1.0, 4.0).find("style=dotted") != std::string::npos);
}
