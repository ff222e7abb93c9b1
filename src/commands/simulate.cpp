// SPDX-License-Identifier: Apache-2.0
// `migplan simulate`: replays a trace of pods on a fleet under static and
// dynamic MIG policies side by side (replay.hpp), with the static geometry
// planned by `plan`'s solver for the trace's per-profile peaks, and with
// --size the fewest GPUs each policy needs. Reads the options and the trace,
// resolves each row to a profile of the model, calls the core and the
// planner, and hands the answer to render/simulate.

#include "commands/simulate.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <migplan/catalog.hpp>
#include <migplan/replay.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app.hpp"
#include "error.hpp"
#include "io/fleet_now.hpp"
#include "io/names.hpp"
#include "io/plan_answer.hpp"
#include "io/plan_input.hpp"
#include "io/plan_input_util.hpp"
#include "io/size.hpp"
#include "io/trace.hpp"
#include "model/fleet_now.hpp"
#include "model/plan.hpp"
#include "model/policies.hpp"
#include "model/simulate.hpp"
#include "quote.hpp"
#include "render/progress.hpp"
#include "render/simulate.hpp"
#include "replay/trace_replay.hpp"

namespace migplan::cli {
namespace {

// The most GPUs of a replayed fleet, and the most --size tries.
constexpr long long max_simulate_gpus = 100'000;
// plan's time limit for the static geometry (as plan's default).
constexpr double static_plan_time_limit_s = 60;

struct simulate_options {
  std::string trace;
  std::vector<std::string> gpu;  // --gpu, repeatable with --size
  std::string fleet;             // --fleet: models to size
  std::string static_plan;       // --static-plan: plan --json's answer
  std::string gpus;
  std::string per_node;  // empty: 8
  std::vector<std::string> policies;
  std::string share = "compute";
  bool size = false;
  std::string reject_target = "0";
  bool json = false;
  std::string plot;  // --plot FILE ('-': standard output)
  std::string plot_metric = "slices";
  fleet_now_source current;  // --current, --mig-config, and --gpu for a listing
};

// Buckets of a plotted series: more than the plot has pixels across, so a
// step is never wider than a pixel, and a line has at most about 4,000
// points (tens of kilobytes) however many pods the trace has.
constexpr std::size_t plot_buckets = 1000;

// Hears a replay (replay_watch): keeps the series for --plot, and shows how
// far the replay has come on the progress line.
struct simulate_watch {
  simulate_watch(replay_series* s, render::progress_line& p, std::string what)
      : series(s), progress(&p), label(std::move(what)) {}
  replay_series* series;
  render::progress_line* progress;
  std::string label;
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::uint32_t ticks = 0;

  void begin(std::int64_t s, std::int64_t e) {
    start = s;
    end = e;
    if (series) series->begin(s, e);
  }
  void step(std::int64_t time, int slices, int gpus) {
    if (series) series->step(time, slices, gpus);
    // The clock is read every 4096 events only: a replay does millions a second.
    if ((++ticks & 0xFFFu) == 0 && progress->due())
      progress->show(fmt::format("migplan simulate: {}: {}% of the trace", label,
                                 (time - start) * 100 / std::max<std::int64_t>(end - start, 1)));
  }
  void reject(std::int64_t time) {
    if (series) series->reject(time);
  }
  void finish() {
    if (series) series->finish();
  }
};

constexpr std::string_view default_policies[] = {"static", "spread-first-fit", "pack-best-fit"};

// A model --gpu or --fleet names, with the most GPUs --size tries of it.
struct named_model {
  const gpu_model* gpu = nullptr;
  std::optional<long long> available;  // a fleet file's `available`
};

// The models --gpu and --fleet name, in order, each once: --gpu's, then the
// fleet file's models and its nodes' models.
result<std::vector<named_model>> models_named(const simulate_options& o, std::istream& in) {
  std::vector<named_model> out;
  const auto add = [&](const gpu_model* g, std::optional<long long> available) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const named_model& m) { return m.gpu == g; });
    if (it == out.end())
      out.push_back({g, available});
    else if (available)
      it->available = available;
  };
  for (const std::string& name : o.gpu) {
    auto g = resolve_gpu(name);
    if (!g) return error{"--gpu: " + g.error().message};
    add(*g, std::nullopt);
  }
  if (!o.fleet.empty()) {
    auto f = read_fleet(o.fleet, in);
    if (!f) return f.error();
    for (const fleet_model& m : f->models) add(m.gpu, m.available);
    for (const fleet_node& n : f->nodes) add(n.gpu, std::nullopt);
  }
  return out;
}

