// SPDX-License-Identifier: Apache-2.0
// `migplan pack`: does a set of instances fit, where does each go, what does
// the layout strand, and if it does not fit, why and what comes closest.

#include "model/pack.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <map>
#include <migplan/catalog.hpp>
#include <migplan/explain.hpp>
#include <migplan/search.hpp>
#include <ostream>
#include <sstream>

#include "app.hpp"
#include "error.hpp"
#include "io/names.hpp"
#include "io/request.hpp"
#include "io/source.hpp"
#include "render/messages.hpp"
#include "render/pack.hpp"

namespace migplan::cli {
namespace {

struct pack_options {
  std::string gpu;
  bool all = false;
  bool json = false;
  bool brief = false;
  std::string batch;
  std::vector<std::string> items;
};

// What two models' answers are compared on: feasibility, reason, and every
// layout as profile names and starts.
std::string signature(const gpu_model& g, const solution& s) {
  std::string out = fmt::format("{}|{}|", s.layout_count, reason_name(s.why.code));
  for (const scored_layout& sl : s.layouts) out += layout_text(g, sl.where) + ";";
  return out;
}

// Room memos per model, kept across the requests of one run (--batch).
class memo_pool {
 public:
  room_memo* get(const gpu_model& g) {
    auto it = memos_.find(&g);
    if (it == memos_.end()) it = memos_.emplace(&g, room_memo(g)).first;
    return &it->second;
  }

