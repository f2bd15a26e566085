#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""bench/compile_time.py: what a gradient costs to compile, by expression size, vector length and compiler.

Generates one program per shape and size, compiles it with every compiler given under /usr/bin/time -v,
and writes Markdown tables of processor seconds and peak compiler memory (bench/results/COMPILE_TIME.md
by default), one section per table:

gradients: each program computes tl::grad of one function and prints it; the growth between sizes follows.
  sum       a long sum of products of four arguments, a*b + b*c + c*d + d*a + ...: a left-deep tree
            of N operations (N/2 products, N/2 sums)
  balanced  the same products summed as a balanced tree, (a*b + b*c) + (c*d + d*a) ...: depth log2 N
  chain     a deep nested chain: sin(e) * y + x, then again on the result, and so on: depth N
  matrix    a fixed-shape matrix function, sum(tanh(W x) * x) + log_sum_exp(W x) + squared_norm(W),
            with W an n x n matrix and x an n-vector: its size is n, not its number of operations
long: fixed-shape values of N elements, whose type, not expression, grows.
  vector    a tl::vector<double, N> declared, filled in a loop, and differentiated: tl::grad of
            sum(square(x)) and of dot(x, w)
  written   the same vector written out in braces, {0.000, 0.001, ...}, and tl::grad of sum(square(x))
  jacobian  tl::jacobian of tanh(A q), A an N x 3 matrix filled in a loop: an N x 3 matrix
users: the benchmark suite's cases as users write them, against their hand-written adjoints alone.
  users_style       bench/compile/users_style.cpp: S1 to S9 in tapeless as users write them
                    (bench/users.hpp) beside their hand-written adjoints (bench/adjoints.hpp)
  handwritten_only  bench/compile/handwritten_only.cpp: the same hand-written adjoints alone, compiled
                    as it is and after #include <tapeless/tapeless.hpp> (the target's reference)

Usage: python3 bench/compile_time.py [--tables gradients,long,users] [--cxx g++,clang++] [--flags=-O2]
       [--sizes 10,100,1000,3000] [--matrix-sizes 2,4,8,16,32] [--long-flags=-O3]
       [--long-sizes 1000,10000] [--users-flags=-O3] [--out FILE] [--timeout 600] [--repeat 3]
--tables runs some of the tables and keeps the other sections of FILE as they are.
bench/run.sh --compile-time runs it with these defaults after installing what it needs.
"""
import argparse
import math
import os
import platform
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROGRAM = """#include <tapeless/tapeless.hpp>

#include <cstdio>
#include <tuple>

namespace tl = tapeless;

int main(int argc, char**) {{
  const auto f = {function};
  const double s = 0.1 * argc;  // known at run time only: nothing folds to a constant
  const auto g = tl::grad(f)({arguments});
  std::printf("%g\\n", std::get<0>(g){element});
}}
"""


def products(n):
    """N/2 products of neighbouring arguments among a, b, c, d."""
    names = "abcd"
    return [f"{names[k % 4]} * {names[(k + 1) % 4]}" for k in range(max(1, n // 2))]


def of_four_arguments(body):
    return f"[](const auto& a, const auto& b, const auto& c, const auto& d) {{ return {body}; }}", \
        "s, 2 * s, 3 * s, 4 * s", ""


def sum_of_products(n):
    """N operations: N/2 products of neighbouring arguments, summed left to right."""
    return of_four_arguments(" + ".join(products(n)))


def balanced_sum(n):
    """The same N/2 products, summed as a balanced tree: depth log2 N instead of N/2."""
    terms = products(n)
    while len(terms) > 1:
        terms = [f"({terms[k]} + {terms[k + 1]})" if k + 1 < len(terms) else terms[k] for k in range(0, len(terms), 2)]
    return of_four_arguments(terms[0])


def chain(n):
    """Depth N: each step is sin(e) * y + x (three operations), the last one cut to fit N. One
    statement a step (nodes hold their operands by value): nested in one expression, 1000 steps would
    pass clang's limit of 256 nested brackets."""
    steps = ["tl::sin({})", "{} * y", "{} + x"]
    lines = [f"const auto e{k + 1} = {steps[k % 3].format(f'e{k}' if k else 'x')};" for k in range(n)]
    body = " ".join(lines) + f" return e{n};"
    function = f"[](const auto& x, const auto& y) {{ {body} }}"
    return function, "s, 2 * s", ""


def matrix(n):
    function = ("[](const auto& W, const auto& x) { const auto z = tl::matmul(W, x); "
                "return tl::sum(tl::tanh(z) * x) + tl::log_sum_exp(z) + tl::squared_norm(W); }")
    arguments = f"tl::matrix<double, {n}, {n}>::filled(s), tl::vector<double, {n}>::filled(s)"
    return function, arguments, "(0, 0)"


