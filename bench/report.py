#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""bench/report.py: REPORT.md and ratios.png from the benchmarks' JSON output.

    python3 bench/report.py --out bench/results --compiler "g++ ..." --flags "-O3 ..." scalar.json ...

`bash bench/run.sh --report` runs it on the `--benchmark_out_format=json` output of every round: one
run of a bench executable that times each of its benchmarks ("<case>/<library>") once, in random
order. It writes the median over the rounds of each benchmark's time, and the median over the rounds
of each ratio taken within a round (to `handwritten`, to `handwritten_simd`), the targets (within
1.10x of the faster hand-written gradient) and, for each case's variant as users write it ("<case>_users", bench/users.hpp), its own target and
its ratio to the case written the project's way, the machine, compiler and flags, and a log-scale chart of the ratios drawn by gnuplot. A file
with median aggregates (a run with repetitions) counts as one round of those medians. Standard
library only.

Why ratios within a round: this shared machine switches between two speeds. The same gradient took
12 or 19 ns (S1, both libraries, from one benchmark to the next), so the median of 20
repetitions could fall on either speed for one library and not for the one it is compared with: S1
came out 1.16x and 1.55x at an equal instruction count. A ratio within a round is taken at one speed
more often than not, and the median over the rounds of those ratios is then the ratio at one speed.
Where the speed flips faster than a round, the ratios of 10-20 ns cases still vary by run (S2 0.92x
to 1.15x): compare their instruction counts (`bash bench/run.sh --callgrind`).
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys

REFERENCES = ("handwritten", "handwritten_simd")
TARGET_HAND = 1.10  # tapeless within 1.10x of the faster hand-written gradient
TARGET_USERS = 1.25  # the same, for a case as users write it
USERS_SUFFIX = "_users"  # "<case>_users": the case as users write it (bench/cases.hpp)
# The targets of the loops of run-time length, by case, in place of the two above: S3 as users
# write it (a sum over tl::indices) at 1.10x; tl::iterate's time steps with stored states and with 32
# checkpoints (S12), the LSTM over its sequence (S14) and the sum over pairs (S15). And of the sparse
# second derivatives against hand-written sparse loops: H1 and H4 at 3x, H3 at 2x.
CASE_TARGETS = {
    "S3_rosenbrock_16_users": 1.10,
    "S3_rosenbrock_256_users": 1.10,
    "S12_oscillator": 1.25,
    "S12_oscillator_checkpoints": 3.0,
    "S14_lstm": 1.25,
    "S15_lennard_jones": 1.25,
    "H1_rosenbrock_hessian_16": 3.0,
    "H1_rosenbrock_hessian_256": 3.0,
    "H3_bratu_jacobian": 2.0,
    "H4_grid_hessian": 3.0,
}
MEMORY_PREFIX = "memory "  # a context entry "memory <case>/<library>": what its gradient keeps (harness.hpp)
TARGET_PEERS = 5.0  # tapeless at least 5x faster than each of these
SLOW_PEERS = ("adolc_tape", "sacado_rad")
# A case's tapeless gradient measured against another tapeless gradient of the same function, timed in
# the same run (bench/cases.hpp, tapeless_reference): the reference library, what the ratio is, and
# its target as (at most, at least).
TAPELESS_REFERENCES = {
    # S11 (over std::vector rows and over an Eigen::MatrixXd): rows of run-time number against S6's matrix.
    "tapeless_fixed_shape": ("tapeless / tapeless_fixed_shape", 1.10, None),
    # S13: the sum over threads against the sequential sum, as a speed-up.
    "tapeless_sequential": ("speed-up: tapeless_sequential / tapeless", None, 1.7),
}
# The cases of run-time size (bench/run_time_bench.cpp: "..._run_time..."), whose arrays have extents read
# at run time, against the same function at compile-time extents (tapeless_fixed_shape): at most 1.15x.
RUN_TIME_MARK = "_run_time"
TARGET_RUN_TIME_TO_FIXED = 1.15
PACKAGES = {"ADOL-C": "libadolc-dev", "ColPack": "libcolpack-dev", "Sacado (Trilinos)": "libtrilinos-sacado-dev",
            "Eigen": "libeigen3-dev", "xsimd": "libxsimd-dev", "Google Benchmark": "libbenchmark-dev"}


