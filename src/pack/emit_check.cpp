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

// How mig-parted groups the CIs of one GI profile (SetMigConfig,
// pkg/mig/config/config.go): its config counts CIs, flattened largest GI
// then largest CI first (MigConfig.Flatten, pkg/types/mig_config.go), and
// each CI goes in the GI it made last while the driver can create it there,
// else in a new GI. No two GI profiles of 2 or more slices share a size in
// the catalog, so a profile's CIs come one after the other. The driver's
// start for a CI created without one is taken as the lowest free start of
// the inferred rule (compute.hpp, ci_starts), as solve_cis places them.
// Empty when the GI's CI profiles tie on slices (their order is mig-parted's
// sort of names, not modelled).
std::vector<std::vector<int>> mig_parted_grouping(const profile& gi, std::vector<int> cis) {
  const auto slices = [&](int ci) {
    return gi.ci_profiles[static_cast<std::size_t>(ci)].compute_slices;
  };
  for (std::size_t a = 0; a < gi.ci_profiles.size(); ++a)
    for (std::size_t b = a + 1; b < gi.ci_profiles.size(); ++b)
      if (gi.ci_profiles[a].compute_slices == gi.ci_profiles[b].compute_slices) return {};
  std::stable_sort(cis.begin(), cis.end(), [&](int a, int b) { return slices(a) > slices(b); });
  std::vector<std::vector<int>> gis;
  unit_mask used = 0;
  const auto start_in = [&](int ci, unit_mask taken) {
    const int c = slices(ci);
    const unit_mask starts = ci_starts(gi.compute_slices, c);
    const unit_mask span = static_cast<unit_mask>((1u << c) - 1u);
    for (int s = 0; s < gi.compute_slices; ++s)
      if ((starts >> s & 1u) != 0 && (taken & static_cast<unit_mask>(span << s)) == 0) return s;
    return -1;
  };
  for (const int ci : cis) {
    const int cap = gi.ci_profiles[static_cast<std::size_t>(ci)].max_instances;
    int s = -1;
    if (!gis.empty() && (cap <= 0 || std::count(gis.back().begin(), gis.back().end(), ci) < cap))
      s = start_in(ci, used);
    if (s < 0) {
      gis.emplace_back();
      used = 0;
      s = start_in(ci, used);
      if (s < 0) return {};  // a CI no GI holds: not mig-parted's grouping to model
    }
    gis.back().push_back(ci);
    used |= static_cast<unit_mask>(((1u << slices(ci)) - 1u) << s);
  }
  return gis;
}

// One GI's CIs as messages show them: "{2c, 1c}".
std::string shown_gi(const profile& gi, const std::vector<int>& cis) {
  std::vector<std::string> names;
  for (const int ci : cis)
    names.push_back(
        fmt::format("{}c", gi.ci_profiles[static_cast<std::size_t>(ci)].compute_slices));
  return fmt::format("{{{}}}", fmt::join(names, ", "));
}

std::string shown_gis(const profile& gi, const std::vector<std::vector<int>>& gis) {
  std::vector<std::string> out;
  for (const auto& g : gis) out.push_back(shown_gi(gi, g));
  return fmt::format("{}", fmt::join(out, " + "));
}

// The GI profiles whose CIs mig-parted would not group as the layout does.
// It counts CIs, not GIs (above), so it may share them out over fewer GIs
// than the layout has ("3g.20gb[2c]" beside "3g.20gb[1c]" in one GI: checked
// by the fewest GIs that hold them, group_cis), or over as many GIs, grouped
// otherwise ("3g.20gb[1c,1c]" beside "3g.20gb[2c]" made as {2c, 1c} + {1c}).
struct regrouped {
  std::vector<std::string> merged;  // "2 3g.20gb GIs into 1"
  std::vector<std::string> moved;   // "3g.20gb as {2c, 1c} + {1c} where ..."
};

regrouped regrouped_by_mig_parted(const emit_plan& plan) {
  const gpu_model& g = *plan.gpu;
  std::map<int, std::vector<std::vector<int>>> split;  // GI profile -> its split GIs' CIs
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
    if (!cis.empty()) split[c.profile].push_back(std::move(cis));
  }
  for (std::size_t i = 0; i < plan.create.size() && i < plan.cis.size(); ++i) {
    const profile& gi = prof(g, plan.create[i].profile);
    std::vector<int> cis;
    for (const ci_instance& ci : plan.cis[i])
      if (gi.ci_profiles[static_cast<std::size_t>(ci.ci)].compute_slices < gi.compute_slices)
        cis.push_back(ci.ci);
    if (!cis.empty()) split[plan.create[i].profile].push_back(std::move(cis));
  }
  regrouped out;
  // A grouping as a set: each GI's CIs largest first, the GIs in order.
  const auto normal = [](const profile& gi, std::vector<std::vector<int>> gis) {
    for (auto& cis : gis)
      std::stable_sort(cis.begin(), cis.end(), [&](int a, int b) {
        return gi.ci_profiles[static_cast<std::size_t>(a)].compute_slices >
               gi.ci_profiles[static_cast<std::size_t>(b)].compute_slices;
      });
    std::sort(gis.begin(), gis.end(), std::greater<>());
    return gis;
  };
  for (const auto& [p, gis] : split) {
    const profile& gi = prof(g, p);
    std::vector<int> all;
    for (const auto& cis : gis) all.insert(all.end(), cis.begin(), cis.end());
    const ci_grouping fewest = group_cis(gi, all);
    if (fewest.gis.size() < gis.size()) {
      out.merged.push_back(
          fmt::format("{} {} GIs into {}", gis.size(), gi.name, fewest.gis.size()));
      continue;
    }
    const auto made = mig_parted_grouping(gi, all);
    if (made.empty()) continue;
    const auto asked = normal(gi, gis);
    if (normal(gi, made) != asked)
      out.moved.push_back(fmt::format("{} as {} where the layout has {}", gi.name,
                                      shown_gis(gi, normal(gi, made)), shown_gis(gi, asked)));
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
  const regrouped r = regrouped_by_mig_parted(plan);
  if (!r.merged.empty())
    return fmt::format(
        "a mig-parted config cannot keep this layout's compute instances apart: mig-parted "
        "counts compute instances, not GPU instances, and puts each in the GPU instance it made "
        "last while it fits there, so it may merge {}; use --emit nvidia-smi or --emit nvml, "
        "which create each GPU instance with its own compute instances",
        fmt::join(r.merged, " and "));
  if (!r.moved.empty())
    return fmt::format(
        "a mig-parted config cannot keep this layout's compute instances grouped as they are: "
        "mig-parted counts compute instances, creates the largest first and puts each in the "
        "GPU instance it made last while it fits there, so it would make {}; ask for its "
        "grouping, or use --emit nvidia-smi or --emit nvml, which create each GPU instance "
        "with its own compute instances",
        fmt::join(r.moved, " and "));
  return {};
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
