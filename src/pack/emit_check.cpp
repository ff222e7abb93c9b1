// SPDX-License-Identifier: Apache-2.0
// What `pack --emit` kinds cannot write (pack/emit_check.hpp).
#include "pack/emit_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <migplan/compute.hpp>
#include <string_view>
#include <utility>
#include <vector>

#include "text.hpp"

namespace migplan::cli::pack {
namespace {

// The GI profiles whose CIs mig-parted may share out over fewer GIs than the
// layout has: it counts CIs, not GIs, and puts each CI in the GI it made last
// while the CI fits there (SetMigConfig, pkg/mig/config/config.go), so CIs the
// request keeps in separate GIs ("3g.20gb[2c]" and "3g.20gb[1c]") can end up
// in one. Checked by the fewest GIs that hold the CIs (group_cis).
std::vector<std::string> merged_by_mig_parted(const emit_plan& plan) {
  const gpu_model& g = *plan.gpu;
  std::map<int, std::pair<std::vector<int>, std::size_t>> split;  // GI profile -> (CIs, GIs)
  const auto note = [&](int p, const std::vector<int>& cis) {
    auto& [all, gis] = split[p];
    all.insert(all.end(), cis.begin(), cis.end());
    ++gis;
  };
  for (const current_instance& c : plan.existing) {
    const profile& gi = prof(g, c.profile);
    std::vector<int> cis;
    for (const current_ci& ci : c.compute) {
      const auto [name, slices] = existing_ci(gi, ci);
      if (slices < 0) continue;
      const int k = find_ci(gi, name);
      if (k < 0) return {};  // a CI the catalog lacks: nothing to reckon with
      cis.push_back(k);
    }
    if (!cis.empty()) note(c.profile, cis);
  }
  for (std::size_t i = 0; i < plan.create.size() && i < plan.cis.size(); ++i) {
    const profile& gi = prof(g, plan.create[i].profile);
    std::vector<int> cis;
    for (const ci_instance& ci : plan.cis[i])
      if (gi.ci_profiles[static_cast<std::size_t>(ci.ci)].compute_slices < gi.compute_slices)
        cis.push_back(ci.ci);
    if (!cis.empty()) note(plan.create[i].profile, cis);
  }
  std::vector<std::string> out;
  for (const auto& [p, v] : split) {
    const ci_grouping fewest = group_cis(prof(g, p), v.first);
    if (fewest.gis.size() < v.second)
      out.push_back(fmt::format("{} {} GIs into {}", v.second, prof(g, p).name, fewest.gis.size()));
  }
  return out;
}

// The GI profile whose resource a released NVIDIA device plugin counts a MIG
// device named `device` under. The plugin's mixed-strategy resources are one
// per GI profile (its pattern is the profile's name), made in NVML's profile
// order, plain profiles before their +me, +gfx, -me and +me.all variants
// (go-nvlib VisitMigProfiles walks the GI profile enum, 1_SLICE before
// 1_SLICE_REV1, _GFX, _NO_ME, _ALL_ME), and a device takes the first whose
// pattern its name matches (internal/rm/device_map.go, buildMigDeviceMap).
// Released plugins match unanchored (api/config/v1/resources.go, Matches:
// regexp.MatchString of the quoted pattern), so the first is the shortest
// profile name inside the device's: "1g.24gb-me" and "1c.3g.20gb" fall to
// "1g.24gb" and "3g.20gb". -1 when no profile's name is inside it.
int unanchored_resource(const gpu_model& g, std::string_view device) {
  int best = -1;
  for (std::size_t p = 0; p < g.profiles.size(); ++p) {
    const std::string_view name = g.profiles[p].name;
    if (device.find(name) == std::string_view::npos) continue;
    if (best < 0 || name.size() < g.profiles[static_cast<std::size_t>(best)].name.size())
      best = static_cast<int>(p);
  }
  return best;
}

}  // namespace

std::vector<emit_device> emit_devices(const emit_plan& plan) {
  const gpu_model& g = *plan.gpu;
  std::vector<emit_device> out;
  const auto add = [&](int gi, std::string name, int ci_slices) {
    const auto it =
        std::find_if(out.begin(), out.end(), [&](const emit_device& d) { return d.name == name; });
    if (it != out.end())
      ++it->count;
    else
      out.push_back({gi, ci_slices, std::move(name), 1});
  };
  for (const current_instance& c : plan.existing) {
    const profile& gi = prof(g, c.profile);
    if (c.compute.empty()) add(c.profile, std::string(gi.name), -1);
    for (const current_ci& ci : c.compute) {
      auto [name, slices] = existing_ci(gi, ci);
      add(c.profile, slices < 0 ? std::string(gi.name) : name, slices);
    }
  }
  for (std::size_t i = 0; i < plan.create.size(); ++i) {
    const int p = plan.create[i].profile;
    const profile& gi = prof(g, p);
    if (i >= plan.cis.size() || plan.cis[i].empty()) add(p, std::string(gi.name), -1);
    if (i < plan.cis.size())
      for (const ci_instance& ci : plan.cis[i]) {
        const ci_profile& cp = gi.ci_profiles[static_cast<std::size_t>(ci.ci)];
        const bool full = cp.compute_slices == gi.compute_slices;
        add(p, std::string(full ? gi.name : cp.name), full ? -1 : cp.compute_slices);
      }
  }
  std::stable_sort(out.begin(), out.end(), [&](const emit_device& a, const emit_device& b) {
    const profile& pa = prof(g, a.gi);
    const profile& pb = prof(g, b.gi);
    if (pa.size != pb.size) return pa.size > pb.size;
    if (pa.compute_slices != pb.compute_slices) return pa.compute_slices > pb.compute_slices;
    if (a.whole() != b.whole()) return a.whole();
    return a.ci_slices > b.ci_slices;
  });
  for (emit_device& d : out) d.resource = unanchored_resource(g, d.name);
  return out;
}

std::string one_model_problem(const pack_answer& a) {
  if (a.same_answer.empty()) return {};
  std::vector<std::string_view> slugs{a.gpu->slug};
  for (const gpu_model* m : a.same_answer) slugs.push_back(m->slug);
  return fmt::format(
      "--emit needs one GPU model, and the request answers alike on {}; "
      "pass --gpu",
      fmt::join(slugs, ", "));
}

std::string one_gpu_problem(std::string_view shown, std::size_t gpus) {
  if (gpus <= 1) return {};
  return fmt::format(
      "{}: --emit writes one GPU's layout and the listing holds {} GPUs; "
      "pick one with --index",
      shown, gpus);
}

std::string mig_parted_problem(const emit_plan& plan) {
  const std::vector<std::string> merged = merged_by_mig_parted(plan);
  if (merged.empty()) return {};
  return fmt::format(
      "a mig-parted config cannot keep this layout's compute instances apart: mig-parted "
      "counts compute instances, not GPU instances, and puts each in the GPU instance it made "
      "last while it fits there, so it may merge {}; use --emit nvidia-smi or --emit nvml, "
      "which create each GPU instance with its own compute instances",
      fmt::join(merged, " and "));
}

// --emit dra offers every GPU-instance placement, and the NVIDIA DRA driver
// makes each MIG device it hands out with the compute instance that owns the
// whole GPU instance: it skips every MIG profile whose CI is smaller than its
// GI (inspectMigProfilesAndPlacements in kubernetes-sigs/dra-driver-nvidia-gpu,
// "if info.C != info.G"). Compute instances asked for would be dropped.
std::string dra_problem(const emit_plan& plan) {
  std::vector<std::string> split;
  for (std::size_t i = 0; i < plan.create.size() && i < plan.cis.size(); ++i) {
    if (plan.cis[i].empty()) continue;
    const profile& gi = prof(*plan.gpu, plan.create[i].profile);
    for (const ci_instance& ci : plan.cis[i])
      if (gi.ci_profiles[static_cast<std::size_t>(ci.ci)].compute_slices < gi.compute_slices) {
        split.emplace_back(gi.name);
        break;
      }
  }
  if (split.empty()) return {};
  return fmt::format(
      "--emit dra cannot write compute instances: the NVIDIA DRA driver makes each MIG device "
      "with the compute instance that owns its whole GPU instance, so the split {} {} would be "
      "lost; use --emit nvidia-smi or --emit nvml",
      split.size() == 1 ? "of" : "of each", fmt::format("{}", fmt::join(split, ", ")));
}

}  // namespace migplan::cli::pack
