// SPDX-License-Identifier: BSL-1.0
// bench/simd.hpp: the few xsimd helpers (Debian's libxsimd-dev) of the vectorised hand-written adjoints,
// `<case>/handwritten_simd`: the hand-written adjoint with its elementwise loops over a batch of
// doubles at a time, with xsimd's exp, log and tanh.
#pragma once

#include <xsimd/xsimd.hpp>  // a system header (bench/CMakeLists.txt): its warnings are not ours

#include <algorithm>
#include <array>
#include <cstddef>

namespace tapeless_bench::simd {

// At most 4 doubles a batch, as issue 4 states the vectorised adjoint: AVX2 (with FMA where the build
// has it), not AVX-512, which valgrind 3.19 cannot run (so the callgrind counts are of the same code),
// and inside whose intrinsics g++ 12.2 warns falsely (-Wmaybe-uninitialized, GCC bug 105593).
#if XSIMD_WITH_FMA3_AVX2
using arch = xsimd::fma3<xsimd::avx2>;
#elif XSIMD_WITH_AVX2
using arch = xsimd::avx2;
#else
using arch = xsimd::default_arch;  // SSE2, 2 doubles, at -march=x86-64: the tests' builds
#endif
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
