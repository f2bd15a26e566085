#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The pictures of the docs: builds examples/trace_walkthrough.cpp, runs it to write the Graphviz DOT
# graphs of the walkthrough function and of the logistic-regression loss (tl::to_dot), and renders
# them with Debian's graphviz `dot` to doc/images/walkthrough.png and doc/images/logistic_regression.png.
# Installs what a fresh Debian 12 machine lacks first.
# Usage: bash doc/render.sh [build dir, default build/doc]; JOBS=n limits the build's parallel jobs.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ libboost-dev graphviz)
bash cmake/ensure_packages.sh "${packages[@]}"

dir=${1:-build/doc}
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTAPELESS_BUILD_TESTS=OFF -DTAPELESS_BUILD_BENCHMARKS=OFF \
  -DTAPELESS_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$dir" --target example_trace_walkthrough --parallel "${JOBS:-$(nproc)}"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$dir/examples/example_trace_walkthrough" "$out" >/dev/null
mkdir -p doc/images
for graph in walkthrough logistic_regression; do
  dot -Tpng "$out/$graph.dot" -o "doc/images/$graph.png"
  echo "doc/images/$graph.png"
done
