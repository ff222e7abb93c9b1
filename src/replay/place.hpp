// SPDX-License-Identifier: Apache-2.0
// `migplan place`'s service: each policy's ranking of the places where one
// arriving instance can go on the fleet as it is (replay.hpp's
// rank_placements), and the instance to create for its first choice.
#pragma once

#include <migplan/lookup.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "model/emit.hpp"
#include "model/fleet_now.hpp"
#include "model/place.hpp"

namespace migplan::cli {

/// The fleet `now` as place answers on it: its GPUs with MIG on (placing
/// on one with MIG off needs MIG mode turned on first, a reset, not an
/// arrival's decision), with a note naming `mig_off` (io/fleet_now.hpp
/// mig_off_gpus()); an error when no GPU has MIG on (`shown` names the file).
result<place_result> place_fleet(fleet_now now, const std::vector<std::string>& mig_off,
                                 std::string_view shown);

/// Ranks the places of one `r.profile` instance on `r`'s GPUs for each of
/// `r.policies` (their rankings are filled in); where none can take it,
/// fills `r.nearest`.
void rank_places(place_result& r);

/// The fewest moves, at most `most`, after which one `r.profile` instance
/// fits on `r`'s GPUs (moves.hpp).
place_moves find_moves(const place_result& r, int most);

/// What creates the first policy's choice on its GPU (r.placed() must hold):
/// the GPU's instances stay, the chosen one is created; `models` are those
/// whose observed creation orders may back the order.
emit_plan choice_plan(model_list models, const place_result& r);

}  // namespace migplan::cli
