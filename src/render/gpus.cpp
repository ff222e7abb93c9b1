// SPDX-License-Identifier: Apache-2.0
#include "render/gpus.hpp"

#include <fmt/format.h>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "quote.hpp"
#include "render/json.hpp"

namespace migplan::cli::render {
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

// The first driver with MIG on the model: its version, else its branch, else "?".
std::string_view driver_text(const gpu_model& g) {
  if (!g.min_driver_version.empty()) return g.min_driver_version;
  return g.min_driver.empty() ? "?" : g.min_driver;
}

std::string pci_text(const pci_id& id) {
  return fmt::format("0x{:08X}{}", id.value, id.inferred ? "?" : "");
}

}  // namespace

std::string min_driver_text(const gpu_model& g) {
  std::string out = "minimum driver: ";
  if (g.min_driver.empty())
    out += "unknown for MIG";
  else if (g.min_driver_version.empty())
    out += fmt::format("{} for MIG (NVIDIA's MIG guide)", g.min_driver);
  else
    out +=
        fmt::format("{} (>= {}) for MIG (NVIDIA's MIG guide)", g.min_driver, g.min_driver_version);
  std::string later;
  for (const profile& p : g.profiles)
    if (!p.min_driver.empty() && p.min_driver != g.min_driver)
      later += fmt::format("{}{} from {}", later.empty() ? "" : ", ", p.name, p.min_driver);
  if (!later.empty()) out += "; " + later;
  return out;
}

void gpus_text(std::ostream& os, std::span<const listed_model> models) {
  os << fmt::format("{:<13} {:>5} {:>7} {:>10}  {:<11}  {:<10}  {}\n", "gpu", "units", "compute",
                    "memory", "coverage", "min driver", "pci ids");
  bool loaded = false;
  for (const listed_model& l : models) {
    const gpu_model& g = *l.gpu;
    loaded = loaded || !l.file.empty();
    std::string ids;
    // Appended piecewise: `"" + std::string` trips g++ 12's -Wrestrict at -O2.
    for (const pci_id& id : g.pci_ids) {
      if (!ids.empty()) ids += ' ';
      ids += pci_text(id);
    }
    std::string line =
        fmt::format("{:<13} {:>5} {:>7} {:>10}  {:<11}  {:<10}  {}", g.slug, g.units,
                    g.compute_slices, g.memory_mib ? fmt::format("{} MiB", *g.memory_mib) : "?",
                    coverage_name(g.cover), driver_text(g), ids);
    // A model with no known PCI ID ends at its driver column, without trailing blanks.
    while (line.back() == ' ') line.pop_back();
    os << line << "\n";
  }
  if (!loaded) return;
  os << "\nloaded with --gpu-file:\n";
  for (const listed_model& l : models)
    if (!l.file.empty()) os << fmt::format("  {:<13} {}\n", l.gpu->slug, clip_token(l.file, 200));
}

void gpus_json(std::ostream& os, std::span<const listed_model> models) {
  write_document(os, [&](json_writer& w) {
    w.key("gpus").begin_array();
    for (const listed_model& l : models) {
      const gpu_model& g = *l.gpu;
      // `name` is one --gpu accepts (an nvidia-smi name) or null; `description` is prose.
      const std::optional<std::string_view> name =
          g.name().empty() ? std::nullopt : std::optional(g.name());
      w.begin_object().key("id").value(g.slug).key("name").value(name);
      w.key("description").value(g.description);
      w.key("smi_names").begin_array();
      for (std::string_view n : g.smi_names) w.value(n);
      w.end_array().key("pci_ids").begin_array();
      for (const pci_id& id : g.pci_ids) {
        w.begin_object().key("id").value(fmt::format("0x{:08X}", id.value));
        w.key("inferred").value(id.inferred).end_object();
      }
      w.end_array();
      w.key("memory_mib").value(g.memory_mib).key("units").value(g.units);
      w.key("compute_slices").value(g.compute_slices).key("coverage").value(coverage_name(g.cover));
      w.key("coverage_note").value(g.coverage_note).key("evidence").value(g.evidence);
      write_min_driver(w, g);
      w.key("profiles").begin_array();
      for (const profile& p : g.profiles) w.value(p.name);
      w.end_array();
      // Where the model comes from: migplan's catalog, or a --gpu-file.
      w.key("source").value(l.file.empty() ? "built-in" : "file");
      if (l.file.empty())
        w.key("file").null();
      else
        w.key("file").value(l.file);
      w.end_object();
    }
    w.end_array();
  });
}

}  // namespace migplan::cli::render
