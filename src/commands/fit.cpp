// SPDX-License-Identifier: Apache-2.0
// `migplan fit`: the smallest profile for a per-instance need, instances per
// GPU, GPUs for K instances, and what that strands.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <charconv>
#include <migplan/sizing.hpp>
#include <ostream>

#include "app.hpp"
#include "error.hpp"
#include "io/names.hpp"
#include "render/json.hpp"
#include "render/messages.hpp"
#include "render/style.hpp"

namespace migplan::cli {

/// Parses "12GiB", "12G", "12288MiB", "1.5GiB" into MiB (rounded up).
result<std::int64_t> parse_size_mib(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  const std::string_view num = text.substr(0, i), unit = text.substr(i);
  double v = 0;
  auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (num.empty() || ec != std::errc() || p != num.data() + num.size())
    return error{fmt::format(
        "invalid size '{}': expected a number with a unit, e.g. 12GiB or 12288MiB", text)};
  std::string u(unit);
  for (char& c : u) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double mib = 0;
  if (u == "gib" || u == "g")
    mib = v * 1024;
  else if (u == "mib" || u == "m")
    mib = v;
  else if (u == "tib" || u == "t")
    mib = v * 1024 * 1024;
  else
    return error{fmt::format("invalid size unit in '{}': use GiB (or G), MiB (or M) or TiB", text)};
  if (mib <= 0) return error{fmt::format("size '{}' must be more than zero", text)};
  if (mib > 1e9) return error{fmt::format("size '{}' is too large", text)};
  const auto whole = static_cast<std::int64_t>(mib);
  return whole < mib ? whole + 1 : whole;
}

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
    const gpu_model& gpu = **g;
    need n{*mib, o->sms > 0 ? std::optional<int>(o->sms) : std::nullopt, o->count};
    const sizing s = size_for(gpu, n);
    auto name = [&](int p) { return std::string(gpu.profiles[static_cast<std::size_t>(p)].name); };
    std::vector<std::string> unknown;
    for (int p : s.unknown) unknown.push_back(name(p));
    if (o->json) {
      ojson j{{"schema_version", json_schema_version},
              {"gpu", gpu_json(gpu)},
              {"need",
               {{"memory_mib", n.memory_mib},
                {"sms", n.sms ? ojson(*n.sms) : ojson(nullptr)},
                {"count", n.instances}}},
              {"fits", s.profile >= 0}};
      if (s.profile >= 0) {
        const stranded& st = s.strands;
        j["profile"] = profile_json(gpu.profiles[static_cast<std::size_t>(s.profile)]);
        j["per_gpu"] = s.per_gpu;
        j["gpus"] = s.gpus;
        j["last_gpu_instances"] = s.last_gpu;
        j["layout"] = layout_json(gpu, s.full_gpu);
        j["stranded_per_gpu"] = {
            {"units", st.units},
            {"compute_slices", st.compute_slices},
            {"memory_gib",
             st.memory_gib_x100 ? ojson(gib_value(*st.memory_gib_x100)) : ojson(nullptr)}};
      } else {
        j["largest"] = s.largest >= 0 ? ojson(name(s.largest)) : ojson(nullptr);
      }
      j["unknown"] = unknown;
      ctx.out << j.dump(2) << "\n";
    } else if (s.profile >= 0) {
      const profile& p = gpu.profiles[static_cast<std::size_t>(s.profile)];
      ctx.out << fmt::format("{}: {} ({}, {} SMs) is the smallest profile with at least {} MiB{}\n",
                             gpu.slug, p.name, gib_text(p.memory_gib_x100),
                             p.sm_count ? fmt::format("{}", *p.sm_count) : "?", n.memory_mib,
                             n.sms ? fmt::format(" and {} SMs", *n.sms) : "");
      ctx.out << fmt::format("one gpu holds {} of it: {}\n", s.per_gpu,
                             layout_text(gpu, s.full_gpu.where));
      ctx.out << fmt::format("{} instance{} need {} gpu{}", n.instances,
                             n.instances == 1 ? "" : "s", s.gpus, s.gpus == 1 ? "" : "s");
      if (s.last_gpu != s.per_gpu) ctx.out << fmt::format(" (the last holds {})", s.last_gpu);
      ctx.out << "\n";
      ctx.out << fmt::format("each full gpu strands {} unit{} ({}) and {} compute slice{}\n",
                             s.strands.units, s.strands.units == 1 ? "" : "s",
                             gib_text(s.strands.memory_gib_x100), s.strands.compute_slices,
                             s.strands.compute_slices == 1 ? "" : "s");
    } else if (s.largest < 0) {
      ctx.out << fmt::format(
          "{}: the memory of its profiles is unknown, so it cannot be sized (coverage: {})\n",
          gpu.slug, gpu.coverage_note);
    } else {
      ctx.out << fmt::format("{}: no profile has at least {} MiB{}", gpu.slug, n.memory_mib,
                             n.sms ? fmt::format(" and {} SMs", *n.sms) : "");
      if (s.largest >= 0)
        ctx.out << fmt::format(
            "; the largest is {} ({})", name(s.largest),
            gib_text(gpu.profiles[static_cast<std::size_t>(s.largest)].memory_gib_x100));
      ctx.out << "\n";
    }
    if (!o->json && !s.unknown.empty())
      ctx.out << fmt::format("note: not considered, values unknown: {}\n",
                             fmt::join(unknown, ", "));
    ctx.code = s.profile >= 0 ? exit_ok : exit_no_fit;
  });
}

}  // namespace migplan::cli
