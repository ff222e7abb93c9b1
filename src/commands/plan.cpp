// SPDX-License-Identifier: Apache-2.0
// `migplan plan`: the fewest GPUs (least cost) whose MIG geometries meet a
// demand, and for a re-plan the fewest GPUs reconfigured. Reads the options
// into a plan_request, asks plan::solve, and renders the answer.

#include "model/plan.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "app.hpp"
#include "error.hpp"
#include "io/names.hpp"
#include "io/plan_input.hpp"
#include "io/size.hpp"
#include "model/plan_cost.hpp"
#include "plan/solver.hpp"
#include "quote.hpp"
#include "render/plan.hpp"
#include "render/plan_emit.hpp"

namespace migplan::cli {
namespace {

// The longest --time-limit, in seconds: an hour.
constexpr double max_time_limit_s = 3600;
// The time limit without --time-limit: a plan is proven in milliseconds on
// every mix measured (bench/README.md), but proving the later objectives
// (room, fewest geometries) of a large, irregular mix can take far longer,
// and a command must not run unbounded. The answer says what was proven.
constexpr double default_time_limit_s = 60;
// The longest ConfigMap name: a DNS subdomain.
constexpr std::size_t max_configmap_name = 253;

struct plan_options {
  std::vector<std::string> items;
  std::string demand;
  std::vector<std::string> gpus;
  std::vector<std::string> available;
  std::vector<std::string> costs;
  std::string fleet;
  std::string current;
  std::string mig_config;
  bool allow_evict = false;
  std::string time_limit;
  CLI::Option* time_limit_given = nullptr;
  bool json = false;
  bool full = false;
  std::string emit;
  std::string configmap_name;
  CLI::Option* configmap_given = nullptr;
};

struct emit_name {
  std::string_view name;
  render::plan_emit_kind kind;
};
constexpr emit_name emit_names[] = {{"mig-parted", render::plan_emit_kind::mig_parted},
                                    {"configmap", render::plan_emit_kind::configmap},
                                    {"labels", render::plan_emit_kind::labels}};

// "MODEL=VALUE" split at its last '='; the error names the option and the form.
result<std::pair<std::string, std::string>> split_assignment(std::string_view option,
                                                             std::string_view text,
                                                             std::string_view form) {
  const std::size_t eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
    return error{fmt::format("{} {} is not {}", option, quote_token(text), form)};
  return std::pair{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

// A positive finite decimal of at most `high`, as "--OPTION VALUE" names it.
result<double> parse_positive(std::string_view what, std::string_view text, double high) {
  double v = 0;
  const char* b = text.data();
  const char* e = text.data() + text.size();
  if (b != e && *b == '+') ++b;
  const auto [p, ec] = std::from_chars(b, e, v);
  if (text.empty() || ec != std::errc() || p != e || !std::isfinite(v))
    return error{fmt::format("{} {} is not a number", what, quote_token(text))};
  if (!(v > 0) || v > high)
    return error{
        fmt::format("{} {} must be more than 0 and at most {}", what, clip_token(text), high)};
  return v;
}

// Lowercase letters, digits, '-' and '.', starting and ending with a letter or digit.
bool dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > max_configmap_name) return false;
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || c == '-' || c == '.'; });
}

// The fleet model `name` resolves to, among the candidates; the error names them.
result<fleet_model*> candidate(std::string_view option, std::string_view name,
                               std::vector<fleet_model>& models) {
  auto g = resolve_gpu(name);
  if (!g) return error{fmt::format("{}: {}", option, g.error().message)};
  for (fleet_model& m : models)
    if (m.gpu == *g) return &m;
  std::vector<std::string> slugs;
  for (const fleet_model& m : models) slugs.emplace_back(m.gpu->slug);
  return error{fmt::format("{} names {}, which is not a model of the fleet ({})", option,
                           (*g)->slug, fmt::join(slugs, ", "))};
}

