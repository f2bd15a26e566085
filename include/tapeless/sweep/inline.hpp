// SPDX-License-Identifier: BSL-1.0
// tapeless/sweep/inline.hpp: TAPELESS_SWEEP_INLINE, the sweeps clang is made to inline.
//
// The sweep of a small matrix operation is a few short loops that only pay once inlined into its
// parent's, where the compiler fuses them with the loops around them and keeps the adjoints in
// registers. g++ 12 inlines them by itself. clang 14 called them out of line, each writing its
// adjoints to memory for the next: Rosenbrock (S3, n = 16) took 61 ns against 9 ns by hand, and 9 ns
// with these forced inline. Forced with g++ as well, the same gradient went from 16 ns to 70: g++ then
// kept the adjoints on the stack and read them back in other widths than it wrote them.
// So the attribute is clang's only. What it marks: the leaves' sweeps, the stores they add to, the
// sweeps of operations on small matrices (backward.hpp, sweep_inline), and in math/batch.hpp
// math::choose, the branch of the rules written for batches, and the guarded batch functions (exp,
// expm1, log, tanh); not every sweep, which made a test file of many gradients of numbers compile in
// 222 s instead of 11.
#pragma once

// Not at -O0 (no __OPTIMIZE__), where nothing else is inlined and the forced copies only cost compile
// time: no_allocation_test, clang -O0 with sanitizers, took 66 s instead of 46.
// Defined before this header, empty, it leaves every sweep to the compiler's inliner.
#ifndef TAPELESS_SWEEP_INLINE
#if defined(__clang__) && defined(__OPTIMIZE__)
#define TAPELESS_SWEEP_INLINE [[gnu::always_inline]]
#else
#define TAPELESS_SWEEP_INLINE
#endif
#endif

// And with clang, every function the sweep so marked calls, inlined into it: the loops with scaled
// adjoints (sweep/scaled.hpp), whose gradients of a few numbers cost less than the calls.
#ifndef TAPELESS_SWEEP_FLATTEN
#if defined(__clang__) && defined(__OPTIMIZE__)
#define TAPELESS_SWEEP_FLATTEN [[gnu::flatten]]
#else
#define TAPELESS_SWEEP_FLATTEN
#endif
#endif
