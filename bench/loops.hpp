// SPDX-License-Identifier: BSL-1.0
// bench/loops.hpp: which loops of run-time length the tapeless code of the benchmarks uses, one switch
// each, so that a build of the library without one of them still builds every hand-written adjoint
// and peer (the case then has no `/tapeless` row):
//   TAPELESS_BENCH_ITERATE      tl::iterate(n, init, step, params...), states stored (S12, S14)
//   TAPELESS_BENCH_CHECKPOINTS  tl::iterate(tl::checkpoints<S>{}, n, init, step, params...) (S12)
//   TAPELESS_BENCH_INDICES      tl::indices(n) and tl::pairs(n) as row sources of tl::sum_over (S3, S15)
// Each says whether the library has the loop (1) or not (0); a build may set one (-DTAPELESS_BENCH_INDICES=1).
#pragma once

#ifndef TAPELESS_BENCH_ITERATE
#define TAPELESS_BENCH_ITERATE 1
#endif
#ifndef TAPELESS_BENCH_CHECKPOINTS
#define TAPELESS_BENCH_CHECKPOINTS 1
#endif
#ifndef TAPELESS_BENCH_INDICES
#define TAPELESS_BENCH_INDICES 1
#endif
