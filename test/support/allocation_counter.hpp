// SPDX-License-Identifier: BSL-1.0
// allocation_counter.hpp: replaces the global operator new and counts calls, for the tests that prove
// a gradient touches no heap. It defines the replacement functions, so exactly one translation unit of
// a test executable includes it (each test executable is one test file and the doctest main).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace test_support {
inline std::atomic<long> allocations{0};

// Out of line, so that g++ does not see operator new's pointer reach free() and warn of a mismatch
// (-Wmismatched-new-delete, in a file that also uses std::string).
[[gnu::noinline]] inline void release(void* p) noexcept { std::free(p); }

/// The allocations made while running `work`.
template <class Work>
long allocations_during(Work&& work) {
  const long before = allocations.load();
  work();
  return allocations.load() - before;
}
}  // namespace test_support

// Every replaceable allocation form funnels through these two.
void* operator new(std::size_t n) {
  ++test_support::allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a) {
  ++test_support::allocations;
  const std::size_t align = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(align, (n + align - 1) / align * align)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new[](std::size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void* p) noexcept { test_support::release(p); }
void operator delete(void* p, std::size_t) noexcept { test_support::release(p); }
void operator delete[](void* p) noexcept { test_support::release(p); }
void operator delete[](void* p, std::size_t) noexcept { test_support::release(p); }
void operator delete(void* p, std::align_val_t) noexcept { test_support::release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { test_support::release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { test_support::release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { test_support::release(p); }
