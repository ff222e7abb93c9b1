// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan plan --emit`: a plan written for the tools that apply it. One
// mig-parted v1 config with a label per distinct node layout, the same
// wrapped as the GPU Operator's ConfigMap, or the `kubectl label node`
// commands that select those labels. doc/plan-files.md describes the output
// and how labels are named.

#include <iosfwd>
#include <string>
#include <string_view>

#include "model/plan.hpp"

namespace migplan::cli::render {

/// Settings of the emitted files.
struct plan_emit_options {
  /// The ConfigMap's metadata.name: the GPU Operator's documented example,
  /// which its ClusterPolicy then names in spec.migManager.config.name.
  std::string configmap_name = "custom-mig-config";
};

/// Writes `kind` for the plan: its labels and layouts as the plan service
/// worked them out (plan/labels.hpp emit_problem() must be "").
void plan_emit(std::ostream& out, plan_emit_kind kind, const plan_request& req,
               const plan_result& res, const plan_emit_options& opt = {});

/// Slurm GRES for the plan's nodes (render/plan_slurm.cpp): gres.conf's
/// `AutoDetect=nvml` and a `NodeName=NODE Gres=...` line per node, MIG
/// devices counted per type as render/slurm.hpp names them, a GPU with MIG
/// off under its own name.
void plan_slurm(std::ostream& out, const plan_request& req, const plan_result& res);

/// `text` as one sh word: as is when it holds only characters no shell
/// treats specially, else in single quotes ("'" written as '\'').
std::string sh_quote(std::string_view text);

}  // namespace migplan::cli::render
