// SPDX-License-Identifier: Apache-2.0
// `migplan gpus`: the supported models, how to name them, and how well their
// tables are backed by captures.

#include "render/gpus.hpp"

#include <CLI/CLI.hpp>
#include <vector>

#include "app.hpp"
#include "error.hpp"
#include "models.hpp"

namespace migplan::cli {

void add_gpus(CLI::App& app, context& ctx) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("gpus", "List the supported GPU models");
  cmd->add_flag("--json", *json, "One JSON object on stdout (schema_version 1)");
  cmd->footer(
      "Example: migplan gpus --json\n"
      "Exit codes: 0 listed, 2 bad input.");
  cmd->callback([json, &ctx] {
    std::vector<listed_model> models;
    for (const gpu_model* g : ctx.models->models()) models.push_back({g, ctx.models->file_of(*g)});
    if (*json)
      render::gpus_json(ctx.out, models);
    else
      render::gpus_text(ctx.out, models);
    ctx.code = exit_ok;
  });
}

}  // namespace migplan::cli
