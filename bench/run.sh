#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# bench/run.sh: the main job. Builds the examples and benchmarks in Release, runs the examples, then
# prints, for each benchmark executable (scalar, vector, matrix), the table of benchmark medians and
# their ratios to the hand-written gradients (scalar and xsimd-vectorised).
#
#   bash bench/run.sh                         # g++, 20 repetitions, in build/bench
#   bash bench/run.sh --report                # the same, then bench/results/REPORT.md and ratios.png
#   CXX=clang++ bash bench/run.sh             # clang++, in build/bench-clang++
#   AVX512=1 bash bench/run.sh --report       # tapeless and handwritten_simd in batches of 8 doubles
#                                             # where the machine has AVX-512 (TAPELESS_SIMD_AVX512)
#   REPETITIONS=40 bash bench/run.sh --benchmark_filter=S1   # extra arguments go to the benchmark
#   bash bench/run.sh --callgrind             # instructions per gradient under callgrind (ICOUNT=1000 each)
#   bash bench/run.sh --compile-time          # compile time and memory by expression size and vector length
#
# --report writes bench/results/: REPORT.md (medians, ratios, targets, machine, compiler, flags),
# ratios.png (gnuplot), and rounds/ (Google Benchmark's JSON output of each executable in each of
# REPETITIONS rounds, and its tables; not committed). Its ratios are taken within a round, then the
# median over the rounds (bench/report.py says why).
# --compile-time writes bench/results/COMPILE_TIME.md (bench/compile_time.py; its options follow it,
# e.g. --sizes 10,100): generated gradients of 10 to 3000 operations and of matrices of growing size,
# long vectors (1000 and 10000 elements, an N x 3 Jacobian), and the suite as users write it against
# its hand-written adjoints alone (bench/compile/); --tables long (or users) runs only that table.
# REPORT_NOTE="..." adds a sentence on the conditions of the run to the report. Timing starts once the
# load the build left has settled (1-minute load average below 1, at most SETTLE=180 seconds).
# --callgrind counts handwritten, handwritten_simd, tapeless (and tapeless_fixed_shape, S6's beside S11)
# and adolc_tape (and adolc_checkpoints, beside S12's checkpoints) unless a --benchmark_filter of yours says otherwise: the other peers take minutes under
# valgrind. It leaves out S13, whose threads valgrind runs one at a time.
#
# On a fresh Debian 12 machine it first installs what it needs with apt-get.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cxx="${CXX:-g++}"
repetitions="${REPETITIONS:-20}"
icount="${ICOUNT:-1000}"

if [[ "${1:-}" == --compile-time ]]; then
  shift
  bash "$root/cmake/ensure_packages.sh" g++ clang libboost-dev python3 time
  exec python3 "$root/bench/compile_time.py" "$@"
fi

callgrind=0
report=0
filtered=0
args=()
for a in "$@"; do
  case "$a" in
    --callgrind) callgrind=1 ;;
    --report) report=1 ;;
    *) [[ "$a" == --benchmark_filter=* ]] && filtered=1; args+=("$a") ;;
  esac
done
if ((callgrind && report)); then echo "run.sh: --callgrind or --report, not both" >&2; exit 2; fi

# --- dependencies -------------------------------------------------------------------------------
# The peers: ADOL-C (with ColPack for its sparse drivers), Sacado (whose headers need Kokkos's and
# Teuchos's), Eigen; and xsimd.
needed=(libboost-dev doctest-dev libbenchmark-dev cmake ninja-build g++ clang libadolc-dev libcolpack-dev
        libtrilinos-sacado-dev libtrilinos-kokkos-dev libtrilinos-teuchos-dev libeigen3-dev libxsimd-dev libtbb-dev)
if ((callgrind)); then needed+=(valgrind); fi
if ((report)); then needed+=(python3 gnuplot-nox); fi
bash "$root/cmake/ensure_packages.sh" "${needed[@]}"

