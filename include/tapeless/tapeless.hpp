// SPDX-License-Identifier: BSL-1.0
// tapeless/tapeless.hpp: the whole library. `#include <tapeless/tapeless.hpp>` and `namespace tl = tapeless;`.
// The sums over rows on threads (std::execution::par) come with <tapeless/parallel.hpp>.
// Tests: test/unit/ test/integration/
#pragma once

// g++ 12 warns falsely inside the AVX-512 intrinsics wherever they are inlined (-Wuninitialized and
// -Wmaybe-uninitialized on their undefined operands, GCC bug 105593, fixed in 13), so a build with
// batches of 8 (TAPELESS_SIMD_AVX512) and -Werror would fail. g++ silences a warning in inlined code
// where the innermost place of its chain of calls that a pragma covers is silenced: silenced over the
// whole library, every call from it is, whether <immintrin.h> came before it (Eigen includes it) or
// not. Not through a precompiled header, which forgets pragmas (doc/guide.md, "SIMD loops").
#if defined(TAPELESS_SIMD_AVX512) && defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define TAPELESS_SILENCED_AVX512_WARNINGS 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <tapeless/version.hpp>

#include <tapeless/concepts/operation.hpp>
#include <tapeless/concepts/scalar.hpp>
#include <tapeless/expr/concepts.hpp>

#include <tapeless/math/functions.hpp>

#include <tapeless/matrix/matrix.hpp>
#include <tapeless/matrix/shape.hpp>

#include <tapeless/data/rows.hpp>
#include <tapeless/data/rows_of_matrices.hpp>

#include <tapeless/operation/traits.hpp>

#include <tapeless/expr/binary.hpp>
#include <tapeless/expr/cut.hpp>
#include <tapeless/expr/expression.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/expr/let.hpp>
#include <tapeless/expr/make.hpp>
#include <tapeless/expr/select.hpp>
#include <tapeless/expr/unary.hpp>

#include <tapeless/ops/arithmetic.hpp>
#include <tapeless/ops/compare.hpp>
#include <tapeless/ops/elementwise.hpp>
#include <tapeless/ops/exponential.hpp>
#include <tapeless/ops/hyperbolic.hpp>
#include <tapeless/ops/linear_algebra.hpp>
#include <tapeless/ops/mask.hpp>
#include <tapeless/ops/piecewise.hpp>
#include <tapeless/ops/power.hpp>
#include <tapeless/ops/reduction.hpp>
#include <tapeless/ops/shape.hpp>
#include <tapeless/ops/special.hpp>
#include <tapeless/ops/trigonometric.hpp>

#include <tapeless/sweep/adjoints.hpp>
#include <tapeless/sweep/backward.hpp>
#include <tapeless/sweep/checkpoints.hpp>
#include <tapeless/sweep/cut.hpp>
#include <tapeless/sweep/imperative.hpp>
#include <tapeless/sweep/iterate_steps.hpp>
#include <tapeless/sweep/shared.hpp>
#include <tapeless/sweep/sum_over_rows.hpp>

#include <tapeless/transforms/formula_elements.hpp>
#include <tapeless/transforms/grad.hpp>
#include <tapeless/transforms/held_formulas.hpp>
#include <tapeless/transforms/hessian.hpp>
#include <tapeless/transforms/into.hpp>
#include <tapeless/transforms/iterate.hpp>
#include <tapeless/transforms/iterate_checkpoints.hpp>
#include <tapeless/transforms/jacobian.hpp>
#include <tapeless/transforms/jvp.hpp>
#include <tapeless/transforms/let.hpp>
#include <tapeless/transforms/run_time_factorisations.hpp>
#include <tapeless/transforms/run_time_masks.hpp>
#include <tapeless/transforms/run_time_reduction.hpp>
#include <tapeless/transforms/sparse_derivatives.hpp>
#include <tapeless/transforms/sum_over.hpp>
#include <tapeless/transforms/vjp.hpp>

#include <tapeless/var.hpp>

#include <tapeless/check.hpp>

#include <tapeless/inspect/dot.hpp>
#include <tapeless/inspect/graph.hpp>
#include <tapeless/inspect/trace.hpp>

#ifdef TAPELESS_SILENCED_AVX512_WARNINGS
#undef TAPELESS_SILENCED_AVX512_WARNINGS
#pragma GCC diagnostic pop
#endif
