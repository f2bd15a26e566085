// SPDX-License-Identifier: BSL-1.0
// bench/allocations.hpp: the heap allocations of one gradient, counted by replacing the global operator
// new of the executable (every form, as test/support/allocation_counter.hpp does). Include it in one translation unit
// of an executable only (a replacement operator new is defined once per program).
//
// Counting is off but for the gradient measure_allocations runs: the replacement costs every library
// one test of a flag per allocation while timing, the same for all.
#pragma once

#include "suite.hpp"

#include <cstddef>
#include <cstdlib>
#include <new>
#include <string>

namespace tapeless_bench {

/// The heap allocations of one gradient: how many, and their bytes in all.
struct allocations {
  std::size_t count = 0;
  std::size_t bytes = 0;
};

namespace detail {

inline bool counting_allocations = false;
inline allocations counted_allocations;

}  // namespace detail

/// The allocations of one gradient by Kernel at Inputs(), measured after one gradient before it (a
/// library that keeps its memory between gradients, as Sacado's and ADOL-C's do, allocates in the
/// first only).
template <auto Kernel, auto Inputs>
allocations measure_allocations() {
  const auto in = Inputs();
  const auto warm = invoke_kernel<Kernel>(in);
  static_cast<void>(warm);
  detail::counted_allocations = {};
  detail::counting_allocations = true;
  const auto gradient = invoke_kernel<Kernel>(in);
  detail::counting_allocations = false;
  static_cast<void>(gradient);
  return detail::counted_allocations;
}

/// n in digits, its thousands separated by commas.
inline std::string thousands(std::size_t n) {
  const std::string digits = std::to_string(n);
  std::string grouped;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

/// "N bytes in M allocations per gradient".
inline std::string describe(const allocations& a) {
  return thousands(a.bytes) + " bytes in " + thousands(a.count) + (a.count == 1 ? " allocation" : " allocations") +
         " per gradient";
}

}  // namespace tapeless_bench

// The replacement, as test/support/allocation_counter.hpp's: every replaceable form funnels through
// the two counted ones, and free is called out of line, so that g++ does not see operator new's
// pointer reach free() and warn of a mismatch (-Wmismatched-new-delete).
namespace tapeless_bench::detail {

inline void count_allocation(std::size_t size) noexcept {
  if (counting_allocations) {
    ++counted_allocations.count;
    counted_allocations.bytes += size;
  }
}

[[gnu::noinline]] inline void release(void* p) noexcept { std::free(p); }

}  // namespace tapeless_bench::detail

void* operator new(std::size_t n) {
  tapeless_bench::detail::count_allocation(n);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a) {
  tapeless_bench::detail::count_allocation(n);
  const std::size_t align = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(align, (n + align - 1) / align * align)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new[](std::size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void* p) noexcept { tapeless_bench::detail::release(p); }
void operator delete(void* p, std::size_t) noexcept { tapeless_bench::detail::release(p); }
void operator delete[](void* p) noexcept { tapeless_bench::detail::release(p); }
void operator delete[](void* p, std::size_t) noexcept { tapeless_bench::detail::release(p); }
void operator delete(void* p, std::align_val_t) noexcept { tapeless_bench::detail::release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { tapeless_bench::detail::release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { tapeless_bench::detail::release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { tapeless_bench::detail::release(p); }
