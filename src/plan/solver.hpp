// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan plan`'s solver: the fewest GPUs (least cost) that meet a demand,
// and for a re-plan the fewest GPUs changed, as integer programs over the
// geometries of each model, solved with COIN-OR CBC. Lives in its own
// library target (migplan_plan), the only one that links CBC; the core
// under include/migplan stays dependency-free. doc/plan.md states the model.

#include "model/plan.hpp"

namespace migplan::cli::plan {

/// Solves `req` (read and checked by src/io/plan_input). Lexicographic
/// objectives, each solved to optimality (or to the time limit) before the
/// next, with the earlier ones held: (0) the least unmet demand, (1) for a
/// fresh plan the least cost (GPU count when no costs), for a re-plan the
/// fewest GPUs changed, (2) the most room kept for future instances, summed
/// over GPUs, (3) the fewest distinct geometries. Never throws for a request
/// the readers accept.
plan_result solve(const plan_request& req);

}  // namespace migplan::cli::plan
