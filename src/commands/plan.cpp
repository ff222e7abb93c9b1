// SPDX-License-Identifier: Apache-2.0
// `migplan plan`: the fewest GPUs (least cost) whose MIG geometries meet a
// demand, and for a re-plan the fewest GPUs reconfigured. Reads the options
// into a plan_request (io/plan_request), asks plan::solver, and renders the
// answer.

#include "model/plan.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app.hpp"
#include "commands/emit_kinds.hpp"
#include "error.hpp"
#include "io/names.hpp"
#include "io/plan_request.hpp"
#include "k8s_names.hpp"
#include "models.hpp"
#include "pack/current_fit.hpp"
#include "plan/solver.hpp"
#include "quote.hpp"
#include "render/plan.hpp"
#include "render/plan_svg.hpp"

namespace migplan::cli {
namespace {

struct plan_options {
  plan_request_options request;  // time_limit set from the two below
  std::string time_limit;
  CLI::Option* time_limit_given = nullptr;
  bool json = false;
  bool full = false;
  std::string emit;
  std::string configmap_name;
  CLI::Option* configmap_given = nullptr;
  std::string plot;
};

// --emit's line in --help: "Write mig-parted, configmap, labels or slurm".
std::string emit_help() {
  std::vector<std::string> names = emit::names(emit::command::plan);
  const std::string last = names.back();
  names.pop_back();
  return fmt::format("Write {} or {}", fmt::join(names, ", "), last);
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
  const auto bad = [&](const error& e) {
    report_bad_input(ctx, e);
    return exit_bad_input;
  };
  // Options that do not depend on the files first.
  const emit::kind* kind = nullptr;
  if (!o.emit.empty()) {
    kind = emit::find(emit::command::plan, o.emit);
    if (kind == nullptr) return bad(emit::unknown(emit::command::plan, o.emit));
    if (o.json) return bad("--emit writes its own format; it does not combine with --json");
  }
  render::plan_emit_options emit_opt;
  if (o.configmap_given->count() > 0) {
    if (kind == nullptr || kind->name != "configmap")
      return bad("--configmap-name needs --emit configmap");
    if (!k8s::dns_subdomain(o.configmap_name))
      return bad(fmt::format(
          "--configmap-name {} is not a DNS subdomain ({}; at most {} characters)",
          quote_token(o.configmap_name), k8s::dns_subdomain_rule, k8s::max_dns_subdomain));
    emit_opt.configmap_name = o.configmap_name;
  }
  plan_request_options ro = o.request;
  if (o.time_limit_given->count() > 0) ro.time_limit = o.time_limit;
  std::vector<std::string> notes;
  auto req = plan_request_of(ctx.models->models(), ro, ctx.in, notes);
  // A fleet whose GPUs cannot hold what it says they hold is refused before
  // the notes on it are printed.
  if (req && req->current)
    if (auto misfit = pack::settle(*req->current)) return bad(*misfit);
  for (const std::string& note : notes) report(ctx, severity::note, note);
  if (!req) return bad(req.error());
  // `--plot FILE`: opened before the solve, so that a path that cannot be
  // written fails at once rather than after a long search.
  if (o.plot == "-") return bad("--plot writes a file, not stdout ('-'): stdout has the report");
  plot_file plot;
  if (auto why = plot.open(o.plot)) return bad(*why);
  // Tests cut the search at the same place on every machine
  // (plan_request::searches_in_time); not for users, who have --time-limit.
  if (const char* n = std::getenv("MIGPLAN_TEST_SEARCHES_IN_TIME"); n != nullptr)
    req->searches_in_time = std::atoi(n);
  const plan_result res = plan::solver{}.solve(*req);
  if (plot.is_open())
    if (auto why = plot.write([&](std::ostream& os) { render::plan_svg(os, *req, res); }))
      return bad(*why);
  if (kind != nullptr) {
    if (const std::string why = emit::problem(*kind, *req, res); !why.empty()) {
      ctx.err << "migplan: " << why << "; nothing to emit\n";
      return res.feasible ? exit_bad_input : exit_of(res);
    }
    kind->plan.write(ctx.out, *req, res, emit_opt);
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
  cmd->add_option("ITEM", o->request.items, "[Nx]PROFILE or [Nx]mem=SIZE[:sms=N]: 300x1g.10gb");
  cmd->add_option("--demand", o->request.demand, "Demand file: YAML, JSON or CSV ('-': stdin)")
      ->type_name("FILE");
  cmd->add_option("--gpu,-g", o->request.gpus, "Candidate GPU model; repeatable")
      ->type_name("MODEL")
      ->allow_extra_args(false);
  cmd->add_option("--available", o->request.available, "At most N GPUs of MODEL; repeatable")
      ->type_name("MODEL=N")
      ->allow_extra_args(false);
  cmd->add_option("--cost", o->request.costs, "Cost of one GPU of MODEL (default 1); repeatable")
      ->type_name("MODEL=X")
      ->allow_extra_args(false);
  cmd->add_option("--fleet", o->request.fleet, "Fleet file (below), not with --gpu")
      ->type_name("FILE");
  cmd->add_option("--current", o->request.current, "Re-plan the fleet now: state file or kubectl")
      ->type_name("FILE");
  cmd->add_option("--mig-config", o->request.mig_config,
                  "With kubectl --current: the mig-parted config")
      ->type_name("FILE");
  cmd->add_flag("--allow-evict", o->request.allow_evict, "A re-plan may destroy instances in use");
  o->time_limit_given =
      cmd->add_option("--time-limit", o->time_limit, "Solver time limit (default 60, max 3600)")
          ->type_name("SECONDS");
  cmd->add_flag("--json", o->json, "One JSON object on stdout (schema_version 2)");
  cmd->add_flag("--full", o->full, "List every item, node and change in the report");
  cmd->add_option("--emit", o->emit, emit_help())->type_name("KIND");
  o->configmap_given = cmd->add_option("--configmap-name", o->configmap_name,
                                       "--emit configmap's name (custom-mig-config)")
                           ->type_name("NAME");
  cmd->add_option("--plot", o->plot, "Also draw the fleet's plan as SVG")->type_name("FILE");
  cmd->footer(
      "Fleet file (YAML or JSON; nodes, or models, or both): version: 1\n"
      "  nodes: [{name: gpu-a, gpu: h100-80gb, gpus: 8}]\n"
      "  models: [{gpu: h100-80gb, available: 4, cost: 2.5}]\n"
      "Example: migplan plan --gpu h100-80gb 300x1g.10gb 80x3g.40gb 25x7g.80gb\n"
      "Exit codes: 0 met, 1 cannot be met, 2 bad input, 3 not found in time.");
  cmd->callback([o, &ctx] { ctx.code = run_plan(*o, ctx); });
}

}  // namespace migplan::cli
