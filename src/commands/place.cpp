// SPDX-License-Identifier: Apache-2.0
// `migplan place`: where one arriving instance goes on the fleet as it is,
// under the dynamic placement policies `simulate` replays. Reads the fleet
// (a state file, kubectl's nodes with the mig-parted config, or an
// nvidia-smi listing), asks the core's rank_placements (replay.hpp) per
// policy (with --allow-moves, moves.hpp's fewest_moves where it fits
// nowhere), and hands the answer to render/place: a report, JSON, or the
// nvidia-smi script (the service's choice_plan() fills the instance to create).

#include "commands/place.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <migplan/lookup.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app.hpp"
#include "commands/emit_kinds.hpp"
#include "error.hpp"
#include "io/fleet_now.hpp"
#include "io/names.hpp"
#include "io/plan_input.hpp"
#include "io/plan_input_util.hpp"
#include "io/policies.hpp"
#include "io/size.hpp"
#include "model/emit.hpp"
#include "model/place.hpp"
#include "model/policies.hpp"
#include "models.hpp"
#include "pack/current_fit.hpp"
#include "quote.hpp"
#include "render/place.hpp"
#include "replay/place.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

// The most alternatives listed per policy.
constexpr long long max_alternatives = 1000;
// The most moves --allow-moves takes: the search is exponential in them, and
// a defragmentation of more steps is a re-plan (`plan`), not an arrival's.
constexpr long long max_moves = 6;

struct place_options {
  std::string request;
  fleet_now_source fleet;
  std::vector<std::string> policies;
  std::string alternatives = "3";
  std::string allow_moves;  // empty: no moves
  bool json = false;
  std::string emit;
};

// The fleet as `--current` describes it, less the GPUs with MIG off:
// placing there needs MIG mode turned on first, a reset, not an arrival's
// decision.
result<place_result> place_fleet(const place_options& o, context& ctx) {
  auto now = read_fleet_now(ctx.models->models(), o.fleet, ctx.in);
  if (!now) return now.error();
  if (auto misfit = pack::lay_out(*now)) return *misfit;
  place_result res;
  const std::vector<std::string> mig_off = mig_off_gpus(*now);
  for (const fleet_now_gpu& g : now->gpus)
    if (g.mig_enabled) res.gpus.push_back(g);
  res.nodes = std::move(now->nodes);
  res.notes = std::move(now->notes);
  if (!mig_off.empty())
    res.notes.push_back(fmt::format(
        "MIG is off on {} (mig-enabled: false in the mig-parted config): left out, since an "
        "instance there needs MIG mode turned on first",
        fmt::join(mig_off, ", ")));
  if (res.gpus.empty())
    return error{
        fmt::format("{} has no GPU with MIG on to place on", plan_io::shown_path(o.fleet.current))};
  return res;
}

// The profile asked for: one instance of a profile some model of the fleet has.
result<std::string> request_of(model_list models, std::string_view word,
                               const place_result& fleet) {
  auto d = parse_demand_word(models, word);
  if (!d) return d.error();
  if (d->profile.empty())
    return error{
        fmt::format("place takes a profile name ({}); a memory size is plan's", quote_token(word))};
  if (d->count != 1)
    return error{fmt::format(
        "place answers one instance, and {} asks for {}; place them one at a time, or replay "
        "them with simulate",
        quote_token(word), d->count)};
  std::vector<std::string> names;
  for (const fleet_now_node& n : fleet.nodes) {
    if (find_profile(*n.gpu, d->profile) >= 0) return d->profile;
    for (const profile& p : n.gpu->profiles)
      if (std::find(names.begin(), names.end(), p.name) == names.end()) names.emplace_back(p.name);
  }
  std::vector<std::string> slugs;
  for (const fleet_now_node& n : fleet.nodes)
    if (std::find(slugs.begin(), slugs.end(), n.gpu->slug) == slugs.end())
      slugs.emplace_back(n.gpu->slug);
  return error{fmt::format("no GPU of the fleet ({}) has profile {}{}", fmt::join(slugs, ", "),
                           quote_token(d->profile), did_you_mean(d->profile, names))};
}

