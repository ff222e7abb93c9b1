// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan plan --emit`: a plan written for the tools that apply it. One
// mig-parted v1 config with a label per distinct node layout, the same
// wrapped as the GPU Operator's ConfigMap, or the `kubectl label node`
// commands that select those labels. doc/plan-files.md describes the output
// and how labels are named.

#include <iosfwd>
#include <migplan/gpu.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/plan.hpp"

namespace migplan::cli::render {

/// What --emit writes.
enum class plan_emit_kind {
  mig_parted,  ///< a mig-parted config (version: v1)
  configmap,   ///< that config as the GPU Operator's ConfigMap
  labels,      ///< `kubectl label node` commands, for the nodes whose label changes
  slurm,       ///< Slurm GRES: gres.conf and each node's slurm.conf Gres counts
};

/// Settings of the emitted files.
struct plan_emit_options {
  /// The ConfigMap's metadata.name: the GPU Operator's documented example,
  /// which its ClusterPolicy then names in spec.migManager.config.name.
  std::string configmap_name = "custom-mig-config";
};

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

/// One node's GPUs as the plan leaves them.
struct planned_node {
  std::string name;
  const gpu_model* gpu = nullptr;     ///< its model (every GPU of a node is one model)
  const current_node* now = nullptr;  ///< the node as it is, in a re-plan
  /// Per GPU index: the group whose geometry it gets, or null where it gets
  /// none (it keeps `current`'s geometry in a re-plan, else MIG is off).
  std::vector<const plan_group*> groups;
  std::vector<const current_gpu*> current;  ///< per GPU index: the GPU as it is, if known
};

/// The plan's nodes (none without nodes), in the order of plan_result::nodes.
std::vector<planned_node> planned_nodes(const plan_request& req, const plan_result& res);

/// The labels of a plan. With nodes: one per distinct node layout, named
/// "migplan-<model>-<8 hex digits of a hash of the layout>" (the same layout
/// always gets the same name, so a re-plan keeps the labels of nodes that do
/// not change), "all-disabled" for nodes with MIG off on every GPU; in a
/// re-plan a node whose GPUs do not change keeps its current label where the
/// label can hold its layout. Without nodes: one per distinct geometry.
/// A GPU in no group (-1, or absent from the node's list) keeps its current
/// geometry in a re-plan and is otherwise left with MIG off.
emitted_labels plan_labels(const plan_request& req, const plan_result& res);

/// Why `kind` cannot be written for this plan, or "" when it can: a plan
/// that does not meet the demand; `labels` or `slurm` without nodes; `slurm`
/// with a node name Slurm cannot take.
std::string plan_emit_problem(plan_emit_kind kind, const plan_request& req, const plan_result& res);

/// Writes `kind` for the plan (plan_emit_problem() must be "").
void plan_emit(std::ostream& out, plan_emit_kind kind, const plan_request& req,
               const plan_result& res, const plan_emit_options& opt = {});

/// Slurm GRES for the plan's nodes (render/plan_slurm.cpp): gres.conf's
/// `AutoDetect=nvml` and a `NodeName=NODE Gres=...` line per node, MIG
/// devices counted per type as render/slurm.hpp names them, a GPU with MIG
/// off under its own name.
void plan_slurm(std::ostream& out, const plan_request& req, const plan_result& res);

/// Why plan_slurm cannot write this plan (a node name Slurm cannot hold, GPUs
/// with MIG off on a model with no short name to type them by), or "".
std::string plan_slurm_problem(const plan_request& req, const plan_result& res);

/// `text` as one sh word: as is when it holds only characters no shell
/// treats specially, else in single quotes ("'" written as '\'').
std::string sh_quote(std::string_view text);

}  // namespace migplan::cli::render