// Builds the request from the options; the error is the whole message.
result<plan_request> request_of(const plan_options& o, context& ctx) {
  plan_request req;
  const int sources =
      (o.gpus.empty() ? 0 : 1) + (o.fleet.empty() ? 0 : 1) + (o.current.empty() ? 0 : 1);
  if (sources > 1)
    return error{"give the fleet one way: --gpu MODEL..., --fleet FILE or --current FILE"};
  if (!o.mig_config.empty() && o.current.empty())
    return error{"--mig-config needs --current (kubectl's nodes)"};
  if (o.allow_evict && o.current.empty()) return error{"--allow-evict needs --current"};
  if (o.demand == "-" && (o.fleet == "-" || o.current == "-" || o.mig_config == "-"))
    return error{"only one file can be read from standard input ('-')"};
  if (o.fleet == "-" && (o.current == "-" || o.mig_config == "-"))
    return error{"only one file can be read from standard input ('-')"};

  // Demand: the file's items, then the command line's.
  if (!o.demand.empty()) {
    auto d = read_demand(o.demand, ctx.in);
    if (!d) return d.error();
    req.demand = std::move(*d);
  }
  for (const std::string& w : o.items) {
    auto d = parse_demand_word(w);
    if (!d) return d.error();
    for (const demand_item& e : req.demand)
      if (e.name == d->name)
        return error{fmt::format(
            "demand item {} is given twice{}; add up the counts, or name them apart in a file",
            quote_token(d->name), e.where.empty() ? "" : " (also at " + e.where + ")")};
    req.demand.push_back(std::move(*d));
  }
  if (req.demand.size() > max_demand_items)
    return error{
        fmt::format("{} demand items; the most is {}", req.demand.size(), max_demand_items)};

  // Fleet.
  if (!o.gpus.empty()) {
    for (const std::string& name : o.gpus) {
      auto g = resolve_gpu(name);
      if (!g) return error{g.error().message};
      if (std::any_of(req.models.begin(), req.models.end(),
                      [&](const fleet_model& m) { return m.gpu == *g; }))
        return error{fmt::format("--gpu {} is given twice", (*g)->slug)};
      req.models.push_back({*g, std::nullopt, 1.0});
    }
  } else if (!o.fleet.empty()) {
    auto f = read_fleet(o.fleet, ctx.in);
    if (!f) return f.error();
    req.models = std::move(f->models);
    req.nodes = std::move(f->nodes);
  } else if (!o.current.empty()) {
    auto s = read_current_state(o.current, o.mig_config, ctx.in);
    if (!s) return s.error();
    for (const std::string& note : s->notes) ctx.err << "migplan: note: " << one_line(note) << "\n";
    for (const current_node& n : s->nodes)
      if (std::none_of(req.models.begin(), req.models.end(),
                       [&](const fleet_model& m) { return m.gpu == n.gpu; }))
        req.models.push_back({n.gpu, std::nullopt, 1.0});
    req.current = std::move(s->nodes);
  } else {
    return error{
        "no fleet: give --gpu MODEL (repeatable), --fleet FILE or --current FILE; try 'migplan "
        "plan --gpu h100-80gb 300x1g.10gb 80x3g.40gb'"};
  }
  if (req.demand.empty())
    return error{"no demand: give ITEMs (300x1g.10gb, 20xmem=30GiB) or --demand FILE"};

  // A model given twice would keep its last value unseen: refused, as --gpu
  // twice is.
  std::set<const fleet_model*> with_available, with_cost;
  for (const std::string& a : o.available) {
    auto kv = split_assignment("--available", a, "MODEL=N (h100-80gb=16)");
    if (!kv) return kv.error();
    auto m = candidate("--available", kv->first, req.models);
    if (!m) return m.error();
    if (!with_available.insert(*m).second)
      return error{fmt::format("--available {} is given twice", (*m)->gpu->slug)};
    auto n = parse_whole_number(fmt::format("--available {}", (*m)->gpu->slug), kv->second, 0,
                                max_model_available);
    if (!n) return n.error();
    (*m)->available = *n;
  }
  for (const std::string& c : o.costs) {
    auto kv = split_assignment("--cost", c, "MODEL=X (h100-80gb=2.5)");
    if (!kv) return kv.error();
    auto m = candidate("--cost", kv->first, req.models);
    if (!m) return m.error();
    if (!with_cost.insert(*m).second)
      return error{fmt::format("--cost {} is given twice", (*m)->gpu->slug)};
    auto v = parse_positive(fmt::format("--cost {}", (*m)->gpu->slug), kv->second, max_model_cost);
    if (!v) return v.error();
    (*m)->cost = *v;
  }
  req.allow_evict = o.allow_evict;
  // Costs are worked on as whole units of one unit (model/plan_cost.hpp).
  {
    std::vector<double> raw;
    std::string listed;
    for (const fleet_model& m : req.models) {
      raw.push_back(m.cost);
      listed += fmt::format("{}{}={}", listed.empty() ? "" : ", ", m.gpu->slug, m.cost);
    }
    if (!scale_costs(raw))
      return error{fmt::format(
          "the costs {} need more than {} digits together: as whole multiples of one unit "
          "the largest would be more than {} units; give them to fewer digits",
          listed, 6, max_cost_units)};
  }
  if (o.time_limit_given->count() > 0) {
    auto t = parse_positive("--time-limit", o.time_limit, max_time_limit_s);
    if (!t) return t.error();
    req.time_limit_s = *t;
  } else {
    req.time_limit_s = default_time_limit_s;
  }
  return req;
}

// The exit status of a plan: 0 the demand met, 1 proven not to fit the
// fleet, 3 no plan meeting it found in the time limit (none proven impossible).
int exit_of(const plan_result& res) {
  switch (res.status) {
    case plan_status::optimal:
    case plan_status::feasible:
      return exit_ok;
    case plan_status::unmet:
      return exit_no_fit;
    case plan_status::timed_out:
      break;
  }
  return exit_timed_out;
}