// The fleet as --current describes it, of one model, its notes on `err`.
result<fleet_now> current_fleet_of(const simulate_options& o, std::istream& in, std::ostream& err) {
  fleet_now_source src = o.current;
  if (!o.gpu.empty()) src.gpu = o.gpu.front();
  auto f = read_fleet_now(src, in);
  if (!f) return f.error();
  for (const fleet_now_node& n : f->nodes)
    if (n.gpu != f->nodes.front().gpu)
      return error{fmt::format(
          "{}: node {} has {} GPUs and node {} {}; simulate replays a fleet of one model",
          plan_io::shown_path(o.current.current), f->nodes.front().name, f->nodes.front().gpu->slug,
          n.name, n.gpu->slug)};
  for (const std::string& note : f->notes) err << "migplan: note: " << one_line(note) << "\n";
  const std::vector<std::string> mig_off = mig_off_gpus(*f);
  if (!mig_off.empty())
    err << "migplan: note: MIG is off on " << fmt::format("{}", fmt::join(mig_off, ", "))
        << ": static policies keep it a whole GPU; dynamic ones replay every GPU with MIG on\n";
  return f;
}

// The options that cannot go together, checked before any file is read.
std::optional<std::string> option_conflict(const simulate_options& o) {
  if (!o.current.current.empty()) {
    if (!o.gpus.empty() || !o.per_node.empty())
      return "--current replays the fleet as it is; --gpus and --gpus-per-node shape a fleet of "
             "--gpu's model instead";
    if (o.size)
      return "--size finds the fewest GPUs of one model; --current replays the fleet as it is";
    if (!o.fleet.empty())
      return "--fleet names models for --size; --current replays the fleet as it is";
    if (o.gpu.size() > 1) return "--current takes one --gpu: the model of its nvidia-smi listing";
    if (!o.static_plan.empty())
      return "--static-plan gives a fleet of --gpu's model a geometry; --current has its own";
    if (o.current.current == "-" && o.trace == "-")
      return "--trace and --current cannot both read standard input";
    return std::nullopt;
  }
  if (!o.current.mig_config.empty()) return "--mig-config goes with --current (kubectl's nodes)";
  if (o.gpu.empty() && o.fleet.empty())
    return "--gpu is required: the model of the fleet (or --current FILE: the fleet as it is)";
  if (o.fleet == "-" && o.trace == "-")
    return "--trace and --fleet cannot both read standard input";
  return std::nullopt;
}

