// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan place` answers: where one arriving instance goes on the fleet
// as it is, per dynamic policy, with the ranked alternatives (replay.hpp's
// rank_placements), filled by the command and printed by render/place.

#include <migplan/moves.hpp>
#include <migplan/replay.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/emit.hpp"
#include "model/fleet_now.hpp"

namespace migplan::cli {

/// One GPU of the fleet as it is.
struct place_policy {
  std::string name;       ///< as --policy names it
  replay_policy policy;   ///< a dynamic policy
  place_ranking ranking;  ///< every place, most preferred first
};

/// `--allow-moves K`'s answer (moves.hpp's fewest_moves on the fleet).
struct place_moves {
  int allowed = 0;  ///< K
  moves_plan plan;  ///< found with no steps when the instance fits as the fleet is
};

/// A GPU that cannot take the instance, among those nearest to taking it,
/// and what keeps it from taking it (the service's rank_places()).
struct place_near {
  int gpu = 0;              ///< index into place_result::gpus
  int profile = -1;         ///< the instance's profile, an index into the GPU's model's profiles
  room reach;               ///< the room further instances can reach there
  std::vector<int> starts;  ///< the profile's allowed starts
  /// Some allowed start is free, and the room reaches far enough: a rule of
  /// the driver, not the room, refuses the instance there.
  bool start_free = false;
};

/// The whole answer.
struct place_result {
  std::string profile;                ///< the request, as the catalog spells it
  std::vector<fleet_now_node> nodes;  ///< in input order
  std::vector<fleet_now_gpu> gpus;    ///< MIG-on, node by node, as replay_fleet numbers them
  std::vector<place_policy> policies;
  int alternatives = 3;              ///< places listed after each policy's choice
  std::vector<std::string> notes;    ///< lines for the user (not errors)
  std::optional<place_moves> moves;  ///< with --allow-moves
  /// When no GPU can take the instance: those whose model has the profile,
  /// most reachable room first, at most `alternatives` of them.
  std::vector<place_near> nearest;
  /// With --emit, where the instance fits as the fleet is: what creates the
  /// first policy's choice (the service's choice_plan()).
  std::optional<emit_plan> choice;
  /// True when some GPU can take the instance (then every policy has a choice).
  bool placed() const noexcept {
    return !policies.empty() && !policies.front().ranking.options.empty();
  }
  /// True when the instance fits as the fleet is, or after moves.
  bool served() const noexcept { return placed() || (moves && moves->plan.found); }
};

}  // namespace migplan::cli
