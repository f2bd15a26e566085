# SPDX-License-Identifier: BSL-1.0
# cmake -DCXX=... -DSOURCE=... -DINCLUDES=a;b [-DPCH_FLAGS=a;b] [-DTWIN=OFF] -P check.cmake
# Passes when SOURCE compiles with -DTAPELESS_COMPILE_FAIL_OK (unless TWIN is OFF) and fails without
# it, printing a diagnostic that matches the file's `// expect: <regex>` lines and none of its
# `// reject: <regex>` lines.
file(STRINGS ${SOURCE} expect_lines REGEX "^// expect: ")
if(NOT expect_lines)
  message(FATAL_ERROR "${SOURCE} has no '// expect: <regex>' line")
endif()
# PCH_FLAGS (optional): how to read the precompiled tapeless.hpp of CMakeLists.txt, built with these flags.
set(flags -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic ${PCH_FLAGS})
foreach(dir IN LISTS INCLUDES)
  list(APPEND flags -isystem ${dir})
endforeach()

if(NOT DEFINED TWIN OR TWIN)
  execute_process(COMMAND ${CXX} ${flags} -DTAPELESS_COMPILE_FAIL_OK ${SOURCE}
    RESULT_VARIABLE ok_result OUTPUT_VARIABLE ok_out ERROR_VARIABLE ok_err)
  if(NOT ok_result EQUAL 0)
    message(FATAL_ERROR "the valid twin of ${SOURCE} does not compile:\n${ok_out}${ok_err}")
  endif()
endif()

execute_process(COMMAND ${CXX} ${flags} ${SOURCE}
  RESULT_VARIABLE bad_result OUTPUT_VARIABLE bad_out ERROR_VARIABLE bad_err)
if(bad_result EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but must not")
endif()
# Lines `// reject: <regex>` name what must not follow the message: the cascade of a second error.
file(STRINGS ${SOURCE} reject_lines REGEX "^// reject: ")
foreach(line IN LISTS reject_lines)
  string(REGEX REPLACE "^// reject: " "" regex "${line}")
  if("${bad_out}${bad_err}" MATCHES "${regex}")
    message(FATAL_ERROR "${SOURCE} failed to compile with '${regex}' after its message, a cascade:\n${bad_out}${bad_err}")
  endif()
endforeach()
foreach(line IN LISTS expect_lines)
  string(REGEX REPLACE "^// expect: " "" regex "${line}")
  if(NOT "${bad_out}${bad_err}" MATCHES "${regex}")
    message(FATAL_ERROR "${SOURCE} failed to compile, but without the message '${regex}':\n${bad_out}${bad_err}")
  endif()
endforeach()
message(STATUS "${SOURCE}: fails as expected")