# --- build --------------------------------------------------------------------------------------
# valgrind 3.19 cannot decode AVX-512: the callgrind build is -march=native without it, in its own folder.
if [[ "$cxx" == g++ ]]; then build="$root/build/bench"; else build="$root/build/bench-$(basename "$cxx")"; fi
arch="-march=native;-ffp-contract=fast"
# AVX512=1: tapeless and the vectorised hand-written adjoints in batches of 8 doubles (TAPELESS_SIMD_AVX512).
if [[ "${AVX512:-0}" == 1 ]]; then avx512=ON; defines=" -DTAPELESS_SIMD_AVX512"; else avx512=OFF; defines=""; fi
if ((callgrind)); then build="$build-callgrind"; arch="$arch;-mno-avx512f"; fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DTAPELESS_BENCH_ARCH_FLAGS="$arch" \
  -DTAPELESS_BENCH_AVX512="$avx512" \
  -DTAPELESS_BUILD_TESTS=OFF -DTAPELESS_BUILD_EXAMPLES=ON -DTAPELESS_BUILD_BENCHMARKS=ON >/dev/null
cmake --build "$build"
# Every case family, in the order of the suite's specification; each prints its own table.
benches=(scalar vector matrix hessian rows steps lstm pairs run_time)

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
  # The build leaves the 1-minute load average near 2 on two cores: the first cases timed after it ran
  # up to 1.3x slower than the same code later (S1 in two reports, at an equal instruction count).
  # So wait, up to SETTLE seconds (default 180), for it to fall below 1.
  settle="${SETTLE:-180}"
  for ((waited = 0; waited < settle; waited += 5)); do
    if awk '{ exit !($1 < 1.0) }' /proc/loadavg; then break; fi
    sleep 5
  done
  echo "=== timing after ${waited} s for the load to settle (1-minute load average $(cut -d' ' -f1 /proc/loadavg))"
  results="$root/bench/results"  # the report, and Google Benchmark's JSON output (not committed: .gitignore)
  if ((report)); then
    # Rounds: each runs every executable once, timing each benchmark once in random order, and the
    # report takes each ratio within a round, then the median over the rounds (bench/report.py: the
    # machine runs at two speeds for seconds at a time, which the median of repetitions spread over a
    # minute did not cancel). Each round's tables go to rounds/<family>.<round>.txt.
    rm -rf "$results/rounds" && mkdir -p "$results/rounds"
    jsons=()
    for ((round = 1; round <= repetitions; round++)); do
      echo "=== round $round of $repetitions"
      for family in "${benches[@]}"; do
        json="$results/rounds/$family.$round.json"
        jsons+=("$json")
        "$build/bench/tapeless_bench_$family" --benchmark_repetitions=1 \
          --benchmark_enable_random_interleaving=true --benchmark_min_time=0.1 \
          --benchmark_out="$json" --benchmark_out_format=json "${args[@]}" > "$results/rounds/$family.$round.txt"
      done
    done
    python3 "$root/bench/report.py" --out "$results" --compiler "$("$cxx" --version | head -1)" \
      --flags "-O3 ${arch//;/ }${defines}" --repetitions "$repetitions" --note "${REPORT_NOTE:-}" "${jsons[@]}"
  else
    # Repetitions of all benchmarks interleaved in random order, so that a slow spell of the machine
    # falls on every library alike; later arguments override these.
    for family in "${benches[@]}"; do
      echo "=== tapeless_bench_$family"
      "$build/bench/tapeless_bench_$family" --benchmark_repetitions="$repetitions" \
        --benchmark_enable_random_interleaving=true --benchmark_min_time=0.1 \
        --benchmark_report_aggregates_only=true "${args[@]}"
    done
  fi
  exit 0
fi

