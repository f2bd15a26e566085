#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The whole test suite: the lint first (clang-format and clang-tidy, test/lint.sh: about half a minute on
# 2 cores, cheap beside the builds); a g++ build (library, tests, examples, benchmark smoke runs); the same
# with clang++ under AddressSanitizer + UndefinedBehaviorSanitizer, with 5000 inputs of the libFuzzer
# target; and the threads test under ThreadSanitizer.
# Installs what a fresh Debian 12 machine lacks first. Usage: bash test/run.sh [lint|g++|clang++|tsan]...
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ clang libclang-rt-14-dev lld clang-format clang-tidy libboost-dev doctest-dev libbenchmark-dev
          libadolc-dev libtrilinos-sacado-dev libtrilinos-kokkos-dev libtrilinos-teuchos-dev libeigen3-dev libxsimd-dev
          gnuplot-nox graphviz libtbb-dev libopenmpi-dev openmpi-bin python3)
bash cmake/ensure_packages.sh "${packages[@]}"

parts=("$@"); ((${#parts[@]})) || parts=(lint g++ clang++ tsan)
jobs=$(nproc)
# Links with lld: ld.bfd takes twice its time over a sanitized test (0.9 s of CPU against 0.45 s), and
# the clang++ part links over a hundred of them.
lld=-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld
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

for part in "${parts[@]}"; do
  case $part in
    lint)
      echo "=== lint: clang-format and clang-tidy (test/lint.sh)"
      timed lint bash test/lint.sh
      ;;
    g++)
      dir=build/test-g++
      echo "=== g++: build and test in $dir"
      # Optimised, without debug information: -g more than doubled the compile time of the big tests
      # (ops/elementwise/binary_test: 93 s at -O2 -g, 51 s at -O2, 37 s at -O1, g++ user time).
      # The compile-fail tests' valid twins are the clang++ part's (test/compile_fail/CMakeLists.txt):
      # here they would cost 43 s.
      cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Check \
        -DCMAKE_CXX_FLAGS_CHECK="-O1 -DNDEBUG" -DTAPELESS_COMPILE_FAIL_TWINS=OFF "$lld"
      timed "g++ build" cmake --build "$dir" -j"$jobs"
      timed "g++ tests" run_ctest "$dir"
      ;;
    clang++)
      dir=build/test-clang++
      ubsan_off=vptr,function,alignment,null,object-size,pointer-overflow
      echo "=== clang++ with AddressSanitizer + UndefinedBehaviorSanitizer: build and test in $dir"
      # The clang++ build is the sanitized one: one build instead of two. Sanitized at -O0, clang
      # compiles about as fast as it does plain at -O1, where -O1 sanitized costs 2.5 times that and g++
      # up to 9 times (second derivatives' tests, clang: 27 s sanitized -O0, 70 s sanitized -O1, 28 s plain -O1;
      # ops/elementwise/binary_test, g++: 30 s plain, 435 s sanitized). The randomized tests too, and they
      # and the SIMD accuracy sweep run a tenth of their points (test/support/sanitizers.hpp): at -O1
      # they took 310 s of the build's 1170. No debug information: AddressSanitizer's reports name the
      # function, UBSan's the file and line (it records them without -g); line tables cost 16% of this
      # build (ops/elementwise/binary_test: 54 s with, 45 s without), more than the 15 minutes of the
      # whole command leave. For lines, rebuild the failing test with -gline-tables-only. UBSan without
      # its vptr and function checks: they check calls through polymorphic classes and function
      # pointers, of which tapeless has none
      # (integration/no_virtual_test), and emit type information for every expression type, 15% of this build
      # (no_allocation_test: 46 s with them, 39 s without). Nor its checks of pointers (null, alignment,
      # object-size, pointer-overflow): AddressSanitizer checks every access those guard, and they
      # instrument every reference the expression templates bind, 30% of this build
      # (shape/vector_folds_test: 50 s with them, 35 s without). Its arithmetic checks stay. libFuzzer is clang's: a short run of
      # test/fuzz/ is a ctest. Without the MPI example: Open MPI's libraries leak at exit (LeakSanitizer:
      # 121 kB in 3,345 allocations per rank), and the g++ part runs it.
      # The benchmarks' smoke runs and the headers compiled alone are the g++ part's: here they would
      # cost 80 s and 60 s of compile time to run code the tests already run, and to check includes
      # against the same standard library again. So are the tests that count (TAPELESS_SANITIZED_TESTS,
      # test/CMakeLists.txt) and four of the six parts of the randomized tests (TAPELESS_RANDOM_SUBSET,
      # 90 s): the fuzzer runs random compositions here, under the same sanitizers.
      cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Check \
        -DCMAKE_CXX_FLAGS_CHECK="-O0 -fsanitize=address,undefined -fno-sanitize=$ubsan_off -fno-sanitize-recover=all -fno-omit-frame-pointer" \
        -DTAPELESS_BUILD_FUZZ=ON -DTAPELESS_BUILD_BENCHMARKS=OFF -DTAPELESS_BUILD_HEADER_TESTS=OFF \
        -DTAPELESS_RANDOM_FLAGS=-O0 -DTAPELESS_RANDOM_SUBSET=ON -DTAPELESS_SANITIZED_TESTS=ON \
        -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON "$lld"
      timed "clang++ build" cmake --build "$dir" -j"$jobs"
      ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 UBSAN_OPTIONS=print_stacktrace=1 \
        timed "clang++ tests" run_ctest "$dir"
      ;;
    tsan)
      dir=build/test-tsan
      echo "=== g++ with ThreadSanitizer in $dir: the threads test"
      # Without the shared precompiled header: its owner, bad_input_test, would be built too (18 s).
      cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Check \
        -DCMAKE_CXX_FLAGS_CHECK="-O1 -g1 -fsanitize=thread -fno-omit-frame-pointer" \
        -DTAPELESS_BUILD_BENCHMARKS=OFF -DTAPELESS_BUILD_EXAMPLES=OFF -DTAPELESS_PRECOMPILE_TESTS=OFF
      timed "tsan build" cmake --build "$dir" -j"$jobs" --target integration_threads
      TSAN_OPTIONS=halt_on_error=1 timed "tsan tests" run_ctest "$dir" -R "^integration_threads$"
      ;;
    *) echo "unknown part '$part' (lint, g++, clang++ or tsan)" >&2; exit 2 ;;
  esac
done

(IFS=,; echo "time:${times[*]/#/ }")
# One closing line over every run: "N passed, N failed".
awk '/tests passed, [0-9]+ tests failed out of/ { failed += $4; total += $NF } END { printf "tests: %d passed, %d failed\n", total - failed, failed }' "$summary"
