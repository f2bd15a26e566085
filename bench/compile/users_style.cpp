// SPDX-License-Identifier: BSL-1.0
// bench/compile/users_style.cpp: the suite's cases S1 to S9 (S3 and S4 at n = 16 and 256) in tapeless as
// users write them (bench/users.hpp), beside their hand-written adjoints (bench/adjoints.hpp). With
// handwritten_only.cpp, which holds the adjoints alone, it measures what the users' style costs to
// compile (`bash bench/run.sh --compile-time`, bench/compile_time.py). Run, it checks every gradient
// against the hand-written one, as the benchmarks do.
#include "../adjoints.hpp"
#include "../suite.hpp"
#include "../users.hpp"

namespace {

using namespace tapeless_bench;

/// True when tapeless's `Tapeless` agrees with `Handwritten` at what `Inputs()` returns.
template <auto Tapeless, auto Handwritten, auto Inputs>
bool agrees(const char* name) {
  return check_gradient(name, gradient_at_inputs<Tapeless, Inputs>(), gradient_at_inputs<Handwritten, Inputs>(), exact);
}

}  // namespace

int main() {
  // Every case runs, so that every mismatch is printed.
  bool ok = true;
  ok &= agrees<s1_tapeless, s1_handwritten, s1_inputs>("S1");
  ok &= agrees<s2_tapeless, s2_handwritten, s2_inputs>("S2");
  ok &= agrees<s3_users<16>, s3_handwritten<16>, s3_users_inputs<16>>("S3 16");
  ok &= agrees<s3_users<256>, s3_handwritten<256>, s3_users_inputs<256>>("S3 256");
  ok &= agrees<s4_tapeless<16>, s4_handwritten<16>, s4_inputs<16>>("S4 16");
  ok &= agrees<s4_tapeless<256>, s4_handwritten<256>, s4_inputs<256>>("S4 256");
  ok &= agrees<s5_users, s5_handwritten, inputs_with_function<s5_inputs, s5_users_function>>("S5");
  ok &= agrees<s6_users, s6_handwritten, inputs_with_function<s6_inputs, s6_users_function>>("S6");
  ok &= agrees<s7_users, s7_handwritten, s7_inputs>("S7");
  ok &= agrees<s8_users, s8_handwritten, inputs_with_function<s8_inputs, s8_users_function>>("S8");
  ok &= agrees<s9_users, s9_handwritten, s9_inputs>("S9");
  return ok ? 0 : 1;
}
