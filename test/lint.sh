#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# test/lint.sh: the code's style and clang-tidy's checks, failing on any finding.
#   1. clang-format --dry-run -Werror over every .hpp and .cpp of include/, test/, bench/ and examples/
#      (style: .clang-format; fix with clang-format-14 -i on the files it names);
#   2. clang-tidy over each public header alone, compiled from a one-line .cpp that includes it, up to
#      nproc at a time (checks: .clang-tidy; only findings in include/tapeless/ count).
# Both are the clang 14 tools of Debian 12 (packages clang-format and clang-tidy, which test/run.sh
# installs); CLANG_FORMAT and CLANG_TIDY name others. Usage: bash test/lint.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

clang_format="${CLANG_FORMAT:-clang-format-14}"
clang_tidy="${CLANG_TIDY:-clang-tidy-14}"
jobs=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "=== lint: $clang_format over include/ test/ bench/ examples/"
format_status=0
find include test bench examples \( -name '*.hpp' -o -name '*.cpp' \) -print0 | sort -z |
  xargs -0 -n 16 -P "$jobs" "$clang_format" --dry-run -Werror || format_status=$?
if ((format_status)); then
  echo "lint: formatting differs from .clang-format (fix: $clang_format -i FILE...)" >&2
fi

echo "=== lint: $clang_tidy over each public header, $jobs at a time"
# One .cpp per header, named after it; a header whose run finds anything leaves its log in $work/failed.
mkdir -p "$work/src" "$work/failed"
find include/tapeless -name '*.hpp' | sort | while read -r header; do
  name=${header#include/}
  echo "#include <$name>" >"$work/src/${name//\//__}.cpp"
done
tidy_one() {  # source
  local source=$1 log
  log="$work/$(basename "$source").log"
  if ! "$clang_tidy" --quiet --config-file="$root/.clang-tidy" "$source" -- -std=c++20 -I"$root/include" \
    >"$log" 2>&1; then
    mv "$log" "$work/failed/"
  fi
}
export -f tidy_one
export work root clang_tidy
find "$work/src" -name '*.cpp' -print0 | xargs -0 -n 1 -P "$jobs" bash -c 'tidy_one "$0"'
tidy_failed=$(find "$work/failed" -name '*.log' | wc -l)
for log in "$work"/failed/*.log; do
  [ -e "$log" ] || continue
  echo "--- include/$(basename "$log" .cpp.log | sed 's|__|/|g')"
  grep -v ' warnings\? generated\.$' "$log"
done
headers=$(find "$work/src" -name '*.cpp' | wc -l)
echo "lint: clang-tidy: $((headers - tidy_failed)) of $headers headers clean"

((format_status == 0 && tidy_failed == 0))