int run_simulate(const simulate_options& o, context& ctx) {
  const auto bad = [&](const std::string& message) {
    report_bad_input(ctx, message);
    return exit_bad_input;
  };
  if (const auto conflict = option_conflict(o)) return bad(*conflict);
  // The fleet as it is (--current), or the models to replay and size.
  std::optional<fleet_now> now;
  std::vector<named_model> models;
  if (!o.current.current.empty()) {
    auto f = current_fleet_of(o, ctx.in, ctx.err);
    if (!f) return bad(f.error().message);
    models.push_back({f->nodes.front().gpu, std::nullopt});
    now = std::move(*f);
  } else {
    auto m = models_named(o, ctx.in);
    if (!m) return bad(m.error().message);
    models = std::move(*m);
    if (models.empty()) return bad(fmt::format("{} names no GPU model", o.fleet));
    if (models.size() > 1 && !o.size) {
      std::vector<std::string_view> slugs;
      for (const named_model& each : models) slugs.push_back(each.gpu->slug);
      return bad(fmt::format(
          "{} models ({}) are for --size, which sizes each; a replay is of one model: give one "
          "--gpu",
          models.size(), fmt::join(slugs, ", ")));
    }
  }
  const gpu_model& gpu = *models.front().gpu;
  for (const named_model& m : models)
    if (full_profile(*m.gpu) < 0)
      return bad(fmt::format("{} has no full-GPU profile", m.gpu->slug));
  auto per_node = parse_whole_number("--gpus-per-node", o.per_node.empty() ? "8" : o.per_node, 1,
                                     max_node_gpus);
  if (!per_node) return bad(per_node.error().message);
  std::optional<int> gpus;
  if (!o.gpus.empty()) {
    auto n = parse_whole_number("--gpus", o.gpus, 1, max_simulate_gpus);
    if (!n) return bad(n.error().message);
    gpus = static_cast<int>(*n);
  }
  if (o.plot_metric != "slices" && o.plot_metric != "gpus")
    return bad(
        fmt::format("unknown --plot-metric {}; it is slices or gpus", quote_token(o.plot_metric)));
  if (o.plot == "-" && o.json)
    return bad("--plot - and --json both write to standard output; give --plot a file");
  if (o.share != "compute" && o.share != "memory")
    return bad(fmt::format("unknown --share {}; it is compute or memory", quote_token(o.share)));
  double target = 0;
  {
    auto t = parse_whole_number("--reject-target", o.reject_target, 0, 100);
    if (!t) return bad(t.error().message + " (a whole percent of pods)");
    target = static_cast<double>(*t);
  }
  simulate_result res;
  std::vector<std::string> names;
  for (const policy_name& p : policy_names) names.emplace_back(p.name);
  std::vector<std::string> chosen(o.policies.begin(), o.policies.end());
  if (chosen.empty()) chosen.assign(std::begin(default_policies), std::end(default_policies));
  for (const std::string& c : chosen) {
    const auto it = std::find_if(std::begin(policy_names), std::end(policy_names),
                                 [&](const policy_name& p) { return p.name == c; });
    if (it == std::end(policy_names))
      return bad(fmt::format("unknown --policy {}{}; policies: {}", quote_token(c),
                             did_you_mean(c, names), fmt::join(names, ", ")));
    if (std::any_of(res.policies.begin(), res.policies.end(),
                    [&](const simulate_policy& p) { return p.name == c; }))
      return bad(fmt::format("--policy {} is given twice", c));
    res.policies.push_back({c, it->policy, {}, std::nullopt, std::nullopt});
  }

  auto t = read_trace(o.trace, ctx.in);
  if (!t) return bad(t.error().message);
  const bool by_memory = o.share == "memory";
  auto prepared = prepare_replay(*t, gpu, by_memory, static_plan_time_limit_s);
  if (!prepared) return bad(prepared.error().message);
  if (!o.static_plan.empty()) {
    auto planned = read_plan_answer(o.static_plan, ctx.in, gpu);
    if (!planned) return bad(planned.error().message);
    prepared->set_static(std::move(*planned));
    res.static_file = plan_io::shown_path(o.static_plan);
  }
  const trace_replay& main = *prepared;
  res.trace = plan_io::shown_path(o.trace);
  res.alibaba = t->alibaba;
  res.skipped = t->skipped;
  res.pods = static_cast<long long>(main.pods.size());
  for (const replay_pod& p : main.pods)
    res.instances += main.items[static_cast<std::size_t>(p.item)].count;
  res.gpu = &gpu;
  res.per_node = static_cast<int>(*per_node);  // --current: its widest node, below
  for (std::size_t p = 0; p < main.peaks.size(); ++p)
    if (main.peaks[p] > 0) res.peaks.emplace_back(std::string(gpu.profiles[p].name), main.peaks[p]);
  res.plan_gpus = main.plan_gpus;
  res.plan_optimal = main.plan_optimal;
  for (const plan_group& grp : main.groups)
    res.geometries.emplace_back(geometry_text(gpu, grp.instances), grp.count);

  // The fleet as it is: its nodes, and each GPU's instances as its static
  // geometry (a GPU with MIG off serves whole-GPU pods alone: its geometry
  // is the full-GPU instance).
  replay_fleet fleet = fleet_of(gpu, 0, 1);
  std::vector<layout> geometry;
  if (now) {
    const int full = full_profile(gpu);
    layout whole;
    whole.add({full, std::countr_zero(gpu.profiles[static_cast<std::size_t>(full)].starts)});
    int widest = 0;
    fleet.nodes.assign(now->nodes.size(), {0, 0});
    for (const fleet_now_gpu& g : now->gpus) {
      widest = std::max(widest, ++fleet.nodes[static_cast<std::size_t>(g.node)].gpus);
      geometry.push_back(g.mig_enabled ? g.held : whole);
    }
    res.gpus = static_cast<int>(now->gpus.size());
    res.per_node = widest;
    res.nodes = static_cast<int>(now->nodes.size());
    res.current = plan_io::shown_path(o.current.current);
    res.static_from = "current";
  } else {
    const long long planned = main.static_gpus();
    res.gpus =
        gpus ? *gpus : static_cast<int>(std::clamp<long long>(planned, 1, max_simulate_gpus));
    res.nodes = (res.gpus + res.per_node - 1) / res.per_node;
    fleet = fleet_of(gpu, res.gpus, res.per_node);
    geometry = main.geometry(res.gpus);
    res.static_from = o.static_plan.empty() ? "plan" : "static-plan";
    res.static_subset = static_cast<long long>(res.gpus) < planned;
  }
  res.static_geometries = geometries_of(gpu, geometry);

  // The plot's file opens before the replays, so that a path that cannot be
  // written fails at once rather than after a long replay.
  std::ofstream plot_file;
  if (!o.plot.empty() && o.plot != "-") {
    plot_file.open(o.plot, std::ios::binary | std::ios::trunc);
    if (!plot_file)
      return bad(
          fmt::format("cannot write --plot {}: {}", quote_token(o.plot), std::strerror(errno)));
  }
  res.metric = o.plot_metric == "gpus" ? plot_metric::gpus : plot_metric::slices;
  render::progress_line progress(ctx.err, ctx.err_tty && !o.json);

  replay_tables tables;
  for (simulate_policy& p : res.policies) {
    if (!o.plot.empty()) p.series.emplace(plot_buckets);
    simulate_watch watch(p.series ? &*p.series : nullptr, progress, p.name);
    p.metrics = replay(fleet, main.items, main.pods, p.policy, geometry, tables, watch);
  }
  res.size = o.size;
  res.reject_target = target;
  bool all_sized = true;
  if (o.size) {
    for (const named_model& m : models) {
      std::optional<trace_replay> other;
      if (m.gpu != &gpu) {
        auto r = prepare_replay(*t, *m.gpu, by_memory, static_plan_time_limit_s);
        if (!r) return bad(r.error().message);
        other = std::move(*r);
      }
      const trace_replay& tr = other ? *other : main;
      simulate_sizing s;
      s.gpu = m.gpu;
      s.limit =
          static_cast<int>(std::min(m.available.value_or(max_simulate_gpus), max_simulate_gpus));
      s.plan_gpus = tr.plan_gpus;
      s.plan_optimal = tr.plan_optimal;
      for (simulate_policy& p : res.policies) {
        const std::optional<int> sized = fewest_gpus(
            [&](int n) {
              simulate_watch watch(nullptr, progress,
                                   fmt::format("sizing {} at {} {} GPUs", p.name, n, m.gpu->slug));
              const replay_metrics r = replay(fleet_of(*m.gpu, n, res.per_node), tr.items, tr.pods,
                                              p.policy, tr.geometry(n), tables, watch);
              return static_cast<double>(r.pods_rejected) * 100.0 <=
                     target * static_cast<double>(res.pods);
            },
            s.limit);
        if (m.gpu == &gpu) p.sized = sized;
        s.sized.push_back(sized);
        all_sized = all_sized && sized.has_value();
      }
      res.sizing.push_back(std::move(s));
    }
    res.size_limit = res.sizing.front().limit;
  }
  progress.clear();
  // The plot first: a disk that fills up is then the only answer, not one
  // after a table or JSON document already written.
  if (plot_file.is_open()) {
    errno = 0;
    render::simulate_svg(plot_file, res);
    plot_file.close();
    if (!plot_file)
      return bad(fmt::format("cannot write --plot {}: {}", quote_token(o.plot),
                             errno != 0 ? std::strerror(errno) : "write failed"));
  }
  if (o.plot == "-")
    render::simulate_svg(ctx.out, res);
  else if (o.json)
    render::simulate_json(ctx.out, res);
  else
    render::simulate_text(ctx.out, res);
  if (o.size) return all_sized ? exit_ok : exit_no_fit;
  for (const simulate_policy& p : res.policies)
    if (static_cast<double>(p.metrics.pods_rejected) * 100.0 >
        target * static_cast<double>(res.pods))
      return exit_no_fit;
  return exit_ok;
}

}  // namespace

