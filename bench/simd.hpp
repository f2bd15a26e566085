// SPDX-License-Identifier: BSL-1.0
// bench/simd.hpp: the few xsimd helpers (Debian's libxsimd-dev) of the vectorised hand-written adjoints,
// `<case>/handwritten_simd`: the hand-written adjoint with its elementwise loops over a batch of
// doubles at a time, with xsimd's exp, log and tanh.
#pragma once

// tapeless's SIMD header first: it includes <immintrin.h> without g++ 12.2's false warnings inside the
// AVX-512 intrinsics (-Wmaybe-uninitialized, GCC bug 105593), which a later include cannot undo.
#include <tapeless/simd/batch.hpp>
#include <xsimd/xsimd.hpp>  // a system header (bench/CMakeLists.txt): its warnings are not ours

#include <algorithm>
#include <array>
#include <cstddef>

namespace tapeless_bench::simd {

// tapeless's batches (simd/batch.hpp): 4 doubles with AVX2 and FMA, as the project states the vectorised
// adjoint, 2 with SSE2 at -march=x86-64 (the tests' builds), 8 with AVX-512 where the benchmarks are
// built with TAPELESS_BENCH_AVX512 (AVX512=1 bash bench/run.sh). The callgrind build leaves out
// AVX-512, which valgrind 3.19 cannot run.
using arch = tapeless::detail::simd::arch;
using batch = xsimd::batch<double, arch>;
inline constexpr std::size_t width = batch::size;

/// The loops take whole batches only (no scalar tail): every size of the suite is a multiple of
/// every width; each kernel asserts it of its sizes.
template <std::size_t N>
concept whole_batches = N % width == 0;

inline batch load(const double* p) { return batch::load_unaligned(p); }
inline void store(double* p, const batch& b) { b.store_unaligned(p); }

/// max_i p[i], i < N.
template <std::size_t N>
  requires whole_batches<N>
double max(const double* p) {
  batch m = load(p);
  for (std::size_t i = width; i < N; i += width) m = xsimd::max(m, load(p + i));
  std::array<double, width> lanes;
  store(lanes.data(), m);
  return *std::max_element(lanes.begin(), lanes.end());
}

}  // namespace tapeless_bench::simd
