// SPDX-License-Identifier: Apache-2.0
#include "render/emit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <ostream>
#include <string>
#include <vector>

#include "render/dra.hpp"
#include "render/json.hpp"
#include "render/messages.hpp"
#include "render/mig_parted.hpp"

namespace migplan::cli::render {
namespace {

const profile& prof(const gpu_model& g, int p) { return g.profiles[static_cast<std::size_t>(p)]; }

std::string comment(std::string_view text) { return comment_lines(text); }

// "NVIDIA A100-SXM4-40GB", or the description when no nvidia-smi name is known.
std::string model_name(const gpu_model& g) {
  return std::string(g.name().empty() ? g.description : g.name());
}

// "3g.20gb@4 (GI 1), 3g.20gb@0 (GI 2)".
std::string existing_text(const emit_plan& plan) {
  std::string out;
  for (const current_instance& c : plan.existing)
    fmt::format_to(std::back_inserter(out), "{}{}@{}{}", out.empty() ? "" : ", ",
                   prof(*plan.gpu, c.profile).name, c.start,
                   c.instance_id ? fmt::format(" (GI {})", *c.instance_id) : "");
  return out;
}

std::string units_span(int start, int size) {
  return size == 1 ? fmt::format("unit {}", start)
                   : fmt::format("units {}-{}", start, start + size - 1);
}

// The distinct GPUs of some observations, in catalog order of first mention.
std::string observed_on(const std::vector<std::size_t>& indices) {
  std::vector<std::string_view> gpus;
  for (std::size_t k : indices) {
    const std::string_view g = driver_observations[k].gpu;
    if (std::find(gpus.begin(), gpus.end(), g) == gpus.end()) gpus.push_back(g);
  }
  return fmt::format("{}", fmt::join(gpus, ", "));
}

std::string profiles_text(const gpu_model& g, const std::vector<int>& ps) {
  std::vector<std::string_view> names;
  for (int p : ps) names.push_back(prof(g, p).name);
  return fmt::format("{}", fmt::join(names, ", "));
}

// The fallback section of the script: the order without placements, claimed
// only as far as the observations back it.
std::string fallback_text(const emit_plan& plan) {
  const gpu_model& g = *plan.gpu;
  const creation_order& c = plan.fallback;
  std::string ids;
  for (const instance& s : c.steps)
    ids += fmt::format("{}{}", ids.empty() ? "" : ",", prof(g, s.profile).id);
  const std::string command = fmt::format("nvidia-smi mig -i {} -cgi {} -C", plan.index, ids);
  const std::string model = "a model of the driver's own choice (doc/driver-placement.md)";
  const std::size_t n = c.steps.size();
  const std::string steps =
      c.choices == static_cast<int>(n)
          ? fmt::format("Each of its {} step{} leaves the driver a choice.", n, n == 1 ? "" : "s")
          : fmt::format(
                "{} of its {} steps leave{} the driver a choice; the others have one free "
                "start.",
                c.choices, n, c.choices == 1 ? "s" : "");
  const std::string lead = "Fallback without placements, for an nvidia-smi that lacks ID:START:";
  std::string out = "\n";
  switch (c.support) {
    case order_support::observed:
      if (c.choices == 0)
        out += comment(fmt::format(
            "{} created in this order, the instances can only land where planned: every step has "
            "one free start, so the driver has no choice to make.",
            lead));
      else
        out += comment(fmt::format(
            "{} created in this order, the instances land where planned by {}. {} The model "
            "reproduces every observation on this board's placement structure, and the choices "
            "this order relies on were observed on {}.",
            lead, model, steps, observed_on(c.backing)));
      out += "# " + command + "\n";
      break;
    case order_support::contradicted: {
      std::string against;
      for (std::size_t k : c.contradicting) {
        const driver_observation& o = driver_observations[k];
        against +=
            fmt::format("{}{}, where {} ({}{}; {})", against.empty() ? "" : "; ", o.gpu, o.note,
                        o.driver.empty() ? "driver not stated" : "driver ", o.driver, o.source);
      }
      out += comment(fmt::format(
          "{} by {}, this order puts the instances where planned. {} Its choices were observed "
          "on {}, but it is unverified on {}. Check the result with nvidia-smi mig -lgi.",
          lead, model, steps, observed_on(c.backing), against));
      out += "# " + command + "\n";
      break;
    }
    case order_support::unobserved:
      out += comment(fmt::format(
          "Fallback without placements: none claimed. By {} the order -cgi {} would put the "
          "instances where planned, but where the driver puts {} when it has a choice was never "
          "observed on this board's placement structure.",
          model, ids, profiles_text(g, c.unobserved)));
      break;
    case order_support::none:
      if (!c.searched)
        out += comment(
            fmt::format("Fallback without placements: not searched (more than {} creation orders).",
                        max_creation_orders));
      else
        out += comment(fmt::format(
            "Fallback without placements: none. In no creation order does {} put every instance "
            "where planned, so this layout needs -cgi ID:START or NVML's "
            "nvmlDeviceCreateGpuInstanceWithPlacement.",
            model));
      break;
  }
  return out;
}

// A YAML plain scalar when `s` is made of characters that need no quotes in
// a Kubernetes resource name, else a double-quoted one.
std::string yaml_key(std::string_view s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '/' || c == '_';
  });
  return plain ? std::string(s) : yaml_string(s);
}

