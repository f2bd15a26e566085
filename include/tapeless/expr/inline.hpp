// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/inline.hpp: how the building of an expression is inlined into the function that
// writes it, each compiler as its optimiser costs least on long expressions (bench/compile_time.py).
//
// A function of thousands of operations is one long body, and past some size the inliners stop
// inlining into it. With g++ 12, the operators and makers left as calls take the addresses of the
// nodes they are given, every temporary node of the body escapes, and the points-to analysis grows
// with the square of the body: 18 s of the 28 s that a left-deep sum of 3000 operations took at -O2.
// TAPELESS_BUILD_INLINE forces every step from `a + b` to its node inline (building a node copies its
// operands and nothing more): the same sum then compiles in 11 s (back to back, the least of three
// compiles each, in a slower hour: 52 s before, 18 s after). clang 14 has no such analysis, and
// forced there the longer body cost its InstCombine and MemCpyOpt more: a chain of 3000 operations
// took 23 s instead of 10. So that attribute is g++'s only.
//
// A cut (expr/cut.hpp says when; sweep/cut.hpp computes it) is a whole sweep of up to cut_depth
// levels. clang 14 called it out of line, with the subtree copied to memory, and spent most of its
// time on the sum in MemCpyOpt: 42 s, against 12 s with TAPELESS_CUT_INLINE forcing it inline,
// measured back to back. g++ 12 took 38 s with it forced and 11 s deciding for itself, so that
// attribute is clang's only.
//
// Neither at -O0 (no __OPTIMIZE__), where nothing else is inlined and forcing it only costs compile
// time. Either defined before this header, empty, leaves the choice to the compiler's inliner. Both
// are spelled as GNU attributes, which g++ and clang++ take on functions and on lambdas alike.
#pragma once

#ifndef TAPELESS_BUILD_INLINE
#if !defined(__clang__) && defined(__GNUC__) && defined(__OPTIMIZE__)
#define TAPELESS_BUILD_INLINE __attribute__((always_inline))
#else
#define TAPELESS_BUILD_INLINE
#endif
#endif

#ifndef TAPELESS_CUT_INLINE
#if defined(__clang__) && defined(__OPTIMIZE__)
#define TAPELESS_CUT_INLINE __attribute__((always_inline))
#else
#define TAPELESS_CUT_INLINE
#endif
#endif