def output(*cmd):
    """A command's standard output, or '' when it cannot run."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return ""


def machine():
    """lscpu's model name and CPU counts."""
    fields = dict((k.strip(), v.strip()) for k, _, v in (l.partition(":") for l in output("lscpu").splitlines()))
    return (f"{fields.get('Model name', 'unknown CPU')}, {fields.get('CPU(s)', '?')} CPUs "
            f"({fields.get('Core(s) per socket', '?')} cores per socket, "
            f"{fields.get('Thread(s) per core', '?')} thread per core)")


def package_versions():
    return ", ".join(f"{label} {output('dpkg-query', '-W', '-f=${Version}', p) or '(not found)'}"
                     for label, p in PACKAGES.items())


def load(paths):
    """ns per gradient by (case, library), a list of {round: ns}, in the order of the files and, in
    each, of registration (not of the run, which interleaves them at random), and each file's context.
    Each file is a round."""
    times, contexts = {}, []
    for index, path in enumerate(paths):
        if os.path.getsize(path) == 0:  # an executable none of whose benchmarks the filter selected
            continue
        with open(path) as f:
            data = json.load(f)
        contexts.append(data.get("context", {}))
        benchmarks = data["benchmarks"]
        runs = [b for b in benchmarks if b.get("aggregate_name") == "median"]
        if not runs:
            runs = [b for b in benchmarks if b.get("run_type", "iteration") == "iteration"]
        for b in sorted(runs, key=lambda b: b.get("family_index", 0)):
            case, library = b["run_name"].split("/")[:2]
            scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
            times.setdefault((case, library), {})[index] = b["real_time"] * scale
    return times, contexts


def median_time(times, case, library):
    t = times.get((case, library))
    return statistics.median(t.values()) if t else None


def per_round(times, f, *benchmarks):
    """The median over the rounds that timed every one of `benchmarks`, (case, library) pairs, of
    f(their times in the round)."""
    series = [times.get(b) for b in benchmarks]
    if not all(series):
        return None
    rounds = set.intersection(*(set(t) for t in series))
    values = [f(*(t[r] for t in series)) for r in sorted(rounds)]
    return statistics.median(values) if values else None


def distinct(values):
    return list(dict.fromkeys(values))


def ratio(times, case, library, reference, reference_case=None):
    """library's time over reference's (of reference_case, by default the same case), within each
    round; the median of those."""
    return per_round(times, lambda a, b: a / b, (case, library), (reference_case or case, reference))


def fmt_ns(v):
    return "–" if v is None else (f"{v:,.0f}" if v >= 100 else f"{v:.1f}")


def fmt_ratio(v):
    return "–" if v is None else (f"{v:.3g}" if v < 100 else f"{v:,.0f}")


def table(header, rows):
    align = ["---"] + ["--:"] * (len(header) - 1)
    return "\n".join("| " + " | ".join(r) + " |" for r in [header, align] + rows)


def project_case(case):
    """The case written the project's way of "<case>_users", or None for a case that is not a users' one."""
    return case[: -len(USERS_SUFFIX)] if case.endswith(USERS_SUFFIX) else None


def tapeless_reference_targets(times, cases):
    """The table of the cases measured against a tapeless gradient of their own (TAPELESS_REFERENCES),
    and a sentence per miss; None when no case is."""
    rows, misses = [], []
    for c in cases:
        for reference, (what, at_most, at_least) in TAPELESS_REFERENCES.items():
            if (c, reference) not in times:
                continue
            if reference == "tapeless_fixed_shape" and RUN_TIME_MARK in c:
                at_most = TARGET_RUN_TIME_TO_FIXED
            if at_least is None:
                value = ratio(times, c, "tapeless", reference)
                ok = value is not None and value <= at_most
                target = f"≤ {at_most:.2f}"
            else:
                value = ratio(times, c, reference, "tapeless")
                ok = value is not None and value >= at_least
                target = f"≥ {at_least:g}"
            if not ok:
                misses.append(f"{c}: {what} is {fmt_ratio(value)}, the target {target}")
            rows.append([c, what, fmt_ratio(value), target, "yes" if ok else "**no**"])
    if not rows:
        return None, misses
    return table(["case", "ratio", "median", "target", "met"], rows), misses


