// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan place` answers: where one arriving instance goes on the fleet
// as it is, per dynamic policy, with the ranked alternatives (replay.hpp's
// rank_placements), filled by the command and printed by render/place.

#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/replay.hpp>
#include <string>
#include <vector>

namespace migplan::cli {

/// One GPU of the fleet as it is.
struct place_gpu {
  int node = 0;                 ///< index into place_result::nodes
  int index = 0;                ///< its index on the node (nvidia-smi -i)
  layout held;                  ///< its GPU instances; they stay
  bool starts_assumed = false;  ///< some starts were not given: `held` is one layout they allow
};

/// One node of the fleet.
struct place_node {
  std::string name;
  const gpu_model* gpu = nullptr;  ///< every GPU of a node is one model
};

/// One policy's answer.
struct place_policy {
  std::string name;       ///< as --policy names it
  replay_policy policy;   ///< a dynamic policy
  place_ranking ranking;  ///< every place, most preferred first
};

/// The whole answer.
struct place_result {
  std::string profile;            ///< the request, as the catalog spells it
  std::vector<place_node> nodes;  ///< in input order
  std::vector<place_gpu> gpus;    ///< node by node, as replay_fleet numbers them
  std::vector<place_policy> policies;
  int alternatives = 3;            ///< places listed after each policy's choice
  std::vector<std::string> notes;  ///< lines for the user (not errors)
  /// True when some GPU can take the instance (then every policy has a choice).
  bool placed() const noexcept {
    return !policies.empty() && !policies.front().ranking.options.empty();
  }
};

}  // namespace migplan::cli
