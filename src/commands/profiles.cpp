// SPDX-License-Identifier: Apache-2.0
// `migplan profiles`: an -lgip/-lgipp-like table of a model's GPU-instance
// profiles, with inferred values marked and the source of every row.

#include "render/profiles.hpp"

#include <CLI/CLI.hpp>
#include <migplan/lookup.hpp>

#include "app.hpp"
#include "error.hpp"
#include "io/names.hpp"
#include "models.hpp"

namespace migplan::cli {

void add_profiles(CLI::App& app, context& ctx) {
  auto gpu = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto ci = std::make_shared<bool>(false);
  CLI::App* cmd =
      app.add_subcommand("profiles", "List a GPU's profiles and placements, with sources");
  cmd->add_option("--gpu,-g", *gpu, "GPU model; every model when omitted")->type_name("MODEL");
  cmd->add_flag("--json", *json, "One JSON object on stdout (schema_version 1)");
  cmd->add_flag("--ci", *ci, "List compute-instance profiles instead");
  cmd->footer(
      "Example: migplan profiles --gpu a100-40gb --ci\n"
      "Exit codes: 0 listed, 2 bad input.");
  cmd->callback([gpu, json, ci, &ctx] {
    std::vector<const gpu_model*> models;
    if (!gpu->empty()) {
      auto g = resolve_gpu(ctx.models->models(), *gpu);
      if (!g) {
        report_bad_input(ctx, g.error());
        return;
      }
      models.push_back(*g);
    } else {
      models.assign(ctx.models->models().begin(), ctx.models->models().end());
    }
    if (*json)
      render::profiles_json(ctx.out, models, *ci);
    else if (*ci)
      render::ci_profiles_text(ctx.out, models);
    else
      render::profiles_text(ctx.out, models);
    ctx.code = exit_ok;
  });
}

}  // namespace migplan::cli
