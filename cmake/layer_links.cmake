# SPDX-License-Identifier: Apache-2.0
# The layers of src/ as link targets: each layer's objects linked into a
# program of their own with only the objects of the layers below it, so a
# call across a layer (an io/ file calling a render/ function, say) fails
# to link, naming the symbol and the object that wants it.
#
# cmake/check_layers.cmake checks includes, which also catches inline and
# header-only uses that a linker never sees; this checks what the objects
# actually call, which an include check misses where a file declares a
# function itself instead of including its header. Static archives per
# layer would not do: a wrong call resolves or not by the order the
# archives happen to stand on the link line. Objects named on a link line
# are all linked, and every symbol they need must be found.
#
# It needs objects that each belong to one layer, so it is defined where
# src/ compiles one file at a time (MIGPLAN_UNITY_BUILD off) or in units of
# one folder each (MIGPLAN_UNITY_LAYERS: the asan preset, which CI builds);
# the default units mix layers. Included from CMakeLists.txt after the
# targets migplan_cli, migplan_hot and migplan_plan exist.

# The objects of src/ by folder, from both targets that compile src/.
set(layer_objects $<TARGET_OBJECTS:migplan_cli> $<TARGET_OBJECTS:migplan_hot>)
function(migplan_layer_objects out)
  set(objs)
  foreach(folder IN LISTS ARGN)
    if(folder STREQUAL "plan")
      list(APPEND objs $<TARGET_OBJECTS:migplan_plan>)
    elseif(folder STREQUAL "models")
      list(APPEND objs "$<FILTER:${layer_objects},INCLUDE,/src/models\\.cpp\\.o$>")
    elseif(folder STREQUAL "common")
      # The top-level files every layer may use (messages.cpp; fmt.cpp is
      # migplan_fmt's, linked as a library below).
      list(APPEND objs "$<FILTER:${layer_objects},INCLUDE,/src/messages\\.cpp\\.o$>")
    else()
      # One object per file (src/io/x.cpp.o) or per unit of the folder
      # (Unity/unity_io_0_cxx.cxx.o, MIGPLAN_UNITY_LAYERS).
      list(APPEND objs
        "$<FILTER:${layer_objects},INCLUDE,(/src/${folder}/|/unity_${folder}_[0-9]+_cxx\.cxx\.o$)>")
    endif()
  endforeach()
  set(${out} ${objs} PARENT_SCOPE)
endfunction()

# One program per layer: the layer, then what cmake/check_layers.cmake lets
# it include (model/ is headers only, and the core is header-only);
# "models" is the top-level models.cpp (the run's models, read through io/).
set(migplan_link_layers io render plan replay pack check models)
set(layer_deps_io common)
set(layer_deps_render common)
set(layer_deps_plan common)
set(layer_deps_replay plan common)
set(layer_deps_pack io common)
set(layer_deps_check pack io common)
set(layer_deps_models io common)
add_library(migplan_link_main OBJECT cmake/layer_link_main.cpp)
foreach(layer IN LISTS migplan_link_layers)
  migplan_layer_objects(objs ${layer} ${layer_deps_${layer}})
  add_executable(migplan_link_${layer} $<TARGET_OBJECTS:migplan_link_main> ${objs})
  # The libraries outside src/ any layer may use; CBC only where plan/ is.
  target_link_libraries(migplan_link_${layer} PRIVATE migplan::core CLI11::CLI11 ${migplan_fmt}
                        nlohmann_json::nlohmann_json ${migplan_yaml})
  if("plan" IN_LIST layer_deps_${layer} OR layer STREQUAL "plan")
    target_link_libraries(migplan_link_${layer} PRIVATE ${migplan_cbc})
  endif()
  set_target_properties(migplan_link_${layer} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                        ${CMAKE_CURRENT_BINARY_DIR}/layer_links)
endforeach()

# The check's own test (tests/CMakeLists.txt, layer_link_catches_upward_call):
# cmake/layer_link_canary.cpp calls a render/ function. Linked with io's
# objects as migplan_link_io is, it must fail on that symbol; linked with
# render's too, it must link, so the failure is the layering and nothing
# else. Built only by the test.
add_executable(migplan_link_canary EXCLUDE_FROM_ALL cmake/layer_link_canary.cpp)
add_executable(migplan_link_canary_ok EXCLUDE_FROM_ALL cmake/layer_link_canary.cpp)
migplan_layer_objects(canary_objs io ${layer_deps_io})
migplan_layer_objects(canary_ok_objs io render ${layer_deps_io})
target_sources(migplan_link_canary PRIVATE ${canary_objs})
target_sources(migplan_link_canary_ok PRIVATE ${canary_ok_objs})
foreach(canary migplan_link_canary migplan_link_canary_ok)
  target_include_directories(${canary} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${canary} PRIVATE migplan::core CLI11::CLI11 ${migplan_fmt}
                        nlohmann_json::nlohmann_json ${migplan_yaml})
  set_target_properties(${canary} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                        ${CMAKE_CURRENT_BINARY_DIR}/layer_links)
endforeach()
set(MIGPLAN_LAYER_LINKS ON)
