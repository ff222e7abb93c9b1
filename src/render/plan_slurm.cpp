// SPDX-License-Identifier: Apache-2.0
// `migplan plan --emit slurm`: the GRES counts of each node of a plan, as
// slurm.conf lists them (render/slurm.hpp names the types).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>

#include "quote.hpp"
#include "render/inferred.hpp"
#include "render/mig_parted.hpp"
#include "render/plan_emit.hpp"
#include "render/plan_view.hpp"
#include "render/slurm.hpp"
#include "slurm_names.hpp"
#include "text.hpp"

namespace migplan::cli::render {
namespace {

// MIG devices per GPU-instance profile on one node (a GI split into compute
// instances is one device per CI), largest profile first, and its GPUs with
// MIG off.
struct node_devices {
  std::vector<std::pair<int, long long>> per_profile;
  long long whole = 0;
  std::vector<int> empty;  // GPUs with MIG on and no MIG device
};

node_devices devices_of(const plan_request& req, const plan_result& res, const planned_node& pn) {
  std::map<int, long long> n;
  long long whole = 0;
  std::vector<int> empty;
  for (std::size_t i = 0; i < pn.groups.size(); ++i) {
    const current_gpu* now = pn.current[i] >= 0
                                 ? &(*req.current)[static_cast<std::size_t>(pn.now)]
                                        .gpus[static_cast<std::size_t>(pn.current[i])]
                                 : nullptr;
    if (pn.groups[i] >= 0) {
      const plan_group& grp = res.groups[static_cast<std::size_t>(pn.groups[i])];
      if (grp.instances.empty()) empty.push_back(static_cast<int>(i));
      for (const planned_instance& p : grp.instances)
        n[p.where.profile] += p.cis.empty() ? 1 : static_cast<long long>(p.cis.size());
    } else if (now != nullptr && !now->instances.empty()) {
      for (const current_instance& gi : now->instances)
        n[gi.profile] += gi.compute.empty() ? 1 : static_cast<long long>(gi.compute.size());
    } else {
      ++whole;  // no MIG device: the GPU whole
    }
  }
  node_devices out{{n.begin(), n.end()}, whole, std::move(empty)};
  const gpu_model& g = *pn.gpu;
  std::stable_sort(out.per_profile.begin(), out.per_profile.end(),
                   [&](const auto& a, const auto& b) {
                     const profile& pa = g.profiles[static_cast<std::size_t>(a.first)];
                     const profile& pb = g.profiles[static_cast<std::size_t>(b.first)];
                     if (pa.size != pb.size) return pa.size > pb.size;
                     return pa.compute_slices > pb.compute_slices;
                   });
  return out;
}

}  // namespace

void plan_slurm(std::ostream& out, const plan_request& req, const plan_result& res) {
  std::vector<slurm_line> lines;
  std::vector<const gpu_model*> models;
  long long gpus = 0;
  bool any_whole = false;
  std::vector<std::string> empty;  // "GPU 2 of gpu-a"
  for (const planned_node& pn : res.layouts) {
    gpus += static_cast<long long>(pn.groups.size());
    if (pn.gpu == nullptr) continue;  // a node with no GPU the plan knows
    const node_devices d = devices_of(req, res, pn);
    for (int i : d.empty) empty.push_back(fmt::format("GPU {} of {}", i, pn.name));
    slurm_line l{fmt::format("NodeName={} Gres=", pn.name), pn.gpu,
                 slurm_types(*pn.gpu, d.per_profile)};
    if (d.whole > 0) {
      slurm_add(l.counts.by_profile, slurm::gpu_type(*pn.gpu), d.whole);
      slurm_add(l.counts.by_memory, slurm::gpu_type(*pn.gpu), d.whole);
      any_whole = true;
    }
    if (std::find(models.begin(), models.end(), pn.gpu) == models.end()) models.push_back(pn.gpu);
    lines.push_back(std::move(l));
  }
  out << comment_lines(fmt::format(
      "migplan plan: Slurm GRES for {} node{} ({} GPU{}). Slurm does not create MIG devices: "
      "apply the plan first (--emit mig-parted, configmap or labels). slurmd then finds them "
      "(AutoDetect=nvml) and drains a node whose devices differ from its Gres.",
      lines.size(), plural(lines.size()), gpus, plural(gpus)));
  out << slurm_types_note(models);
  if (any_whole)
    out << comment_lines(
        "A GPU with MIG off is one device, typed by its model's short name (\"a100\", as "
        "Slurm's docs write it). MIG devices' names contain it too, but slurmd tries the "
        "longest types first, so it takes only the whole GPUs.");
  for (const auto& [gpu, inferred] : plan_detail::inferred_of(res))
    out << comment_lines(inferred_sentence(*gpu, inferred));
  if (!empty.empty())
    out << comment_lines(fmt::format(
        "{} {} MIG on and no MIG device: slurmd finds nothing there, and Slurm 22.05's stops "
        "(\"MIG mode is enabled, but no MIG devices were found\", gpu_nvml.c). Create an "
        "instance there or turn MIG off.",
        fmt::join(empty, ", "), empty.size() == 1 ? "has" : "have"));
  out << "# gres.conf, on every node:\nAutoDetect=nvml\n";
  out << "# slurm.conf (with GresTypes=gpu): each node's Gres, for its NodeName line:\n";
  for (const slurm_line& l : lines) out << l.head << slurm_gres(l.counts.by_profile) << "\n";
  out << slurm_memory_note(lines);
}

}  // namespace migplan::cli::render
