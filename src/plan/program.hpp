// SPDX-License-Identifier: Apache-2.0
#pragma once

// The solver's working state for one request (doc/plan.md "How plan
// solves") and the steps over it, one file each: solver.cpp (the models and
// the demand as the program sees them), program.cpp (columns, rows, the bulk
// and a starting plan), stages.cpp (the objectives, one function each),
// moves.cpp (a re-plan's pooled moves), readout.cpp (the solution as groups,
// counted and proven in integers) and nodes.cpp (GPUs on nodes, changes).

#include <chrono>
#include <cstddef>
#include <map>
#include <migplan/capacity.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "model/plan.hpp"
#include "plan/geometries.hpp"
#include "plan/mip.hpp"

namespace migplan::cli::plan::detail {

using clock_type = std::chrono::steady_clock;

/// An upper bound the program treats as none.
constexpr double inf = 1e30;

// A kind of GPU the program chooses how many of: a model's configuration
// (fresh plan), or for a re-plan a class of current GPUs kept as they are or
// moved to a configuration.
struct column {
  int model = 0;    // index into the solver's models
  int config = -1;  // index into the model's geometries (pb.mc); -1 = a kept geometry outside them
  layout where;     // the layout its GPUs get
  profile_counts counts;  // = where.counts()
  long long room = 0;
  double stage1 = 0;  // coefficient of the first objective (cost, or 1 for a change)
  int cls = -1;       // re-plan: the class of current GPUs it draws from
  int pool = -1;      // re-plan: the pool of moved GPUs it draws from (move_pool)
  bool keep = false;  // re-plan: the class's GPUs left unchanged
  int var = -1;
};

// A class of current GPUs: same model and same instances (profile, start, in use).
struct gpu_class {
  int model = 0;
  std::vector<current_instance> instances;  // sorted
  profile_counts counts, in_use;
  std::vector<std::pair<int, int>> gpus;  // (node, gpu position in the node)
};

// Re-plan: GPUs that may move to the same configurations. Where a changed
// GPU may go depends on its class only through the in-use instances the new
// geometry must keep (none with allow_evict), so the moves of all classes of
// one model and in-use counts are one pool: a variable per pool and
// configuration, not per class and configuration. On a churned fleet, where
// nearly every GPU is a class of its own, that is a few thousand columns
// instead of a million, and the same optimum: a solution's moves are handed
// back to classes after the solve (split_moves).
struct move_pool {
  int model = 0;
  profile_counts in_use;     // what every configuration of the pool must cover
  std::vector<int> classes;  // indices into the classes
  long long gpus = 0;        // over its classes
};

// A block of GPUs of one layout handed out to demand, and where they came from.
struct block {
  int model = 0;
  layout where;
  long long count = 0;
  int column = -1;
};

// GIs of one profile holding CIs in one pattern: a variable of the program.
struct pattern_use {
  int model = 0, gi = 0;
  ci_pattern pattern;
  int var = -1;
};

// The time limit, shared out between the stages.
struct stage_budget {
  std::optional<double> total;
  clock_type::time_point start = clock_type::now();
  // The time a stage may take: `share` of what is left.
  std::optional<double> take(double share) const {
    if (!total) return std::nullopt;
    const double used = std::chrono::duration<double>(clock_type::now() - start).count();
    return std::max(0.01, (*total - used) * share);
  }
  // True when under a time limit and less than `fraction` of it is left.
  bool short_of(double fraction) const {
    if (!total) return false;
    const double used = std::chrono::duration<double>(clock_type::now() - start).count();
    return *total - used < *total * fraction;
  }
};

/// What the solution reads as, beside the groups in `problem::res`.
struct solution_blocks {
  std::vector<column> cols;      // the columns, a re-plan's moves split per class
  std::vector<long long> col_n;  // GPUs per column of `cols`
  std::vector<block> blocks;     // per model: kept classes first, then configurations
  std::vector<std::vector<std::pair<int, long long>>> block_groups;  // each block's GPUs
};

// One request being solved: the models and the demand as the program sees
// them, the program, and its answer so far; its steps fill it in order.
struct problem {
  explicit problem(const plan_request& r) : req(r), replan(r.current.has_value()) {}
  problem(const problem&) = delete;  // `weight` refers into `res`
  problem& operator=(const problem&) = delete;

