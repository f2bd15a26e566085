#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# bench/run.sh: the main job. Builds the examples and benchmarks in Release, runs the examples, then
# prints, for each benchmark executable (scalar, vector, matrix), the table of benchmark medians and
# their ratios to the hand-written gradient.
#
#   bash bench/run.sh                         # g++, 20 repetitions, in build/bench
#   CXX=clang++ bash bench/run.sh             # clang++, in build/bench-clang++
#   REPETITIONS=40 bash bench/run.sh --benchmark_filter=S1   # extra arguments go to the benchmark
#   bash bench/run.sh --callgrind             # instructions per gradient under callgrind (ICOUNT=1000 each)
#
# On a fresh Debian 12 machine it first installs what it needs with apt-get.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cxx="${CXX:-g++}"
repetitions="${REPETITIONS:-20}"
icount="${ICOUNT:-1000}"

callgrind=0
args=()
for a in "$@"; do
  if [[ "$a" == --callgrind ]]; then callgrind=1; else args+=("$a"); fi
done

# --- dependencies -------------------------------------------------------------------------------
needed=(libboost-dev doctest-dev libbenchmark-dev libadolc-dev cmake ninja-build g++ clang)
if ((callgrind)); then needed+=(valgrind); fi
missing=()
for p in "${needed[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "run.sh: installing ${missing[*]}" >&2
  sudo=""
  if [[ "$(id -u)" != 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

# --- build --------------------------------------------------------------------------------------
# valgrind 3.19 cannot decode AVX-512: the callgrind build is -march=native without it, in its own folder.
if [[ "$cxx" == g++ ]]; then build="$root/build/bench"; else build="$root/build/bench-$(basename "$cxx")"; fi
arch="-march=native;-ffp-contract=fast"
if ((callgrind)); then build="$build-callgrind"; arch="$arch;-mno-avx512f"; fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DTAPELESS_BENCH_ARCH_FLAGS="$arch" \
  -DTAPELESS_BUILD_TESTS=OFF -DTAPELESS_BUILD_EXAMPLES=ON -DTAPELESS_BUILD_BENCHMARKS=ON >/dev/null
cmake --build "$build"
# Every case family, in the order of benchmarks.md; each prints its own table.
benches=(scalar vector matrix hessian)

# --- examples -----------------------------------------------------------------------------------
if ((!callgrind)); then
  for example in "$build"/examples/example_*; do
    echo "=== ${example##*/}"
    "$example"
  done
  echo "=== benchmarks"
fi

# --- timing -------------------------------------------------------------------------------------
if ((!callgrind)); then
  # Repetitions of all benchmarks interleaved in random order, so that a slow spell of the machine
  # falls on every library alike; later arguments override these.
  for family in "${benches[@]}"; do
    echo "=== tapeless_bench_$family"
    "$build/bench/tapeless_bench_$family" --benchmark_repetitions="$repetitions" \
      --benchmark_enable_random_interleaving=true --benchmark_min_time=0.1 \
      --benchmark_report_aggregates_only=true "${args[@]}"
  done
  exit 0
fi

# --- instruction counts -------------------------------------------------------------------------
# Each benchmark's loop runs $icount times between CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT(name):
# one dump per benchmark, whose total divided by $icount is the instructions per gradient (with the
# loop's few instructions of overhead, the same for every library).
for family in "${benches[@]}"; do
  out="$build/callgrind/$family"
  rm -rf "$out" && mkdir -p "$out"
  valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" "$build/bench/tapeless_bench_$family" \
    --icount="$icount" "${args[@]}" 2> "$out/valgrind.log" || { cat "$out/valgrind.log" >&2; exit 1; }
  echo
  echo "=== tapeless_bench_$family: instructions per gradient (callgrind Ir, $icount gradients per benchmark);" \
    "ratio = library / handwritten"
  awk -v n="$icount" '
    /^desc: Trigger: Client Request: / { name = $0; sub(/^desc: Trigger: Client Request: /, "", name) }
    /^summary: / && name == "loop_overhead" { overhead = $2 / n; name = ""; next }
    /^summary: / && name != "" {
      ir = $2 / n; split(name, p, "/"); c = p[1]; l = p[2]
      if (!(c in seen)) { seen[c] = 1; cases[++nc] = c }
      if (!((c, l) in irs) && l != "handwritten" && !(l in libseen)) { libseen[l] = 1; libs[++nl] = l }
      irs[c, l] = ir; name = ""
    }
    END {
      if (nc == 0) exit
      w = 4; for (i = 1; i <= nc; i++) if (length(cases[i]) > w) w = length(cases[i])
      printf "(every count includes the timing loop itself: %.1f instructions per iteration)\n", overhead
      printf "%-*s %14s", w, "case", "handwritten"
      for (j = 1; j <= nl; j++) printf " %14s %10s", libs[j], libs[j] "/hw"
      printf "\n"
      for (i = 1; i <= nc; i++) {
        c = cases[i]; printf "%-*s %14.1f", w, c, irs[c, "handwritten"]
        for (j = 1; j <= nl; j++) {
          l = libs[j]
          if ((c, l) in irs) printf " %14.1f %10.3f", irs[c, l], irs[c, l] / irs[c, "handwritten"]
          else printf " %14s %10s", "-", "-"
        }
        printf "\n"
      }
    }' $(ls "$out"/callgrind.out.* | sort -t. -k3 -n)
done
