// SPDX-License-Identifier: Apache-2.0
// `migplan pack`: does a set of instances fit, where does each go, what does
// the layout strand, and if it does not fit, why and what comes closest.

#include "model/pack.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <variant>

#include "app.hpp"
#include "commands/emit_kinds.hpp"
#include "error.hpp"
#include "io/ci_request.hpp"
#include "io/fleet_now.hpp"
#include "io/names.hpp"
#include "io/pack_options.hpp"
#include "io/request.hpp"
#include "io/source.hpp"
#include "model/emit.hpp"
#include "models.hpp"
#include "pack/batch.hpp"
#include "pack/emit_check.hpp"
#include "pack/session.hpp"
#include "quote.hpp"
#include "render/pack.hpp"
#include "render/pack_svg.hpp"

namespace migplan::cli {
namespace {

int run_batch(const pack_options& o, const gpu_model* gpu, context& ctx) {
  // Until the first line, a failure is one error document (JSON lines
  // only, as run_pack set ctx.json_errors); from then on each line answers
  // for itself.
  std::unique_ptr<std::istream> file;
  if (o.batch != "-") {
    auto opened = open_source(o.batch);
    if (!opened) {
      report_bad_input(ctx, fmt::format("cannot read '{}': {}", o.batch, opened.error().message));
      return exit_bad_input;
    }
    file = std::move(*opened);
  }
  ctx.json_errors = false;
  render::pack_batch_writer sink(ctx.out, o.brief, o.all);
  const pack::batch_result r =
      pack::run_batch(ctx.models->models(), file ? *file : ctx.in, gpu, o.brief, o.all, sink);
  if (const std::string why = r.problem(o.batch); !why.empty()) report_bad_input(ctx, why);
  return r.exit_code();
}

// `--emit KIND`: what realizes the preferred layout, on stdout; when the
// request does not fit, nothing there and the reason on stderr (exit 1).
// `index` is the GPU nvidia-smi -i targets.
int emit_answer(const pack_options& o, const pack_answer& a, int index, context& ctx) {
  const emit::kind* kind = emit::find(emit::command::pack, *o.emit);
  if (!a.sol.feasible()) {
    ctx.err << "migplan: " << render::pack_no_emit(a) << "\n";
    return exit_no_fit;
  }
  const emit_plan plan = pack::emit_plan_of(ctx.models->models(), a, index, o.node);
  // A kind that would drop part of the layout (compute instances) refuses.
  if (const std::string why = emit::problem(*kind, plan); !why.empty()) {
    report_bad_input(ctx, why);
    return exit_bad_input;
  }
  kind->pack.write(ctx.out, plan);
  return exit_ok;
}

// `--plot FILE`: the answers' layouts as SVG, written before the answer on
// stdout (so a file that cannot be written is the only error); "-" writes
// it on stdout instead of the answer. False after reporting a failure.
bool write_plot(const pack_options& o, std::span<const pack_answer> answers, context& ctx) {
  if (o.plot == "-") render::pack_svg(ctx.out, answers);
  plot_file plot;
  auto why = plot.open(o.plot);
  if (!why && plot.is_open())
    why = plot.write([&](std::ostream& os) { render::pack_svg(os, answers); });
  if (why) report_bad_input(ctx, *why);
  return !why;
}

// `pack --current FILE [ITEM...]`: on each GPU of the file (or the one
// --index names), the existing instances pinned where they are, first in the
// request, then the new items. Several GPUs are answered in turn: a text
// section each, or one JSON document per line.
int run_current(const pack_options& o, const gpu_model* gpu, context& ctx,
                const std::function<int(const error&)>& bad) {
  const std::string shown = o.current == "-" ? "<stdin>" : o.current;
  auto read = read_listing_file(ctx.models->models(), o.current, ctx.in, gpu, o.index, "pack");
  if (!read) return bad(read.error());
  for (const std::string& w : read->notes) report(ctx, severity::warning, w);
  pack::session session(ctx.models->models(), o.all);
  auto answers = session.answer_listing(read->listing, o.items, shown);
  if (!answers) return bad(answers.error());
  if (o.emit)
    if (const std::string why = pack::one_gpu_problem(shown, answers->size()); !why.empty())
      return bad(why);
  if (!write_plot(o, *answers, ctx)) return exit_bad_input;
  if (o.emit && !answers->empty()) {
    const pack_answer& a = answers->front();
    return emit_answer(o, a, o.index.value_or(a.gpu_index.value_or(0)), ctx);
  }
  if (o.plot != "-") render::pack_answers(ctx.out, *answers, o.json, o.all, ctx.color);
  for (const pack_answer& a : *answers)
    if (!a.sol.feasible()) return exit_no_fit;
  return exit_ok;
}

}  // namespace

int run_pack(const pack_options& o, context& ctx) {
  const auto bad = [&](const error& e, const pack_ambiguity* amb = nullptr) {
    // With --json a failure is also a JSON document, so `| jq` sees it:
    // an ambiguity's names its candidates; report_bad_input writes the rest.
    if (amb != nullptr && ctx.json_errors && !ctx.error_written) {
      render::pack_error_json(ctx.out,
                              {"ambiguous_gpu", render::pack_ambiguity_sentence(*amb), amb});
      ctx.error_written = true;
    }
    report_bad_input(ctx, amb ? error(render::pack_ambiguity_text(*amb)) : e);
    return exit_bad_input;
  };
  // `--batch` answers in JSON lines (but with --brief): its bad options too
  // are an error document.
  if (!o.batch.empty() && !o.brief) ctx.json_errors = true;
  if (auto why = option_conflict(o, emit::names(emit::command::pack))) return bad(*why);
  const gpu_model* gpu = nullptr;
  if (o.gpu) {
    auto g = resolve_gpu(ctx.models->models(), *o.gpu);
    if (!g) return bad(g.error());
    gpu = *g;
  }
  if (auto why =
          nothing_to_pack(o, gpu ? std::optional<std::string_view>(gpu->slug) : std::nullopt))
    return bad(*why);
  if (!o.batch.empty()) return run_batch(o, gpu, ctx);
  if (!o.current.empty()) return run_current(o, gpu, ctx, [&](const error& m) { return bad(m); });
  auto tokens = parse_items(o.items);
  if (!tokens) return bad(tokens.error());
  pack::session session(ctx.models->models(), o.all);
  const pack::outcome r = session.answer(gpu, *tokens);
  if (const auto* e = std::get_if<error>(&r)) return bad(*e);
  if (const auto* amb = std::get_if<pack_ambiguity>(&r)) return bad(std::string(), amb);
  const pack_answer& a = std::get<pack_answer>(r);
  if (!write_plot(o, std::span(&a, 1), ctx)) return exit_bad_input;
  if (o.emit) {
    if (const std::string why = pack::one_model_problem(a); !why.empty()) return bad(why);
    return emit_answer(o, a, o.index.value_or(0), ctx);
  }
  if (o.plot == "-")
    ;  // the SVG was the answer
  else if (o.json)
    render::pack_json(ctx.out, a, o.all);
  else
    render::pack_text(ctx.out, a, o.all, ctx.color);
  return a.sol.feasible() ? exit_ok : exit_no_fit;
}

void add_pack(CLI::App& app, context& ctx) {
  auto o = std::make_shared<pack_options>();
  CLI::App* cmd = app.add_subcommand("pack", "Place instances on a GPU, or say why not");
  cmd->add_option("--gpu,-g", o->gpu, "GPU model; inferred from the profiles if omitted")
      ->type_name("MODEL");
  cmd->add_flag("--all,-a", o->all, "Show every layout with its score");
  cmd->add_flag("--json", o->json, "One JSON object on stdout (schema_version 1)");
  cmd->add_option("--batch", o->batch, "Requests, one per line ('-': stdin)")->type_name("FILE");
  cmd->add_option("--current", o->current, "The GPU now (nvidia-smi mig -lgi, or JSON)")
      ->type_name("FILE");
  add_whole_number(
      *cmd, "--index", 0, 4095, [o](int n) { o->index = n; },
      "GPU of the --current listing, or of nvidia-smi -i");
  cmd->add_option("--emit", o->emit,
                  fmt::format("{}", fmt::join(emit::names(emit::command::pack), ", ")))
      ->type_name("KIND");
  cmd->add_option("--node", o->node, "With --emit dra: the node (default worker-1)")
      ->type_name("NAME");
  cmd->add_flag("--brief", o->brief, "With --batch: one TSV line per request, not JSON");
  cmd->add_option("--plot", o->plot, "The preferred layout as SVG ('-': stdout)")
      ->type_name("FILE");
  cmd->add_option("ITEM", o->items, "[Nx]PROFILE[[CI,...]][@START]: 2x1g.5gb, 3g.20gb@4");
  cmd->footer(
      "Example: migplan pack --gpu h100-80gb 3g.40gb 2g.20gb 1g.10gb\n"
      "Exit codes: 0 fits, 1 does not fit, 2 bad input.");
  cmd->callback([o, &ctx] { ctx.code = run_pack(*o, ctx); });
}

}  // namespace migplan::cli
