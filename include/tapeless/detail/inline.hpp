// SPDX-License-Identifier: BSL-1.0
// tapeless/detail/inline.hpp: TAPELESS_SWEEP_INLINE and TAPELESS_SWEEP_FLATTEN, the functions of the
// reverse sweep that clang is made to inline, and TAPELESS_BATCH_FLATTEN, a batch of a sum over indices
// that both compilers are.
//
// The sweep of a small matrix operation is a few short loops that only pay once inlined into its
// parent's: there the compiler fuses them with the loops around them and keeps the adjoints in
// registers. Out of line, each writes its adjoints to memory for the next to read back. g++ 12 inlines
// these by itself, and forced it keeps adjoints on the stack and reads them back in other widths than
// it wrote them; clang 14 leaves them out of line unless forced. So both attributes are clang's only.
//
// TAPELESS_SWEEP_INLINE marks the leaves' sweeps and the stores they add to, the sweeps of operations
// on small matrices (sweep/backward.hpp, sweep_inline), and the batch functions called once per batch
// from a fused loop (math::lazy_select, the guarded batch functions of math/batch_functions.hpp): each is
// small, and its call costs more than its body. It does not mark every sweep: forced everywhere, a
// translation unit of many gradients takes many times longer to compile.
//
// TAPELESS_SWEEP_FLATTEN marks the sweep of a fused loop with scaled adjoints
// (sweep/adjoint_parts.hpp): every function it calls is inlined into it, since the gradients of a few
// numbers it computes cost less than those calls.
//
// TAPELESS_BATCH_FLATTEN marks the evaluation and sweep of one SIMD batch of a sum over indices
// (sweep/index_batches.hpp), under g++ too: where the parameter's sum lies outside the block's frame (a
// parameter of run-time extents), the frame is small, and g++'s limit on the growth of a large frame
// keeps the sweep out of line, with the windows it adds to in memory. Where the sum is in the frame,
// g++ inlines the same code by itself.
//
// None applies at -O0 (no __OPTIMIZE__), where nothing else is inlined and forcing only costs
// compile time. Any defined before this header, empty, leaves those functions to the compiler's
// inliner. The header lies below every other folder: math/ and sweep/ both use it.
// Tests: test/unit/sweep/fused/regions_test.cpp
#pragma once

#ifndef TAPELESS_SWEEP_INLINE
#if defined(__clang__) && defined(__OPTIMIZE__)
#define TAPELESS_SWEEP_INLINE [[gnu::always_inline]]
#else
#define TAPELESS_SWEEP_INLINE
#endif
#endif

#ifndef TAPELESS_SWEEP_FLATTEN
#if defined(__clang__) && defined(__OPTIMIZE__)
#define TAPELESS_SWEEP_FLATTEN [[gnu::flatten]]
#else
#define TAPELESS_SWEEP_FLATTEN
#endif
#endif

#ifndef TAPELESS_BATCH_FLATTEN
#if defined(__OPTIMIZE__)
// The GNU spelling: it applies to a lambda's call operator where it follows the parameters.
#define TAPELESS_BATCH_FLATTEN __attribute__((flatten))
#else
#define TAPELESS_BATCH_FLATTEN
#endif
#endif