# --- instruction counts -------------------------------------------------------------------------
# Each benchmark's loop runs $icount times (the rows and lstm families: a hundredth of it, the steps and
# pairs families a tenth) between CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT(name):
# one dump per benchmark, whose total divided by $icount is the instructions per gradient (with the
# loop's few instructions of overhead, the same for every library).
counted="handwritten|handwritten_simd|tapeless|tapeless_fixed_shape|adolc_tape"
for family in "${benches[@]}"; do
  family_args=("${args[@]}")
  family_icount="$icount"
  if [[ "$family" == rows ]]; then
    # Sums over 1,000 to 100,000 rows: a hundredth of the gradients, each of as many instructions as
    # hundreds of the other families' ones. S13 is left out: under valgrind its threads run one at a
    # time, and its figure is a speed-up over threads, which instructions do not show.
    family_icount=$(((icount + 99) / 100))
    if ((!filtered)); then family_args+=("--benchmark_filter=^S1[01]_.*/($counted)$"); fi
  else
    # The loops of run-time length: a gradient of 1,000 steps or 2,016 pairs (a tenth), of 64 LSTM steps
    # (a hundredth). Their counted libraries include ADOL-C's checkpointing beside S12's.
    case "$family" in
      steps | pairs) family_icount=$(((icount + 9) / 10)) ;;
      lstm) family_icount=$(((icount + 99) / 100)) ;;
    esac
    if ((!filtered)); then family_args+=("--benchmark_filter=/($counted|adolc_checkpoints)$"); fi
  fi
  out="$build/callgrind/$family"
  rm -rf "$out" && mkdir -p "$out"
  valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" "$build/bench/tapeless_bench_$family" \
    --icount="$family_icount" "${family_args[@]}" 2> "$out/valgrind.log" || { cat "$out/valgrind.log" >&2; exit 1; }
  echo
  echo "=== tapeless_bench_$family: instructions per gradient (callgrind Ir, $family_icount gradients per benchmark);" \
    "ratio = library / handwritten"
  awk -v n="$family_icount" '
    /^desc: Trigger: Client Request: / { name = $0; sub(/^desc: Trigger: Client Request: /, "", name) }
    /^summary: / && name == "before_counting" { name = ""; next }  # the checks and the threads they ran
    /^summary: / && name == "loop_overhead" { overhead = $2 / n; name = ""; next }
    /^summary: / && name != "" {
      ir = $2 / n; split(name, p, "/"); c = p[1]; l = p[2]
      if (!(c in seen)) { seen[c] = 1; cases[++nc] = c }
      if (!((c, l) in irs) && l != "handwritten" && !(l in libseen)) { libseen[l] = 1; libs[++nl] = l }
      irs[c, l] = ir; name = ""
    }
    END {
      if (nc == 0) exit
      for (j = 2; j <= nl; j++)  # handwritten_simd first, the other libraries in order
        if (libs[j] == "handwritten_simd") { for (k = j; k > 1; k--) libs[k] = libs[k - 1]; libs[1] = "handwritten_simd" }
      w = 4; for (i = 1; i <= nc; i++) if (length(cases[i]) > w) w = length(cases[i])
      printf "(every count includes the timing loop itself: %.1f instructions per iteration)\n", overhead
      printf "%-*s %14s", w, "case", "handwritten"
      for (j = 1; j <= nl; j++) printf " %14s %10s", libs[j], libs[j] "/hw"
      printf "\n"
      for (i = 1; i <= nc; i++) {
        c = cases[i]; hw = (c, "handwritten") in irs
        if (hw) printf "%-*s %14.1f", w, c, irs[c, "handwritten"]; else printf "%-*s %14s", w, c, "-"
        for (j = 1; j <= nl; j++) {
          l = libs[j]
          if (!((c, l) in irs)) printf " %14s %10s", "-", "-"
          else if (hw) printf " %14.1f %10.3f", irs[c, l], irs[c, l] / irs[c, "handwritten"]
          else printf " %14.1f %10s", irs[c, l], "-"
        }
        printf "\n"
      }
    }' $(ls "$out"/callgrind.out.* | sort -t. -k3 -n)
done
