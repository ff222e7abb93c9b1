// SPDX-License-Identifier: Apache-2.0
#pragma once

// The placement policies by the names `simulate --policy` and `place
// --policy` take (replay.hpp defines them).

#include <migplan/replay.hpp>
#include <string_view>

namespace migplan::cli {

/// A policy and its command-line name.
struct policy_name {
  std::string_view name;  ///< as --policy takes it
  replay_policy policy;   ///< what it means
  /// A named scheduler's rule (doc/simulate.md), replayed by simulate only.
  bool baseline = false;
};

/// Every policy, static ones first.
inline constexpr policy_name policy_names[] = {
    {"static", {replay_mode::static_geometry, node_choice::spread, gpu_choice::first_fit}},
    {"static-pack", {replay_mode::static_geometry, node_choice::pack, gpu_choice::first_fit}},
    {"spread-first-fit", {replay_mode::dynamic, node_choice::spread, gpu_choice::first_fit}},
    {"spread-best-fit", {replay_mode::dynamic, node_choice::spread, gpu_choice::best_fit}},
    {"pack-first-fit", {replay_mode::dynamic, node_choice::pack, gpu_choice::first_fit}},
    {"pack-best-fit", {replay_mode::dynamic, node_choice::pack, gpu_choice::best_fit}},
    {"dra-first-fit", {replay_mode::dynamic, node_choice::first, gpu_choice::name_order}, true},
    {"hami", {replay_mode::dynamic, node_choice::pack, gpu_choice::hami}, true},
};

/// How a policy picks nodes, as the JSON reports write it.
constexpr std::string_view node_choice_name(node_choice c) {
  return c == node_choice::spread ? "spread" : c == node_choice::pack ? "pack" : "first";
}

/// How a policy picks the place on a node, as the JSON reports write it.
constexpr std::string_view gpu_choice_name(gpu_choice c) {
  return c == gpu_choice::first_fit    ? "first-fit"
         : c == gpu_choice::best_fit   ? "best-fit"
         : c == gpu_choice::name_order ? "name-order"
                                       : "hami";
}

}  // namespace migplan::cli
