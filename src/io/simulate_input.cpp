// SPDX-License-Identifier: Apache-2.0
#include "io/simulate_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <migplan/lookup.hpp>
#include <string_view>

#include "io/names.hpp"
#include "io/plan_answer.hpp"
#include "io/plan_input.hpp"
#include "io/plan_input_util.hpp"
#include "io/policies.hpp"
#include "io/size.hpp"
#include "io/trace.hpp"
#include "quote.hpp"

namespace migplan::cli {
namespace {

constexpr std::string_view default_policies[] = {"static", "spread-first-fit", "pack-best-fit"};

// The fleet a fleet file of several models replays: its nodes as they are
// or, without nodes, each model's `available` GPUs in nodes of `per_node`
// (the last partial), models in the file's order.
result<replay_fleet> mixed_fleet_of(const plan_fleet& f, int per_node, const std::string& path) {
  replay_fleet out;
  const auto model_index = [&](const gpu_model* g) {
    const auto at = std::find(out.models.begin(), out.models.end(), g);
    if (at != out.models.end()) return static_cast<int>(at - out.models.begin());
    out.models.push_back(g);
    return static_cast<int>(out.models.size()) - 1;
  };
  long long total = 0;
  if (!f.nodes.empty()) {
    for (const fleet_node& n : f.nodes) {
      out.nodes.push_back({model_index(n.gpu), n.gpu_count});
      total += n.gpu_count;
    }
  } else {
    for (const fleet_model& m : f.models) {
      if (!m.available)
        return error{fmt::format(
            "{}: model {} has no 'available': replaying a fleet of several models takes each "
            "one's GPU count from it (or give the file nodes)",
            plan_io::shown_path(path), m.gpu->slug)};
      const int at = model_index(m.gpu);
      for (long long left = *m.available; left > 0; left -= per_node)
        out.nodes.push_back({at, static_cast<int>(std::min<long long>(per_node, left))});
      total += *m.available;
    }
  }
  if (total < 1 || total > max_simulate_gpus)
    return error{fmt::format("{}: the fleet has {} GPUs; a replay takes 1 to {}",
                             plan_io::shown_path(path), total, max_simulate_gpus)};
  return out;
}

// The models --gpu and --fleet name, in order, each once: --gpu's, then the
// fleet file's models and its nodes' models. The fleet file read goes to
// `file`.
result<std::vector<simulate_model>> models_named(model_list models, const simulate_options& o,
                                                 std::istream& in,
                                                 std::optional<plan_fleet>& file) {
  std::vector<simulate_model> out;
  const auto add = [&](const gpu_model* g, std::optional<long long> available) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const simulate_model& m) { return m.gpu == g; });
    if (it == out.end())
      out.push_back({g, available});
    else if (available)
      it->available = available;
  };
  for (const std::string& name : o.gpu) {
    auto g = resolve_gpu(models, name);
    if (!g) return error{"--gpu: " + g.error().message};
    add(*g, std::nullopt);
  }
  if (!o.fleet.empty()) {
    auto f = read_fleet(models, o.fleet, in, "simulate");
    if (!f) return f.error();
    for (const fleet_model& m : f->models) add(m.gpu, m.available);
    for (const fleet_node& n : f->nodes) add(n.gpu, std::nullopt);
    file = std::move(*f);
  }
  if (out.empty()) return error{fmt::format("{} names no GPU model", o.fleet)};
  if (out.size() > 1 && !o.size && (o.fleet.empty() || !o.gpu.empty())) {
    std::vector<std::string_view> slugs;
    for (const simulate_model& each : out) slugs.push_back(each.gpu->slug);
    return error{fmt::format(
        "{} models ({}) are for --size, which sizes each; a replay is of one --gpu, or of the "
        "fleet a --fleet FILE of several models describes (without --gpu)",
        out.size(), fmt::join(slugs, ", "))};
  }
  return out;
}

// The fleet as --current describes it.
result<fleet_now> current_fleet_of(model_list models, const simulate_options& o, std::istream& in,
                                   std::vector<std::string>& notes) {
  fleet_now_source src = o.current;
  src.command = "simulate";
  if (!o.gpu.empty()) src.gpu = o.gpu.front();
  auto f = read_fleet_now(models, src, in);
  if (!f) return f.error();
  notes.insert(notes.end(), f->notes.begin(), f->notes.end());
  const std::vector<std::string> mig_off = mig_off_gpus(*f);
  if (!mig_off.empty())
    notes.push_back(fmt::format(
        "MIG is off on {}: static policies keep it a whole GPU; dynamic ones replay every GPU "
        "with MIG on",
        fmt::join(mig_off, ", ")));
  return f;
}

