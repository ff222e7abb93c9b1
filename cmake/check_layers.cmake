# SPDX-License-Identifier: Apache-2.0
# The layers of src/ (README "Source map"): which folders each folder's files
# may include. Run as a build step (cmake -DSRC=... -DSTAMP=... -P this file),
# so an include that crosses a layer fails the build with FILE:LINE.
#
#   model/     plain data the others share (and the one diagnostic type)
#   io/        reads files into model/ types
#   render/    writes model/ types
#   plan/      the MIP solver
#   replay/    simulate's and place's services (on plan/ for the static plan)
#   pack/      pack's service (on io/ for request words)
#   check/     check's service (on io/ for the files it reads)
#   commands/  wiring: options -> io -> a service -> render; may use any
# Top-level headers: error.hpp, quote.hpp, text.hpp, k8s_names.hpp (the
# names Kubernetes accepts), diagnostic.hpp (the one
# diagnostic of every reader and of check) and messages.hpp (the sentences
# that explain a reason code, for readers, services and renderers alike) are
# for every layer. models.hpp (the set of models of a run) is the commands'
# alone: readers and services take the models they need as a value.
cmake_minimum_required(VERSION 3.25)

set(common error.hpp quote.hpp text.hpp k8s_names.hpp messages.hpp diagnostic.hpp)
set(allowed_model model diagnostic.hpp)
set(allowed_io io model ${common})
set(allowed_render render model ${common})
set(allowed_plan plan model ${common})
set(allowed_replay replay model plan ${common})
set(allowed_pack pack io model ${common})
set(allowed_check check io model ${common})

set(problems "")
foreach(layer model io render plan replay pack check)
  file(GLOB files "${SRC}/${layer}/*.hpp" "${SRC}/${layer}/*.cpp")
  foreach(f IN LISTS files)
    file(STRINGS "${f}" lines)
    set(n 0)
    foreach(line IN LISTS lines)
      math(EXPR n "${n} + 1")
      # "io/names.hpp" names the folder io; "error.hpp" the top-level header.
      if(line MATCHES "^#include \"([^\"/]+)")
        set(what "${CMAKE_MATCH_1}")
        if(NOT what IN_LIST allowed_${layer})
          file(RELATIVE_PATH rel "${SRC}/.." "${f}")
          string(APPEND problems "${rel}:${n}: ${layer}/ may not include \"${what}\" (${line})\n")
        endif()
      endif()
    endforeach()
  endforeach()
endforeach()

if(problems)
  message(FATAL_ERROR "includes that cross the layers of src/ (cmake/check_layers.cmake):\n${problems}")
endif()
if(STAMP)
  file(TOUCH "${STAMP}")
endif()
