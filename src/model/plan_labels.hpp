// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan plan --emit` writes from: each node's GPUs as the plan
// leaves them, the mig-parted labels that make those layouts and the label
// each node gets. The plan service (src/plan/labels.cpp) works them out and
// checks that a kind can be written; render/plan_emit and render/plan_slurm
// only write them. doc/plan-files.md describes the labels and their names.

#include <migplan/gpu.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace migplan::cli {

/// The label of nodes with MIG off on every GPU: the GPU Operator's default.
inline constexpr std::string_view disabled_label = "all-disabled";

/// "1c.3g.20gb": the name mig-parted knows a CI profile by, of (GI profile
/// index, CI profile index into its ci_profiles).
inline std::string_view ci_name(const gpu_model& g, std::pair<int, int> gi_ci) {
  return g.profiles[static_cast<std::size_t>(gi_ci.first)]
      .ci_profiles[static_cast<std::size_t>(gi_ci.second)]
      .name;
}

/// What mig-parted can say of one GPU: MIG on or off and how many instances
/// of each profile (never where: mig-parted chooses the starts).
struct emitted_geometry {
  bool mig_enabled = false;
  std::vector<std::pair<int, int>> counts;  ///< (profile index, count), by profile index
  /// GPU instances split into compute instances: ((GI profile index, CI profile index
  /// into its ci_profiles), count of CIs), as mig-parted names them ("1c.3g.20gb": 5);
  /// these GIs are not in `counts` (mig-parted creates a GI for its CIs).
  std::vector<std::pair<std::pair<int, int>, int>> ci_counts{};
  friend bool operator==(const emitted_geometry&, const emitted_geometry&) = default;
};

/// One entry of a mig-parted label.
struct emitted_entry {
  /// Its model; its device-filter lists the model's PCI IDs (none when the
  /// model has none, or for the standard all-disabled entry, where it is null).
  const gpu_model* gpu = nullptr;
  bool all_devices = true;  ///< `devices: all`, else `devices` lists
  std::vector<int> devices;
  emitted_geometry geometry;
  friend bool operator==(const emitted_entry&, const emitted_entry&) = default;
};

/// One label of the emitted config.
struct emitted_label {
  std::string name;
  std::vector<emitted_entry> entries;
  std::vector<std::string> nodes;  ///< the nodes that get it (none without nodes)
  long long gpus = 0;              ///< GPUs it configures
};

/// The labels a plan needs and the one each node gets.
struct emitted_labels {
  std::vector<emitted_label> labels;  ///< `all-disabled` first, then in order of first use
  struct node_label {
    std::string node;
    std::string label;    ///< its new nvidia.com/mig.config
    bool changes = true;  ///< differs from its current label (always, for a fresh plan)
  };
  std::vector<node_label> nodes;  ///< in the order of plan_result::nodes
};

/// One node's GPUs as the plan leaves them, by index into the request and
/// the result (so that a plan_result that holds it can be copied).
struct planned_node {
  std::string name;
  const gpu_model* gpu = nullptr;  ///< its model (every GPU of a node is one model)
  int now = -1;                    ///< index into plan_request::current, in a re-plan
  /// Per GPU index: the index into plan_result::groups of the group whose
  /// geometry it gets, or -1 where it gets none (it keeps its current
  /// geometry in a re-plan, else MIG is off).
  std::vector<int> groups;
  /// Per GPU index: the index into the `now` node's gpus of the GPU as it
  /// is, or -1 where it is not known.
  std::vector<int> current;
};

}  // namespace migplan::cli
