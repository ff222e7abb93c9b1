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
#include "check/checker.hpp"
#include "diagnostic.hpp"
#include "error.hpp"
#include "io/merge_input.hpp"
#include "io/names.hpp"
#include "k8s_names.hpp"
#include "model/mig_parted.hpp"
#include "models.hpp"
#include "quote.hpp"
#include "render/mig_parted.hpp"

namespace migplan::cli {
namespace {

struct emit_config_options {
  std::vector<std::string> gpus;
  std::string output;  // -o FILE; empty for stdout
  std::string merge;   // --merge FILE: the user's own labels
  std::string configmap_name = "migplan-mig-parted-config";
  CLI::Option* configmap_given = nullptr;
  bool strict = false;  // --strict: the merged config's warnings are errors
};

// Where a line of the written config comes from: a user's label (its file
// and line there) or migplan's own text.
diagnostic located_in_user(diagnostic d, const std::string& text,
                           const std::vector<user_label>& labels, const std::string& user_file) {
  // The key of each user label is the line after its comment; labels are in order.
  int line = 1, label = -1, key_line = 0;
  std::size_t at = 0;
  std::size_t next = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const std::size_t found = text.find(labels[i].text, next);
    if (found == std::string::npos) break;
    line += static_cast<int>(std::count(text.begin() + static_cast<std::ptrdiff_t>(at),
                                        text.begin() + static_cast<std::ptrdiff_t>(found), '\n'));
    at = found;
    next = found + labels[i].text.size();
    if (line > d.line) break;
    label = static_cast<int>(i);
    key_line = line;
  }
  if (label >= 0 && d.line >= key_line) {
    const user_label& u = labels[static_cast<std::size_t>(label)];
    const int lines = static_cast<int>(std::count(u.text.begin(), u.text.end(), '\n'));
    if (d.line < key_line + lines) {
      d.file = user_file;
      d.line = u.line + (d.line - key_line);
      d.column = 0;  // the label was moved to two spaces
    }
  }
  return d;
}

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
          "all-" + k8s::label_word(g->profiles[static_cast<std::size_t>(p)].name);
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
  if (!k8s::dns_subdomain(o.configmap_name)) {
    report_bad_input(ctx, fmt::format("--configmap-name {} is not a DNS subdomain ({}; at most {} "
                                      "characters)",
                                      quote_token(o.configmap_name), k8s::dns_subdomain_rule,
                                      k8s::max_dns_subdomain));
    return exit_bad_input;
  }
  mig_parted_config config = build(models);
  if (!o.merge.empty()) {
    const std::string shown = o.merge == "-" ? "<stdin>" : o.merge;
    auto user = read_user_config(o.merge, ctx.in, shown);
    if (!user) {
      report_bad_input(ctx, user.error().message);
      return exit_bad_input;
    }
    // Yours win: a generated label of the same name is left out, with a note.
    for (const user_label& u : user->labels) {
      const auto mine = std::find_if(config.labels.begin(), config.labels.end(),
                                     [&](const mig_parted_label& l) { return l.name == u.name; });
      if (mine == config.labels.end()) continue;
      config.labels.erase(mine);
      ctx.err << fmt::format(
          "migplan: note: {}:{}: label {} is yours; the one emit-config "
          "generates is left out\n",
          shown, u.line, quote_token(u.name));
    }
    config.user_labels = std::move(user->labels);
    config.user_file = shown;
    config.header.push_back(fmt::format(
        "Merged by migplan emit-config --merge: these labels, then those of {}{} as written "
        "there; where both have a label, the one from {} is kept. Every entry was checked "
        "(migplan check) before this was written.",
        shown, user->configmap.empty() ? "" : fmt::format(" (ConfigMap {})", user->configmap),
        shown));
  }
  std::ostringstream text;
  render::mig_parted(text, config);
  if (!o.merge.empty()) {
    // Check it as mig-manager will read it: an error writes nothing.
    check::check_settings settings;
    settings.models = ctx.models->models();
    if (!o.gpus.empty()) settings.fleet = models;
    settings.strict = o.strict;
    const check::file_check f = check::check_text("<merged config>", text.str(), settings);
    bool failed = f.status == check::file_status::malformed;
    for (const diagnostic& raw : f.diagnostics) {
      const diagnostic d = located_in_user(raw, f.text, config.user_labels, config.user_file);
      failed = failed || d.level == severity::error;
      const char* level = d.level == severity::error     ? "error"
                          : d.level == severity::warning ? "warning"
                                                         : "note";
      ctx.err << "migplan: " << located(d.file, d.line, fmt::format("{}: {}", level, d.message))
              << "\n";
    }
    if (failed) {
      ctx.err << "migplan: the merged config has errors; nothing was written\n";
      return exit_no_fit;
    }
  }
  if (o.merge.empty() && o.configmap_given->count() == 0)
    return write_output(ctx, o.output, text.str());
  std::ostringstream map;
  map << render::comment_lines(fmt::format(
             "migplan emit-config: the GPU Operator's custom MIG config, ConfigMap {}. Apply it, "
             "then point the MIG manager at it:",
             o.configmap_name))
      << render::configmap_commands(o.configmap_name);
  render::config_map(map, o.configmap_name, text.str());
  return write_output(ctx, o.output, map.str());
}

}  // namespace

void add_emit_config(CLI::App& app, context& ctx) {
  auto o = std::make_shared<emit_config_options>();
  CLI::App* cmd = app.add_subcommand("emit-config", "Write a mig-parted config with all-* labels");
  cmd->add_option("--gpu,-g", o->gpus, "GPU model, repeatable (default: all with a PCI ID)")
      ->type_name("MODEL")
      ->allow_extra_args(false);
  cmd->add_option("--output,-o", o->output, "FILE to write ('-' or omitted: stdout)");
  cmd->add_option("--merge", o->merge, "Add your own labels from FILE; writes a ConfigMap")
      ->type_name("FILE");
  o->configmap_given = cmd->add_option("--configmap-name", o->configmap_name,
                                       "The ConfigMap's name (migplan-mig-parted-config)")
                           ->type_name("NAME");
  cmd->add_flag("--strict", o->strict, "With --merge: warnings are errors");
  cmd->footer(
      "Example: migplan emit-config > config.yaml && migplan check config.yaml\n"
      "         migplan emit-config --merge mine.yaml -o configmap.yaml\n"
      "Exit codes: 0 written, 1 the merged config has errors (nothing written),\n"
      "2 bad input or a file that cannot be written.");
  cmd->callback([o, &ctx] { ctx.code = run_emit_config(*o, ctx); });
}

}  // namespace migplan::cli
