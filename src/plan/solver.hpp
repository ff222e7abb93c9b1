// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan plan`'s solver: the fewest GPUs (least cost) that meet a demand,
// and for a re-plan the fewest GPUs changed, as integer programs over the
// geometries of each model, solved with COIN-OR CBC. Lives in its own
// library target (migplan_plan), the only one that links CBC; the core
// under include/migplan stays dependency-free. doc/plan.md states the model.

#include <migplan/capacity.hpp>

#include "model/plan.hpp"
#include "plan/geometries.hpp"

namespace migplan::cli::plan {

/// The planner. It keeps the geometries of every model it has planned for,
/// so that a caller solving many requests builds them once; not safe to
/// share between threads (one solver per thread).
class solver {
 public:
  /// Solves `req` (read and checked by src/io/plan_input). Lexicographic
  /// objectives, each solved to optimality (or to the time limit) before the
  /// next, with the earlier ones held: (0) the least unmet demand, (1) for a
  /// fresh plan the least cost (GPU count when no costs), for a re-plan the
  /// fewest GPUs changed, (2) the most room kept for future instances, summed
  /// over GPUs, (3) the fewest distinct geometries. Never throws for a request
  /// the readers accept.
  plan_result solve(const plan_request& req);

 private:
  detail::geometry_cache geometries_;
};

/// Solves `req` with a solver of its own (solver::solve).
plan_result solve(const plan_request& req);

/// The room value of a layout that the planner sums and maximises: reachable
/// units first, then reachable compute slices, as one integer,
/// reachable_units * (compute_slices + 1) + reachable_compute.
long long room_value(const gpu_model& gpu, const room& rm);

}  // namespace migplan::cli::plan