int run_place(const place_options& o, context& ctx) {
  const auto bad = [&](const std::string& message) {
    report_bad_input(ctx, message);
    return exit_bad_input;
  };
  // Options that do not depend on the files first.
  const emit::kind* kind = nullptr;
  if (!o.emit.empty()) {
    kind = emit::find(emit::command::place, o.emit);
    if (kind == nullptr) return bad(emit::unknown(emit::command::place, o.emit));
    if (o.json) return bad("--emit writes its own format; it does not combine with --json");
    if (o.policies.size() > 1)
      return bad("--emit writes one policy's choice; give at most one --policy");
  }
  auto alternatives = parse_whole_number("--alternatives", o.alternatives, 0, max_alternatives);
  if (!alternatives) return bad(alternatives.error().message);
  std::optional<long long> allow_moves;
  if (!o.allow_moves.empty()) {
    auto k = parse_whole_number("--allow-moves", o.allow_moves, 0, max_moves);
    if (!k) return bad(k.error().message);
    allow_moves = *k;
  }
  std::vector<std::string> chosen = o.policies;
  if (chosen.empty()) chosen = policy_list(true);
  auto named = parse_policies(chosen, true, "place");
  if (!named) return bad(named.error().message);
  std::vector<place_policy> policies;
  for (const policy_name& p : *named) policies.push_back({std::string(p.name), p.policy, {}});

  auto fleet = place_fleet(o, ctx);
  if (!fleet) return bad(fleet.error().message);
  place_result& res = *fleet;
  auto profile = request_of(ctx.models->models(), o.request, res);
  if (!profile) return bad(profile.error().message);
  res.profile = *profile;
  res.alternatives = static_cast<int>(*alternatives);

  res.policies = std::move(policies);
  rank_places(res);
  if (allow_moves) res.moves = find_moves(res, static_cast<int>(*allow_moves));

  if (kind != nullptr) {
    if (!res.served()) {
      ctx.err << fmt::format(
          "migplan: no GPU can take a {}{}; nothing to emit\n", res.profile,
          res.moves ? fmt::format(" after at most {} move{}", *allow_moves, plural(*allow_moves))
                    : std::string());
      return exit_no_fit;
    }
    if (res.placed()) res.choice = choice_plan(ctx.models->models(), res);
    kind->place.write(ctx.out, res);
    return exit_ok;
  }
  if (o.json)
    render::place_json(ctx.out, res);
  else
    render::place_text(ctx.out, res);
  return res.served() ? exit_ok : exit_no_fit;
}

}  // namespace

void add_place(CLI::App& app, context& ctx) {
  auto o = std::make_shared<place_options>();
  o->fleet.command = "place";
  // One screen (migplan-place(1) has the reference).
  CLI::App* cmd = app.add_subcommand(
      "place", "Where one arriving instance goes on the fleet as it is, per placement policy");
  cmd->add_option("PROFILE", o->request, "The instance to place: 3g.40gb")->required();
  cmd->add_option("--current", o->fleet.current,
                  "The fleet now: state file, kubectl, or nvidia-smi")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--mig-config", o->fleet.mig_config,
                  "With kubectl --current: the mig-parted config")
      ->type_name("FILE");
  cmd->add_option("--gpu,-g", o->fleet.gpu, "--current is an nvidia-smi mig -lgi listing of MODEL")
      ->type_name("MODEL");
  cmd->add_option("--policy", o->policies, "A policy listed below; repeatable")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--alternatives", o->alternatives, "Places listed after each choice (3)")
      ->type_name("N");
  cmd->add_option("--allow-moves", o->allow_moves,
                  "Where it fits nowhere: the fewest moves, at most K, that make room")
      ->type_name("K");
  cmd->add_flag("--json", o->json, "One JSON object on stdout (schema_version 1)");
  cmd->add_option("--emit", o->emit,
                  fmt::format("{}: the script creating the choice",
                              fmt::join(emit::names(emit::command::place), ", ")))
      ->type_name("KIND");
  cmd->footer(
      policy_help(true) +
      "Default policies: all four; --emit takes the one --policy names (spread-first-fit).\n"
      "Example: migplan place 3g.40gb --current state.yaml\n"
      "Exit codes: 0 placed (with --allow-moves, after the moves), 1 no GPU can take it, 2 bad "
      "input.");
  cmd->callback([o, &ctx] {
    ctx.json_errors = o->json;
    const int code = run_place(*o, ctx);
    if (code != exit_bad_input) ctx.code = code;
  });
}

}  // namespace migplan::cli
