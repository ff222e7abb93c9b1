// SPDX-License-Identifier: Apache-2.0
#pragma once

// What `migplan plan --emit` needs of a plan, worked out once by the plan
// service so that the writers (render/plan_emit, render/plan_slurm) only
// write: each node's GPUs as the plan leaves them, the mig-parted labels
// that make those layouts and the label each node gets, and whether a kind
// can be written at all. doc/plan-files.md describes the labels.

#include <string>
#include <vector>

#include "model/plan.hpp"

namespace migplan::cli::plan {

/// The plan's nodes (none without nodes), in the order of plan_result::nodes.
std::vector<planned_node> planned_nodes(const plan_request& req, const plan_result& res);

/// The labels of a plan. With nodes: one per distinct node layout, named
/// after the model and the geometry as pack --emit names its layouts
/// ("migplan-<model>-<geometry>", or "migplan-<model>-<8 hex digits of a
/// hash of the layout>" where that is too long for a label value: the same
/// layout always gets the same name, so a re-plan keeps the labels of nodes
/// that do not change), "all-disabled" for nodes with MIG off on every GPU;
/// in a re-plan a node whose GPUs do not change keeps its current label
/// where the label can hold its layout. Without nodes: one per distinct
/// geometry. A GPU in no group (-1, or absent from the node's list) keeps
/// its current geometry in a re-plan and is otherwise left with MIG off.
emitted_labels plan_labels(const plan_request& req, const plan_result& res);

/// Fills `res.layouts` (planned_nodes) and `res.labels` (plan_labels):
/// solver::solve does, for every plan it returns with its groups.
void add_layouts(const plan_request& req, plan_result& res);

// What `plan --emit` can write, the service's checks that
// commands/emit_kinds.cpp's table names per kind: each returns why the plan
// cannot be written so (one sentence), or "" when it can.

/// Every kind: a plan that does not meet the demand has no configuration.
std::string emit_problem(const plan_result& res);

/// `--emit labels`: a plan without nodes has no node to label.
std::string labels_problem(const plan_request& req, const plan_result& res);

/// `--emit slurm`: a plan without nodes, a node name Slurm cannot take, or
/// GPUs with MIG off on a model with no short name to type them by.
std::string slurm_problem(const plan_request& req, const plan_result& res);

}  // namespace migplan::cli::plan
