// SPDX-License-Identifier: BSL-1.0
// bench/harness.hpp: the main of every gradient benchmark: checks, Google Benchmark timing, the table of ratios.
//
// A benchmark is one implementation (a library) of one case: a function from the case's inputs to the
// gradient (the kernel), named "<case>/<library>". A case's inputs are what its `Inputs()` returns: a
// std::array of numbers, spread over the kernel's parameters, or the case's input struct, passed
// whole (see tapeless_bench::invoke_kernel in suite.hpp). tapeless_bench::main runs a list of entries:
//
//   int main(int argc, char** argv) {
//     return tapeless_bench::main(argc, argv, check_references, {
//         tapeless_bench::entry<s1_handwritten, s1_inputs>("S1_walkthrough/handwritten"), ...});
//   }
//
// bench/cases.hpp makes that list from the cases' descriptions, with every library of each case.
//
// Before anything is timed, every library's gradient is checked against the `handwritten` one of its
// case (check_gradient in suite.hpp); a mismatch fails the run. The binary accepts, beside every
// --benchmark_* flag:
//   --smoke        the checks and one iteration of each benchmark (the ctest run: timings mean nothing)
//   --icount=N     no timing: each benchmark's loop runs N times between callgrind client requests,
//                  one callgrind dump per benchmark named after it (run under valgrind --tool=callgrind);
//                  --benchmark_filter selects the benchmarks here too
//
// After the run it prints, per case, the median ns per gradient of each library (real time, median
// over --benchmark_repetitions) and its ratios to `handwritten` and `handwritten_simd` measured in the
// same run. --benchmark_out=FILE --benchmark_out_format=json gives the same figures to other tools
// (bench/report.py).
#pragma once

#include <benchmark/benchmark.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define TAPELESS_BENCH_HAS_CALLGRIND 1
#else
#define TAPELESS_BENCH_HAS_CALLGRIND 0
#endif

#include "simd.hpp"
#include "suite.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <regex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tapeless_bench {

namespace detail {

/// Makes the inputs opaque before each gradient: the compiler must assume DoNotOptimize changed them,
/// so nothing is constant-folded or hoisted out of the loop. Numbers of an argument list stay in
/// registers; a matrix or an input struct stays in memory, and the asm's "memory" clobber makes every
/// read of it happen again in each iteration.
template <class In>
inline BENCHMARK_ALWAYS_INLINE void make_opaque(In& in) {
  if constexpr (argument_list<In>)
    std::apply([](auto&... arg) { (benchmark::DoNotOptimize(arg), ...); }, in);
  else
    benchmark::DoNotOptimize(in);
}

/// Keeps every component of a gradient alive: a number (in a register), a tl::matrix (in memory),
/// or a tuple of them.
template <class R>
inline BENCHMARK_ALWAYS_INLINE void keep(const R& r) {
  if constexpr (result_parts<R>)
    std::apply([](const auto&... g) { (keep(g), ...); }, r);
  else
    benchmark::DoNotOptimize(r);
}

/// One gradient as it is timed: the inputs are made opaque, then the kernel runs, then its results are kept.
template <auto Kernel, class In>
inline BENCHMARK_ALWAYS_INLINE void one_gradient(In& in) {
  make_opaque(in);
  keep(invoke_kernel<Kernel>(in));
}

template <auto Kernel, auto Inputs>
void time_gradient(benchmark::State& state) {
  auto in = Inputs();
  for (auto _ : state) one_gradient<Kernel>(in);
}

template <auto Kernel, auto Inputs>
[[gnu::noinline]] void count_gradient([[maybe_unused]] const char* name, long n) {
  auto in = Inputs();
#if TAPELESS_BENCH_HAS_CALLGRIND
  CALLGRIND_ZERO_STATS;
#endif
  for (long i = 0; i < n; ++i) one_gradient<Kernel>(in);
#if TAPELESS_BENCH_HAS_CALLGRIND
  CALLGRIND_DUMP_STATS_AT(name);
#endif
}

/// The console reporter, remembering each benchmark's times for the table.
class table_reporter : public benchmark::ConsoleReporter {
 public:
  using benchmark::ConsoleReporter::ConsoleReporter;

  void ReportRuns(const std::vector<Run>& reports) override {
    benchmark::ConsoleReporter::ReportRuns(reports);
    for (const Run& run : reports) {
      if (run.error_occurred) continue;
      const std::string& name = run.run_name.function_name;
      if (std::find(order_.begin(), order_.end(), name) == order_.end()) order_.push_back(name);
      repetitions_[name] = static_cast<std::size_t>(run.repetitions);
      if (run.run_type == Run::RT_Iteration)
        times_[name].push_back(run.GetAdjustedRealTime());
      else if (run.aggregate_name == "median")
        medians_[name] = run.GetAdjustedRealTime();
    }
  }

