# SPDX-License-Identifier: BSL-1.0
# cmake -DMODE=find_package|add_subdirectory -DSOURCE_DIR=... -DWORK_DIR=... -DCXX=... -DGENERATOR=... -P check.cmake
# Builds the consumer project against tapeless and runs it.
set(consumer ${CMAKE_CURRENT_LIST_DIR}/consumer)
file(REMOVE_RECURSE ${WORK_DIR})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}${err}")
  endif()
endfunction()

set(common -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX})
if(MODE STREQUAL "find_package")
  # Install tapeless alone (tests off, as a packager would), then find it from the prefix.
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/tapeless ${common} -DCMAKE_INSTALL_PREFIX=${WORK_DIR}/prefix
      -DTAPELESS_BUILD_TESTS=OFF -DTAPELESS_BUILD_BENCHMARKS=OFF -DTAPELESS_BUILD_EXAMPLES=OFF -DTAPELESS_INSTALL=ON)
  run(${CMAKE_COMMAND} --install ${WORK_DIR}/tapeless)
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/consumer ${common} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
else()
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/consumer ${common} -DTAPELESS_SOURCE_DIR=${SOURCE_DIR})
endif()
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${WORK_DIR}/consumer/consumer)
message(STATUS "consumer through ${MODE}: built and ran")
