// SPDX-License-Identifier: Apache-2.0
// The --emit kinds of pack, plan and place (commands/emit_kinds.hpp).
#include "commands/emit_kinds.hpp"

#include <array>

#include "io/emit_option.hpp"
#include "pack/emit_check.hpp"
#include "plan/labels.hpp"
#include "render/emit.hpp"
#include "render/place.hpp"

namespace migplan::cli::emit {
namespace {

void plan_slurm(std::ostream& os, const plan_request& req, const plan_result& res,
                const render::plan_emit_options&) {
  render::plan_slurm(os, req, res);
}

// The order is the one each command lists its kinds in (--help, messages).
constexpr std::array kind_table{
    kind{.name = "nvidia-smi",
         .description = "a POSIX sh script of nvidia-smi mig -cgi ID:START commands",
         .pack = {.write = render::emit_nvidia_smi},
         .place = {.write = render::place_nvidia_smi}},
    kind{.name = "nvml",
         .description = "JSON for nvmlDeviceCreateGpuInstanceWithPlacement",
         .pack = {.write = render::emit_nvml}},
    kind{.name = "mig-parted",
         .description = "a mig-parted v1 config, a label per layout",
         .pack = {.write = render::emit_mig_parted, .problem = pack::mig_parted_problem},
         .plan = {.write = render::plan_mig_parted}},
    kind{.name = "k8s",
         .description = "the NVIDIA device plugin's extended resources (mixed and single)",
         .pack = {.write = render::emit_k8s}},
    kind{.name = "dra",
         .description = "Kubernetes DRA ResourceSlices offering every placement of the GPU",
         .pack = {.write = render::emit_dra, .problem = pack::dra_problem}},
    kind{.name = "configmap",
         .description = "the mig-parted config as the GPU Operator's ConfigMap",
         .plan = {.write = render::plan_configmap}},
    kind{.name = "labels",
         .description = "kubectl label node commands for the nodes whose label changes",
         .plan = {.write = render::plan_label_commands, .problem = plan::labels_problem}},
    kind{.name = "slurm",
         .description = "Slurm GRES: gres.conf and the nodes' slurm.conf Gres counts",
         .pack = {.write = render::emit_slurm},
         .plan = {.write = plan_slurm, .problem = plan::slurm_problem}},
};

}  // namespace

std::string_view command_name(command c) {
  switch (c) {
    case command::pack:
      return "pack";
    case command::plan:
      return "plan";
    case command::place:
      return "place";
  }
  return {};
}

bool kind::taken_by(command c) const {
  switch (c) {
    case command::pack:
      return pack.write != nullptr;
    case command::plan:
      return plan.write != nullptr;
    case command::place:
      return place.write != nullptr;
  }
  return false;
}

std::span<const kind> kinds() { return kind_table; }

std::vector<std::string> names(command c) {
  std::vector<std::string> out;
  for (const kind& k : kind_table)
    if (k.taken_by(c)) out.emplace_back(k.name);
  return out;
}

const kind* find(command c, std::string_view name) {
  for (const kind& k : kind_table)
    if (k.name == name && k.taken_by(c)) return &k;
  return nullptr;
}

std::string unknown(command c, std::string_view name) {
  return unknown_emit_kind(name, command_name(c), names(c));
}

std::string problem(const kind& k, const emit_plan& plan) {
  return k.pack.problem != nullptr ? k.pack.problem(plan) : std::string();
}

std::string problem(const kind& k, const plan_request& req, const plan_result& res) {
  if (std::string why = plan::emit_problem(res); !why.empty()) return why;
  return k.plan.problem != nullptr ? k.plan.problem(req, res) : std::string();
}

}  // namespace migplan::cli::emit
