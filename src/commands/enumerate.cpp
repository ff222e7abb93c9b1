// SPDX-License-Identifier: Apache-2.0
// `migplan enumerate`: every feasible geometry of a model, its layout count
// and whether it is maximal.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <migplan/enumerate.hpp>
#include <ostream>

#include "app.hpp"
#include "error.hpp"
#include "io/names.hpp"
#include "render/json.hpp"

namespace migplan::cli {
namespace {

std::string geometry_text(const gpu_model& g, const profile_counts& c) {
  std::string out;
  // Largest profiles first, as people write geometries.
  for (std::size_t i = g.profiles.size(); i-- > 0;) {
    const int n = c[static_cast<int>(i)];
    if (n == 0) continue;
    if (!out.empty()) out += ' ';
    out += n > 1 ? fmt::format("{}x{}", n, g.profiles[i].name) : std::string(g.profiles[i].name);
  }
  return out;
}

}  // namespace

void add_enumerate(CLI::App& app, context& ctx) {
  struct opts {
    std::string gpu;
    bool maximal = false;
    bool json = false;
  };
  auto o = std::make_shared<opts>();
  CLI::App* cmd = app.add_subcommand("enumerate", "List every feasible geometry of a GPU");
  cmd->add_option("--gpu,-g", o->gpu, "GPU model (slug, nvidia-smi name or PCI ID)")->required();
  cmd->add_flag("--maximal", o->maximal, "Only geometries to which no instance can be added");
  cmd->add_flag("--json", o->json, "One JSON object on stdout (schema_version 1)");
  cmd->footer(
      "Examples:\n  migplan enumerate --gpu a100-40gb --maximal\n"
      "  migplan enumerate --gpu a30 --json | jq '.geometry_count'");
  cmd->callback([o, &ctx] {
    auto g = resolve_gpu(o->gpu);
    if (!g) {
      report_bad_input(ctx, g.error().message);
      return;
    }
    const gpu_model& gpu = **g;
    const geometry_set all = enumerate(gpu);
    if (o->json) {
      ojson geos = ojson::array();
      for (const geometry& geo : all.geometries) {
        if (o->maximal && !geo.maximal) continue;
        ojson profiles = ojson::array();
        for (std::size_t i = 0; i < gpu.profiles.size(); ++i)
          for (int k = 0; k < geo.counts[static_cast<int>(i)]; ++k)
            profiles.push_back(gpu.profiles[i].name);
        geos.push_back(
            {{"profiles", profiles}, {"layout_count", geo.layout_count}, {"maximal", geo.maximal}});
      }
      ctx.out << ojson{{"schema_version", json_schema_version},
                       {"gpu", gpu_json(gpu)},
                       {"geometries", geos},
                       {"geometry_count", all.geometries.size()},
                       {"layout_count", all.layout_count},
                       {"maximal_count", all.maximal_count}}
                     .dump(2)
              << "\n";
    } else {
      ctx.out << fmt::format("{:<48} {:>7}  {}\n", "geometry", "layouts", "maximal");
      for (const geometry& geo : all.geometries) {
        if (o->maximal && !geo.maximal) continue;
        ctx.out << fmt::format("{:<48} {:>7}  {}\n", geometry_text(gpu, geo.counts),
                               geo.layout_count, geo.maximal ? "yes" : "");
      }
      ctx.out << fmt::format("\n{}: {} geometries ({} maximal), {} layouts\n", gpu.slug,
                             all.geometries.size(), all.maximal_count, all.layout_count);
    }
    ctx.code = exit_ok;
  });
}

}  // namespace migplan::cli