// Distinct profiles of a layout with their counts, largest first.
std::vector<std::pair<int, int>> counts_largest_first(const gpu_model& g, const layout& l) {
  std::vector<std::pair<int, int>> out;
  const profile_counts c = l.counts();
  for (int p = 0; p < static_cast<int>(g.profiles.size()); ++p)
    if (c[p] > 0) out.emplace_back(p, c[p]);
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    const profile& pa = prof(g, a.first);
    const profile& pb = prof(g, b.first);
    if (pa.size != pb.size) return pa.size > pb.size;
    return pa.compute_slices > pb.compute_slices;
  });
  return out;
}

// The DRA ResourceSlices of the plan's GPU: every placement as a device
// (render/dra.hpp), on the node --node names.
void emit_dra(std::ostream& os, const emit_plan& plan) {
  dra_options opt;
  opt.gpu_index = plan.index;
  if (!plan.node.empty()) opt.node_name = plan.node;
  dra_resource_slice(os, *plan.gpu, opt);
}

constexpr std::array<emit_kind, 5> kinds{{
    {"nvidia-smi", "a POSIX sh script of nvidia-smi mig -cgi ID:START commands", emit_nvidia_smi},
    {"nvml", "JSON for nvmlDeviceCreateGpuInstanceWithPlacement", emit_nvml},
    {"mig-parted", "a mig-parted v1 config with one label for the layout", emit_mig_parted},
    {"k8s", "the NVIDIA device plugin's extended resources (mixed and single strategy)", emit_k8s},
    {"dra", "Kubernetes DRA ResourceSlices offering every placement of the GPU", emit_dra},
}};

}  // namespace

std::span<const emit_kind> emit_kinds() { return kinds; }

const emit_kind* find_emit_kind(std::string_view name) {
  for (const emit_kind& k : kinds)
    if (k.name == name) return &k;
  return nullptr;
}

std::string layout_label(const gpu_model& gpu, const layout& l) {
  std::string parts;
  for (const auto& [p, n] : counts_largest_first(gpu, l))
    parts += fmt::format("{}{}{}", parts.empty() ? "" : "-", n == 1 ? "" : fmt::format("{}x", n),
                         label_word(prof(gpu, p).name));
  const std::string head = fmt::format("migplan-{}", gpu.slug);
  std::string full = parts.empty() ? head : head + "-" + parts;
  if (full.size() <= 63) return full;
  std::uint32_t h = 2166136261u;  // FNV-1a, 32 bits
  for (char c : full) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return fmt::format("{}-{:08x}", head, h);
}