  const plan_request& req;
  const bool replan;
  const clock_type::time_point t0 = clock_type::now();
  plan_result res;

  // The models: the request's, and for a re-plan those of the current nodes.
  std::vector<fleet_model> models;
  std::vector<std::optional<long long>> available;  // per model: at most this many GPUs
  std::vector<gpu_class> classes;                   // re-plan: the current GPUs
  std::vector<move_pool> pools;
  std::vector<int> pool_of;  // per class
  bool exact_costs = false;  // res.costs.units are the costs, not a rounding of them
  // The cost of one GPU of each model, in whole units (set by scale_weights).
  const std::vector<long long>& weight = res.costs.units;

  // The demand.
  std::size_t n_items = 0, n_models = 0;
  std::vector<const model_configs*> mc;  // per model: its geometries
  std::vector<std::vector<int>> serve;   // [item][model]: the serving profile, or -1
  std::vector<std::vector<int>> ci;      // [item][model]: a CI item's CI profile, else -1
  bool need_unmet = false;               // some demand may go unmet
  std::vector<std::size_t> rep;          // the first item of each item's class
  std::vector<long long> class_count;    // per representative: the summed count

  // The program.
  std::vector<column> cols;
  mip prog;
  std::vector<std::vector<int>> yvar;  // [item][model]: instances served, or -1
  std::vector<int> uvar;               // per item: instances unmet, or -1
  std::vector<int> demand_row;
  std::map<std::pair<std::size_t, std::size_t>, int> capacity_row;  // (model, profile) -> row
  std::vector<pattern_use> patterns;
  std::vector<long long> offset;          // per variable: what the bulk adds to it
  mip full;                               // the whole program, for the certificates
  std::optional<mip::lp_answer> cost_lp;  // stage 1's LP relaxation of `full`
  bool bulk = false;
  std::vector<double> start;  // a starting solution; empty = none

  // The stages.
  stage_budget budget;
  std::optional<mip::answer> best;  // the latest stage's solution
  bool unmet_proven = false;        // stage 0's proof that no plan leaves less unmet
  long long unmet_bound = 0;
  bool later = true;  // stages 2 and 3 solved to optimality
  int searches_ = 0;  // MIP searches run, for plan_request::searches_in_time

  /// True for the first item of its class.
  bool is_rep(std::size_t i) const { return rep[i] == i; }
  /// A variable's value in the best solution, the bulk added.
  long long value_of(int var) const;

  // The steps, in the order solver::solve runs them.
  // solver.cpp
  void gather_models();
  void scale_weights();
  void match_demand(geometry_cache& geometries);
  // program.cpp
  void build_columns();
  void build_program();
  void fix_bulk();
  void starting_plan();
  // stages.cpp
  mip::answer run_stage(double share);
  mip::answer solve_in_time(std::optional<double> limit);
  bool stage_unmet();
  void stage_first();
  void stage_room();
  void stage_geometries();
  plan_result none_in_time();
  void mark_no_model();
  // readout.cpp
  solution_blocks read_groups();
  void count_and_prove(const solution_blocks& sb);
  // nodes.cpp
  void assign_nodes();
  void assign_changes(const solution_blocks& sb);
};

// stages.cpp
double suggest_time_limit(std::optional<double> limit);

// moves.cpp
bool gi_less(const current_instance& a, const current_instance& b);
bool covers(const profile_counts& big, const profile_counts& small);
std::vector<move_pool> pool_classes(const std::vector<gpu_class>& classes, bool allow_evict,
                                    std::vector<int>& pool_of);
std::vector<long long> greedy_moves(const std::vector<column>& cols,
                                    const std::vector<gpu_class>& classes, std::size_t n_pools,
                                    const std::vector<const gpu_model*>& gpus,
                                    const std::vector<std::vector<long long>>& want);
std::pair<std::vector<column>, std::vector<long long>> split_moves(
    const std::vector<column>& cols, const std::vector<long long>& n,
    const std::vector<gpu_class>& classes, const std::vector<move_pool>& pools);

}  // namespace migplan::cli::plan::detail