// Longest --wait-target: about 31,700 years, beyond any trace.
constexpr std::int64_t max_wait_target_s = 1'000'000'000'000;

// --wait-target NAME=DURATION.
result<wait_target> parse_wait_target(std::string_view text) {
  const std::size_t eq = text.find('=');
  const std::string_view name = text.substr(0, eq);
  wait_target t;
  t.name = std::string(name);
  if (name == "p50")
    t.percentile = 50;
  else if (name == "p95")
    t.percentile = 95;
  else if (name == "p99")
    t.percentile = 99;
  else if (name == "max")
    t.percentile = 100;
  else
    t.percentile = 0;
  if (t.percentile == 0 || eq == std::string_view::npos)
    return error{fmt::format(
        "--wait-target {} is no target: write p50, p95, p99 or max, '=', and a duration "
        "(p99=10m)",
        quote_token(text))};
  auto s = parse_duration_s(text.substr(eq + 1), max_wait_target_s);
  if (!s) return error{fmt::format("--wait-target {}: {}", name, s.error().message)};
  t.seconds = *s;
  return t;
}

// Longest re-plan period and reconfiguration: a year, beyond any trace's window.
constexpr std::int64_t max_replan_s = 366LL * 86400;

// replan:PERIOD or replan-oracle:PERIOD; none when `name` is neither.
std::optional<result<simulate_choice>> parse_replan(const std::string& name) {
  for (const bool oracle : {false, true}) {
    const std::string_view prefix = oracle ? "replan-oracle" : "replan";
    if (!name.starts_with(prefix)) continue;
    const std::string_view rest = std::string_view(name).substr(prefix.size());
    if (rest.empty() || rest.front() != ':') {
      if (!rest.empty()) continue;  // replan-oracle is tried next
      return result<simulate_choice>(error{fmt::format(
          "--policy {} needs a period: {}:PERIOD, as {}:6h (s, m, h, d)", name, name, name)});
    }
    auto s = parse_duration_s(rest.substr(1), max_replan_s);
    if (!s)
      return result<simulate_choice>(
          error{fmt::format("--policy {}: {}", quote_token(name), s.error().message)});
    if (*s < 1)
      return result<simulate_choice>(
          error{fmt::format("--policy {}: a re-plan period is at least 1s", quote_token(name))});
    return result<simulate_choice>(
        simulate_choice{name,
                        {replay_mode::static_geometry, node_choice::spread, gpu_choice::first_fit},
                        replan_choice{*s, oracle}});
  }
  return std::nullopt;
}

// The most moves +defrag:K takes: each search is exact, and its cost grows
// steeply with K (bench/README.md, "Defragmentation in a replay").
constexpr int max_defrag_moves = 3;

// A name's +defrag:K suffix: the name without it and K (0 without one).
result<std::pair<std::string, int>> split_defrag(const std::string& name) {
  const auto at = name.find("+defrag");
  if (at == std::string::npos) return std::pair(name, 0);
  const std::string base = name.substr(0, at);
  const std::string_view rest = std::string_view(name).substr(at + 7);
  if (rest.empty() || rest.front() != ':')
    return error{fmt::format("--policy {} needs a number of moves: {}+defrag:K, as {}+defrag:2",
                             quote_token(name), base, base)};
  const std::string_view digits = rest.substr(1);
  if (digits.size() != 1 || digits.front() < '1' || digits.front() > '0' + max_defrag_moves)
    return error{
        fmt::format("--policy {}: K is the most instance moves that make room for the "
                    "queue's head, 1 to {}",
                    quote_token(name), max_defrag_moves)};
  return std::pair(base, digits.front() - '0');
}

// --policy's names, in order: the named policies and the re-planned ones,
// each with its +defrag:K.
result<std::vector<simulate_choice>> parse_choices(const std::vector<std::string>& given) {
  std::vector<std::string> named;
  std::vector<int> defrag;
  for (const std::string& n : given) {
    auto d = split_defrag(n);
    if (!d) return d.error();
    if (d->second > 0 &&
        (d->first == "static" || d->first == "static-pack" || d->first.starts_with("replan")))
      return error{
          fmt::format("--policy {}: +defrag moves on-demand instances; give it to a "
                      "dynamic policy (pack-best-fit+defrag:{}, ...)",
                      quote_token(n), d->second)};
    defrag.push_back(d->second);
    if (!parse_replan(d->first) && std::find(named.begin(), named.end(), d->first) == named.end())
      named.push_back(d->first);  // each once: a policy may be given with and without +defrag
  }
  auto policies = parse_policies(named, false, "simulate");
  if (!policies) return policies.error();
  std::vector<simulate_choice> out;
  for (const std::string& n : given) {
    if (std::any_of(out.begin(), out.end(), [&](const simulate_choice& c) { return c.name == n; }))
      return error{fmt::format("--policy {} is given twice", n)};
    if (auto replan = parse_replan(n)) {
      if (!*replan) return replan->error();
      out.push_back(std::move(**replan));
      continue;
    }
    const std::size_t k = out.size();
    const std::string base = n.substr(0, n.find("+defrag"));
    const auto at = std::find(named.begin(), named.end(), base) - named.begin();
    const policy_name& p = (*policies)[static_cast<std::size_t>(at)];
    out.push_back({n, p.policy, std::nullopt});
    out.back().policy.defrag = defrag[k];
  }
  return out;
}

}  // namespace

