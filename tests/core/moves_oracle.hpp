// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file moves_oracle.hpp
/// A deliberately naive reference for moves.hpp's fewest_moves: breadth-first
/// over every fleet state reachable by single moves (any instance, to any
/// start of any GPU of its model), legality by membership in
/// oracle::all_layouts. It sees only the data model and oracle.hpp.

#include <migplan/gpu.hpp>
#include <vector>

#include "oracle.hpp"

namespace oracle {

/// One GPU of a small fleet: its model, the arrival's profile index there
/// (-1: none) and its instances as (start, profile) pairs.
struct fleet_gpu {
  const migplan::gpu_model* model = nullptr;
  int arrival = -1;
  layout_set held;
};

/// True when `l` (in any order) is a layout the rules allow on `gpu`.
bool legal(const migplan::gpu_model& gpu, layout_set l);

/// True when the arrival fits on some GPU of `fleet` as it is.
bool arrival_fits(const std::vector<fleet_gpu>& fleet);

/// The fewest single moves after which the arrival fits, breadth-first up to
/// `most`; -1 when more are needed.
int fewest_moves(const std::vector<fleet_gpu>& fleet, int most);

}  // namespace oracle
