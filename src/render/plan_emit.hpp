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

// Each writer writes the plan's labels and layouts as the plan service worked
// them out; commands/emit_kinds.cpp's table says which writer a kind is, and
// the kind's check there must have passed.

/// `--emit mig-parted`: one mig-parted v1 config with a label per distinct
/// node layout (or geometry, without nodes).
void plan_mig_parted(std::ostream& out, const plan_request& req, const plan_result& res,
                     const plan_emit_options& opt);

/// `--emit configmap`: that config as the GPU Operator's ConfigMap named
/// `opt.configmap_name`, with the commands that apply it.
void plan_configmap(std::ostream& out, const plan_request& req, const plan_result& res,
                    const plan_emit_options& opt);

/// `--emit labels`: `kubectl label node` for each node whose label changes.
void plan_label_commands(std::ostream& out, const plan_request& req, const plan_result& res,
                         const plan_emit_options& opt);

/// Slurm GRES for the plan's nodes (render/plan_slurm.cpp): gres.conf's
/// `AutoDetect=nvml` and a `NodeName=NODE Gres=...` line per node, MIG
/// devices counted per type as render/slurm.hpp names them, a GPU with MIG
/// off under its own name.
void plan_slurm(std::ostream& out, const plan_request& req, const plan_result& res);

/// `text` as one sh word: as is when it holds only characters no shell
/// treats specially, else in single quotes ("'" written as '\'').
std::string sh_quote(std::string_view text);

}  // namespace migplan::cli::render
