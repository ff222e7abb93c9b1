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
#include "models.hpp"
#include "pack/capacity.hpp"

namespace migplan::cli {
namespace {

// Far beyond any GPU (an H100 has 132 SMs) and any fleet, yet small enough
// that the arithmetic of sizing cannot overflow.
constexpr long long max_sms = 100000;
constexpr long long max_count = 1000000000;

}  // namespace

void add_fit(CLI::App& app, context& ctx) {
  struct opts {
    std::string gpu, memory;
    // Numbers are read as text so that "abc" is "not a number" rather than
    // CLI11's "not in range".
    std::string sms, count;
    CLI::Option* sms_given = nullptr;
    CLI::Option* count_given = nullptr;
    bool json = false;
  };
  auto o = std::make_shared<opts>();
  CLI::App* cmd = app.add_subcommand("fit", "Size a workload: the smallest profile, GPUs needed");
  cmd->add_option("--gpu,-g", o->gpu, "GPU model (slug, nvidia-smi name or PCI ID)")
      ->type_name("MODEL")
      ->required();
  cmd->add_option("--memory,-m", o->memory, "Memory per instance: 12Gi (2^30 bytes), 12G (10^9)")
      ->type_name("SIZE")
      ->required();
  o->sms_given = cmd->add_option("--sms", o->sms, "SMs per instance, 1 to 100000")->type_name("N");
  o->count_given =
      cmd->add_option("--count,-k", o->count, "Instances wanted, 1 to 1000000000 (default 1)")
          ->type_name("K");
  cmd->add_flag("--json", o->json, "One JSON object on stdout (schema_version 1)");
  cmd->footer(
      "Example: migplan fit --gpu h100-80gb --memory 12Gi --count 20\n"
      "Exit codes: 0 a profile fits, 1 none is big enough, 2 bad input.");
  cmd->callback([o, &ctx] {
    auto g = resolve_gpu(ctx.models->models(), o->gpu);
    if (!g) {
      report_bad_input(ctx, g.error());
      return;
    }
    auto mib = parse_size_mib(o->memory);
    if (!mib) {
      report_bad_input(ctx, mib.error());
      return;
    }
    std::optional<int> sms;
    if (o->sms_given->count() > 0) {
      auto v = parse_whole_number("--sms", o->sms, 1, max_sms);
      if (!v) {
        report_bad_input(ctx, v.error());
        return;
      }
      sms = static_cast<int>(*v);
    }
    long long count = 1;
    if (o->count_given->count() > 0) {
      auto v = parse_whole_number("--count", o->count, 1, max_count);
      if (!v) {
        report_bad_input(ctx, v.error());
        return;
      }
      count = *v;
    }
    const need n{*mib, sms, count};
    const sizing s = size_for(**g, n);
    if (o->json)
      render::fit_json(ctx.out, **g, n, s,
                       s.profile >= 0 ? pack::capacity_of(**g, s.full_gpu) : layout_capacity{});
    else
      render::fit_text(ctx.out, **g, n, s);
    ctx.code = s.profile >= 0 ? exit_ok : exit_no_fit;
  });
}

}  // namespace migplan::cli
