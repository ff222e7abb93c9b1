// SPDX-License-Identifier: Apache-2.0
// `migplan gpus`: the supported models, how to name them, and how well their
// tables are backed by captures.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <migplan/catalog.hpp>
#include <ostream>

#include "app.hpp"
#include "error.hpp"
#include "render/json.hpp"
#include "render/style.hpp"

namespace migplan::cli {
namespace {

std::string_view coverage_name(coverage c) {
  switch (c) {
    case coverage::full:
      return "full";
    case coverage::partial:
      return "partial";
    case coverage::config_only:
      return "config-only";
  }
  return "";
}

std::string pci_text(const pci_id& id) {
  return fmt::format("0x{:08X}{}", id.value, id.inferred ? "?" : "");
}

}  // namespace

void add_gpus(CLI::App& app, context& ctx) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("gpus", "List the supported GPU models");
  cmd->add_flag("--json", *json, "One JSON object on stdout (schema_version 1)");
  cmd->footer(
      "Coverage: full = -lgip and -lgipp captured; partial = some values inferred by "
      "analogy;\nconfig-only = names and counts from NVIDIA configs, nothing captured. "
      "A '?' after a PCI ID\nmarks an inferred mapping.");
  cmd->callback([json, &ctx] {
    if (*json) {
      ojson gpus = ojson::array();
      for (const gpu_model& g : catalog()) {
        ojson ids = ojson::array();
        for (const pci_id& id : g.pci_ids)
          ids.push_back({{"id", fmt::format("0x{:08X}", id.value)}, {"inferred", id.inferred}});
        ojson names = ojson::array();
        for (std::string_view n : g.smi_names) names.push_back(n);
        ojson profiles = ojson::array();
        for (const profile& p : g.profiles) profiles.push_back(p.name);
        gpus.push_back({{"id", g.slug},
                        {"name", g.display_name},
                        {"smi_names", names},
                        {"pci_ids", ids},
                        {"memory_mib", g.memory_mib ? ojson(*g.memory_mib) : ojson(nullptr)},
                        {"units", g.units},
                        {"compute_slices", g.compute_slices},
                        {"coverage", coverage_name(g.cover)},
                        {"coverage_note", g.coverage_note},
                        {"evidence", g.evidence},
                        {"profiles", profiles}});
      }
      ctx.out << ojson{{"schema_version", json_schema_version}, {"gpus", gpus}}.dump(2) << "\n";
      ctx.code = exit_ok;
      return;
    }
    ctx.out << fmt::format("{:<13} {:>5} {:>7} {:>10}  {:<11}  {}\n", "gpu", "units", "compute",
                           "memory", "coverage", "pci ids");
    for (const gpu_model& g : catalog()) {
      std::string ids;
      for (const pci_id& id : g.pci_ids) ids += (ids.empty() ? "" : " ") + pci_text(id);
      ctx.out << fmt::format(
          "{:<13} {:>5} {:>7} {:>10}  {:<11}  {}\n", g.slug, g.units, g.compute_slices,
          g.memory_mib ? fmt::format("{} MiB", *g.memory_mib) : "?", coverage_name(g.cover), ids);
    }
    ctx.code = exit_ok;
  });
}

}  // namespace migplan::cli
