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
#include <map>
#include <memory>
#include <migplan/catalog.hpp>
#include <migplan/compute.hpp>
#include <migplan/replay.hpp>
#include <migplan/sizing.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "app.hpp"
#include "error.hpp"
#include "io/fleet_now.hpp"
#include "io/names.hpp"
#include "io/size.hpp"
#include "io/trace.hpp"
#include "model/fleet_now.hpp"
#include "model/plan.hpp"
#include "model/policies.hpp"
#include "model/simulate.hpp"
#include "plan/solver.hpp"
#include "quote.hpp"
#include "render/progress.hpp"
#include "render/simulate.hpp"

namespace migplan::cli {
namespace {

// The most GPUs of a replayed fleet, and the most --size tries.
constexpr long long max_simulate_gpus = 100'000;
// plan's time limit for the static geometry (as plan's default).
constexpr double static_plan_time_limit_s = 60;

struct simulate_options {
  std::string trace;
  std::string gpu;
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

// The profile of `gpu` that serves a share of `milli` thousandths of a GPU:
// the smallest (fewest compute slices, then fewest units, then catalog
// order) whose share of compute slices (or, by memory, of the full GPU's
// memory) is at least milli / 1000; -1 when none.
int share_profile(const gpu_model& gpu, int milli, bool by_memory) {
  const int full = full_profile(gpu);
  const std::optional<int> full_memory =
      full >= 0 ? gpu.profiles[static_cast<std::size_t>(full)].memory_gib_x100 : std::nullopt;
  int best = -1;
  std::tuple<int, int, int> best_key{};
  for (std::size_t i = 0; i < gpu.profiles.size(); ++i) {
    const profile& p = gpu.profiles[i];
    if (p.max_instances < 1) continue;
    if (by_memory) {
      if (!p.memory_gib_x100 || !full_memory ||
          static_cast<long long>(*p.memory_gib_x100) * 1000 <
              static_cast<long long>(milli) * *full_memory)
        continue;
    } else if (p.compute_slices * 1000 < milli * gpu.compute_slices) {
      continue;
    }
    const std::tuple<int, int, int> key =
        by_memory ? std::tuple{*p.memory_gib_x100, p.compute_slices, p.size}
                  : std::tuple{p.compute_slices, p.size, 0};
    if (best < 0 || key < best_key) {
      best = static_cast<int>(i);
      best_key = key;
    }
  }
  return best;
}

// The GPU-instance profile of `gpu` serving a demand item: the named profile,
// the GPU instance of a named CI profile, or the smallest meeting a memory
// need (as plan sizes it); -1 when none.
int item_profile(const gpu_model& gpu, const demand_item& d) {
  if (!d.profile.empty()) {
    if (const int p = find_profile(gpu, d.profile); p >= 0) return p;
    for (std::size_t i = 0; i < gpu.profiles.size(); ++i)
      if (find_ci(gpu.profiles[i], d.profile) >= 0) return static_cast<int>(i);
    return -1;
  }
  if (!d.memory_mib) return -1;
  const need n{*d.memory_mib, d.sms, 1};
  if (!d.compute_slices) return size_for(gpu, n).profile;
  int best = -1;
  std::tuple<int, int, int> best_key{};
  for (std::size_t i = 0; i < gpu.profiles.size(); ++i) {
    const profile& p = gpu.profiles[i];
    if (!meets(p, n) || p.compute_slices < *d.compute_slices || p.max_instances < 1) continue;
    const std::tuple<int, int, int> key{p.size, p.compute_slices, -p.max_instances};
    if (best < 0 || key < best_key) {
      best = static_cast<int>(i);
      best_key = key;
    }
  }
  return best;
}

std::string describe_row(const trace_row& row) {
  switch (row.need) {
    case trace_need::whole:
      return row.instances == 1 ? "a whole GPU" : fmt::format("{} whole GPUs", row.instances);
    case trace_need::share:
      return fmt::format("gpu_milli {}", row.milli);
    case trace_need::item:
      break;
  }
  return quote_token(row.item.name);
}

// The replay's items and pods from the trace's rows; the error names the row.
result<std::pair<std::vector<replay_item>, std::vector<replay_pod>>> pods_of(const trace& t,
                                                                             const gpu_model& gpu,
                                                                             bool share_by_memory) {
  std::vector<replay_item> items;
  std::map<std::pair<int, int>, int> index;  // (profile, instances) -> item
  std::vector<replay_pod> pods;
  std::int64_t last = t.rows.front().start;
  for (const trace_row& row : t.rows) last = std::max({last, row.start, row.end.value_or(last)});
  for (const trace_row& row : t.rows) {
    int p = -1;
    switch (row.need) {
      case trace_need::whole:
        p = full_profile(gpu);
        break;
      case trace_need::share:
        p = share_profile(gpu, row.milli, share_by_memory);
        break;
      case trace_need::item:
        p = item_profile(gpu, row.item);
        break;
    }
    if (p < 0)
      return error{
          fmt::format("{}: no profile of {} serves {}", row.where, gpu.slug, describe_row(row))};
    const int pp = p;
    const auto [it, fresh] = index.try_emplace({pp, row.instances}, static_cast<int>(items.size()));
    if (fresh) items.push_back({{pp}, row.instances});
    for (long long k = 0; k < row.count; ++k)
      pods.push_back({row.start, row.end.value_or(last), it->second});
  }
  return std::pair{std::move(items), std::move(pods)};
}

replay_fleet fleet_of(const gpu_model& gpu, int gpus, int per_node) {
  replay_fleet f{{&gpu}, {}};
  for (int left = gpus; left > 0; left -= per_node)
    f.nodes.push_back({0, std::min(per_node, left)});
  return f;
}

std::string geometry_text(const gpu_model& gpu, const std::vector<planned_instance>& instances) {
  std::string out;
  for (const planned_instance& in : instances)
    out +=
        fmt::format("{}{}@{}", out.empty() ? "" : " ",
                    gpu.profiles[static_cast<std::size_t>(in.where.profile)].name, in.where.start);
  return out;
}

// The order in which a fleet smaller than the static plan takes the plan's
// GPUs: each next GPU is one of a geometry (a plan group with GPUs left)
// holding the most instances of the profile now served least in proportion
// to its peak; ties go to the geometry with the most compute slices in use,
// then to the first. A fleet of n GPUs takes the first n of this order, so
// every profile keeps a share of its peak as near to the others' as the
// planned geometries allow.
std::vector<int> subset_order(const gpu_model& gpu, const std::vector<plan_group>& groups,
                              const std::vector<std::int64_t>& peaks) {
  const std::size_t np = gpu.profiles.size();
  std::vector<std::vector<int>> held(groups.size(), std::vector<int>(np, 0));
  std::vector<int> slices(groups.size(), 0);
  std::vector<long long> left;
  long long total = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const planned_instance& in : groups[g].instances) {
      ++held[g][static_cast<std::size_t>(in.where.profile)];
      slices[g] += gpu.profiles[static_cast<std::size_t>(in.where.profile)].compute_slices;
    }
    left.push_back(groups[g].count);
    total += groups[g].count;
  }
  std::vector<std::int64_t> served(np, 0);
  std::vector<int> order;
  std::vector<std::size_t> by_share;  // profiles with a peak, least served first
  for (std::size_t p = 0; p < np; ++p)
    if (p < peaks.size() && peaks[p] > 0) by_share.push_back(p);
  for (long long k = 0; k < total; ++k) {
    std::stable_sort(by_share.begin(), by_share.end(), [&](std::size_t a, std::size_t b) {
      return served[a] * peaks[b] < served[b] * peaks[a];  // served/peak, exactly
    });
    int pick = -1;
    for (const std::size_t p : by_share) {
      for (std::size_t g = 0; g < groups.size(); ++g) {
        if (left[g] == 0 || held[g][p] == 0) continue;
        const auto gi = static_cast<std::size_t>(pick);
        if (pick < 0 || held[g][p] > held[gi][p] ||
            (held[g][p] == held[gi][p] && slices[g] > slices[gi]))
          pick = static_cast<int>(g);
      }
      if (pick >= 0) break;
    }
    if (pick < 0)  // GPUs holding no profile with a peak: none in a plan, but take them last
      for (std::size_t g = 0; g < groups.size() && pick < 0; ++g)
        if (left[g] > 0) pick = static_cast<int>(g);
    const auto gp = static_cast<std::size_t>(pick);
    --left[gp];
    for (std::size_t p = 0; p < np; ++p) served[p] += held[gp][p];
    order.push_back(pick);
  }
  return order;
}

// Identical geometries of `gpus` (layouts) and their counts, in order of
// first appearance, as PROFILE@START text.
std::vector<std::pair<std::string, long long>> geometries_of(
    const std::vector<const gpu_model*>& models, const std::vector<layout>& gpus) {
  std::vector<std::pair<std::string, long long>> out;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    std::string text;
    for (const instance& in : gpus[i])
      text += fmt::format("{}{}@{}", text.empty() ? "" : " ",
                          models[i]->profiles[static_cast<std::size_t>(in.profile)].name, in.start);
    if (text.empty()) text = "(none)";
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == text; });
    if (it == out.end())
      out.emplace_back(std::move(text), 1);
    else
      ++it->second;
  }
  return out;
}

