#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The whole test suite: the lint first (clang-format and clang-tidy, test/lint.sh: about half a minute on
# 2 cores, cheap beside the builds); a g++ build (library, tests, examples); the same with clang++ under
# AddressSanitizer + UndefinedBehaviorSanitizer, with 5000 inputs of the libFuzzer target; and the threads
# test under ThreadSanitizer. That is what CI runs, and it must stay under 30 minutes on 2 cores.
# The part `extended`, not run unless named, adds the randomized differential tests at every point and a
# smoke run of each benchmark, built by g++ in the g++ part's folder (CONTRIBUTING.md, The test command).
# Installs what a fresh Debian 12 machine lacks first. Usage: bash test/run.sh [lint|g++|clang++|tsan|extended]...
set -euo pipefail
cd "$(dirname "$0")/.."

parts=("$@"); ((${#parts[@]})) || parts=(lint g++ clang++ tsan)
packages=(cmake ninja-build g++ clang libclang-rt-14-dev lld clang-format clang-tidy libboost-dev doctest-dev libeigen3-dev
          libxsimd-dev graphviz libtbb-dev libopenmpi-dev openmpi-bin python3)
# The benchmarks' peers and Google Benchmark for the part extended alone, the one that builds the
# benchmarks: CI's run on a fresh machine installs neither them nor what Trilinos's packages pull in.
[[ " ${parts[*]} " == *" extended "* ]] &&
  packages+=(libbenchmark-dev libadolc-dev libcolpack-dev libtrilinos-sacado-dev libtrilinos-kokkos-dev libtrilinos-teuchos-dev)
bash cmake/ensure_packages.sh "${packages[@]}"
jobs=$(nproc)
# Links with lld: ld.bfd takes twice its time over a sanitized test (0.9 s of CPU against 0.45 s), and
# the clang++ part links over a hundred of them.
lld=-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld
# g++ collects its garbage from 1 GB of heap on, not from the few MB its defaults allow: the
# collections were 7% of a test's compile time (transforms/hessian_test, -ftime-report: 3.5 of 50.7 s),
# for 0.5 GB more at the peak (3.1 GB for the largest test; two side by side fit the machine).
gcc_memory="--param=ggc-min-expand=100 --param=ggc-min-heapsize=1048576"
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT

# The wall time of each step, printed at the end: the cost of the parts (CONTRIBUTING.md, The test command).
times=()
timed() {  # label, command...
  local label=$1 start=$SECONDS
  shift
  "$@"
  times+=("$label $((SECONDS - start)) s")
}

run_ctest() {  # build dir, extra ctest args...
  local dir=$1; shift
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" "$@" | tee -a "$summary"
}

# The g++ build's configuration, with the randomized tests and the benchmarks or without (ON, OFF): the
# part `extended` builds them in the g++ part's folder, with the same flags, so that neither part
# recompiles the other's objects.
configure_gxx() {  # build dir, ON|OFF
  # Optimised, without debug information: -g more than doubled the compile time of the big tests
  # (ops/elementwise/binary_test: 93 s at -O2 -g, 51 s at -O2, 37 s at -O1, g++ user time).
  # The compile-fail tests' valid twins are the clang++ part's (test/compile_fail/CMakeLists.txt):
  # here they would cost 43 s. So are the SIMD tests in AVX2's and AVX-512's batches
  # (TAPELESS_WIDE_SIMD_TESTS): there the sanitizers check their loads and tails, and here they
  # would check the same values again, at 226 s of CPU (twice that on a machine with AVX-512). And so
  # are the headers compiled alone: both compilers read the same standard library, and clang++
  # parses them in a third of g++'s time (124 headers: 41 s of CPU against 119).
  cmake -S . -B "$1" -G Ninja -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Check \
    -DCMAKE_CXX_FLAGS_CHECK="-O1 -DNDEBUG $gcc_memory" -DTAPELESS_COMPILE_FAIL_TWINS=OFF -DTAPELESS_WIDE_SIMD_TESTS=OFF \
    -DTAPELESS_BUILD_HEADER_TESTS=OFF -DTAPELESS_BUILD_RANDOM_TESTS="$2" -DTAPELESS_BUILD_BENCHMARKS="$2" "$lld"
}

for part in "${parts[@]}"; do
  case $part in
    lint)
      echo "=== lint: clang-format and clang-tidy (test/lint.sh)"
      timed lint bash test/lint.sh
      ;;
    g++)
      dir=build/test-g++
      echo "=== g++: build and test in $dir"
      configure_gxx "$dir" OFF
      timed "g++ build" cmake --build "$dir" -j"$jobs"
      timed "g++ tests" run_ctest "$dir"
      ;;
    clang++)
      dir=build/test-clang++
      ubsan_off=vptr,function,alignment,null,object-size,pointer-overflow
      echo "=== clang++ with AddressSanitizer + UndefinedBehaviorSanitizer: build and test in $dir"
      # The clang++ build is the sanitized one: one build instead of two. At -O0, where clang compiles
      # sanitized code about as fast as plain code at -O1 (-O1 sanitized: 2.5 times that). Without debug
      # information, UBSan's pointer checks, its vptr and function checks, and what only counts or checks
      # values the other parts check: the tests that count (the g++ part), the benchmarks and the
      # randomized tests (the part extended; the fuzzer runs random compositions here). Why each, and what it saves: CONTRIBUTING.md, "The
      # test command". For lines in a report, rebuild the failing test with -gline-tables-only.
      # Without the MPI example: Open MPI's libraries leak at exit (LeakSanitizer: 121 kB in 3,345
      # allocations per rank), and the g++ part runs it.
      cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Check \
        -DCMAKE_CXX_FLAGS_CHECK="-O0 -fsanitize=address,undefined -fno-sanitize=$ubsan_off -fno-sanitize-recover=all -fno-omit-frame-pointer" \
        -DTAPELESS_BUILD_FUZZ=ON -DTAPELESS_FUZZ_OUTLINED_CHECKS=ON -DTAPELESS_BUILD_BENCHMARKS=OFF \
        -DTAPELESS_BUILD_RANDOM_TESTS=OFF -DTAPELESS_SANITIZED_TESTS=ON \
        -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON "$lld"
      timed "clang++ build" cmake --build "$dir" -j"$jobs"
      # Without the package tests, which build a project that finds tapeless's CMake package: the g++
      # part runs them, and the package is the same for either compiler (11 s of CPU here).
      ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 UBSAN_OPTIONS=print_stacktrace=1 \
        timed "clang++ tests" run_ctest "$dir" -E "^package_"
      ;;
    tsan)
      dir=build/test-tsan
      echo "=== g++ with ThreadSanitizer in $dir: the threads test"
      # Without the shared precompiled header: its owner, bad_input_test, would be built too (18 s).
      cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Check \
        -DCMAKE_CXX_FLAGS_CHECK="-O1 -g1 -fsanitize=thread -fno-omit-frame-pointer $gcc_memory" \
        -DTAPELESS_BUILD_BENCHMARKS=OFF -DTAPELESS_BUILD_EXAMPLES=OFF -DTAPELESS_PRECOMPILE_TESTS=OFF
      timed "tsan build" cmake --build "$dir" -j"$jobs" --target integration_threads
      TSAN_OPTIONS=halt_on_error=1 timed "tsan tests" run_ctest "$dir" -R "^integration_threads$"
      ;;
    extended)
      dir=build/test-g++
      echo "=== extended: the randomized tests and the benchmarks' smoke runs, built by g++ in $dir"
      # Not in CI's run, which they would take past its 30 minutes on 2 cores (430 to 490 s of CPU to
      # build): run them where a change touches a rule, a sweep, the randomized tests or a benchmark.
      configure_gxx "$dir" ON
      timed "extended build" cmake --build "$dir" -j"$jobs" --target tapeless_random_tests tapeless_benchmarks
      timed "extended tests" run_ctest "$dir" -R "^(random_|bench_)"
      ;;
    *) echo "unknown part '$part' (lint, g++, clang++, tsan or extended)" >&2; exit 2 ;;
  esac
done

(IFS=,; echo "time:${times[*]/#/ }")
# One closing line over every run: "N passed, N failed".
awk '/tests passed, [0-9]+ tests failed out of/ { failed += $4; total += $NF } END { printf "tests: %d passed, %d failed\n", total - failed, failed }' "$summary"
