// SPDX-License-Identifier: BSL-1.0
// bench/compile/handwritten_only.cpp: the hand-written adjoints of the suite's cases S1 to S9 (S3 and
// S4 at n = 16 and 256) alone (bench/adjoints.hpp): what users_style.cpp compiles beside its tapeless
// gradients, the reference of its compile time (`bash bench/run.sh --compile-time`,
// bench/compile_time.py). Run, it prints the sum of every gradient's components.
#include "../adjoints.hpp"
#include "../suite.hpp"

#include <cstdio>
#include <numeric>

namespace {

using namespace tapeless_bench;

/// The sum of the components of the gradient `Handwritten` computes at what `Inputs()` returns.
template <auto Handwritten, auto Inputs>
double total() {
  const auto g = gradient_at_inputs<Handwritten, Inputs>();
  return std::accumulate(g.begin(), g.end(), 0.0);
}

}  // namespace

int main() {
  const double sum = total<s1_handwritten, s1_inputs>() + total<s2_handwritten, s2_inputs>() +
                     total<s3_handwritten<16>, s3_inputs<16>>() + total<s3_handwritten<256>, s3_inputs<256>>() +
                     total<s4_handwritten<16>, s4_inputs<16>>() + total<s4_handwritten<256>, s4_inputs<256>>() +
                     total<s5_handwritten, s5_inputs>() + total<s6_handwritten, s6_inputs>() +
                     total<s7_handwritten, s7_inputs>() + total<s8_handwritten, s8_inputs>() +
                     total<s9_handwritten, s9_inputs>();
  std::printf("sum of every component of every hand-written gradient: %.17g\n", sum);
}
