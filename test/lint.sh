#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# test/lint.sh: the code's style and clang-tidy's checks, failing on any finding.
#   1. clang-format --dry-run -Werror over every .hpp and .cpp of include/, test/, bench/ and examples/
#      (style: .clang-format; fix with clang-format-14 -i on the files it names);
#   2. clang-tidy over every public header (checks: .clang-tidy; only findings in include/tapeless/
#      count), from one .cpp that includes them all, twice: default, and with AVX2 and fused regions;
#   3. test/check_layers.py: no header of include/tapeless reaches a higher layer (doc/design.md);
#   4. every public header's tests where its path says, or its `// Tests:` line (test/check_test_paths.sh);
#   5. test/check_std_includes.py: every public header includes the standard headers whose names it uses
#      (the header tests read them precompiled, so they cannot see one missing).
# The first two are the clang 14 tools of Debian 12 (packages clang-format and clang-tidy, which
# test/run.sh installs, with python3 for the third and fifth); CLANG_FORMAT and CLANG_TIDY name others.
# Usage: bash test/lint.sh
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

echo "=== lint: the layers of include/tapeless"
layers_status=0
python3 test/check_layers.py || layers_status=$?
if ((layers_status)); then
  echo "lint: a header reaches a higher layer (doc/design.md, Layers): include or define it lower" >&2
fi

echo "=== lint: every header has its tests (test/check_test_paths.sh)"
test_paths_status=0
bash test/check_test_paths.sh || test_paths_status=$?

echo "=== lint: every header includes the standard headers it uses (test/check_std_includes.py)"
std_includes_status=0
python3 test/check_std_includes.py || std_includes_status=$?
if ((std_includes_status)); then
  echo "lint: a header uses a standard name without its include: add the include it names" >&2
fi

echo "=== lint: $clang_tidy over every public header"
# Two translation units that include every header, run side by side: the default build, and the one
# with AVX2 and FMA, whose preprocessor branches differ. A finding in a header is the
# same whichever file includes it, and one parse serves every header: 15 s each, where a run per
# header would take minutes. That each header compiles alone is the g++ build's header tests' job.
all_headers=$(find include/tapeless -name '*.hpp' | sort | sed 's|^include/\(.*\)$|#include <\1>|')
echo "$all_headers" >"$work/all_headers.cpp"
tidy_one() {  # name, extra compiler flags...: leaves $work/name.log, and $work/name.failed on findings
  local name=$1
  shift
  "$clang_tidy" --quiet --config-file="$root/.clang-tidy" "$work/all_headers.cpp" -- -std=c++20 -I"$root/include" "$@" \
    >"$work/$name.log" 2>&1 || touch "$work/$name.failed"
}
tidy_one default &
tidy_one avx2 -mavx2 -mfma &
wait
tidy_status=0
for name in default avx2; do
  [ -e "$work/$name.failed" ] || continue
  tidy_status=1
  echo "--- clang-tidy findings ($name build)"
  grep -v ' warnings\? generated\.$' "$work/$name.log"
done
((tidy_status)) || echo "lint: clang-tidy: every header clean"

((format_status == 0 && tidy_status == 0 && layers_status == 0 && test_paths_status == 0 && std_includes_status == 0))
