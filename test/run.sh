#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The whole test suite: g++ and clang++ builds (library, tests, examples, benchmark smoke runs; with
# clang++ also 20000 inputs of the libFuzzer target), then the unit tests again under AddressSanitizer +
# UndefinedBehaviorSanitizer, and the threads test under ThreadSanitizer.
# Installs what a fresh Debian 12 machine lacks first. Usage: bash test/run.sh [g++|clang++|sanitize|tsan]...
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ clang libclang-rt-14-dev libboost-dev doctest-dev libbenchmark-dev libadolc-dev
          libtrilinos-sacado-dev libtrilinos-kokkos-dev libtrilinos-teuchos-dev libeigen3-dev libxsimd-dev gnuplot-nox graphviz)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

parts=("$@"); ((${#parts[@]})) || parts=(g++ clang++ sanitize tsan)
jobs=$(nproc)
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT

run_ctest() {  # build dir, extra ctest args...
  local dir=$1; shift
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" "$@" | tee -a "$summary"
}

for part in "${parts[@]}"; do
  case $part in
    g++|clang++)
      dir=build/test-$part
      echo "=== $part: build and test in $dir"
      fuzz=OFF  # libFuzzer is clang's: with clang++, a short run of test/fuzz/ as a ctest
      if [ "$part" = clang++ ]; then fuzz=ON; fi
      # Optimised, without debug information: -g more than doubled the compile time of the big tests
      # (elementwise_binary_test: 93 s at -O2 -g, 51 s at -O2, 37 s at -O1, g++ user time).
      cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER="$part" -DCMAKE_BUILD_TYPE=Check \
        -DCMAKE_CXX_FLAGS_CHECK="-O1 -DNDEBUG" -DTAPELESS_BUILD_FUZZ=$fuzz
      cmake --build "$dir" -j"$jobs"
      run_ctest "$dir"
      ;;
    sanitize)
      dir=build/test-sanitize
      echo "=== g++ with AddressSanitizer + UndefinedBehaviorSanitizer in $dir"
      # Line tables only (-g1): reports still name the function and line, at a fraction of -g's cost.
      cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Check \
        -DCMAKE_CXX_FLAGS_CHECK="-O1 -g1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
        -DTAPELESS_BUILD_BENCHMARKS=OFF -DTAPELESS_BUILD_EXAMPLES=OFF \
        -DTAPELESS_RANDOM_SUBSET=ON  # two of the six parts of test/random/: they compile 3x slower here
      cmake --build "$dir" -j"$jobs"
      # Compile-fail and package tests only drive the compiler; they ran in the builds above.
      ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 UBSAN_OPTIONS=print_stacktrace=1 \
        run_ctest "$dir" -E "^(compile_fail|package)_"
      ;;
    tsan)
      dir=build/test-tsan
      echo "=== g++ with ThreadSanitizer in $dir: the threads test"
      cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Check \
        -DCMAKE_CXX_FLAGS_CHECK="-O1 -g1 -fsanitize=thread -fno-omit-frame-pointer" \
        -DTAPELESS_BUILD_BENCHMARKS=OFF -DTAPELESS_BUILD_EXAMPLES=OFF
      cmake --build "$dir" -j"$jobs" --target unit_threads
      TSAN_OPTIONS=halt_on_error=1 run_ctest "$dir" -R "^unit_threads$"
      ;;
    *) echo "unknown part '$part' (g++, clang++, sanitize or tsan)" >&2; exit 2 ;;
  esac
done

# One closing line over every run: "N passed, N failed".
awk '/tests passed, [0-9]+ tests failed out of/ { failed += $4; total += $NF } END { printf "tests: %d passed, %d failed\n", total - failed, failed }' "$summary"