SHAPES = {"sum": sum_of_products, "balanced": balanced_sum, "chain": chain, "matrix": matrix}


def gradient_program(shape, size):
    function, arguments, element = SHAPES[shape](size)
    return PROGRAM.format(function=function, arguments=arguments, element=element)


LONG_PROGRAM = """#include <tapeless/tapeless.hpp>

#include <cstddef>
#include <cstdio>

namespace tl = tapeless;

int main(int argc, char**) {{
  const double s = 0.1 * argc;  // known at run time only: nothing folds to a constant
{body}
}}
"""

LONG_SHAPES = {
    "vector": """  tl::vector<double, {n}> x;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = s * static_cast<double>(i % 7);
  const auto g = tl::grad([](const auto& v) {{ return tl::sum(tl::square(v)); }})(x);
  const auto h = tl::grad<0>([](const auto& v, const auto& w) {{ return tl::dot(v, w); }})(x, x);
  std::printf("%g %g\\n", g[{n} - 1], h[1]);""",
    "written": """  const tl::vector<double, {n}> x{{{values}}};
  const auto g = tl::grad([](const auto& v) {{ return tl::sum(tl::square(v)); }})(x * s);
  std::printf("%g\\n", g[{n} - 1]);""",
    "jacobian": """  tl::matrix<double, {n}, 3> A;
  for (std::size_t i = 0; i < A.size(); ++i) A[i] = s * static_cast<double>(i % 97);
  const tl::vector<double, 3> p{{s, 2 * s, 3 * s}};
  const tl::matrix<double, {n}, 3> J = tl::jacobian([&A](const auto& q) {{ return tl::tanh(tl::matmul(A, q)); }})(p);
  std::printf("%g\\n", J({n} - 1, 2));""",
}


def long_program(shape, size):
    values = ", ".join(f"{0.001 * k:.3f}" for k in range(size))
    return LONG_PROGRAM.format(body=LONG_SHAPES[shape].format(n=size, values=values))


# The programs of the users' table, made of the units in bench/compile/: each program is compiled from
# a temporary folder, so its source includes the unit (whose own includes are relative to it). The
# hand-written adjoints are compiled alone, and after tapeless's header, the one users_style.cpp
# includes: the target compares users_style with the latter, which differs from it by the gradients
# as users write them alone, not by what the library's header costs to parse (its own row).
def unit(name):
    return f'#include "{os.path.join(ROOT, "bench", "compile", name + ".cpp")}"\n'


USERS_UNITS = {"users_style": unit("users_style"),
               "handwritten_only + tapeless.hpp": "#include <tapeless/tapeless.hpp>\n" + unit("handwritten_only"),
               "handwritten_only": unit("handwritten_only")}
USERS_REFERENCE = "handwritten_only + tapeless.hpp"
TARGET_USERS = 1.5  # users_style at most 1.5x the time of USERS_REFERENCE


def users_program(unit, _size):
    return USERS_UNITS[unit]


def compile_one(cxx, flags, source, timeout):
    """(seconds, peak MiB, None) or (seconds, peak MiB, the compiler's first error line)."""
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "f.cpp")
        with open(path, "w") as out:
            out.write(source)
        command = ["/usr/bin/time", "-v", cxx, "-std=c++20", *flags, "-I", os.path.join(ROOT, "include"),
                   path, "-o", os.path.join(work, "f")]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return timeout, float("nan"), f"over {timeout} s"
        report = done.stderr
        # Processor time (user + system), steadier than wall-clock time on a shared machine.
        seconds = sum(float(re.search(rf"{kind} time \(seconds\): (\S+)", report).group(1))
                      for kind in ("User", "System"))
        peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", report).group(1)) / 1024
        error = None
        if done.returncode != 0:
            lines = [l for l in report.splitlines() if re.search(r"^\S+:\d+:\d+: (fatal )?error: ", l)]
            if "stack nearly exhausted" in report:
                error = "the compiler crashed: its stack ran out (warning: stack nearly exhausted)"
            elif lines:
                error = re.sub(r"^\S*/include/", "include/", lines[0].strip())[:160]
            elif "PLEASE submit a bug report" in report:
                error = "the compiler crashed"
            else:
                error = f"failed (exit status {done.returncode})"
        elif subprocess.run([os.path.join(work, "f")], capture_output=True).returncode != 0:
            error = "the program failed"
        return seconds, peak, error


def most(peak, kept):
    """The larger peak memory of this round and the rounds before, ignoring a timed-out round's NaN."""
    peaks = [p for p in (peak, kept[1] if kept else float("nan")) if not math.isnan(p)]
    return max(peaks) if peaks else float("nan")


