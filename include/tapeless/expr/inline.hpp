// SPDX-License-Identifier: BSL-1.0
// tapeless/expr/inline.hpp: TAPELESS_BUILD_INLINE and TAPELESS_CUT_INLINE, how the building of an
// expression is inlined into the function that writes it, each compiler as its optimiser costs least
// on long expressions (bench/compile_time.py measures it).
//
// A function of thousands of operations is one long body, and past some size the inliners stop
// inlining into it. With g++, the operators and makers left as calls take the addresses of the nodes
// they are given, every temporary node of the body escapes, and the points-to analysis grows with the
// square of the body. TAPELESS_BUILD_INLINE forces every step from `a + b` to its node inline
// (building a node copies its operands and nothing more), so no node escapes. clang has no such
// analysis, and there the longer body forced inline costs its InstCombine and MemCpyOpt passes more
// than it saves: that attribute is g++'s only.
//
// A cut (expr/cut.hpp says when; sweep/cut.hpp computes it) is a whole sweep of up to cut_depth
// levels. clang calls it out of line, with the subtree copied to memory, and its MemCpyOpt pass then
// takes most of the compile time; g++ compiles it faster left to itself than forced. So
// TAPELESS_CUT_INLINE, which forces it inline, is clang's only.
//
// Neither applies at -O0 (no __OPTIMIZE__), where nothing else is inlined and forcing it only costs
// compile time. Either defined before this header, empty, leaves the choice to the compiler's inliner.
// Both are spelled as GNU attributes, which g++ and clang++ take on functions and on lambdas alike.
// Tests: test/unit/sweep/cut_test.cpp
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
