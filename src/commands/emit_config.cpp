// SPDX-License-Identifier: Apache-2.0
// `migplan emit-config`: a mig-parted v1 config like the one mig-parted's
// generate-config writes, but offline, for catalog models: all-disabled,
// all-enabled, all-balanced and one all-PROFILE label per profile.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <migplan/catalog.hpp>
#include <migplan/configs.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app.hpp"
#include "error.hpp"
#include "io/names.hpp"
#include "model/mig_parted.hpp"
#include "models.hpp"
#include "quote.hpp"
#include "render/mig_parted.hpp"

namespace migplan::cli {
namespace {

struct emit_config_options {
  std::vector<std::string> gpus;
  std::string output;  // -o FILE; empty for stdout
};

// The labels for `models`, in the order written: all-disabled, all-enabled,
// all-balanced, then one all-PROFILE per profile name in order of first
// appearance (catalog order of models, then of their profiles). A name that
// several models have gets one entry per model.
mig_parted_config build(const std::vector<const gpu_model*>& models) {
  mig_parted_config c;
  mig_parted_label disabled{"all-disabled", {}}, enabled{"all-enabled", {}},
      balanced{"all-balanced", {}};
  std::vector<mig_parted_label> alone;
  for (const gpu_model* g : models) {
    disabled.entries.push_back({g, false, {}});
    enabled.entries.push_back({g, true, {}});
    if (const std::optional<profile_counts> b = balanced_geometry(*g)) {
      mig_parted_entry e{g, true, {}};
      // Smallest first, as NVIDIA's all-balanced entries list them.
      for (int p = 0; p < static_cast<int>(g->profiles.size()); ++p)
        if ((*b)[p] > 0) e.devices.emplace_back(p, (*b)[p]);
      std::stable_sort(e.devices.begin(), e.devices.end(), [&](const auto& x, const auto& y) {
        return g->profiles[static_cast<std::size_t>(x.first)].compute_slices <
               g->profiles[static_cast<std::size_t>(y.first)].compute_slices;
      });
      balanced.entries.push_back(std::move(e));
    }
    for (int p = 0; p < static_cast<int>(g->profiles.size()); ++p) {
      const int n = most_alone(*g, p);
      if (n == 0) continue;
      const std::string name =
          "all-" + render::label_word(g->profiles[static_cast<std::size_t>(p)].name);
      auto it = std::find_if(alone.begin(), alone.end(),
                             [&](const mig_parted_label& l) { return l.name == name; });
      if (it == alone.end()) it = alone.insert(alone.end(), mig_parted_label{name, {}});
      it->entries.push_back({g, true, {{p, n}}});
    }
  }
  c.labels.push_back(std::move(disabled));
  c.labels.push_back(std::move(enabled));
  if (!balanced.entries.empty()) c.labels.push_back(std::move(balanced));
  for (mig_parted_label& l : alone) c.labels.push_back(std::move(l));
  std::vector<std::string> slugs;
  for (const gpu_model* g : models) slugs.emplace_back(g->slug);
  c.header = {
      fmt::format("mig-parted v1 config written by migplan emit-config, offline, from migplan's "
                  "catalog (data {}) for {}.",
                  catalog_revision(), fmt::join(slugs, ", ")),
      "",
      "Every entry is filtered to its model's PCI IDs. all-PROFILE: the profile alone, as many "
      "as one GPU holds (by the search, not the instance cap alone). all-balanced: of the "
      "geometries of plain profiles (no + or - suffix), the one that uses the most compute "
      "slices, then has the most distinct compute sizes, then the most instances, then the "
      "fewest placement units; where NVIDIA's config-default.yaml has an all-balanced entry for "
      "a model, this is its geometry.",
      "",
      "Check it with: migplan check FILE",
  };
  return c;
}

int run_emit_config(const emit_config_options& o, context& ctx) {
  std::vector<const gpu_model*> models;
  if (o.gpus.empty()) {
    for (const gpu_model* g : ctx.models->models())
      if (!g->pci_ids.empty()) models.push_back(g);
  } else {
    for (const std::string& name : o.gpus) {
      auto g = resolve_gpu(ctx.models->models(), name);
      if (!g) {
        report_bad_input(ctx, g.error().message);
        return exit_bad_input;
      }
      if (std::find(models.begin(), models.end(), *g) == models.end()) models.push_back(*g);
    }
  }
  std::ostringstream text;
  render::mig_parted(text, build(models));
  return write_output(ctx, o.output, text.str());
}

}  // namespace

void add_emit_config(CLI::App& app, context& ctx) {
  auto o = std::make_shared<emit_config_options>();
  CLI::App* cmd = app.add_subcommand("emit-config", "Write a mig-parted config with all-* labels");
  cmd->add_option("--gpu,-g", o->gpus, "GPU model, repeatable (default: all with a PCI ID)")
      ->type_name("MODEL")
      ->allow_extra_args(false);
  cmd->add_option("--output,-o", o->output, "FILE to write ('-' or omitted: stdout)");
  cmd->footer(
      "Example: migplan emit-config > config.yaml && migplan check config.yaml\n"
      "Exit codes: 0 written, 2 bad input or a file that cannot be written.");
  cmd->callback([o, &ctx] { ctx.code = run_emit_config(*o, ctx); });
}

}  // namespace migplan::cli
