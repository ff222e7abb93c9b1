# SPDX-License-Identifier: Apache-2.0
# Whether the layer link check (cmake/layer_links.cmake) can fail: the
# canary that calls render/ from io/ must link with render's objects and
# must not link without them, naming the symbol. Run as
# cmake -DBUILD_DIR=... -P cmake/layer_link_test.cmake
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target migplan_link_canary_ok
                RESULT_VARIABLE ok_rc OUTPUT_VARIABLE ok_out ERROR_VARIABLE ok_out)
if(NOT ok_rc EQUAL 0)
  message(FATAL_ERROR "the canary does not link even with render's objects:\n${ok_out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target migplan_link_canary
                RESULT_VARIABLE bad_rc OUTPUT_VARIABLE bad_out ERROR_VARIABLE bad_out)
if(bad_rc EQUAL 0)
  message(FATAL_ERROR "io's link took a call into render/: the layer link check cannot fail")
endif()
if(NOT bad_out MATCHES "undefined (symbol|reference).*github_escape_data")
  message(FATAL_ERROR "the canary failed, but not on the render/ symbol:\n${bad_out}")
endif()
message(STATUS "io's link refuses the call into render/, as it should")