void add_simulate(CLI::App& app, context& ctx) {
  auto o = std::make_shared<simulate_options>();
  // One screen (migplan-simulate(1) has the reference).
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Replay a trace of pods: static vs dynamic MIG, placement policies, fleet size");
  cmd->add_option("--trace", o->trace, "Trace: CSV, YAML, JSON or Alibaba pods ('-': stdin)")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--gpu,-g", o->gpu, "GPU model of the fleet (with --current: of a listing)")
      ->type_name("MODEL")
      ->allow_extra_args(false);
  cmd->add_option("--fleet", o->fleet, "--size: size each model of a fleet file")
      ->type_name("FILE");
  cmd->add_option("--static-plan", o->static_plan, "Static geometry: a plan --json answer")
      ->type_name("FILE");
  cmd->add_option("--gpus", o->gpus, "GPUs in the fleet (default: the static plan's)")
      ->type_name("N");
  cmd->add_option("--gpus-per-node", o->per_node, "GPUs per node (default 8)")->type_name("K");
  cmd->add_option("--current", o->current.current,
                  "The fleet as it is, static geometry included: state, kubectl, nvidia-smi")
      ->type_name("FILE");
  cmd->add_option("--mig-config", o->current.mig_config,
                  "With kubectl --current: the mig-parted config")
      ->type_name("FILE");
  cmd->add_option("--policy", o->policies,
                  "static, static-pack, spread|pack-first-fit|best-fit; repeatable")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--share", o->share, "gpu_milli by compute (default) or memory share")
      ->type_name("BY");
  cmd->add_flag("--size", o->size, "The fewest GPUs each policy needs");
  cmd->add_option("--reject-target", o->reject_target, "--size: at most this % rejected (0)")
      ->type_name("PCT");
  cmd->add_flag("--json", o->json, "One JSON object on stdout (schema_version 1)");
  cmd->add_option("--plot", o->plot, "Write use over time per policy as an SVG ('-': stdout)")
      ->type_name("FILE");
  cmd->add_option("--plot-metric", o->plot_metric, "--plot: slices (default) or gpus in use")
      ->type_name("WHAT");
  cmd->footer(
      "Default policies: static, spread-first-fit (today's stack), pack-best-fit.\n"
      "Example: migplan simulate --trace pods.csv --gpu h100-80gb --size\n"
      "Exit codes: 0 within the rejection target (--size: every policy sized),\n"
      "1 some policy rejects more (--size: none within 100000 GPUs), 2 bad input.");
  cmd->callback([o, &ctx] {
    ctx.json_errors = o->json;
    const int code = run_simulate(*o, ctx);
    if (code != exit_bad_input) ctx.code = code;
  });
}

}  // namespace migplan::cli