std::optional<std::string> option_conflict(const simulate_options& o) {
  const bool queued = o.queue || o.backfill;
  if (!o.wait_target.empty() && !queued)
    return "--wait-target is a target for the waits of a queue; give --queue or --backfill";
  const bool replans = std::any_of(o.policies.begin(), o.policies.end(), [](const std::string& p) {
    return p.starts_with("replan:") || p.starts_with("replan-oracle:");
  });
  if (!o.reconfigure_seconds.empty() && !replans)
    return "--reconfigure-seconds is the time a re-plan's GPU is out; give --policy replan:PERIOD";
  // Of the default policies every one but static creates instances.
  const bool dynamic =
      o.policies.empty() || std::any_of(o.policies.begin(), o.policies.end(), [](const auto& p) {
        return p != "static" && !p.starts_with("replan:") && !p.starts_with("replan-oracle:");
      });
  if (o.create_seconds && !dynamic)
    return "--create-seconds is the time an on-demand instance takes to create; give a dynamic "
           "--policy (spread-first-fit, hami, ...)";
  if (o.keep_idle && !dynamic)
    return "--keep-idle keeps on-demand instances for reuse; give a dynamic --policy "
           "(spread-first-fit, hami, ...)";
  const bool defrag = std::any_of(o.policies.begin(), o.policies.end(), [](const auto& p) {
    return p.find("+defrag") != std::string::npos;
  });
  if (defrag && !queued)
    return "+defrag makes room for the head of a queue; give --queue or --backfill";
  if (defrag && o.keep_idle)
    return "+defrag moves running instances; it does not go with --keep-idle's idle ones";
  if (o.size && replans)
    return "--size replays each fleet size many times; a replan policy re-plans in each replay: "
           "size without replan:PERIOD";
  if (o.size && queued && o.wait_target.empty())
    return "--size with --queue sizes by waits; give --wait-target (p99=10m, say)";
  if (!o.plot_metric.empty() && o.plot.empty())
    return "--plot-metric chooses what --plot draws; give --plot FILE with it";
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
  if (o.static_plan == "-" && o.trace == "-")
    return "--trace and --static-plan cannot both read standard input";
  return std::nullopt;
}

