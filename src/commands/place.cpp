// SPDX-License-Identifier: Apache-2.0
// `migplan place`: where one arriving instance goes on the fleet as it is,
// under the dynamic placement policies `simulate` replays. Reads the fleet
// (a state file, kubectl's nodes with the mig-parted config, or an
// nvidia-smi listing; io/fleet_now) and the options and profile
// (io/place_options), asks the service (replay/place: the core's
// rank_placements per policy, with --allow-moves moves.hpp's fewest_moves
// where it fits nowhere), and hands the answer to render/place: a report,
// JSON, or the --emit kind (the service's choice_plan() fills the instance
// to create).

#include "commands/place.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app.hpp"
#include "commands/emit_kinds.hpp"
#include "error.hpp"
#include "io/fleet_now.hpp"
#include "io/place_options.hpp"
#include "io/plan_input_util.hpp"
#include "io/policies.hpp"
#include "model/place.hpp"
#include "models.hpp"
#include "pack/current_fit.hpp"
#include "render/place.hpp"
#include "replay/place.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

int run_place(const place_options& o, context& ctx) {
  const auto bad = [&](const error& e) {
    report_bad_input(ctx, e);
    return exit_bad_input;
  };
  // Options that do not depend on the files first.
  auto settings = read_place_options(o, emit::names(emit::command::place));
  if (!settings) return bad(settings.error());
  const emit::kind* kind = o.emit.empty() ? nullptr : emit::find(emit::command::place, o.emit);

  auto now = read_fleet_now(ctx.models->models(), o.fleet, ctx.in);
  if (!now) return bad(now.error());
  if (auto misfit = pack::lay_out(*now)) return bad(*misfit);
  const std::vector<std::string> mig_off = mig_off_gpus(*now);
  auto fleet = place_fleet(std::move(*now), mig_off, plan_io::shown_path(o.fleet.current));
  if (!fleet) return bad(fleet.error());
  place_result& res = *fleet;
  auto profile = read_place_profile(ctx.models->models(), o.request, res.nodes);
  if (!profile) return bad(profile.error());
  res.profile = *profile;
  res.alternatives = settings->alternatives;
  res.policies = std::move(settings->policies);
  rank_places(res);
  if (settings->allow_moves) res.moves = find_moves(res, *settings->allow_moves);

  if (kind != nullptr) {
    if (!res.served()) {
      ctx.err << fmt::format("migplan: no GPU can take a {}{}; nothing to emit\n", res.profile,
                             res.moves
                                 ? fmt::format(" after at most {} move{}", *settings->allow_moves,
                                               plural(*settings->allow_moves))
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
  // Several words are taken, so that "1g.10gb x3" gets the hint on where a
  // count goes rather than CLI11's "not expected"; read_place_profile reads them.
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
