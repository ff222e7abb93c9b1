// SPDX-License-Identifier: Apache-2.0
// `migplan enumerate`: every feasible geometry of a model, its layout count
// and whether it is maximal.

#include "render/enumerate.hpp"

#include <CLI/CLI.hpp>
#include <migplan/enumerate.hpp>

#include "app.hpp"
#include "error.hpp"
#include "io/names.hpp"
#include "models.hpp"

namespace migplan::cli {

void add_enumerate(CLI::App& app, context& ctx) {
  struct opts {
    std::string gpu;
    bool maximal = false;
    bool json = false;
  };
  auto o = std::make_shared<opts>();
  CLI::App* cmd = app.add_subcommand("enumerate", "List every feasible geometry of a GPU");
  cmd->add_option("--gpu,-g", o->gpu, "GPU model (slug, nvidia-smi name or PCI ID)")
      ->type_name("MODEL")
      ->required();
  cmd->add_flag("--maximal", o->maximal, "Only geometries to which no instance can be added");
  cmd->add_flag("--json", o->json, "One JSON object on stdout (schema_version 1)");
  cmd->footer(
      "Example: migplan enumerate --gpu a30 --maximal\n"
      "Exit codes: 0 listed, 2 bad input.");
  cmd->callback([o, &ctx] {
    auto g = resolve_gpu(ctx.models->models(), o->gpu);
    if (!g) {
      report_bad_input(ctx, g.error());
      return;
    }
    const geometry_set all = enumerate(**g);
    if (o->json)
      render::enumerate_json(ctx.out, **g, all, o->maximal);
    else
      render::enumerate_text(ctx.out, **g, all, o->maximal);
    ctx.code = exit_ok;
  });
}

}  // namespace migplan::cli