result<simulate_request> read_simulate_request(model_list models, const simulate_options& o,
                                               std::istream& in, std::vector<std::string>& notes) {
  simulate_request r;
  // The fleet as it is (--current), or the models to replay and size.
  if (!o.current.current.empty()) {
    auto f = current_fleet_of(models, o, in, notes);
    if (!f) return f.error();
    for (const fleet_now_node& n : f->nodes)  // its models, each once, in node order
      if (std::none_of(r.models.begin(), r.models.end(),
                       [&](const simulate_model& m) { return m.gpu == n.gpu; }))
        r.models.push_back({n.gpu, std::nullopt});
    r.now = std::move(*f);
    r.current_shown = plan_io::shown_path(o.current.current);
  }
  std::optional<plan_fleet> file;
  if (o.current.current.empty()) {
    auto m = models_named(models, o, in, file);
    if (!m) return m.error();
    r.models = std::move(*m);
  }
  for (const simulate_model& m : r.models)
    if (full_profile(*m.gpu) < 0)
      return error{fmt::format("{} has no full-GPU profile", m.gpu->slug)};
  auto per_node = parse_whole_number("--gpus-per-node", o.per_node.empty() ? "8" : o.per_node, 1,
                                     max_node_gpus);
  if (!per_node) return per_node.error();
  r.per_node = static_cast<int>(*per_node);
  if (file && r.models.size() > 1 && !o.size) {
    // A fleet of several models: no static geometry, no --gpus.
    if (!o.gpus.empty())
      return error{
          "--gpus shapes a fleet of one model; a --fleet file of several models gives its own "
          "GPUs (its nodes, or each model's 'available')"};
    if (!o.static_plan.empty())
      return error{
          "--static-plan is one model's geometry; a fleet of several models has the plan for "
          "its peaks, or with --current its own"};
    auto fleet = mixed_fleet_of(*file, r.per_node, o.fleet);
    if (!fleet) return fleet.error();
    r.mixed = std::move(*fleet);
    r.fleet_shown = plan_io::shown_path(o.fleet);
  }
  if (!o.gpus.empty()) {
    auto n = parse_whole_number("--gpus", o.gpus, 1, max_simulate_gpus);
    if (!n) return n.error();
    r.gpus = static_cast<int>(*n);
  }
  if (!o.plot_metric.empty() && o.plot_metric != "slices" && o.plot_metric != "gpus")
    return error{
        fmt::format("unknown --plot-metric {}{}; it is slices or gpus", quote_token(o.plot_metric),
                    did_you_mean(o.plot_metric, std::vector<std::string>{"slices", "gpus"}))};
  r.metric = o.plot_metric == "gpus" ? plot_metric::gpus : plot_metric::slices;
  r.plot = !o.plot.empty();
  if (o.plot == "-" && o.json)
    return error{"--plot - and --json both write to standard output; give --plot a file"};
  if (o.share != "compute" && o.share != "memory")
    return error{fmt::format("unknown --share {}{}; it is compute or memory", quote_token(o.share),
                             did_you_mean(o.share, std::vector<std::string>{"compute", "memory"}))};
  r.by_memory = o.share == "memory";
  auto t = parse_whole_number("--reject-target", o.reject_target, 0, 100);
  if (!t) return error{t.error().message + " (a whole percent of pods)"};
  r.reject_target = static_cast<double>(*t);
  r.size = o.size;
  std::vector<std::string> chosen(o.policies.begin(), o.policies.end());
  if (chosen.empty()) chosen.assign(std::begin(default_policies), std::end(default_policies));
  auto policies = parse_choices(chosen);
  if (!policies) return policies.error();
  r.policies = std::move(*policies);
  if (r.mixed || (r.now && r.models.size() > 1))
    for (const simulate_choice& p : r.policies)
      if (p.replan)
        return error{fmt::format(
            "--policy {}: re-planning a fleet of several models ({}) is not modelled (plan's "
            "fewest changes per model and window); give static, static-pack or dynamic policies",
            p.name, r.mixed ? r.fleet_shown : r.current_shown)};
  if (!o.reconfigure_seconds.empty()) {
    auto s = parse_whole_number("--reconfigure-seconds", o.reconfigure_seconds, 0, max_replan_s);
    if (!s) return s.error();
    r.reconfigure_s = *s;
  }
  r.pending = o.backfill ? pending_rule::backfill
              : o.queue  ? pending_rule::fifo
                         : pending_rule::reject;
  for (simulate_choice& p : r.policies) p.policy.pending = r.pending;
  // Instances on demand: their creation's cost (by default only under a
  // queue, where it is waited for) and how long an idle one is kept.
  r.create_milli = r.pending == pending_rule::reject ? 0 : default_create_milli;
  if (o.create_seconds) {
    auto ms = parse_milliseconds("--create-seconds", *o.create_seconds, max_create_s);
    if (!ms) return ms.error();
    r.create_milli = *ms;
  }
  if (o.keep_idle) {
    auto s = parse_duration_s(*o.keep_idle, max_replan_s);
    if (!s) return error{"--keep-idle " + s.error().message};
    r.keep_idle_s = *s;
  }
  for (simulate_choice& p : r.policies)
    if (p.policy.mode == replay_mode::dynamic) {
      p.policy.create_milli = r.create_milli;
      p.policy.keep_idle = r.keep_idle_s;
    }
  if (!o.wait_target.empty()) {
    auto w = parse_wait_target(o.wait_target);
    if (!w) return w.error();
    r.wait = std::move(*w);
  }

  // A misspelt profile is suggested among the fleet's models, not the catalog's.
  std::vector<const gpu_model*> fleet;
  for (const simulate_model& m : r.models) fleet.push_back(m.gpu);
  auto pods = read_trace(models, o.trace, in, fleet);
  if (!pods) return pods.error();
  r.pods = std::move(*pods);
  r.trace_shown = plan_io::shown_path(o.trace);
  if (!o.static_plan.empty()) {
    auto planned = read_plan_answer(o.static_plan, in, *r.models.front().gpu);
    if (!planned) return planned.error();
    r.static_plan = std::move(*planned);
    r.static_shown = plan_io::shown_path(o.static_plan);
  }
  return r;
}

}  // namespace migplan::cli
