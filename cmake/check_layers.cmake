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
#   check/     check's service (on io/ for the files it reads, on pack/ for
#              resolving an entry's compute instances as pack does)
#   commands/  wiring: options -> io -> a service -> render; may use any
# Top-level headers: error.hpp, quote.hpp, text.hpp, k8s_names.hpp (the
# names Kubernetes accepts), slurm_names.hpp (the names Slurm takes), diagnostic.hpp (the one
# diagnostic of every reader and of check) and messages.hpp (the sentences
# that explain a reason code, for readers, services and renderers alike) are
# for every layer. models.hpp (the set of models of a run) is the commands'
# alone: readers and services take the models they need as a value.
cmake_minimum_required(VERSION 3.25)

set(common error.hpp quote.hpp text.hpp k8s_names.hpp slurm_names.hpp messages.hpp diagnostic.hpp)
set(allowed_model model diagnostic.hpp)
set(allowed_io io model ${common})
set(allowed_render render model ${common})
set(allowed_plan plan model ${common})
set(allowed_replay replay model plan ${common})
set(allowed_pack pack io model ${common})
set(allowed_check check pack io model ${common})

# commands/ wires: every layer and the run's models, but nothing outside
# src/'s folders and top-level headers. At the top level, the common headers
# (and messages.cpp, fmt.cpp) include only each other; models.* is the
# commands' (it reads --gpu-file through io/); app.* and main.cpp are the
# wiring above the commands and may include anything.
set(allowed_commands commands model io render plan replay pack check ${common} app.hpp models.hpp)
set(allowed_top_common ${common})
set(allowed_top_models io model ${common} models.hpp)

set(top_common error.hpp quote.hpp text.hpp k8s_names.hpp slurm_names.hpp messages.hpp messages.cpp diagnostic.hpp
    fmt.cpp)
set(top_models models.hpp models.cpp)
set(top_wiring app.hpp app.cpp main.cpp)

set(problems "")
# Every top-level file is in one of the three groups: a new one must be
# placed, so it is checked too.
file(GLOB top RELATIVE "${SRC}" "${SRC}/*.hpp" "${SRC}/*.cpp")
foreach(f IN LISTS top)
  if(NOT f IN_LIST top_common AND NOT f IN_LIST top_models AND NOT f IN_LIST top_wiring)
    string(APPEND problems "src/${f}: a top-level file no group of cmake/check_layers.cmake names\n")
  endif()
endforeach()
foreach(layer model io render plan replay pack check commands top_common top_models)
  if(layer STREQUAL "top_common" OR layer STREQUAL "top_models")
    set(files)
    foreach(name IN LISTS ${layer})
      if(EXISTS "${SRC}/${name}")
        list(APPEND files "${SRC}/${name}")
      endif()
    endforeach()
  else()
    file(GLOB files "${SRC}/${layer}/*.hpp" "${SRC}/${layer}/*.cpp")
  endif()
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
          if(layer MATCHES "^top_(.*)")
            set(where "a top-level ${CMAKE_MATCH_1} file")
          else()
            set(where "${layer}/")
          endif()
          string(APPEND problems "${rel}:${n}: ${where} may not include \"${what}\" (${line})\n")
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
