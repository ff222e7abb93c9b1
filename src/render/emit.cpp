// SPDX-License-Identifier: Apache-2.0
#include "render/emit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <map>
#include <migplan/compute.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "k8s_names.hpp"
#include "messages.hpp"
#include "render/dra.hpp"
#include "render/inferred.hpp"
#include "render/json.hpp"
#include "render/mig_parted.hpp"
#include "render/slurm.hpp"
#include "render/yaml.hpp"
#include "text.hpp"

namespace migplan::cli::render {

std::string model_name(const gpu_model& g) {
  return std::string(g.name().empty() ? g.description : g.name());
}

namespace {

std::string comment(std::string_view text) { return comment_lines(text); }

// The MIG devices per GI profile, largest first: a compute instance is a
// device of its own, counted under its GPU instance's profile.
std::vector<std::pair<int, long long>> per_gi_profile(const std::vector<emit_device>& devices) {
  std::vector<std::pair<int, long long>> per_gi;
  for (const emit_device& d : devices) {
    const auto it =
        std::find_if(per_gi.begin(), per_gi.end(), [&](const auto& x) { return x.first == d.gi; });
    if (it == per_gi.end())
      per_gi.emplace_back(d.gi, d.count);
    else
      it->second += d.count;
  }
  return per_gi;
}

// Whether any GI of the layout is split into smaller compute instances.
bool any_split(const std::vector<emit_device>& devices) {
  return std::any_of(devices.begin(), devices.end(),
                     [](const emit_device& d) { return !d.whole(); });
}

}  // namespace

void emit_dra(std::ostream& os, const emit_plan& plan) {
  dra_options opt;
  opt.gpu_index = plan.index;
  if (!plan.node.empty()) opt.node_name = plan.node;
  dra_resource_slice(os, *plan.gpu, opt);
}

std::string layout_label(const emit_plan& plan) {
  const gpu_model& gpu = *plan.gpu;
  std::string parts;
  for (const emit_device& d : plan.devices)
    parts += fmt::format("{}{}{}", parts.empty() ? "" : "-",
                         d.count == 1 ? "" : fmt::format("{}x", d.count), k8s::label_word(d.name));
  const std::string head = fmt::format("migplan-{}", gpu.slug);
  std::string full = parts.empty() ? head : head + "-" + parts;
  if (full.size() <= 63) return full;
  std::uint32_t h = 2166136261u;  // FNV-1a, 32 bits
  for (char c : full) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return fmt::format("{}-{:08x}", head, h);
}
namespace {

// The profiles of the whole layout (existing instances too) with inferred
// values: what mig-parted and the device plugin describe.
std::vector<int> layout_inferred(const emit_plan& plan) {
  return inferred_among(*plan.gpu, std::span<const instance>(plan.whole.begin(), plan.whole.end()));
}

}  // namespace

void emit_mig_parted(std::ostream& os, const emit_plan& plan) {
  const gpu_model& g = *plan.gpu;
  mig_parted_config config;
  const std::string label = layout_label(plan);
  const std::vector<emit_device>& devices = plan.devices;
  config.header = {
      fmt::format("mig-parted config for the MIG layout {} on every {} ({}). Written by migplan "
                  "pack --emit mig-parted. mig-parted takes counts, not starts: it tries "
                  "creation orders until the driver accepts one, so an instance may sit "
                  "elsewhere than planned; the counts are the plan's.",
                  layout_text(g, plan.whole), g.slug, model_name(g)),
  };
  if (any_split(devices))
    config.header.push_back(
        "A GPU instance split into compute instances is written as its compute instances, "
        "by CI profile (\"1c.3g.20gb\"), as nvidia-mig-parted export names them: mig-parted "
        "creates the largest first, each in the GPU instance it made last while it fits there, "
        "and this layout's compute instances share GPU instances as that makes them (where a "
        "compute instance starts inside its GPU instance is inferred).");
  if (const std::vector<int> inferred = layout_inferred(plan); !inferred.empty())
    config.header.push_back(inferred_sentence(g, inferred));
  config.header.insert(
      config.header.end(),
      {"", "Apply it with:", fmt::format("  nvidia-mig-parted apply -f FILE -c {}", label)});
  mig_parted_entry e{&g, true, {}};
  for (const emit_device& d : devices) {
    if (d.whole())
      e.devices.emplace_back(d.gi, d.count);
    else
      e.compute.emplace_back(d.name, d.count);
  }
  config.labels.push_back({label, {e}});
  mig_parted(os, config);
}

namespace {

// The resource counts, largest GI profile first (the order of `devices`).
using resource_counts = std::vector<std::pair<int, long long>>;

void add_count(resource_counts& out, int p, long long n) {
  const auto it = std::find_if(out.begin(), out.end(), [&](const auto& x) { return x.first == p; });
  if (it == out.end())
    out.emplace_back(p, n);
  else
    it->second += n;
}

std::string resource_name(const gpu_model& g, int p) {
  return fmt::format("nvidia.com/mig-{}", k8s::label_word(prof(g, p).name));
}

std::string resource_lines(const gpu_model& g, const resource_counts& counts) {
  std::string out;
  for (const auto& [p, n] : counts)
    out += fmt::format("  {}: {}\n", yaml_scalar(resource_name(g, p)), n);
  return out;
}

}  // namespace

void emit_k8s(std::ostream& os, const emit_plan& plan) {
  const gpu_model& g = *plan.gpu;
  const std::vector<emit_device>& devices = plan.devices;
  // Each MIG device by the resource released plugins count it under
  // (unanchored), and by its own profile's as plugins with anchored patterns
  // (NVIDIA/k8s-device-plugin PR 1807, merged 2026-08-19) count a whole GPU
  // instance; those find no pattern for a compute instance smaller than its GI.
  resource_counts mixed, anchored;
  std::vector<std::string> moved;  // devices counted under another profile's resource
  for (const emit_device& d : devices) {
    const int r = d.resource;
    add_count(mixed, r < 0 ? d.gi : r, d.count);
    if (d.whole()) add_count(anchored, d.gi, d.count);
    if (d.whole() && r >= 0 && r != d.gi)
      moved.push_back(fmt::format("{} x {} as {}", d.count, d.name, resource_name(g, r)));
  }
  const bool split = any_split(devices);
  std::string out = comment(fmt::format(
      "What the NVIDIA device plugin advertises for one {} ({}) with the MIG layout {}; a node "
      "advertises the sum over its GPUs. Written by migplan pack --emit k8s.",
      g.slug, model_name(g), layout_text(g, plan.whole)));
  out += comment(
      "Mixed strategy (--mig-strategy=mixed): one extended resource per profile, named \"mig-\" "
      "and the profile with \"+\" as \".\" (k8s-device-plugin, internal/rm/rm.go, "
      "AddDefaultResourcesToConfig). A MIG device counts under the first resource whose "
      "profile its own name contains, plain profiles first (api/config/v1/resources.go, "
      "Matches, unanchored; internal/rm/device_map.go).");
  if (const std::vector<int> inferred = layout_inferred(plan); !inferred.empty())
    out += comment(inferred_sentence(g, inferred));
  if (!moved.empty())
    out += comment(fmt::format(
        "Profiles with a suffix: the plugin's resource for a plain profile comes first and its "
        "name is inside theirs, so it counts them under it: {}. A pod that asks for the plain "
        "profile may get one of them, and none can ask for them by name.",
        fmt::join(moved, ", ")));
  if (split) {
    std::vector<std::string> cis;
    for (const emit_device& d : devices)
      if (!d.whole()) {
        const int r = d.resource;
        cis.push_back(
            fmt::format("{} x {} as {}", d.count, d.name, resource_name(g, r < 0 ? d.gi : r)));
      }
    out += comment(fmt::format(
        "Compute instances: every compute instance is a MIG device of its own, and the plugin "
        "has no resource for a CI profile smaller than its GPU instance (it skips them, "
        "\"info.C != info.G\"); it counts each under its GPU instance's resource, whose name "
        "its profile contains: {}. A pod that asks for one may get a compute instance, not a "
        "whole GPU instance.",
        fmt::join(cis, ", ")));
  }
  out += "mixed:\n" + resource_lines(g, mixed);
  std::string notes;
  for (const auto& [p, n] : mixed) {
    const profile& pr = prof(g, p);
    for (const circulating_name& c : pr.circulating_names)
      notes +=
          comment(fmt::format("{}: the plugin names a profile by its own formula from the "
                              "memory NVML reports, and setups have advertised "
                              "nvidia.com/mig-{} for this one: {}.",
                              pr.name, k8s::label_word(c.name), c.note));
  }
  out += notes;
  if (split) {
    out += comment(
        "Plugins built since NVIDIA/k8s-device-plugin PR 1807 (merged 2026-08-19) match the "
        "patterns anchored: a compute instance then matches no resource, and the plugin "
        "refuses the node's MIG devices (\"does not match any resource patterns\", "
        "internal/rm/device_map.go).");
    out += "mixed-anchored: null\n";
  } else if (!moved.empty()) {
    out += comment(
        "Plugins built since NVIDIA/k8s-device-plugin PR 1807 (merged 2026-08-19) match the "
        "patterns anchored, and count every profile under its own resource:");
    out += "mixed-anchored:\n" + resource_lines(g, anchored);
  }
  if (devices.size() == 1) {
    out += comment(
        split ? fmt::format("Single strategy (--mig-strategy=single): every MIG device is "
                            "advertised as nvidia.com/gpu; {} {}, so it can serve {}.",
                            devices.front().count == 1
                                ? std::string("the one device is")
                                : fmt::format("the {} devices are all", devices.front().count),
                            devices.front().name, devices.front().count == 1 ? "it" : "them")
              : std::string("Single strategy (--mig-strategy=single): every MIG device is "
                            "advertised as nvidia.com/gpu; the layout is uniform, so it can "
                            "serve it."));
    out += fmt::format("single:\n  nvidia.com/gpu: {}\n", devices.front().count);
  } else {
    out += comment(fmt::format(
        "Single strategy (--mig-strategy=single): cannot serve this layout. It holds {} {}, "
        "and the plugin refuses a node whose MIG devices differ (\"more than one MIG device "
        "type present on node\", internal/rm/device_map.go).",
        devices.size(), split ? "kinds of MIG device" : "profiles"));
    out += "single: null\n";
  }
  os << out;
}

void emit_slurm(std::ostream& os, const emit_plan& plan) {
  const gpu_model& g = *plan.gpu;
  const std::vector<emit_device>& devices = plan.devices;
  const slurm_counts c = slurm_types(g, per_gi_profile(devices));
  std::string out = comment(fmt::format(
      "Slurm GRES for one {} ({}) with the MIG layout {}; a node lists the sum over its GPUs. "
      "Written by migplan pack --emit slurm.",
      g.slug, model_name(g), layout_text(g, plan.whole)));
  out += comment(
      "Slurm does not create MIG devices: create the layout first (--emit nvidia-smi or "
      "mig-parted). slurmd then finds them (AutoDetect=nvml) and drains a node whose devices "
      "differ from its Gres.");
  const gpu_model* const model = &g;
  out += slurm_types_note(std::span<const gpu_model* const>(&model, 1));
  if (const std::vector<int> inferred = layout_inferred(plan); !inferred.empty())
    out += comment(inferred_sentence(g, inferred));
  out += "# gres.conf:\nAutoDetect=nvml\n";
  out += "# slurm.conf (with GresTypes=gpu), on the node's NodeName line:\n";
  out += fmt::format("Gres={}\n", slurm_gres(c.by_profile));
  const slurm_line line{"Gres=", &g, c};
  out += slurm_memory_note(std::span<const slurm_line>(&line, 1));
  os << out;
}

}  // namespace migplan::cli::render
