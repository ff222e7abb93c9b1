// SPDX-License-Identifier: Apache-2.0
// `migplan place`'s service: each policy's ranking of the places where one
// arriving instance can go on the fleet as it is (replay.hpp's
// rank_placements), and the instance to create for its first choice.
#pragma once

#include <migplan/lookup.hpp>

#include "model/emit.hpp"
#include "model/place.hpp"

namespace migplan::cli {

/// Ranks the places of one `r.profile` instance on `r`'s GPUs for each of
/// `r.policies` (their rankings are filled in).
void rank_places(place_result& r);

/// The fewest moves, at most `most`, after which one `r.profile` instance
/// fits on `r`'s GPUs (moves.hpp).
place_moves find_moves(const place_result& r, int most);

/// What creates the first policy's choice on its GPU (r.placed() must hold):
/// the GPU's instances stay, the chosen one is created; `models` are those
/// whose observed creation orders may back the order.
emit_plan choice_plan(model_list models, const place_result& r);

}  // namespace migplan::cli
