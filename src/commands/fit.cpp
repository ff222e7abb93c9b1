// SPDX-License-Identifier: Apache-2.0
// `migplan fit`: the smallest profile for a per-instance need, instances per
// GPU, GPUs for K instances, and what that strands.

#include "render/fit.hpp"

#include <CLI/CLI.hpp>
#include <migplan/sizing.hpp>

#include "app.hpp"
#include "error.hpp"
#include "io/names.hpp"
#include "io/size.hpp"

namespace migplan::cli {

void add_fit(CLI::App& app, context& ctx) {
  struct opts {
    std::string gpu, memory;
    int sms = 0;
    long long count = 1;
    bool json = false;
  };
  auto o = std::make_shared<opts>();
  CLI::App* cmd = app.add_subcommand(
      "fit", "Size a workload: smallest profile, instances per GPU, GPUs needed");
  cmd->add_option("--gpu,-g", o->gpu, "GPU model (slug, nvidia-smi name or PCI ID)")->required();
  cmd->add_option("--memory,-m", o->memory, "Memory per instance: 12GiB, 12G, 12288MiB")
      ->required();
  cmd->add_option("--sms", o->sms, "SMs per instance (where SM counts are known)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--count,-k", o->count, "Instances wanted")->check(CLI::Range(1LL, 1000000000LL));
  cmd->add_flag("--json", o->json, "One JSON object on stdout (schema_version 1)");
  cmd->footer(
      "Examples:\n  migplan fit --gpu h100-80gb --memory 12GiB --count 20\n"
      "  migplan fit --gpu a100-40gb --memory 9GiB --sms 20 --json\n"
      "Exit codes: 0 a profile fits, 1 none is big enough, 2 bad input.");
  cmd->callback([o, &ctx] {
    auto g = resolve_gpu(o->gpu);
    if (!g) {
      report_bad_input(ctx, g.error().message);
      return;
    }
    auto mib = parse_size_mib(o->memory);
    if (!mib) {
      report_bad_input(ctx, mib.error().message);
      return;
    }
    const need n{*mib, o->sms > 0 ? std::optional<int>(o->sms) : std::nullopt, o->count};
    const sizing s = size_for(**g, n);
    if (o->json)
      render::fit_json(ctx.out, **g, n, s);
    else
      render::fit_text(ctx.out, **g, n, s);
    ctx.code = s.profile >= 0 ? exit_ok : exit_no_fit;
  });
}

}  // namespace migplan::cli
