// SPDX-License-Identifier: Apache-2.0
// `migplan gpus`: the supported models, how to name them, and how well their
// tables are backed by captures.

#include "render/gpus.hpp"

#include <CLI/CLI.hpp>
#include <migplan/catalog.hpp>

#include "app.hpp"
#include "error.hpp"

namespace migplan::cli {

void add_gpus(CLI::App& app, context& ctx) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("gpus", "List the supported GPU models");
  cmd->add_flag("--json", *json, "One JSON object on stdout (schema_version 1)");
  cmd->footer(
      "Coverage: full = -lgip and -lgipp captured; partial = some values inferred by "
      "analogy;\nconfig-only = names and counts from NVIDIA configs, nothing captured. "
      "A '?' after a PCI ID\nmarks an inferred mapping.");
  cmd->callback([json, &ctx] {
    if (*json)
      render::gpus_json(ctx.out, catalog());
    else
      render::gpus_text(ctx.out, catalog());
    ctx.code = exit_ok;
  });
}

}  // namespace migplan::cli