def targets(times, cases):
    """The table of the targets, the cases' and the users' rows', and a sentence per miss."""
    rows, misses = [], []
    for c in cases:
        hands = [(c, r) for r in REFERENCES if (c, r) in times]
        to_best = per_round(times, lambda t, *h: t / min(h), (c, "tapeless"), *hands) if hands else None
        speedups = [ratio(times, c, p, "tapeless") for p in SLOW_PEERS]
        project = project_case(c)
        target = CASE_TARGETS.get(c, TARGET_USERS if project else TARGET_HAND)
        # A sum over threads is measured by its speed-up (tapeless_reference_targets), not against the
        # sequential hand-written adjoints.
        if (c, "tapeless_sequential") in times:
            rows.append([c] + [fmt_ratio(ratio(times, c, "tapeless", r)) for r in REFERENCES]
                        + [fmt_ratio(to_best), "–", "–", "–"] + [fmt_ratio(s) for s in speedups] + ["–"])
            continue
        hand_ok = to_best is not None and to_best <= target
        if not hand_ok:
            written = "tapeless as users write it" if project else "tapeless"
            misses.append(f"{c}: {written} takes {fmt_ratio(to_best)}x the time of the faster hand-written gradient")
        misses += [f"{c}: tapeless is only {fmt_ratio(s)}x faster than {p}"
                   for p, s in zip(SLOW_PEERS, speedups) if s is not None and s < TARGET_PEERS]
        # A case without the peers (not one of the suite's) has no peer target.
        peers_ok = "–" if None in speedups else "yes" if min(speedups) >= TARGET_PEERS else "**no**"
        to_project = ratio(times, c, "tapeless", "tapeless", project) if project else None
        rows.append([c] + [fmt_ratio(ratio(times, c, "tapeless", r)) for r in REFERENCES]
                    + [fmt_ratio(to_best), f"≤ {target:.2f}", "yes" if hand_ok else "**no**", fmt_ratio(to_project)]
                    + [fmt_ratio(s) for s in speedups] + [peers_ok])
    header = (["case"] + [f"tapeless / {r}" for r in REFERENCES]
              + ["tapeless / faster of the two", "target", "met", "users' / project's tapeless"]
              + [f"{p} / tapeless" for p in SLOW_PEERS] + [f"≥ {TARGET_PEERS:g}"])
    return table(header, rows), misses


def memory(contexts):
    """The table of what each benchmark's gradient keeps in memory (harness.hpp, note_memory), from the
    last round's context; None when no executable stated any."""
    notes = {}
    for context in contexts:
        for key, value in context.items():
            if key.startswith(MEMORY_PREFIX):
                notes[key[len(MEMORY_PREFIX):]] = value
    if not notes:
        return None
    rows = [name.split("/", 1) + [value] for name, value in sorted(notes.items())]
    return table(["case", "library", "memory per gradient"], rows)