int run_plan(const plan_options& o, context& ctx) {
  const auto bad = [&](const std::string& message) {
    report_bad_input(ctx, message);
    return exit_bad_input;
  };
  // Options that do not depend on the files first.
  std::optional<render::plan_emit_kind> kind;
  if (!o.emit.empty()) {
    std::vector<std::string> names;
    for (const emit_name& e : emit_names) {
      names.emplace_back(e.name);
      if (e.name == o.emit) kind = e.kind;
    }
    if (!kind)
      return bad(fmt::format("unknown --emit kind {}{}; kinds: {}", quote_token(o.emit),
                             did_you_mean(o.emit, names), fmt::join(names, ", ")));
    if (o.json) return bad("--emit writes its own format; it does not combine with --json");
  }
  render::plan_emit_options emit_opt;
  if (o.configmap_given->count() > 0) {
    if (!kind || *kind != render::plan_emit_kind::configmap)
      return bad("--configmap-name needs --emit configmap");
    if (!dns_subdomain(o.configmap_name))
      return bad(fmt::format(
          "--configmap-name {} is not a DNS subdomain (lowercase letters, digits, '-' and '.', "
          "at most {} characters)",
          quote_token(o.configmap_name), max_configmap_name));
    emit_opt.configmap_name = o.configmap_name;
  }
  auto req = request_of(o, ctx);
  if (!req) return bad(req.error().message);
  const plan_result res = plan::solve(*req);
  if (kind) {
    if (const std::string why = render::plan_emit_problem(*kind, *req, res); !why.empty()) {
      ctx.err << "migplan: " << why << "; nothing to emit\n";
      return res.feasible ? exit_bad_input : exit_of(res);
    }
    render::plan_emit(ctx.out, *kind, *req, res, emit_opt);
    return exit_ok;
  }
  if (o.json)
    render::plan_json(ctx.out, *req, res);
  else
    render::plan_text(ctx.out, *req, res, ctx.color, o.full);
  return exit_of(res);
}

}  // namespace

void add_plan(CLI::App& app, context& ctx) {
  auto o = std::make_shared<plan_options>();
  // One screen (see migplan-plan(1) for the whole reference): an option's
  // text stays within 50 columns.
  CLI::App* cmd = app.add_subcommand(
      "plan", "Plan a fleet: fewest GPUs and their MIG geometries, or fewest changes");
  cmd->add_option("ITEM", o->items, "[Nx]PROFILE or [Nx]mem=SIZE[:sms=N]: 300x1g.10gb");
  cmd->add_option("--demand", o->demand, "Demand file: YAML, JSON or CSV ('-': stdin)")
      ->type_name("FILE");
  cmd->add_option("--gpu,-g", o->gpus, "Candidate GPU model; repeatable")
      ->type_name("MODEL")
      ->allow_extra_args(false);
  cmd->add_option("--available", o->available, "At most N GPUs of MODEL; repeatable")
      ->type_name("MODEL=N")
      ->allow_extra_args(false);
  cmd->add_option("--cost", o->costs, "Cost of one GPU of MODEL (default 1); repeatable")
      ->type_name("MODEL=X")
      ->allow_extra_args(false);
  cmd->add_option("--fleet", o->fleet, "Fleet file: nodes and/or models, not --gpu")
      ->type_name("FILE");
  cmd->add_option("--current", o->current, "Re-plan the fleet now: state file or kubectl")
      ->type_name("FILE");
  cmd->add_option("--mig-config", o->mig_config, "With kubectl --current: the mig-parted config")
      ->type_name("FILE");
  cmd->add_flag("--allow-evict", o->allow_evict, "A re-plan may destroy instances in use");
  o->time_limit_given =
      cmd->add_option("--time-limit", o->time_limit, "Solver time limit (default 60, max 3600)")
          ->type_name("SECONDS");
  cmd->add_flag("--json", o->json, "One JSON object on stdout (schema_version 2)");
  cmd->add_flag("--full", o->full, "List every item, node and change in the report");
  cmd->add_option("--emit", o->emit, "Write mig-parted, configmap or labels instead")
      ->type_name("KIND");
  o->configmap_given = cmd->add_option("--configmap-name", o->configmap_name,
                                       "--emit configmap's name (custom-mig-config)")
                           ->type_name("NAME");
  cmd->footer(
      "Example: migplan plan --gpu h100-80gb 300x1g.10gb 80x3g.40gb 25x7g.80gb\n"
      "Exit codes: 0 met, 1 cannot be met, 2 bad input, 3 not found in time.");
  cmd->callback([o, &ctx] { ctx.code = run_plan(*o, ctx); });
}

}  // namespace migplan::cli
