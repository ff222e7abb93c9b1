// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan simulate` answers: the trace and fleet it replayed, the
// static plan, and per policy the replay's metrics and, with --size, the
// fewest GPUs meeting the rejection target. One contract between the
// command and render/simulate.

#include <cstdint>
#include <migplan/gpu.hpp>
#include <migplan/replay.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/fleet_now.hpp"
#include "model/plan.hpp"
#include "model/policies.hpp"
#include "model/replay_series.hpp"
#include "model/trace.hpp"

namespace migplan::cli {

/// The most GPUs of a replayed fleet, and the most --size tries.
inline constexpr long long max_simulate_gpus = 100'000;
/// The most re-plans a replan:PERIOD policy may make over a trace (its span
/// over the period): past it the run is refused before it starts.
inline constexpr long long max_replans = 1'000'000;

/// A model --gpu or --fleet names, with the most GPUs --size tries of it.
struct simulate_model {
  const gpu_model* gpu = nullptr;
  std::optional<long long> available;  ///< a fleet file's `available`
};

/// --wait-target: a percentile of a queued replay's waits and the most it may be.
struct wait_target {
  std::string name = "p99";  ///< p50, p95, p99 or max
  int percentile = 99;       ///< 50, 95, 99, or 100 for max
  std::int64_t seconds = 0;  ///< the most seconds it may be
};

/// Whether a replay of `pods` pods meets the targets: at most `reject_target`
/// percent rejected (queued: refused) and, with `wait`, the wait it names
/// within it. What --size asks of a fleet, and exit status 0 of each policy.
inline bool meets_targets(const replay_metrics& m, long long pods, double reject_target,
                          const std::optional<wait_target>& wait) {
  if (static_cast<double>(m.pods_rejected) * 100.0 > reject_target * static_cast<double>(pods))
    return false;
  if (!wait) return true;
  const std::int64_t got = wait->percentile == 50   ? m.waits.p50
                           : wait->percentile == 95 ? m.waits.p95
                           : wait->percentile == 99 ? m.waits.p99
                                                    : m.waits.max;
  return got <= wait->seconds;
}

/// --reconfigure-seconds' default: mig-manager through the GPU Operator on
/// an A100 took about 81 s from one layout to another (issue 39's figures;
/// empty to a layout 102-121 s), and a re-plan goes from layout to layout.
inline constexpr std::int64_t default_reconfigure_s = 81;

/// --create-seconds' default under a queue, in milliseconds: creating an
/// instance on demand (DRA's dynamic MIG, HAMi's) takes about a second or
/// two (issue 39's figure); doc/simulate.md, "Instances on demand". Without
/// a queue the default is 0, so that reject mode's figures stay as they were.
inline constexpr std::int64_t default_create_milli = 1500;

/// The most --create-seconds takes.
inline constexpr std::int64_t max_create_s = 3600;

/// A static policy re-planned as the trace goes: replan:PERIOD, or
/// replan-oracle:PERIOD (the next window's demand, a bound).
struct replan_choice {
  std::int64_t period_s = 0;  ///< seconds between re-plans
  bool oracle = false;        ///< sees the next window instead of the last
};

/// A policy as --policy names it, with its re-plan.
struct simulate_choice {
  std::string name;                     ///< as given
  replay_policy policy;                 ///< the core's policy (static for a re-plan)
  std::optional<replan_choice> replan;  ///< replan:PERIOD, replan-oracle:PERIOD
};

/// One policy's answer.
struct simulate_policy {
  std::string name;          ///< as --policy names it: static, spread-first-fit, ...
  replay_policy policy;      ///< the core's policy
  replay_metrics metrics;    ///< the replay on the fleet
  replay_rates rates;        ///< the rates of `metrics` on the fleet (replay_rates_of())
  std::optional<int> sized;  ///< --size: the fewest GPUs meeting the target; none within the limit
  std::optional<replay_series> series;  ///< --plot: the fleet's use over time
  std::optional<replan_choice> replan;  ///< a re-planned static policy
  double replan_seconds = 0;            ///< re-plan: the re-plans' time in all (not reproducible)
  double replan_longest_s = 0;          ///< re-plan: the longest one's (not reproducible)
};

/// --size on one model: the fewest GPUs of it each policy needs.
struct simulate_sizing {
  const gpu_model* gpu = nullptr;
  int limit = 0;              ///< the most GPUs tried (a fleet file's `available`, or 100000)
  long long plan_gpus = 0;    ///< GPUs of the static plan for the peaks on this model
  bool plan_optimal = false;  ///< that count is proven least
  std::vector<std::optional<int>> sized;  ///< per policy, in `policies` order; none within limit
  std::vector<int> replayed;              ///< the model's profiles the trace asks for (with a peak)
};

/// One model of the fleet replayed: its GPUs and nodes, and the profiles
/// of it the trace's pods are served with there.
struct simulate_fleet_model {
  const gpu_model* gpu = nullptr;
  int gpus = 0;               ///< GPUs of the model in the fleet
  int nodes = 0;              ///< nodes of the model
  std::vector<int> replayed;  ///< profiles that serve a pod of the trace on it
  /// On a fleet of several models: the static plan's geometries of the
  /// model (none with --current), and the static geometry of its GPUs, as
  /// simulate_result::geometries and static_geometries list one model's.
  std::vector<std::pair<std::string, long long>> plan_geometries;
  std::vector<std::pair<std::string, long long>> static_geometries;
};

/// What --plot draws over time.
enum class plot_metric : std::uint8_t {
  slices,  ///< compute slices held by busy instances
  gpus,    ///< GPUs holding a busy instance
};

/// The whole answer.
struct simulate_result {
  std::string trace;        ///< the trace as shown ("<stdin>" for "-")
  bool alibaba = false;     ///< read as Alibaba's pod list
  long long skipped = 0;    ///< Alibaba rows without a GPU
  long long pods = 0;       ///< pods replayed
  long long instances = 0;  ///< instances they ask for
  const gpu_model* gpu = nullptr;
  int gpus = 0;  ///< GPUs of the fleet replayed
  int per_node =
      0;          ///< GPUs per node (the last node may have fewer); --current: the most on a node
  int nodes = 0;  ///< nodes of the fleet replayed
  std::string current;  ///< --current as shown; empty when the fleet is --gpu's model
  /// The fleet's models, in replay_fleet::models order (one unless --fleet
  /// names several, or --current's nodes hold several); each policy's
  /// metrics.models follow it.
  std::vector<simulate_fleet_model> fleet_models;
  /// Per profile (name) the most instances running at once; on a fleet of
  /// several models, per kind of pod ("h100-80gb 1g.10gb / a30 1g.6gb").
  std::vector<std::pair<std::string, std::int64_t>> peaks;
  /// On a fleet of several models, per entry of `peaks`: the models that
  /// serve the kind, each with its profile.
  std::vector<std::vector<std::pair<const gpu_model*, int>>> peak_kinds;
  long long plan_gpus = 0;    ///< GPUs of the static plan for the peaks
  bool plan_optimal = false;  ///< the plan's GPU count is proven least
  /// On a fleet of several models: peak instances its GPUs cannot hold
  /// (the plan meets the rest).
  long long plan_unmet = 0;
  /// The static plan's geometries ("3g.40gb@0 2g.20gb@4 ...") and their GPU counts.
  std::vector<std::pair<std::string, long long>> geometries;
  /// Where the static policies' geometry on the fleet replayed comes from:
  /// "plan" (the plan for the peaks), "static-plan" (--static-plan's file),
  /// or "current" (the fleet's as it is). On one model, GPU i takes planned GPU
  /// i mod the plan's count, or, with `static_subset`, the fleet is smaller than the plan and takes
  /// the planned GPUs that keep each profile nearest its share of the peak.
  std::string static_from = "plan";
  bool static_subset = false;  ///< the fleet has fewer GPUs than the static plan
  std::string static_file;     ///< --static-plan as shown
  /// The static geometry on the fleet replayed, as `geometries` lists the plan's.
  std::vector<std::pair<std::string, long long>> static_geometries;
  std::vector<simulate_policy> policies;
  bool size = false;                            ///< --size was asked
  double reject_target = 0;                     ///< --reject-target, percent of pods
  int size_limit = 0;                           ///< the most GPUs sizing tries (the first model)
  std::vector<simulate_sizing> sizing;          ///< --size: each model sized, --gpu's first
  plot_metric metric = plot_metric::slices;     ///< --plot-metric
  pending_rule pending = pending_rule::reject;  ///< --queue, --backfill
  std::optional<wait_target> wait;              ///< --wait-target
  std::int64_t reconfigure_s = default_reconfigure_s;  ///< --reconfigure-seconds
  /// --create-seconds in milliseconds, as the dynamic policies have it (the
  /// default resolved: default_create_milli under a queue, else 0).
  std::int64_t create_milli = 0;
  std::int64_t keep_idle_s = -1;  ///< --keep-idle in seconds; -1: not given
};

/// What one run of `migplan simulate` asks, its files read and checked
/// (io/simulate_input.hpp); replay/simulate.hpp answers it.
struct simulate_request {
  trace pods;                          ///< the trace
  std::string trace_shown;             ///< as shown ("<stdin>" for "-")
  std::vector<simulate_model> models;  ///< replayed: the first; --size: each
  std::optional<fleet_now> now;        ///< --current: the fleet as it is
  /// --fleet naming several models, without --size: the fleet replayed, its
  /// nodes the file's (or each model's `available` GPUs in nodes of
  /// per_node); `models` then lists the same models.
  std::optional<replay_fleet> mixed;
  std::string fleet_shown;                             ///< --fleet as shown
  std::string current_shown;                           ///< --current as shown
  std::optional<std::vector<plan_group>> static_plan;  ///< --static-plan's groups
  std::string static_shown;                            ///< --static-plan as shown
  std::optional<int> gpus;                             ///< --gpus
  int per_node = 8;                                    ///< --gpus-per-node
  bool by_memory = false;                              ///< --share memory
  bool size = false;                                   ///< --size
  double reject_target = 0;                            ///< --reject-target, percent of pods
  bool plot = false;                                   ///< --plot: keep each policy's series
  plot_metric metric = plot_metric::slices;            ///< --plot-metric
  pending_rule pending = pending_rule::reject;         ///< --queue, --backfill
  std::optional<wait_target> wait;                     ///< --wait-target
  std::vector<simulate_choice> policies;               ///< --policy, in order (with `pending`)
  std::int64_t reconfigure_s = default_reconfigure_s;  ///< --reconfigure-seconds
  std::int64_t create_milli = 0;  ///< --create-seconds in milliseconds (the default resolved)
  std::int64_t keep_idle_s = -1;  ///< --keep-idle in seconds; -1: not given
};

}  // namespace migplan::cli
