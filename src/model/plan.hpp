// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan plan` works on and answers: the demand, the fleet and its
// current state as read by src/io/plan_input (names already resolved to
// catalog models), and the plan the solver (src/plan/) returns and
// render/plan prints. One contract between the readers, the solver and the
// writers.

#include <cstdint>
#include <migplan/capacity.hpp>
#include <migplan/compute.hpp>
#include <migplan/gpu.hpp>
#include <migplan/layout.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/current.hpp"
#include "model/plan_cost.hpp"
#include "model/plan_labels.hpp"

namespace migplan::cli {

/// One line of demand: `count` instances, each either of a named profile or
/// of the smallest profile that meets a memory (and optional compute) need on
/// whichever model serves it.
struct demand_item {
  std::string name;     ///< as the user named it: "1g.10gb", or the file's name
  long long count = 0;  ///< instances wanted (> 0)
  std::string profile;  ///< a profile name as nvidia-smi prints it; empty if sized
  std::optional<std::int64_t> memory_mib;  ///< a memory need per instance, when `profile` is empty
  std::optional<int> compute_slices;       ///< at least this many compute slices (sized items)
  std::optional<int> sms;                  ///< at least this many SMs (sized items)
  std::string where;                       ///< "FILE:LINE" it came from; empty on the command line
  /// Set by a caller that resolved the item on each model itself
  /// (simulate's trace on a fleet of several models): the profile that
  /// serves it per model. A model not listed serves it not; `profile` and
  /// `memory_mib` are then not read.
  std::vector<std::pair<const gpu_model*, int>> resolved{};
};

/// One candidate model of the fleet.
struct fleet_model {
  const gpu_model* gpu = nullptr;
  std::optional<long long> available;  ///< at most this many GPUs of it; unset = unlimited
  double cost = 1.0;                   ///< cost of one GPU of it
};

/// A node of a fleet file: `gpu_count` GPUs of one model.
struct fleet_node {
  std::string name;
  const gpu_model* gpu = nullptr;
  int gpu_count = 0;
  std::string where;  ///< "FILE:LINE"
};

/// One GPU of a node as it is now.
struct current_gpu {
  int index = 0;                            ///< the GPU's index on its node
  std::vector<current_instance> instances;  ///< its GPU instances (empty: MIG disabled or no GIs)
  std::string label;                        ///< the mig-parted label that made it, if known
  /// False where the mig-parted config leaves MIG off (`mig-enabled: false`):
  /// no instance can be made on it until MIG mode is turned on (a GPU reset).
  bool mig_enabled = true;
  instances_origin origin{};  ///< where `instances` were read
  /// CIs a mig-parted entry asks on their own: pack/current_fit.hpp's settle()
  /// shares them out into `instances`, and empties this.
  std::vector<lone_cis> lone{};
};

/// One node as it is now.
struct current_node {
  std::string name;
  const gpu_model* gpu = nullptr;  ///< every GPU of a node is one model
  std::vector<current_gpu> gpus;
  std::string label;  ///< its nvidia.com/mig.config label, if known
  std::string where;  ///< "FILE:LINE" (kubectl's output: its metadata.name)
};

/// Everything the solver is asked.
struct plan_request {
  std::vector<demand_item> demand;
  std::vector<fleet_model> models;  ///< candidate models (from --gpu, or the fleet's models)
  std::vector<fleet_node> nodes;    ///< a fleet file's nodes; empty = GPUs without nodes
  std::optional<std::vector<current_node>> current;  ///< --current: the fleet as it is
  bool allow_evict = false;
  std::optional<double> time_limit_s;
  /// For tests, >= 0: the time limit runs out after this many of the
  /// solver's searches, whatever the clock says (0: before any plan is
  /// found). A time limit cuts the search where the machine has got to, so
  /// only this reaches the cut-short answers on every machine
  /// (MIGPLAN_TEST_SEARCHES_IN_TIME for the CLI).
  int searches_in_time = -1;
};

/// One placed instance of a planned geometry, and the demand item it serves.
struct planned_instance {
  instance where;   ///< profile index and start on the group's model
  int serves = -1;  ///< index into plan_request::demand; -1 = spare, or a GI holding `cis`
  /// Compute instances created in this GI when it serves CI items ("1c.3g.20gb"):
  /// by start, CI profile indices into the GI profile's ci_profiles. Empty otherwise.
  std::vector<ci_instance> cis{};
  std::vector<int> ci_serves{};  ///< per CI of `cis`: index into plan_request::demand, -1 = spare
};

/// A distinct geometry and how many GPUs get it.
struct plan_group {
  const gpu_model* gpu = nullptr;
  long long count = 0;
  std::vector<planned_instance> instances;  ///< in start order
  room left{};                              ///< what each of its GPUs leaves: the core's exact room
  stranded strands{};  ///< of `left`: free on each GPU, but no further instance can use it
};

/// What changes on one GPU of a re-plan.
struct plan_change {
  std::string node;
  int index = 0;
  int from_group = -1;  ///< -1 when its current geometry is no planned group
  int to_group = -1;
  std::vector<current_instance> destroyed;  ///< instances it loses
  std::vector<current_instance> evicted;    ///< of those, the ones in use (only with allow_evict)
};

/// Why one model of the fleet does not serve an item named by its profile,
/// or may serve one sized by memory after all.
struct model_refusal {
  enum class kind {
    no_profile,     ///< the model has no GPU-instance profile of that name
    ci_unknown,     ///< the GI profile's compute-instance profiles are unknown
    no_ci_profile,  ///< the GI profile offers no compute-instance profile of that name
    /// An item sized by memory: profiles whose memory (or SM count, where
    /// the item asks for SMs) is unknown were not considered, and may be
    /// large enough (`unknown` names them).
    values_unknown,
  };
  const gpu_model* gpu = nullptr;
  kind why = kind::no_profile;
  std::string gi_profile;  ///< the GPU-instance profile looked for ("3g.40gb" of "1c.3g.40gb")
  std::vector<std::string> unknown;  ///< values_unknown: the profiles not considered
};

/// Demand that no plan on the fleet meets.
struct plan_unmet {
  int item = 0;           ///< index into plan_request::demand
  long long missing = 0;  ///< instances short
  bool no_model = false;  ///< no model of the fleet serves the item: all of it is short
  /// With no_model and an item named by its profile: per model of the fleet
  /// (plan_request::models), why it does not serve the item. For an item
  /// sized by memory (no profile whose values are known is that large): the
  /// models with profiles of unknown values, which may be (values_unknown).
  std::vector<model_refusal> refusals{};
};

/// How a plan ended (doc/plan.md "Status and exit codes").
enum class plan_status {
  optimal,    ///< demand met; the first objective (cost, re-plan: changes) proven least
  feasible,   ///< demand met; not proven least
  unmet,      ///< the fleet cannot meet the demand: proven, not a time limit
  timed_out,  ///< no plan meeting the demand found in the time limit, none proven impossible
};

/// The solver's answer.
struct plan_result {
  plan_status status = plan_status::timed_out;
  bool feasible = false;  ///< demand met (else `unmet` says by how much)
  bool optimal = false;   ///< cost == lower_bound, checked in integers (the gap is 0)
  long long gpu_count = 0;
  /// GPUs per model that `gpu_count` counts, in the fleet's model order.
  std::vector<std::pair<const gpu_model*, long long>> gpus_per_model;
  double cost = 0;
  double lower_bound = 0;           ///< on cost (GPU count without costs), proven in integers
  double gap = 0;                   ///< (cost - lower_bound) / cost, 0 when the cost is 0
  cost_scale costs;                 ///< the unit cost_units and lower_bound_units count
  long long cost_units = 0;         ///< cost, in whole units of `costs`
  long long lower_bound_units = 0;  ///< lower_bound, in whole units of `costs`
  /// With timed_out: a --time-limit that would likely find a plan meeting the demand.
  std::optional<double> suggested_time_limit_s;
  double lp_bound = 0;  ///< the LP relaxation's value of the first objective (cost, or changes)
  bool later_optimal = false;  ///< the room and distinct-geometry objectives proven optimal too
  /// The time limit stopped the first objective's stage (cost, or changes),
  /// or an earlier one: more time may find a better plan or prove this one.
  bool first_cut_short = false;
  std::vector<plan_group> groups;
  struct node_gpu {
    int index = 0;
    int group = -1;
  };
  struct node_plan {
    std::string name;
    std::vector<node_gpu> gpus;
  };
  std::vector<node_plan> nodes;      ///< when nodes are known
  std::vector<plan_change> changes;  ///< a re-plan's changes (GPUs that change only)
  long long changes_lower_bound = 0;
  std::vector<plan_unmet> unmet;
  /// Each node's GPUs as the plan leaves them, in the order of `nodes`
  /// (plan/labels.hpp planned_nodes).
  std::vector<planned_node> layouts;
  /// The mig-parted labels that make the plan and the label each node gets
  /// (plan/labels.hpp plan_labels): what --emit writes.
  emitted_labels labels;
  double seconds = 0;         ///< solve time
  double stage1_seconds = 0;  ///< time until the cost (re-plan: changes) stage ended
};

}  // namespace migplan::cli