void emit_nvidia_smi(std::ostream& os, const emit_plan& plan) {
  const gpu_model& g = *plan.gpu;
  std::string out = "#!/bin/sh\n";
  out +=
      comment(fmt::format("Creates the MIG layout {} on GPU {} ({}, {}). Written by migplan "
                          "pack --emit nvidia-smi.",
                          layout_text(g, plan.whole), plan.index, g.slug, model_name(g)));
  if (!plan.existing.empty())
    out +=
        comment(fmt::format("These GPU instances exist and stay: {}. Only the others are "
                            "created.",
                            existing_text(plan)));
  out += "#\n";
  out += comment(fmt::format(
      "Before it runs: MIG mode on for GPU {} (nvidia-smi -i {} -mig 1), and no other GPU "
      "instance there{}. Each command creates one GPU instance at an explicit start (-cgi "
      "ID:START) with its default compute instance (-C), largest first: the MIG user guide's "
      "known issue refuses a 3g.20gb created after smaller instances. Every prefix of the list "
      "is a valid layout, so if the driver refuses one, set -e stops there and what was created "
      "still fits the plan.",
      plan.index, plan.index, plan.existing.empty() ? "" : " but those above"));
  out += "#\n";
  out += comment(
      "Driver: -cgi ID:START needs an nvidia-smi that takes a placement start (\"a profile name "
      "or ID and an optional placement specifier\" in nvidia-smi mig --help). The R450 "
      "nvidia-smi has no such specifier, and no NVIDIA document found says which driver branch "
      "added it; a third-party wrapper documented it by 2022-12-09. The NVML call it maps to, "
      "nvmlDeviceCreateGpuInstanceWithPlacement, is in the R470 NVML reference. Where "
      "nvidia-smi rejects the form, see the fallback below.");
  out += "set -e\n";
  if (plan.create.empty()) {
    out += "# Nothing to create: every instance of the layout exists already.\n";
    os << out;
    return;
  }
  std::size_t width = 0;
  std::vector<std::string> commands;
  bool any_ci = false;
  for (std::size_t i = 0; i < plan.create.size(); ++i) {
    const instance& in = plan.create[i];
    const bool custom = i < plan.cis.size() && !plan.cis[i].empty();
    any_ci = any_ci || custom;
    // A GPU instance with CIs of its own is made without -C, its ID taken
    // from nvidia-smi's "Successfully created GPU instance ID N ..." line.
    commands.push_back(custom ? fmt::format("gi=$(nvidia-smi mig -i {} -cgi {}:{} | gi_id)",
                                            plan.index, prof(g, in.profile).id, in.start)
                              : fmt::format("nvidia-smi mig -i {} -cgi {}:{} -C", plan.index,
                                            prof(g, in.profile).id, in.start));
    width = std::max(width, commands.back().size());
  }
  if (any_ci)
    out +=
        "# gi_id: the ID in nvidia-smi's \"Successfully created GPU instance ID N ...\", "
        "for -gi;\n# an empty ID (creation failed) stops the script at 'test -n'.\n"
        "gi_id() { sed -n 's/.*created GPU instance ID *\\([0-9][0-9]*\\).*/\\1/p'; }\n";
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const instance& in = plan.create[i];
    const profile& p = prof(g, in.profile);
    out +=
        fmt::format("{:<{}}  # {}, {}\n", commands[i], width, p.name, units_span(in.start, p.size));
    if (i >= plan.cis.size() || plan.cis[i].empty()) continue;
    // The CIs, largest first: -cci takes no start, and each lands on the
    // first free slices its size allows (doc/compute-instances.md).
    std::vector<ci_instance> cis = plan.cis[i];
    std::stable_sort(cis.begin(), cis.end(), [&](const ci_instance& x, const ci_instance& y) {
      const ci_profile& cx = p.ci_profiles[static_cast<std::size_t>(x.ci)];
      const ci_profile& cy = p.ci_profiles[static_cast<std::size_t>(y.ci)];
      return cx.compute_slices != cy.compute_slices ? cx.compute_slices > cy.compute_slices
                                                    : x.start < y.start;
    });
    std::vector<std::string> ids, shown;
    for (const ci_instance& ci : cis) {
      const ci_profile& cp = p.ci_profiles[static_cast<std::size_t>(ci.ci)];
      ids.push_back(fmt::format("{}", cp.id));
      shown.push_back(fmt::format("{}@{}", cp.name, ci.start));
    }
    out += fmt::format(
        "nvidia-smi mig -i {} -gi \"$gi\" -cci {}  # compute instances {} (starts planned by "
        "an inferred rule)\n",
        plan.index, fmt::join(ids, ","), fmt::join(shown, " "));
  }
  out += fallback_text(plan);
  if (any_ci)
    out +=
        "# The fallback makes each GPU instance's default compute instance (-C); to get the\n"
        "# compute instances planned above instead, leave out -C and run the -cci lines.\n";
  os << out;
}

