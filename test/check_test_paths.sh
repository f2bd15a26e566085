#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# test/check_test_paths.sh: a header's tests are found from its path (CONTRIBUTING.md, "The tests").
#   The tests of include/tapeless/X/Y.hpp are test/unit/X/Y_test.cpp or the *_test.cpp files of
#   test/unit/X/Y/; a header with neither names its tests in its opening comment, in a line
#   `// Tests: PATH...` (files or folders of test/, from the repository's root), and each must exist.
#   Every test/unit/.../NAME_test.cpp lies at such a path of a header.
# Fails naming each header without tests, each path named that is missing, and each unit test file
# that belongs to no header. Usage: bash test/check_test_paths.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

status=0
fail() {
  echo "check_test_paths: $*" >&2
  status=1
}

while IFS= read -r header; do
  name=${header#include/tapeless/}
  name=${name%.hpp}
  # The paths of the `// Tests:` lines of the opening comment (the lines before the first that is not
  # a comment), checked wherever they are written.
  named=$(awk '!/^\/\//{exit} sub(/^\/\/ Tests: /, "")' "$header")
  for path in $named; do
    [[ $path == test/* && -e $path ]] || fail "$header: '// Tests: $path' is not a file or folder of test/"
  done
  if [[ -z $named && ! -f test/unit/${name}_test.cpp ]] && ! compgen -G "test/unit/$name/*_test.cpp" >/dev/null; then
    fail "$header has no tests: no test/unit/${name}_test.cpp, no test/unit/$name/*_test.cpp, and no" \
      "'// Tests: PATH' line in its opening comment naming where they are"
  fi
done < <(find include/tapeless -name '*.hpp' | sort)

while IFS= read -r test; do
  name=${test#test/unit/}
  name=${name%_test.cpp}
  folder=${name%/*}  # a file of test/unit/X/Y/ belongs to include/tapeless/X/Y.hpp
  [[ -f include/tapeless/$name.hpp || ($folder != "$name" && -f include/tapeless/$folder.hpp) ]] ||
    fail "$test tests no header: there is no include/tapeless/$name.hpp, nor a header of its folder" \
      "(a property of the whole library belongs in test/integration/)"
done < <(find test/unit -name '*_test.cpp' | sort)

((status == 0)) && echo "check_test_paths: every header's tests are where its path or its '// Tests:' line says"
exit "$status"
