# SPDX-License-Identifier: Apache-2.0
# Turns one scdoc page into roff:
#   cmake -DSCDOC=scdoc -DSOURCE=name.1.scd -DPAGE=name.1 -DVERSION=x.y.z -P scdoc.cmake
# The page's preamble names @MIGPLAN_VERSION@, replaced here so that the footer
# shows the version being built. Any message from scdoc is an error.
foreach(var IN ITEMS SCDOC SOURCE PAGE VERSION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "scdoc.cmake: -D${var}=... is required")
  endif()
endforeach()
file(READ "${SOURCE}" text)
string(REPLACE "@MIGPLAN_VERSION@" "${VERSION}" text "${text}")
file(WRITE "${PAGE}.scd" "${text}")
execute_process(COMMAND "${SCDOC}" INPUT_FILE "${PAGE}.scd" OUTPUT_FILE "${PAGE}.tmp"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
file(REMOVE "${PAGE}.scd")
if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
  file(REMOVE "${PAGE}.tmp")
  message(FATAL_ERROR "scdoc failed on ${SOURCE} (${rc}): ${err}")
endif()
file(RENAME "${PAGE}.tmp" "${PAGE}")