def chart(times, cases, libraries, png):
    """Each library's ratio to handwritten per case, log scale, drawn by gnuplot; False if it cannot."""
    shown = [l for l in libraries if l != "handwritten"]
    values = [[ratio(times, c, l, "handwritten") for l in shown] for c in cases]
    known = [v for row in values for v in row if v]
    bottom = 10 ** math.floor(math.log10(min(known + [1.0]) / 1.2))  # powers of 10 around every bar
    top = 10 ** math.ceil(math.log10(max(known + [1.0]) * 1.2))
    data = png + ".dat"
    with open(data, "w") as f:
        f.write("case " + " ".join(shown) + "\n")
        for c, row in zip(cases, values):
            f.write(c + " " + " ".join("NaN" if v is None else f"{v:.6g}" for v in row) + "\n")
    script = f"""
set terminal pngcairo noenhanced size 1400,700 font "sans,10"
set output "{png}"
set title "ns per gradient / hand-written adjoint's ns, same run (median; log scale; below 1 is faster)"
set logscale y
set yrange [{bottom:g}:{top:g}]
set grid ytics mytics
set ylabel "ratio to handwritten"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set xtics rotate by -30 left
set key outside right top vertical
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2 lc rgb "black" front
plot for [i=2:{len(shown) + 1}] "{data}" using i:xtic(1) title columnhead(i)
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        return True
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"report.py: gnuplot failed ({e}); no chart", file=sys.stderr)
        return False
    finally:
        os.remove(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder of REPORT.md and ratios.png")
    ap.add_argument("--compiler", default="unknown", help="the compiler's --version line")
    ap.add_argument("--flags", default="", help="the compile flags of the benchmarks")
    ap.add_argument("--repetitions", default="?")
    ap.add_argument("--note", default="", help="a sentence on the conditions of the run")
    ap.add_argument("json", nargs="+")
    args = ap.parse_args()

    times, contexts = load(args.json)
    if not times:
        sys.exit("report.py: no benchmark times in the JSON")
    cases = distinct(c for c, _ in times)
    present = distinct(l for _, l in times)
    libraries = [r for r in REFERENCES if r in present] + [l for l in present if l not in REFERENCES]
    os.makedirs(args.out, exist_ok=True)

    loads = [c["load_avg"][0] for c in contexts if c.get("load_avg")]
    load_range = f"{min(loads):.2f} to {max(loads):.2f}" if loads else "unknown"
    # The batch widths the executables were built with (harness.hpp's context): they follow the flags.
    def width(key):
        found = distinct(c[key] for c in contexts if key in c)
        return "/".join(found) if found else "?"
    hand_width, tapeless_width = width("handwritten_simd_doubles"), width("tapeless_simd_doubles")
    target_table, misses = targets(times, cases)
    reference_table, reference_misses = tapeless_reference_targets(times, cases)
    misses += reference_misses
    has_chart = chart(times, cases, libraries, os.path.join(args.out, "ratios.png"))

    lines = [
        "# Benchmark report",
        "",
        "Written by `bash bench/run.sh --report`.",
        "",
        f"- **Machine**: {machine()}.",
        f"- **Compiler**: {args.compiler}.",
        f"- **Flags**: `{args.flags}` (CMake Release).",
        f"- **Timing**: Google Benchmark, real time per gradient, in {args.repetitions} rounds: a round runs "
        "each executable once, timing each of its benchmarks for at least 0.1 s, in random order. The times "
        "are medians over the rounds; each ratio is the median over the rounds of the ratio within a round "
        "(the machine switches between two speeds: `bench/report.py`).",
        f"- **Load**: 1-minute load average {load_range} as the executables started.",
        f"- **Libraries**: {package_versions()}.",
    ]
    if args.note:
        lines.append(f"- **Note**: {args.note}")
    lines += [
        "",
        "Every library's gradient was checked against `handwritten` before timing: to 1e-12 relative, "
        "`finite_diff` to 1e-6 of the largest component. The libraries: `handwritten`, the adjoint derived by "
        "hand, as scalar loops; `handwritten_simd`, the same with its elementwise loops over xsimd batches of "
        f"{hand_width} doubles, with xsimd's exp and tanh (S4, S5, S6, S8, S10, S11, S13); `tapeless`, whose matrix loops run "
        f"in batches of {tapeless_width} doubles; ADOL-C with one tape "
        "recorded before timing (`adolc_tape`) and recorded again at each call (`adolc_retape`); Sacado's "
        "reverse mode (`sacado_rad`, `Sacado::Rad::ADvar`); forward mode with Sacado's `Fad::SFad<double, N>` "
        "(`sacado_fad`) and Eigen's `AutoDiffScalar` (`eigen_forward`), one pass carrying all N derivatives; "
        "central differences (`finite_diff`, 2N evaluations of the function in doubles); ADOL-C's checkpointing "
        "of a time-stepping loop (`adolc_checkpoints`, `CP_Context` with revolve, beside S12's checkpoints); "
        "for the sparse second derivatives (H1, H3, H4), whose hand-written forms fill the pattern's values, "
        "the dense transform (`tapeless_dense`, checked at the pattern's entries) and ADOL-C's sparse drivers "
        "as ADOL-C runs them with ColPack (its own pattern, ColPack's coloring, compressed sweeps and recovery; "
        "Debian's ADOL-C is built without ColPack): the reuse of a prepared pattern and coloring "
        "(`adolc_sparse`) and a first call that finds them (`adolc_sparse_setup`); "
        "beside S11 and S13, "
        "the tapeless gradients they are measured against (`tapeless_fixed_shape`, `tapeless_sequential`: "
        "see the targets).",
        "",
        "## Targets",
        "",
        f"tapeless within {TARGET_HAND:.2f}x of the faster of `handwritten` and `handwritten_simd`, and at "
        f"least {TARGET_PEERS:g}x faster than `adolc_tape` and `sacado_rad`, on every case (median ratios).",
        "",
        f"Each row `<case>{USERS_SUFFIX}`, below its case, is that case in tapeless as users write it "
        "(`bench/users.hpp`): a sum over `tl::indices` (S3), element access in folds over the indices (S7), "
        "data captured by value "
        "(S5, S6), the determinant by minors and the inverse by cofactors (S9). Its target is "
        f"{TARGET_USERS:.2f}x the faster hand-written gradient, and `users' / project's tapeless` is its time "
        "over the case's written the project's way (slices, `tl::cref`, the matrix functions), in the same round.",
        "",
        "The loops of run-time length have targets of their own (column `target`): S3 as users write it, "
        "`tl::sum_over(tl::indices(n - 1), ...)` reading x[i] and x[i + 1] with n read at run time, at most "
        f"{CASE_TARGETS['S3_rosenbrock_16_users']:.2f}x; S12, the oscillator over 1,000 run-time steps of "
        f"`tl::iterate`, at most {CASE_TARGETS['S12_oscillator']:.2f}x storing every state and at most "
        f"{CASE_TARGETS['S12_oscillator_checkpoints']:g}x with `tl::checkpoints<32>` "
        "(`S12_oscillator_checkpoints`), both against a hand-written adjoint that stores every state; S14, "
        "an LSTM layer over 64 run-time steps, at most "
        f"{CASE_TARGETS['S14_lstm']:.2f}x a hand-written backpropagation through time; S15, Lennard-Jones "
        f"over `tl::pairs(64)`, at most {CASE_TARGETS['S15_lennard_jones']:.2f}x the hand-written forces. The "
        "memory each gradient takes is in [Memory](#memory).",
        "",
        target_table,
        "",
    ]
    if reference_table:
        lines += [
            "Sums over rows of run-time number (`tl::sum_over`, `tl::mean_over` over `tl::rows`) are also "
            "measured against tapeless itself, in the same round: S11, the logistic regression over 256 rows "
            "of `tl::vector<double, 8>` (and `_eigen`, over an `Eigen::MatrixXd` of 256 x 8 read in place as "
            "`tl::row_vectors<8>`), against S6's fixed-shape matrix (`tapeless_fixed_shape`), at most "
            f"{TAPELESS_REFERENCES['tapeless_fixed_shape'][1]:.2f}x; S13, S10 at n = 10^6 summed over threads "
            "(`std::execution::par`), by its speed-up over the sequential sum (`tapeless_sequential`), at "
            f"least {TAPELESS_REFERENCES['tapeless_sequential'][2]:g}x. S13's row above has no hand-written "
            "target: its adjoints are sequential. The cases of run-time size, their arrays `tl::dynamic` with "
            "extents read at run time (`bench/run_time_bench.cpp`: S3 and S4 at n = 16 and 256, S7 at 8 x 8, "
            "a layer of 16 x 8 and of 64 x 32; `bench/steps_bench.cpp`: `springs_run_time`, `tl::iterate` over "
            "a state of 16 or 256 springs), against the same function at compile-time extents "
            f"(`tapeless_fixed_shape`), at most {TARGET_RUN_TIME_TO_FIXED:.2f}x; beside them in the tables, S3 "
            "over whole arrays (`tapeless_whole_array`), over `tl::bounded` extents (`tapeless_bounded`) and "
            "over an `Eigen::VectorXd` (`tapeless_eigen`), and S7 over `tl::bounded` extents.",
            "",
            reference_table,
            "",
        ]
    lines += (["Missed:", ""] + [f"- {m}" for m in misses] if misses else ["Every target met."]) + [""]
    lines += ["What costs tapeless where it is slower than the hand-written adjoint: doc/design.md, section "
              "\"Where the hand-written adjoint stays ahead\". Instruction counts, which do not drift with the machine's load: "
              "`bash bench/run.sh --callgrind`.", ""]
    memory_table = memory(contexts)
    if memory_table:
        lines += ["## Memory", "",
                  "What one gradient keeps, as each executable states it before timing: the heap it allocates, "
                  "counted by a replaced `operator new` after a first gradient (a library that keeps its memory "
                  "between gradients allocates in the first only); the snapshots of a checkpointed loop; "
                  "ADOL-C's tapes by `tapestats` (a byte per operation, 4 per location, 8 per value and per "
                  "Taylor coefficient).", "", memory_table, ""]
    if has_chart:
        lines += ["## Ratios to the hand-written adjoint", "", "![ratio to handwritten, log scale](ratios.png)", ""]
    header = ["case"] + libraries
    lines += ["## ns per gradient (median)", "",
              table(header, [[c] + [fmt_ns(median_time(times, c, l)) for l in libraries] for c in cases]), ""]
    for r in REFERENCES:
        rows = [[c] + [fmt_ratio(ratio(times, c, l, r)) for l in libraries] for c in cases if (c, r) in times]
        if rows:
            lines += [f"## Ratio to `{r}` (median over the rounds of the ratio within each)", "", table(header, rows), ""]
    with open(os.path.join(args.out, "REPORT.md"), "w") as f:
        f.write("\n".join(lines))
    print(f"report.py: wrote {os.path.join(args.out, 'REPORT.md')}" + (" and ratios.png" if has_chart else ""))
    if misses:
        print("report.py: targets missed:\n  " + "\n  ".join(misses))


if __name__ == "__main__":
    main()