int run_simulate(const simulate_options& o, context& ctx) {
  const auto bad = [&](const std::string& message) {
    report_bad_input(ctx, message);
    return exit_bad_input;
  };
  const bool from_current = !o.current.current.empty();
  if (from_current) {
    if (!o.gpus.empty() || !o.per_node.empty())
      return bad(
          "--current replays the fleet as it is; --gpus and --gpus-per-node shape a fleet "
          "of --gpu's model instead");
    if (o.size)
      return bad("--size finds the fewest GPUs of one model; --current replays the fleet as it is");
    if (o.current.current == "-" && o.trace == "-")
      return bad("--trace and --current cannot both read standard input");
  } else {
    if (!o.current.mig_config.empty())
      return bad("--mig-config goes with --current (kubectl's nodes)");
    if (o.gpu.empty())
      return bad(
          "--gpu is required: the model of the fleet (or --current FILE: the fleet as it is)");
  }
  // The fleet as it is, with --current.
  std::optional<fleet_now> now;
  const gpu_model* model = nullptr;
  if (from_current) {
    fleet_now_source src = o.current;
    src.gpu = o.gpu;
    auto f = read_fleet_now(src, ctx.in);
    if (!f) return bad(f.error().message);
    for (const fleet_now_node& n : f->nodes)
      if (n.gpu != f->nodes.front().gpu)
        return bad(fmt::format(
            "{}: node {} has {} GPUs and node {} {}; simulate replays a fleet of one model",
            o.current.current == "-" ? "<stdin>" : o.current.current, f->nodes.front().name,
            f->nodes.front().gpu->slug, n.name, n.gpu->slug));
    model = f->nodes.front().gpu;
    for (const std::string& note : f->notes) ctx.err << "migplan: note: " << one_line(note) << "\n";
    now = std::move(*f);
  } else {
    auto g = resolve_gpu(o.gpu);
    if (!g) return bad("--gpu: " + g.error().message);
    model = *g;
  }
  const gpu_model& gpu = *model;
  if (full_profile(gpu) < 0) return bad(fmt::format("{} has no full-GPU profile", gpu.slug));
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
  auto built = pods_of(*t, gpu, o.share == "memory");
  if (!built) return bad(built.error().message);
  // Plain references, not a structured binding: clang 14 does not let a
  // lambda capture a binding.
  const std::vector<replay_item>& items = built->first;
  const std::vector<replay_pod>& pods = built->second;
  res.trace = o.trace == "-" ? "<stdin>" : o.trace;
  res.alibaba = t->alibaba;
  res.skipped = t->skipped;
  res.pods = static_cast<long long>(pods.size());
  for (const replay_pod& p : pods) res.instances += items[static_cast<std::size_t>(p.item)].count;
  res.gpu = &gpu;
  res.per_node = static_cast<int>(*per_node);  // --current: its widest node, below

  // The static geometry: plan's answer for the per-profile peaks.
  const std::vector<std::int64_t> peaks = concurrent_peaks(items, pods, 0, gpu.profiles.size());
  plan_request req;
  req.models.push_back({&gpu, std::nullopt, 1.0});
  req.time_limit_s = static_plan_time_limit_s;
  for (std::size_t p = 0; p < peaks.size(); ++p) {
    if (peaks[p] == 0) continue;
    const std::string name(gpu.profiles[p].name);
    res.peaks.emplace_back(name, peaks[p]);
    demand_item d;
    d.name = name;
    d.profile = name;
    d.count = peaks[p];
    req.demand.push_back(d);
  }
  std::vector<plan_group> groups;
  if (!req.demand.empty()) {
    const plan_result plan = plan::solve(req);
    if (!plan.feasible)
      return bad("plan found no static geometry for the trace's peaks within its time limit");
    res.plan_gpus = plan.gpu_count;
    res.plan_optimal = plan.optimal;
    for (const plan_group& grp : plan.groups)
      res.geometries.emplace_back(geometry_text(gpu, grp.instances), grp.count);
    groups = plan.groups;
  }
  std::vector<layout> group_layouts;
  for (const plan_group& grp : groups) {
    layout l;
    for (const planned_instance& in : grp.instances) l.add(in.where);
    group_layouts.push_back(l);
  }
  // A fleet smaller than the plan takes the plan's GPUs in this order.
  const std::vector<int> order = subset_order(gpu, groups, peaks);

  // The fleet as it is: its nodes, and each GPU's instances as its static
  // geometry (a GPU with MIG off serves whole-GPU pods alone: its geometry
  // is the full-GPU instance).
  replay_fleet current_fleet{{&gpu}, {}};
  std::vector<layout> current_geometry;
  if (now) {
    const int full = full_profile(gpu);
    const unit_mask full_starts = gpu.profiles[static_cast<std::size_t>(full)].starts;
    layout whole;
    whole.add({full, std::countr_zero(full_starts)});
    int widest = 0;
    for (std::size_t n = 0; n < now->nodes.size(); ++n) current_fleet.nodes.push_back({0, 0});
    for (const fleet_now_gpu& g : now->gpus) {
      replay_node& node = current_fleet.nodes[static_cast<std::size_t>(g.node)];
      widest = std::max(widest, ++node.gpus);
      current_geometry.push_back(g.mig_enabled ? g.held : whole);
    }
    const std::vector<std::string> mig_off = mig_off_gpus(*now);
    if (!mig_off.empty())
      ctx.err << "migplan: note: MIG is off on " << fmt::format("{}", fmt::join(mig_off, ", "))
              << ": static policies keep it a whole GPU; dynamic ones replay every GPU with MIG "
                 "on\n";
    res.gpus = static_cast<int>(now->gpus.size());
    res.per_node = widest;
    res.nodes = static_cast<int>(now->nodes.size());
    res.current = o.current.current == "-" ? "<stdin>" : o.current.current;
  } else {
    res.gpus =
        gpus ? *gpus : static_cast<int>(std::clamp<long long>(res.plan_gpus, 1, max_simulate_gpus));
    res.nodes = (res.gpus + res.per_node - 1) / res.per_node;
  }
  const auto fleet_for = [&](int n) {
    return now ? current_fleet : fleet_of(gpu, n, res.per_node);
  };
  // The static geometry of a fleet of n GPUs: the fleet's own with
  // --current; otherwise GPU i gets planned GPU i mod the plan's count, or,
  // on fewer GPUs than the plan, the first n of subset_order, each geometry's
  // GPUs together in the plan's group order.
  const auto geometry_for = [&](int n) {
    if (now) return current_geometry;
    std::vector<layout> out;
    const auto planned = static_cast<long long>(order.size());
    if (planned == 0) return std::vector<layout>(static_cast<std::size_t>(n));
    std::vector<long long> take(groups.size(), 0);
    if (n >= planned) {
      for (int i = 0; i < n; ++i) {
        long long at = i % planned;  // the plan's GPU at, in group order
        std::size_t g = 0;
        while (at >= groups[g].count) at -= groups[g++].count;
        out.push_back(group_layouts[g]);
      }
      return out;
    }
    for (int i = 0; i < n; ++i)
      ++take[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
    for (std::size_t g = 0; g < groups.size(); ++g)
      out.insert(out.end(), static_cast<std::size_t>(take[g]), group_layouts[g]);
    return out;
  };
  res.static_from =
      now ? "current" : (static_cast<long long>(res.gpus) < res.plan_gpus ? "plan-subset" : "plan");
  res.static_geometries =
      geometries_of(std::vector<const gpu_model*>(static_cast<std::size_t>(res.gpus), &gpu),
                    geometry_for(res.gpus));

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
    const replay_fleet fleet = fleet_for(res.gpus);
    if (!o.plot.empty()) p.series.emplace(plot_buckets);
    simulate_watch watch(p.series ? &*p.series : nullptr, progress, p.name);
    p.metrics = replay(fleet, items, pods, p.policy, geometry_for(res.gpus), tables, watch);
  }
  res.size = o.size;
  res.reject_target = target;
  res.size_limit = static_cast<int>(max_simulate_gpus);
  bool all_sized = true;
  if (o.size) {
    for (simulate_policy& p : res.policies) {
      p.sized = fewest_gpus(
          [&](int n) {
            const replay_fleet fleet = fleet_for(n);
            simulate_watch watch(nullptr, progress, fmt::format("sizing {} at {} GPUs", p.name, n));
            const replay_metrics m =
                replay(fleet, items, pods, p.policy, geometry_for(n), tables, watch);
            return static_cast<double>(m.pods_rejected) * 100.0 <=
                   target * static_cast<double>(res.pods);
          },
          res.size_limit);
      all_sized = all_sized && p.sized.has_value();
    }
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
      ->type_name("MODEL");
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
