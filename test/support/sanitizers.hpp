// SPDX-License-Identifier: BSL-1.0
// test/support/sanitizers.hpp: whether this test is built under AddressSanitizer (test/run.sh's
// clang++ part). The tests that sweep many points (the SIMD accuracy sweep, the randomized
// compositions, the linear-algebra tests' random matrices, the threads test's calls) run a tenth of
// them there: that build looks for memory errors and undefined
// behaviour, which every path shows at a tenth of the points as well; the g++ build runs them all
// (test/run.sh's parts g++ and extended).
#pragma once

namespace test_support {

#if defined(__SANITIZE_ADDRESS__)  // g++
inline constexpr bool address_sanitizer = true;
#elif defined(__has_feature)  // clang++
inline constexpr bool address_sanitizer = __has_feature(address_sanitizer);
#else
inline constexpr bool address_sanitizer = false;
#endif

/// n, or a tenth of it under the sanitizers.
constexpr int points_to_run(int n) { return address_sanitizer ? n / 10 : n; }

}  // namespace test_support