def growth(rows):
    """The exponent k of time ~ size^k between consecutive sizes that compiled, above the smallest
    size's time (what the headers cost whatever the size)."""
    ok = [(size, seconds) for size, seconds, _, error in rows if error is None]
    if len(ok) < 2:
        return []
    if all(seconds - ok[0][1] <= 0.5 for _, seconds in ok):
        return ["none: every size within 0.5 s of the smallest"]
    base = ok[0][1]
    out = []
    for (s0, t0), (s1, t1) in zip(ok[1:], ok[2:]):
        if t0 - base > 0.05 and t1 - base > 0:
            out.append(f"{s0}→{s1}: {math.log((t1 - base) / (t0 - base)) / math.log(s1 / s0):.2f}")
    return out


def measure(jobs, program, flags, repeat, timeout):
    """{(shape, cxx, size): (least seconds, largest peak MiB, error or None)} over the rounds.

    Every program once, then every program again, and so on: the least of a program's times is kept.
    This machine is shared, and the same compile has taken from 15 to 40 s of processor time; a slow
    spell of minutes then lands on different programs in different rounds."""
    best = {}
    for r in range(1, repeat + 1):
        for shape, cxx, size in jobs:
            if r > 1 and best[(shape, cxx, size)][2] is not None:
                continue  # a failure does not time out again
            seconds, peak, error = compile_one(cxx, flags, program(shape, size), timeout)
            label = f"round {r}: {shape} {size:5d} {cxx:8s}" if size is not None else f"round {r}: {shape} {cxx:8s}"
            print(f"{label} {seconds:7.2f} s {peak:7.0f} MiB" + (f"  FAILED: {error}" if error else ""), flush=True)
            kept = best.get((shape, cxx, size))
            if kept is None or error is not None or (kept[2] is None and seconds < kept[0]):
                # A failure in any round stands: the compilers are deterministic, the machine is not.
                best[(shape, cxx, size)] = (seconds, most(peak, kept), error)
            else:
                best[(shape, cxx, size)] = (kept[0], most(peak, kept), kept[2])
    return best


def results_table(jobs, best):
    """The Markdown table of every job's result, in the order of the jobs."""
    out = "| shape | size | compiler | seconds | peak MiB | result |\n|---|---:|---|---:|---:|---|\n"
    for shape, cxx, size in jobs:
        seconds, peak, error = best[(shape, cxx, size)]
        result = "ok" if error is None else error.replace("|", "\\|")
        out += f"| {shape} | {size} | {cxx} | {seconds:.2f} | {peak:.0f} | {result} |\n"
    return out


# The measures, as each section's text states them.
WHAT_IS_MEASURED = ("seconds are the compiler's and linker's processor time (user + system), memory the compiler's peak resident set (`/usr/bin/time -v`). ")


def conditions(compilers, flags, repeat):
    version = [subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
               for cxx in compilers]
    return (f"Measured on {platform.node() or 'this machine'} "
            f"({os.cpu_count()} cores), one compile at a time, {repeat} rounds of every compile (the "
            f"least time of the rounds, the largest memory), by `bench/run.sh --compile-time` "
            f"(`bench/compile_time.py`). Flags: `-std=c++20 {' '.join(flags)}`; compilers: "
            + "; ".join(f"`{v}`" for v in version) + ".\n\n")


def gradients_section(args, compilers):
    flags = args.flags.split()
    sizes = [int(s) for s in args.sizes.split(",")]
    matrix_sizes = [int(s) for s in args.matrix_sizes.split(",")]
    jobs = [(shape, cxx, size) for shape in SHAPES for cxx in compilers
            for size in (matrix_sizes if shape == "matrix" else sizes)]
    best = measure(jobs, gradient_program, flags, args.repeat, args.timeout)
    growths = []
    for shape in SHAPES:
        for cxx in compilers:
            rows = [(size, *best[(s, c, size)]) for s, c, size in jobs if s == shape and c == cxx]
            growths.append((shape, cxx, growth(rows)))
    out = "## Gradients by expression size\n\n" + conditions(compilers, flags, args.repeat)
    out += ("Each program computes `tl::grad` of one function and prints it (compile and link); " + WHAT_IS_MEASURED +
            "`sum`: a sum of N/2 products of four arguments (N operations), left to right; `balanced`: the same "
            "sum as a balanced tree; `chain`: sin(e) * y + x "
            "nested to depth N; `matrix`: sum(tanh(W x) * x) + log_sum_exp(W x) + squared_norm(W) "
            "with W n x n.\n\n")
    out += results_table(jobs, best)
    out += ("\nGrowth: the exponent k in time ∝ size^k between consecutive sizes, on the time above the "
            "smallest size's (1 is linear):\n\n")
    for shape, cxx, g in growths:
        out += f"- {shape}, {cxx}: {', '.join(g) if g else 'too few sizes compiled'}\n"
    return out