void emit_nvml(std::ostream& os, const emit_plan& plan) {
  const gpu_model& g = *plan.gpu;
  write_document(os, [&](json_writer& w) {
    w.key("gpu").value(g.slug);
    w.key("index").value(plan.index);
    w.key("create").begin_array();
    for (const instance& in : plan.create) {
      const profile& p = prof(g, in.profile);
      w.begin_object();
      w.key("profile_id").value(p.id);
      w.key("profile").value(p.name);
      w.key("start").value(in.start);
      w.key("size").value(p.size);
      // The CIs to make in it (nvmlGpuInstanceCreateComputeInstanceWithPlacement,
      // start and size in compute slices of the GPU instance); empty for the
      // default CI alone.
      w.key("compute_instances").begin_array();
      const std::size_t i = static_cast<std::size_t>(&in - plan.create.data());
      if (i < plan.cis.size())
        for (const ci_instance& ci : plan.cis[i]) {
          const ci_profile& cp = p.ci_profiles[static_cast<std::size_t>(ci.ci)];
          w.begin_object().key("profile_id").value(cp.id).key("profile").value(cp.name);
          w.key("start").value(ci.start).key("size").value(cp.compute_slices).end_object();
        }
      w.end_array();
      w.end_object();
    }
    w.end_array();
  });
}

void emit_mig_parted(std::ostream& os, const emit_plan& plan) {
  const gpu_model& g = *plan.gpu;
  mig_parted_config config;
  const std::string label = layout_label(g, plan.whole);
  config.header = {
      fmt::format("mig-parted config for the MIG layout {} on every {} ({}). Written by migplan "
                  "pack --emit mig-parted. mig-parted takes counts, not starts: it tries "
                  "creation orders until the driver accepts one, so an instance may sit "
                  "elsewhere than planned; the counts are the plan's.",
                  layout_text(g, plan.whole), g.slug, model_name(g)),
      "",
      "Apply it with:",
      fmt::format("  nvidia-mig-parted apply -f FILE -c {}", label),
  };
  mig_parted_entry e{&g, true, counts_largest_first(g, plan.whole)};
  config.labels.push_back({label, {e}});
  mig_parted(os, config);
}

void emit_k8s(std::ostream& os, const emit_plan& plan) {
  const gpu_model& g = *plan.gpu;
  const std::vector<std::pair<int, int>> counts = counts_largest_first(g, plan.whole);
  std::string out = comment(fmt::format(
      "What the NVIDIA device plugin advertises for one {} ({}) with the MIG layout {}; a node "
      "advertises the sum over its GPUs. Written by migplan pack --emit k8s.",
      g.slug, model_name(g), layout_text(g, plan.whole)));
  out += comment(
      "Mixed strategy (--mig-strategy=mixed): one extended resource per profile, named \"mig-\" "
      "and the profile with \"+\" as \".\" (k8s-device-plugin, internal/rm/rm.go, "
      "AddDefaultResourcesToConfig).");
  out += "mixed:\n";
  std::string notes;
  for (const auto& [p, n] : counts) {
    const profile& pr = prof(g, p);
    out += fmt::format("  {}: {}\n",
                       yaml_key(fmt::format("nvidia.com/mig-{}", label_word(pr.name))), n);
    for (const circulating_name& c : pr.circulating_names)
      notes +=
          comment(fmt::format("{}: the plugin names a profile by its own formula from the "
                              "memory NVML reports, and setups have advertised "
                              "nvidia.com/mig-{} for this one: {}.",
                              pr.name, label_word(c.name), c.note));
  }
  out += notes;
  if (counts.size() == 1) {
    out += comment(
        "Single strategy (--mig-strategy=single): every MIG device is advertised as "
        "nvidia.com/gpu; the layout is uniform, so it can serve it.");
    out += fmt::format("single:\n  nvidia.com/gpu: {}\n", counts.front().second);
  } else {
    out += comment(fmt::format(
        "Single strategy (--mig-strategy=single): cannot serve this layout. It holds {} profiles, "
        "and the plugin refuses a node whose MIG devices differ (\"more than one MIG device type "
        "present on node\", internal/rm/device_map.go).",
        counts.size()));
    out += "single: null\n";
  }
  os << out;
}

}  // namespace migplan::cli::render
