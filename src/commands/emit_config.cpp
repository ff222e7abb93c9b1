// SPDX-License-Identifier: Apache-2.0
// `migplan emit-config`: a mig-parted v1 config like the one mig-parted's
// generate-config writes, but offline, for catalog models: all-disabled,
// all-enabled, all-balanced and one all-PROFILE label per profile.

#include "check/emit_config.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <migplan/catalog.hpp>
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

int run_emit_config(const emit_config_options& o, context& ctx) {
  // The generated config alone has nothing to warn about: --strict would pass silently.
  if (o.strict && o.merge.empty()) {
    report_bad_input(ctx, "--strict needs --merge");
    return exit_bad_input;
  }
  std::vector<const gpu_model*> models;
  if (o.gpus.empty()) {
    for (const gpu_model* g : ctx.models->models())
      if (!g->pci_ids.empty()) models.push_back(g);
  } else {
    for (const std::string& name : o.gpus) {
      auto g = resolve_gpu(ctx.models->models(), name);
      if (!g) {
        report_bad_input(ctx, g.error());
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
  mig_parted_config config = check::generated_config(models, catalog_revision());
  if (!o.merge.empty()) {
    const std::string shown = o.merge == "-" ? "<stdin>" : o.merge;
    auto user = read_user_config(o.merge, ctx.in, shown);
    if (!user) {
      report_bad_input(ctx, user.error());
      return exit_bad_input;
    }
    // A note at the user's label, through the one printer: "FILE:LINE: note: ...".
    for (const check::replaced_label& r : check::merge_user_labels(config, std::move(*user), shown))
      report(ctx, diagnostic(shown, r.line, 0, {}, severity::note,
                             fmt::format("label {} is yours; the one emit-config generates is left "
                                         "out",
                                         quote_token(r.name))));
  }
  std::ostringstream text;
  render::mig_parted(text, config);
  if (!o.merge.empty()) {
    // Check it as mig-manager will read it: an error writes nothing.
    check::check_settings settings;
    settings.models = ctx.models->models();
    if (!o.gpus.empty()) settings.fleet = models;
    settings.strict = o.strict;
    const check::merged_check checked = check::check_merged(config, text.str(), settings);
    for (const diagnostic& d : checked.diagnostics) report(ctx, d);
    if (checked.failed) {
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
  cmd->add_option("--output,-o", o->output, "Where to write ('-' or omitted: stdout)")
      ->type_name("FILE");
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