def long_section(args, compilers):
    flags = args.long_flags.split()
    sizes = [int(s) for s in args.long_sizes.split(",")]
    jobs = [(shape, cxx, size) for shape in LONG_SHAPES for cxx in compilers for size in sizes]
    best = measure(jobs, long_program, flags, args.repeat, args.timeout)
    out = "## Long vectors\n\n" + conditions(compilers, flags, args.repeat)
    out += ("Each program holds fixed-shape values of N elements (compile and link); " + WHAT_IS_MEASURED +
            "`vector`: a `tl::vector<double, N>` declared, filled in a loop, and `tl::grad` of "
            "sum(square(x)) and of dot(x, w); `written`: the vector written out in braces, and `tl::grad` of "
            "sum(square(x)); `jacobian`: `tl::jacobian` of tanh(A q), with A N x 3, an N x 3 matrix.\n\n")
    return out + results_table(jobs, best)


def users_section(args, compilers):
    flags = args.users_flags.split()
    jobs = [(unit, cxx, None) for cxx in compilers for unit in USERS_UNITS]
    best = measure(jobs, users_program, flags, args.repeat, args.timeout)
    out = "## The suite as users write it\n\n" + conditions(compilers, flags, args.repeat)
    out += ("`users_style` (`bench/compile/users_style.cpp`) holds the benchmark suite's cases S1 to S9 (S3 and S4 "
            "at n = 16 and 256) in tapeless as users write them (`bench/users.hpp`: a sum over `tl::indices` (S3), element "
            "access in folds over the indices (S7), data captured by value, the determinant by minors) beside their hand-written adjoints "
            "(`bench/adjoints.hpp`), and checks each gradient against the hand-written one when run; "
            "`handwritten_only` (`bench/compile/handwritten_only.cpp`) holds the same hand-written adjoints alone, "
            "without tapeless's header, and `handwritten_only + tapeless.hpp` is it after "
            "`#include <tapeless/tapeless.hpp>`, the header `users_style` includes: the two differ by the gradients "
            "as users write them only. Compile and link; " + WHAT_IS_MEASURED.rstrip() + "\n\n")
    out += "| unit | compiler | seconds | peak MiB | result |\n|---|---|---:|---:|---|\n"
    for unit, cxx, size in jobs:
        seconds, peak, error = best[(unit, cxx, size)]
        result = "ok" if error is None else error.replace("|", "\\|")
        out += f"| {unit} | {cxx} | {seconds:.2f} | {peak:.0f} | {result} |\n"
    out += f"\nTarget: `users_style` in at most {TARGET_USERS:g}x the time of `{USERS_REFERENCE}`.\n\n"
    for cxx in compilers:
        users, hand = best[("users_style", cxx, None)], best[(USERS_REFERENCE, cxx, None)]
        if users[2] is None and hand[2] is None:
            times = users[0] / hand[0]
            out += f"- {cxx}: {times:.2f}x the time, {users[1] / hand[1]:.2f}x the memory: target " + \
                ("met" if times <= TARGET_USERS else "**missed**") + "\n"
        else:
            out += f"- {cxx}: a unit did not compile\n"
    return out


SECTIONS = {"gradients": gradients_section, "long": long_section, "users": users_section}
TITLE = "# Compile time\n\n"


def kept_sections(path):
    """The sections of an earlier report, by table name, from their '## ' headings."""
    if not os.path.exists(path):
        return {}
    text = open(path).read()
    headings = {"## Gradients by expression size": "gradients", "## Long vectors": "long",
                "## The suite as users write it": "users"}
    kept = {}
    for part in re.split(r"^(?=## )", text, flags=re.M)[1:]:
        name = headings.get(part.splitlines()[0])
        if name:
            kept[name] = part.rstrip("\n") + "\n"
    return kept


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", default=",".join(SECTIONS), help="which tables to measure: gradients, long, users")
    parser.add_argument("--cxx", default="g++,clang++")
    parser.add_argument("--flags", default="-O2")
    parser.add_argument("--sizes", default="10,100,1000,3000")
    parser.add_argument("--matrix-sizes", default="2,4,8,16,32")
    parser.add_argument("--long-flags", default="-O3")
    parser.add_argument("--long-sizes", default="1000,10000")
    parser.add_argument("--users-flags", default="-O3")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "COMPILE_TIME.md"))
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--repeat", type=int, default=3, help="rounds of every compile; the least time is kept")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    tables = args.tables.split(",")
    unknown = [t for t in tables if t not in SECTIONS]
    if unknown:
        parser.error(f"--tables: unknown {', '.join(unknown)} (the tables are {', '.join(SECTIONS)})")
    compilers = args.cxx.split(",")

    sections = kept_sections(args.out)
    for name in tables:
        sections[name] = SECTIONS[name](args, compilers)
    with open(args.out, "w") as out:
        out.write(TITLE + "\n".join(sections[name] for name in SECTIONS if name in sections))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