  /// Median ns per gradient of one benchmark: Google Benchmark's median aggregate when it computed
  /// one, else the median of the repetitions reported.
  [[nodiscard]] double median(const std::string& name) const {
    if (auto m = medians_.find(name); m != medians_.end()) return m->second;
    auto t = times_.at(name);
    std::sort(t.begin(), t.end());
    const std::size_t n = t.size();
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
  }
  [[nodiscard]] std::size_t repetitions(const std::string& name) const { return repetitions_.at(name); }
  [[nodiscard]] const std::vector<std::string>& order() const { return order_; }

 private:
  std::vector<std::string> order_;
  std::map<std::string, std::vector<double>> times_;
  std::map<std::string, double> medians_;
  std::map<std::string, std::size_t> repetitions_;
};

inline double identity_kernel(double x) { return x; }
inline std::array<double, 1> one_input() { return {1.0}; }

/// Splits "<case>/<library>" at its last '/'.
inline std::pair<std::string, std::string> split_name(const std::string& name) {
  const auto slash = name.rfind('/');
  if (slash == std::string::npos) return {name, ""};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

/// The table, in the order of `names` (the registration order), of the benchmarks that ran: one row
/// per library, grouped by case, with the ratios to the case's `handwritten` and `handwritten_simd`.
inline void print_table(const table_reporter& r, const std::vector<std::string>& names) {
  std::vector<std::string> cases;
  std::map<std::string, std::vector<std::string>> libraries;  // by case, in order
  std::map<std::pair<std::string, std::string>, double> ns;
  std::size_t reps = 0, case_width = 4, library_width = 7;
  for (const auto& name : names) {
    if (std::find(r.order().begin(), r.order().end(), name) == r.order().end()) continue;  // filtered out
    auto [c, lib] = split_name(name);
    if (libraries[c].empty()) cases.push_back(c);
    libraries[c].push_back(lib);
    ns[{c, lib}] = r.median(name);
    reps = std::max(reps, r.repetitions(name));
    case_width = std::max(case_width, c.size());
    library_width = std::max(library_width, lib.size());
  }
  if (cases.empty()) return;
  std::printf(
      "\nns per gradient, median of %zu repetition%s (real time); ratios to handwritten and to"
      " handwritten_simd, same run\n",
      reps, reps == 1 ? "" : "s");
#if defined(__clang__)
  std::printf("compiler: clang %s\n\n", __VERSION__);
#elif defined(__GNUC__)
  std::printf("compiler: g++ %s\n\n", __VERSION__);
#else
  std::printf("compiler: %s\n\n", __VERSION__);
#endif
  const int cw = static_cast<int>(case_width), lw = static_cast<int>(library_width);
  std::printf("%-*s  %-*s  %14s  %14s  %18s\n", cw, "case", lw, "library", "ns/gradient", "/handwritten",
              "/handwritten_simd");
  for (const auto& c : cases) {
    auto ratio = [&](const std::string& lib, const char* reference) {
      const auto ref = ns.find({c, reference});
      char out[32] = "-";
      if (ref != ns.end() && ref->second > 0) std::snprintf(out, sizeof out, "%.3f", ns.at({c, lib}) / ref->second);
      return std::string(out);
    };
    for (std::size_t l = 0; l < libraries[c].size(); ++l) {
      const std::string& lib = libraries[c][l];
      std::printf("%-*s  %-*s  %14.2f  %14s  %18s\n", cw, l == 0 ? c.c_str() : "", lw, lib.c_str(), ns.at({c, lib}),
                  ratio(lib, "handwritten").c_str(), ratio(lib, "handwritten_simd").c_str());
    }
  }
  std::fflush(stdout);
}

/// Removes argv[i] from the argument list.
inline void drop_argument(int& argc, char** argv, int i) {
  for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
  --argc;
}

}  // namespace detail

/// One benchmark: its name "<case>/<library>", how to time it, count its instructions and check it.
struct entry_t {
  std::string name;
  void (*time)(benchmark::State&);
  void (*count)(const char*, long);
  std::vector<double> (*gradient)();  // the kernel's gradient at the case's inputs, every component
  tolerance agreement = exact;        // against the case's hand-written gradient
  void (*prepare)() = nullptr;        // run once, before the checks and the timing (a tape to record)
};

/// The entry of `Kernel`, called on what `Inputs()` returns (an array of numbers spread over its
/// parameters, or an input struct passed whole), returning a gradient: a number, a tl::matrix, or a
/// tuple of them.
template <auto Kernel, auto Inputs>
entry_t entry(std::string name, tolerance agreement = exact, void (*prepare)() = nullptr) {
  return {std::move(name),
          &detail::time_gradient<Kernel, Inputs>,
          &detail::count_gradient<Kernel, Inputs>,
          &gradient_at_inputs<Kernel, Inputs>,
          agreement,
          prepare};
}

/// The memory statements of the bench file, by benchmark name, in the order given.
inline std::vector<std::pair<std::string, std::string>>& memory_notes() {
  static std::vector<std::pair<std::string, std::string>> notes;
  return notes;
}

/// States what the gradient of benchmark `name` ("<case>/<library>") keeps in memory: a sentence that
/// begins with its figure in bytes. Called before main's checks end (from a check or a preparation).
inline void note_memory(const std::string& name, const std::string& what) { memory_notes().emplace_back(name, what); }

namespace detail {

inline bool check_entries(const std::vector<entry_t>& entries) {
  std::map<std::string, std::vector<double>> reference;  // by case
  for (const entry_t& e : entries)
    if (auto [c, lib] = split_name(e.name); lib == "handwritten") reference[c] = e.gradient();
  bool ok = true;
  for (const entry_t& e : entries) {
    auto [c, lib] = split_name(e.name);
    if (lib == "handwritten") continue;
    if (auto ref = reference.find(c); ref == reference.end()) {
      std::fprintf(stderr, "%s: its case has no handwritten gradient to check it against\n", e.name.c_str());
      ok = false;
    } else {
      ok &= check_gradient(e.name, e.gradient(), ref->second, e.agreement);
    }
  }
  return ok;
}

/// True when `name` matches the --benchmark_filter regular expression `filter` (a leading '-' negates
/// it), as Google Benchmark selects: for --icount, which does not go through Google Benchmark.
inline bool selected(const std::string& name, std::string filter) {
  const bool negated = !filter.empty() && filter.front() == '-';
  if (negated) filter.erase(0, 1);
  if (filter.empty() || filter == "all") return !negated;
  return std::regex_search(name, std::regex(filter)) != negated;
}

}  // namespace detail

/// Runs the entries' preparations, then `check` if given (checks of the hand-written gradients
/// themselves: false on any mismatch, having printed it) and the check of every entry against its
/// case's hand-written one, then the benchmarks, then the table.
inline int main(int argc, char** argv, bool (*check)(), const std::vector<entry_t>& entries) {
  bool smoke = false;
  long icount = 0;
  std::string filter;
  for (int i = 1; i < argc;) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
      detail::drop_argument(argc, argv, i);
    } else if (std::strncmp(argv[i], "--icount=", 9) == 0) {
      icount = std::atol(argv[i] + 9);
      detail::drop_argument(argc, argv, i);
      if (icount <= 0) {
        std::fprintf(stderr, "--icount=N needs a positive N\n");
        return 2;
      }
    } else {
      if (std::strncmp(argv[i], "--benchmark_filter=", 19) == 0) filter = argv[i] + 19;
      ++i;
    }
  }

  for (const entry_t& e : entries)
    if (e.prepare) e.prepare();
  const bool references_agree = !check || check();  // both run, so that every mismatch is printed
  if (!detail::check_entries(entries) || !references_agree) {
    std::fprintf(stderr, "a gradient disagrees with the hand-written one: not timing\n");
    return 1;
  }
  std::printf(
      "checks: every gradient agrees with the hand-written one (to 1e-12 relative; finite differences"
      " to 1e-6 of the largest component)\n");
  std::fflush(stdout);

  if (icount > 0) {
    if (!TAPELESS_BENCH_HAS_CALLGRIND) {
      std::fprintf(stderr, "--icount: built without <valgrind/callgrind.h>\n");
      return 2;
    }
    // Everything before the counts in a dump of its own, which bench/run.sh skips: CALLGRIND_ZERO_STATS
    // resets the calling thread's counts only, so the instructions of the threads a sum over threads
    // ran in the checks would otherwise land in the first count.
#if TAPELESS_BENCH_HAS_CALLGRIND
    CALLGRIND_DUMP_STATS_AT("before_counting");
#endif
    // The timing loop around a kernel that returns its input: what every count below includes.
    detail::count_gradient<detail::identity_kernel, detail::one_input>("loop_overhead", icount);
    for (const entry_t& e : entries)
      if (detail::selected(e.name, filter)) e.count(e.name.c_str(), icount);
    std::printf("icount: %ld gradients per benchmark, one callgrind dump each\n", icount);
    return 0;
  }

  for (const entry_t& e : entries) {
    auto* b = benchmark::RegisterBenchmark(e.name.c_str(), e.time);
    b->Unit(benchmark::kNanosecond);
    if (smoke) b->Iterations(1)->Repetitions(1);
  }
  // The SIMD widths this build has, for the report (bench/report.py): they follow the -m flags.
  benchmark::AddCustomContext("handwritten_simd_doubles", std::to_string(simd::width));
  for (const auto& [name, what] : memory_notes()) benchmark::AddCustomContext("memory " + name, what);
#if TAPELESS_SIMD
  benchmark::AddCustomContext("tapeless_simd_doubles", std::to_string(tapeless::detail::simd::width<double>));
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  detail::table_reporter reporter(isatty(fileno(stdout)) ? benchmark::ConsoleReporter::OO_ColorTabular
                                                         : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::vector<std::string> names;
  for (const entry_t& e : entries) names.push_back(e.name);
  detail::print_table(reporter, names);
  benchmark::Shutdown();
  return 0;
}

}  // namespace tapeless_bench
