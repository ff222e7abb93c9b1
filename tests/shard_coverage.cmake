# SPDX-License-Identifier: Apache-2.0
# The test shards (MIGPLAN_TEST_SHARDS, tests/CMakeLists.txt) run every
# case the skipped tags leave. A shard is registered from a count of its
# file's TEST_CASEs and tags, so a wrong count (a tag named in a comment)
# could drop a file's shard without a word: every file tag that still names
# a case once SKIP is applied must have a shard. Run as
# cmake -DBIN=... -DSTEMS=a_test,b_test -DSKIP=~[exhaustive] -P tests/shard_coverage.cmake
# (STEMS and SKIP joined by commas).
cmake_minimum_required(VERSION 3.25)
string(REPLACE "," ";" STEMS "${STEMS}")
string(REPLACE "," ";" SKIP "${SKIP}")
execute_process(COMMAND ${BIN} --filenames-as-tags --list-tags ${SKIP} OUTPUT_VARIABLE out)
string(REGEX MATCHALL "[0-9]+  \\[#[A-Za-z0-9_]+\\]" tags "${out}")
if(NOT tags)
  message(FATAL_ERROR "${BIN} --list-tags names no file tag:\n${out}")
endif()
set(missing)
set(cases 0)
foreach(t IN LISTS tags)
  string(REGEX MATCH "^([0-9]+)  \\[#(.*)\\]$" _ "${t}")
  math(EXPR cases "${cases} + ${CMAKE_MATCH_1}")
  if(NOT CMAKE_MATCH_2 IN_LIST STEMS)
    list(APPEND missing "${CMAKE_MATCH_2} (${CMAKE_MATCH_1} cases)")
  endif()
endforeach()
if(missing)
  string(REPLACE ";" "\n  " missing "${missing}")
  message(FATAL_ERROR "${BIN}: no shard runs the cases of\n  ${missing}")
endif()
message(STATUS "${BIN}: the shards run all ${cases} cases")
