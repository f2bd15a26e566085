# SPDX-License-Identifier: BSL-1.0
# The documents' examples are the example programs: in each document, every block marked
#   <!-- snippet: examples/NAME.cpp -->   must appear word for word in that file, and every block marked
#   <!-- output: examples/NAME.cpp -->    must be exactly what that program prints.
# Run by ctest as: cmake -DDOCUMENTS=README.md,doc/guide.md -DROOT=<source dir> -DBIN=<dir of example_NAME>
#                  -P check_readme.cmake
# DOCUMENTS: paths relative to ROOT, separated by commas (a semicolon would split the ctest command);
# each must hold at least one marked block, so that a document's blocks cannot drop out unnoticed.
string(REPLACE "," ";" DOCUMENTS "${DOCUMENTS}")
set(failures 0)
set(count 0)
foreach(document IN LISTS DOCUMENTS)
  file(READ "${ROOT}/${document}" text)
  # A CMake list is split at semicolons, and C++ has many: stand them in for while matching.
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REGEX MATCHALL "<!-- (snippet|output): examples/[a-z_]+\\.cpp -->\n```[a-z]*\n[^`]*```" blocks "${text}")
  list(LENGTH blocks blocks_here)
  if(blocks_here EQUAL 0)
    message(SEND_ERROR "${document} has no marked example blocks")
    math(EXPR failures "${failures} + 1")
  endif()
  math(EXPR count "${count} + ${blocks_here}")
  foreach(block IN LISTS blocks)
    string(REGEX MATCH "<!-- (snippet|output): examples/([a-z_]+)\\.cpp -->\n```[a-z]*\n([^`]*)```" _ "${block}")
    set(kind "${CMAKE_MATCH_1}")
    set(name "${CMAKE_MATCH_2}")
    string(REPLACE "<semicolon>" ";" body "${CMAKE_MATCH_3}")
    if(kind STREQUAL "snippet")
      file(READ "${ROOT}/examples/${name}.cpp" source)
      string(FIND "${source}" "${body}" at)
      if(at EQUAL -1)
        message(SEND_ERROR "${document}: the snippet of examples/${name}.cpp is not in that file:\n${body}")
        math(EXPR failures "${failures} + 1")
      endif()
    else()
      execute_process(COMMAND "${BIN}/example_${name}" OUTPUT_VARIABLE printed RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0 OR NOT printed STREQUAL body)
        message(SEND_ERROR "examples/${name}.cpp (exit ${rc}) printed\n${printed}\nbut ${document} shows\n${body}")
        math(EXPR failures "${failures} + 1")
      endif()
    endif()
  endforeach()
endforeach()
message(STATUS "${count} example blocks checked in ${DOCUMENTS}, ${failures} failed")
