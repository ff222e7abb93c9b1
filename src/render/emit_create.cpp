// SPDX-License-Identifier: Apache-2.0
// What creates the instances of a layout on one GPU: the nvidia-smi script
// (with its fallback without placements) and the arguments of NVML's
// placement call. The other --emit kinds, which describe the whole layout,
// are in emit.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <migplan/compute.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "messages.hpp"
#include "render/emit.hpp"
#include "render/inferred.hpp"
#include "render/json.hpp"
#include "render/mig_parted.hpp"
#include "text.hpp"

namespace migplan::cli::render {
namespace {

std::string comment(std::string_view text) { return comment_lines(text); }

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
          ? fmt::format("Each of its {} step{} leaves the driver a choice.", n, plural(n))
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

// The first driver that has MIG on the model and every profile the script creates, from the
// catalog (NVIDIA's MIG guide); a model without one says so rather than guess.
std::string min_driver_line(const emit_plan& plan) {
  const gpu_model& g = *plan.gpu;
  std::string out = g.min_driver.empty()
                        ? fmt::format("Minimum driver for MIG on {}: not known to migplan.", g.slug)
                        : fmt::format("Minimum driver for MIG on {}: {}{}, per NVIDIA's MIG guide.",
                                      g.slug, g.min_driver,
                                      g.min_driver_version.empty()
                                          ? std::string()
                                          : fmt::format(" (>= {})", g.min_driver_version));
  std::vector<int> later;  // profiles created here that came after the model's first driver
  for (const instance& in : plan.create)
    if (const profile& p = prof(g, in.profile);
        !p.min_driver.empty() && p.min_driver != g.min_driver &&
        std::find(later.begin(), later.end(), in.profile) == later.end())
      later.push_back(in.profile);
  for (int p : later)
    out += fmt::format(" {} needs {} or later.", prof(g, p).name, prof(g, p).min_driver);
  return out;
}

}  // namespace

void emit_nvidia_smi(std::ostream& os, const emit_plan& plan) {
  const gpu_model& g = *plan.gpu;
  std::string out = "#!/bin/sh\n";
  out += comment(fmt::format(
      "Creates the MIG layout {} on GPU {}{} ({}, {}). Written by migplan "
      "{} --emit nvidia-smi.",
      layout_text(g, plan.whole), plan.index, plan.host.empty() ? "" : " of node " + plan.host,
      g.slug, model_name(g), plan.command));
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
  out += comment(min_driver_line(plan));
  if (const std::vector<int> inferred =
          inferred_among(*plan.gpu, std::span<const instance>(plan.create));
      !inferred.empty()) {
    const bool starts = std::any_of(inferred.begin(), inferred.end(), [&](int p) {
      return has(prof(g, p).prov.inferred, field::placements);
    });
    out += comment(inferred_sentence(g, inferred) +
                   (starts ? " Where a start here rests on inferred placements, the driver may "
                             "refuse it."
                           : ""));
  }
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
        "for -gi;\n# without one (creation failed) it fails, and set -e stops the script.\n"
        "gi_id() { sed -n 's/.*created GPU instance ID *\\([0-9][0-9]*\\).*/\\1/p' | grep .; }\n";
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
    w.key("inferred").begin_array();
    write_inferred(w, g, inferred_among(*plan.gpu, std::span<const instance>(plan.create)));
    w.end_array();
  });
}

}  // namespace migplan::cli::render
