// SPDX-License-Identifier: Apache-2.0
// `migplan simulate`: replays a trace of pods on a fleet under static and
// dynamic MIG policies side by side, and with --size finds the fewest GPUs
// each policy needs. Reads the options and files (io/simulate_input), asks
// the service (replay/simulate), and hands the answer to render/simulate.

#include "commands/simulate.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "app.hpp"
#include "error.hpp"
#include "io/policies.hpp"
#include "io/simulate_input.hpp"
#include "model/simulate.hpp"
#include "models.hpp"
#include "pack/current_fit.hpp"
#include "quote.hpp"
#include "render/progress.hpp"
#include "render/simulate.hpp"
#include "replay/simulate.hpp"
#include "text.hpp"

namespace migplan::cli {
namespace {

// The service's progress, on the progress line (a terminal's stderr only).
class progress_shown final : public replay_progress {
 public:
  explicit progress_shown(render::progress_line& line) : line_(line) {}
  bool due() override { return line_.due(); }
  void show(const std::string& text) override { line_.show(text); }

 private:
  render::progress_line& line_;
};

int run_simulate(const simulate_options& o, context& ctx) {
  const auto bad = [&](const error& e) {
    report_bad_input(ctx, e);
    return exit_bad_input;
  };
  if (const auto conflict = option_conflict(o)) return bad(*conflict);
  std::vector<std::string> notes;
  auto request = read_simulate_request(ctx.models->models(), o, ctx.in, notes);
  // A fleet whose GPUs cannot hold what it says they hold is refused before
  // the notes on it are printed.
  if (request && request->now)
    if (auto misfit = pack::lay_out(*request->now)) return bad(*misfit);
  for (const std::string& note : notes) report(ctx, severity::note, note);
  if (!request) return bad(request.error());
  for (const std::string& w : request->pods.warnings) report(ctx, severity::warning, w);

  // The plot's file opens before the replays, so that a path that cannot be
  // written fails at once rather than after a long replay.
  plot_file plot;
  if (auto why = plot.open(o.plot)) return bad(*why);
  render::progress_line line(ctx.err, ctx.err_tty && !o.json);
  progress_shown progress(line);
  auto answer = simulate(*request, progress);
  line.clear();
  if (!answer) return bad(answer.error());
  const simulate_result& res = *answer;
  // How long the re-plans took: on stderr, as the JSON and the report stay
  // the same from run to run and machine to machine.
  for (const simulate_policy& p : res.policies)
    if (p.replan)
      report(ctx, severity::note,
             fmt::format("{}: {} re-plan{} in {:.2f} s, the longest {:.2f} s", p.name,
                         p.metrics.replans, plural(p.metrics.replans), p.replan_seconds,
                         p.replan_longest_s));
  // The plot first: a disk that fills up is then the only answer, not one
  // after a table or JSON document already written.
  if (plot.is_open())
    if (auto why = plot.write([&](std::ostream& os) { render::simulate_svg(os, res); }))
      return bad(*why);
  if (o.plot == "-")
    render::simulate_svg(ctx.out, res);
  else if (o.json)
    render::simulate_json(ctx.out, res);
  else
    render::simulate_text(ctx.out, res);
  if (o.size) {
    for (const simulate_sizing& s : res.sizing)
      for (const std::optional<int>& n : s.sized)
        if (!n) return exit_no_fit;
    return exit_ok;
  }
  for (const simulate_policy& p : res.policies)
    if (!meets_targets(p.metrics, res.pods, res.reject_target, res.wait)) return exit_no_fit;
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
  cmd->add_option("--fleet", o->fleet, "Fleet file of several models to replay, or to --size each")
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
  cmd->add_option("--policy", o->policies, "A policy listed below; repeatable")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--share", o->share, "gpu_milli by compute (default) or memory share")
      ->type_name("BY");
  cmd->add_flag("--size", o->size, "The fewest GPUs each policy needs");
  cmd->add_option("--reject-target", o->reject_target, "--size: at most this % rejected (0)")
      ->type_name("PCT");
  cmd->add_flag("--queue", o->queue, "A pod that does not fit waits in a FIFO queue");
  cmd->add_flag("--backfill", o->backfill, "--queue, and later pods that fit may go first");
  cmd->add_option("--wait-target", o->wait_target, "--queue: a wait percentile's most (p99=10m)")
      ->type_name("P=TIME");
  cmd->add_option("--reconfigure-seconds", o->reconfigure_seconds,
                  "replan: seconds a changed GPU is out (81)")
      ->type_name("S");
  cmd->add_option("--create-seconds", o->create_seconds,
                  "Dynamic: seconds to create an instance (queue: 1.5, else 0)")
      ->type_name("S");
  cmd->add_option("--keep-idle", o->keep_idle,
                  "Dynamic: keep an instance whose pod ended this long for reuse")
      ->type_name("TIME");
  cmd->add_flag("--json", o->json, "One JSON object on stdout (schema_version 1)");
  cmd->add_option("--plot", o->plot, "Write use over time per policy as an SVG ('-': stdout)")
      ->type_name("FILE");
  cmd->add_option("--plot-metric", o->plot_metric, "--plot: slices (default) or gpus in use")
      ->type_name("WHAT");
  cmd->footer(policy_help(false) +
              "Re-planned static policies: replan:PERIOD, replan-oracle:PERIOD (replan:6h).\n" +
              "Queued, a dynamic NAME+defrag:K (pack-best-fit+defrag:2) moves up to K\n"
              "running instances so the queue's head fits.\n" +
              "Default policies: static, spread-first-fit (today's stack), pack-best-fit.\n"
              "Example: migplan simulate --trace pods.csv --gpu h100-80gb --size\n"
              "Exit codes: 0 within --reject-target and --wait-target (--size: every\n"
              "policy sized), 1 some policy misses one (--size: none within 100000 GPUs),\n"
              "2 bad input.");
  cmd->callback([o, &ctx] {
    ctx.json_errors = o->json;
    const int code = run_simulate(*o, ctx);
    if (code != exit_bad_input) ctx.code = code;
  });
}

}  // namespace migplan::cli