 private:
  std::map<const gpu_model*, room_memo> memos_;
};

solution solve_with(const gpu_model& g, const std::vector<item>& items, memo_pool& pool) {
  solve_options opt;
  opt.memo = pool.get(g);
  return solve(g, items, opt);
}

void finish(pack_answer& a, memo_pool& pool) {
  if (a.sol.feasible()) return;
  a.sol.why = explain(*a.gpu, a.items, a.sol.why);
  a.closest = closest_fits(*a.gpu, a.items, 3, pool.get(*a.gpu));
  a.also_fits = fits_elsewhere(*a.gpu, a.items);
}

// Answers a request; with `explain` false (--brief), a request that does not
// fit gets its reason code only, no closest fits.
result<pack_answer> answer_request(const std::string& gpu_text, const std::vector<token>& tokens,
                                   memo_pool& pool, bool explain = true) {
  if (!gpu_text.empty()) {
    auto g = resolve_gpu(gpu_text);
    if (!g) return g.error();
    auto items = resolve_items(**g, tokens);
    if (!items) return items.error();
    pack_answer a{*g, std::move(*items), {}, {}, {}, {}};
    a.sol = solve_with(*a.gpu, a.items, pool);
    if (explain) finish(a, pool);
    return a;
  }
  const auto candidates = candidate_models(tokens);
  if (candidates.empty()) return no_common_model(tokens);
  std::vector<pack_answer> answers;
  std::optional<error> first_error;
  for (const gpu_model* g : candidates) {
    auto items = resolve_items(*g, tokens);
    if (!items) {
      if (!first_error) first_error = items.error();
      continue;
    }
    pack_answer a{g, std::move(*items), {}, {}, {}, {}};
    a.sol = solve_with(*g, a.items, pool);
    answers.push_back(std::move(a));
  }
  if (answers.empty()) return *first_error;
  const std::string sig = signature(*answers[0].gpu, answers[0].sol);
  bool same = true;
  for (const pack_answer& a : answers) same = same && signature(*a.gpu, a.sol) == sig;
  if (!same) {
    std::string msg =
        "the gpu is ambiguous: these profiles exist on several gpus with different answers; pass "
        "--gpu:";
    for (const pack_answer& a : answers)
      msg += fmt::format("\n  {:<13} {}", a.gpu->slug,
                         a.sol.feasible()
                             ? fmt::format("fits ({} layout{})", a.sol.layout_count,
                                           a.sol.layout_count == 1 ? "" : "s")
                             : fmt::format("does not fit ({})", reason_name(a.sol.why.code)));
    return error{msg};
  }
  pack_answer a = std::move(answers[0]);
  for (std::size_t i = 1; i < answers.size(); ++i) a.same_answer.push_back(answers[i].gpu);
  if (explain) finish(a, pool);
  return a;
}

int run_batch(const pack_options& o, context& ctx) {
  auto text = read_source(o.batch, ctx.in);
  if (!text) {
    report_bad_input(ctx, fmt::format("cannot read '{}': {}", o.batch, text.error().message));
    return exit_bad_input;
  }
  int worst = exit_ok;
  memo_pool pool;
  std::istringstream lines(*text);
  std::string line;
  int number = 0;
  std::string out;
  while (std::getline(lines, line)) {
    ++number;
    const std::size_t hash = line.find('#');
    const std::vector<std::string> words = split_items(line.substr(0, hash));
    if (words.empty()) continue;
    auto tokens = parse_items(words);
    result<pack_answer> a = tokens ? answer_request(o.gpu, *tokens, pool, !o.brief)
                                   : result<pack_answer>(tokens.error());
    if (!a) {
      if (o.brief)
        render::pack_brief_error_line(out, number, a.error().message);
      else
        render::pack_error_json_line(out, number, a.error().message);
      worst = exit_bad_input;
    } else {
      if (o.brief)
        render::pack_brief_line(out, *a, number);
      else
        render::pack_json_line(out, *a, o.all, number);
      if (!a->sol.feasible() && worst == exit_ok) worst = exit_no_fit;
    }
    if (out.size() > (1u << 16)) {
      ctx.out << out;
      out.clear();
    }
  }
  ctx.out << out;
  return worst;
}

int run_pack(const pack_options& o, context& ctx) {
  if (o.brief && o.batch.empty()) {
    report_bad_input(ctx, "--brief needs --batch");
    return exit_bad_input;
  }
  if (!o.batch.empty()) {
    if (!o.items.empty()) {
      report_bad_input(ctx, "give either ITEMs or --batch, not both");
      return exit_bad_input;
    }
    return run_batch(o, ctx);
  }
  auto tokens = parse_items(o.items);
  if (!tokens) {
    report_bad_input(ctx, tokens.error().message);
    return exit_bad_input;
  }
  memo_pool pool;
  auto a = answer_request(o.gpu, *tokens, pool);
  if (!a) {
    report_bad_input(ctx, a.error().message);
    return exit_bad_input;
  }
  if (o.json)
    render::pack_json(ctx.out, *a, o.all);
  else
    render::pack_text(ctx.out, *a, o.all, ctx.color);
  return a->sol.feasible() ? exit_ok : exit_no_fit;
}

}  // namespace

void add_pack(CLI::App& app, context& ctx) {
  auto o = std::make_shared<pack_options>();
  CLI::App* cmd = app.add_subcommand("pack",
                                     "Place instances on a GPU: layouts, diagram, stranded "
                                     "capacity, or why it does not fit");
  cmd->add_option("--gpu,-g", o->gpu,
                  "GPU model: slug (a100-40gb), nvidia-smi name or PCI device ID (0x20B010DE); "
                  "inferred from the profile names when omitted");
  cmd->add_flag("--all,-a", o->all, "Show every layout with its score, not only the preferred one");
  cmd->add_flag("--json", o->json, "One JSON object on stdout (schema_version 1)");
  cmd->add_option(
      "--batch", o->batch,
      "Read one request per line from FILE ('-' for stdin); one JSON object per line out");
  cmd->add_flag("--brief", o->brief,
                "With --batch: one tab-separated line per request (line, gpu, fits|no_fit|error, "
                "layout count, preferred layout or reason code or message) instead of JSON");
  cmd->add_option("ITEM", o->items,
                  "[Nx]PROFILE[@START]: 3g.20gb, 2x1g.5gb, 1g.5gb@6; PROFILE is a name as "
                  "nvidia-smi prints it ('MIG ' prefix allowed) or a profile ID");
  cmd->footer(
      "Examples:\n"
      "  migplan pack 4g.20gb 2g.10gb 1g.5gb\n"
      "  migplan pack --gpu h100-80gb 2x3g.40gb 1g.10gb\n"
      "  migplan pack --gpu a100-40gb --all --json 3g.20gb 2g.10gb 2x1g.5gb\n"
      "  printf '3g.20gb 3g.20gb\\n7g.40gb\\n' | migplan pack --gpu a100-40gb --batch -\n"
      "  migplan pack --gpu a100-40gb --batch requests.txt --brief | awk -F'\\t' '$3 != \"fits\"'\n"
      "Exit codes: 0 fits, 1 does not fit, 2 bad input.");
  cmd->callback([o, &ctx] {
    if (o->items.empty() && o->batch.empty()) {
      report_bad_input(ctx, "no profiles given; try 'migplan pack 4g.20gb 2g.10gb 1g.5gb'");
      return;
    }
    ctx.code = run_pack(*o, ctx);
  });
}

}  // namespace migplan::cli
