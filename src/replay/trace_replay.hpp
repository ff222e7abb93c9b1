// SPDX-License-Identifier: Apache-2.0
// A trace made ready to replay on one GPU model (what `migplan simulate`
// replays): each row's pods resolved to a profile of the model, the
// per-profile concurrent peaks, the exact static plan for those peaks, and
// the static geometry that plan gives a fleet of any size.
#pragma once

#include <cstdint>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <migplan/replay.hpp>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "error.hpp"
#include "model/plan.hpp"
#include "model/trace.hpp"

namespace migplan::cli {

/// Geometries ("PROFILE@START ...") and how many GPUs have each.
using geometry_counts = std::vector<std::pair<std::string, long long>>;

struct trace_replay {
  const gpu_model* gpu = nullptr;
  std::vector<replay_item> items;   ///< one per (profile, instances) the rows ask for
  std::vector<replay_pod> pods;     ///< in the trace's order
  std::vector<std::int64_t> peaks;  ///< per profile of `gpu`: the most instances at once
  std::vector<plan_group> groups;   ///< the static plan for the peaks (empty: no pod)
  long long plan_gpus = 0;          ///< its GPUs
  bool plan_optimal = false;        ///< its GPU count is proven least

  /// The static geometry of a fleet of `n` GPUs: GPU i takes planned GPU i
  /// mod the plan's count; a fleet smaller than the plan takes the planned
  /// GPUs that keep each profile's instances nearest its share of the peak
  /// (doc/simulate.md), each geometry's GPUs together in the plan's order.
  std::vector<layout> geometry(int n) const;

  /// Replaces the static geometry with `planned` (a plan read from a file);
  /// plan_gpus and plan_optimal stay the peaks plan's, for comparison.
  void set_static(std::vector<plan_group> planned);
  /// GPUs of the static geometry's plan (the peaks plan's, or set_static's).
  long long static_gpus() const;

  std::vector<plan_group> static_groups;  ///< the plan geometry() takes GPUs from
  std::vector<layout> group_layouts;      ///< one per static group
  std::vector<int>
      order;  ///< the groups a smaller fleet takes, GPU by GPU (max_simulate_gpus at most)
};

/// The replay's items and pods from the trace's rows, each row's profile
/// resolved on each of `gpus` (the fleet's models, in order: a replay_item's
/// profile per model, -1 where a model has none that serves it); an error
/// names the first row that no model serves. `share_by_memory` as below.
result<std::pair<std::vector<replay_item>, std::vector<replay_pod>>> pods_of(
    const trace& t, std::span<const gpu_model* const> gpus, bool share_by_memory);

/// What a trace needs of `gpu`, its static plan solved within
/// `plan_time_limit_s`; an error names the row no profile serves, or says
/// that the plan found no geometry in time. `share_by_memory`: Alibaba's
/// gpu_milli by memory share (else by compute share).
result<trace_replay> prepare_replay(const trace& t, const gpu_model& gpu, bool share_by_memory,
                                    double plan_time_limit_s);

/// prepare_replay's error `e` when one of several models is sized: a row
/// that model cannot serve (an error placed at the row) gains how a trace
/// names what every model can serve; any other error is `e`.
error unserved_on_one_of_several(const error& e);

/// The static geometry of a fleet of several models: the trace's pods
/// grouped into kinds (the same profile on each model), each kind's
/// concurrent peak, and plan's least-unmet, then fewest-GPU plan for those
/// peaks within each model's GPUs in the fleet.
struct mixed_static {
  /// Per kind with a peak: its name ("h100-80gb 1g.10gb / a30 1g.6gb", the
  /// models that serve it) and the most instances of it at once.
  std::vector<std::pair<std::string, std::int64_t>> peaks;
  /// Per entry of `peaks`: the models that serve the kind and its profile on each.
  std::vector<std::vector<std::pair<const gpu_model*, int>>> kinds;
  long long plan_gpus = 0;         ///< GPUs the plan uses
  bool plan_optimal = false;       ///< that count is proven least (for what it meets)
  long long unmet = 0;             ///< peak instances the fleet cannot hold
  std::vector<plan_group> groups;  ///< the plan
  /// Per fleet GPU (node by node): model m's GPUs take that model's planned
  /// GPUs in group order, round and round; a model the plan leaves unused
  /// has empty GPUs.
  std::vector<layout> geometry;
};

/// mixed_static for `fleet`'s models (see above); an error says that the
/// plan found no geometry in time.
result<mixed_static> plan_mixed_static(const replay_fleet& fleet,
                                       std::span<const replay_item> items,
                                       std::span<const replay_pod> pods, double plan_time_limit_s);

/// Pods of a trace that no node of some number of GPUs holds, however many
/// nodes a fleet has: all of a pod's instances go on one node.
struct unholdable_pods {
  long long pods = 0;  ///< pods that no such node holds
  diagnostic first;    ///< the first row that asks for one: its file, line and why
};

/// The pods of `tr` (read from `t`) that no node of `per_node` empty GPUs
/// of tr.gpu holds.
unholdable_pods pods_no_node_holds(const trace& t, const trace_replay& tr, int per_node);

/// A fleet of `gpus` GPUs of `gpu` in nodes of `per_node` (the last may have fewer).
replay_fleet fleet_of(const gpu_model& gpu, int gpus, int per_node);

/// Identical geometries of `gpus` (one layout per GPU of `gpu`) and their
/// counts, in order of first appearance; "(none)" for an empty GPU.
geometry_counts geometries_of(const gpu_model& gpu, const std::vector<layout>& gpus);

/// A plan group's instances as "PROFILE@START ...".
std::string geometry_text(const gpu_model& gpu, const std::vector<planned_instance>& instances);

}  // namespace migplan::cli
