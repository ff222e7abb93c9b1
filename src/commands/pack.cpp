// SPDX-License-Identifier: Apache-2.0
// `migplan pack`: does a set of instances fit, where does each go, what does
// the layout strand, and if it does not fit, why and what comes closest.

#include "model/pack.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <migplan/catalog.hpp>
#include <migplan/detail/strings.hpp>
#include <migplan/driver_order.hpp>
#include <migplan/explain.hpp>
#include <migplan/search.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <variant>

#include "app.hpp"
#include "error.hpp"
#include "io/ci_request.hpp"
#include "io/current.hpp"
#include "io/fleet_now.hpp"
#include "io/names.hpp"
#include "io/request.hpp"
#include "io/source.hpp"
#include "model/emit.hpp"
#include "models.hpp"
#include "quote.hpp"
#include "render/compute.hpp"
#include "render/dra.hpp"
#include "render/emit.hpp"
#include "render/messages.hpp"
#include "render/pack.hpp"

namespace migplan::cli {
namespace {

// Input limits of --batch (documented in migplan-pack(1)).
constexpr std::size_t max_batch_line = 65536;     // bytes in one line
constexpr long long max_batch_bytes = 1LL << 30;  // bytes in all

struct pack_options {
  std::optional<std::string> gpu;  // empty when --gpu is not given
  bool all = false;
  bool json = false;
  bool brief = false;
  std::string batch;
  std::string current;       // --current FILE: an -lgi (+ -lci) listing or a pack --json answer
  std::optional<int> index;  // --index N: the GPU of that listing, and --emit's -i
  std::optional<std::string> emit;  // --emit KIND
  std::string node;                 // --node NAME: the node of --emit dra
  std::vector<std::string> items;
};

// What two models' answers are compared on: feasibility, reason, every
// layout as profile names and starts, and the compute instances.
std::string signature(const pack_answer& a) {
  const solution& s = a.sol;
  std::string out = fmt::format("{}|{}|", s.layout_count, answer_reason_name(a));
  for (const scored_layout& sl : s.layouts) out += layout_text(*a.gpu, sl.where) + ";";
  return out + compute_signature(a);
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
  if (a.sol.feasible() || a.compute.rejected) return;
  a.sol.why = explain(*a.gpu, a.items, a.sol.why);
  a.closest = closest_fits(*a.gpu, a.items, 3, pool.get(*a.gpu));
  a.also_fits = fits_elsewhere(*a.gpu, a.items, all_models());
}

// What a request comes to: an answer, a gpu that must be named, or bad input.
using outcome = std::variant<pack_answer, pack_ambiguity, error>;

// The candidate models of each distinct set of profile names, so a batch
// without --gpu infers each set once; bounded, so memory stays flat.
class inference_cache {
 public:
  const std::vector<const gpu_model*>& candidates(std::span<const token> tokens) {
    std::vector<std::string> names;
    for (const token& t : tokens) {
      std::string n(strip_profile_name(t.profile));
      for (char& c : n) c = detail::ascii_lower(c);
      names.push_back(std::move(n));
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::string key;
    for (const std::string& n : names) key += n + '\n';
    auto it = seen_.find(key);
    if (it != seen_.end()) return it->second;
    if (seen_.size() >= max_entries) seen_.clear();
    return seen_.emplace(std::move(key), candidate_models(tokens)).first->second;
  }

 private:
  static constexpr std::size_t max_entries = 4096;
  std::map<std::string, std::vector<const gpu_model*>> seen_;
};

// Answers a request; with `explain` false (--brief), a request that does not
// fit gets its reason code only, no closest fits.
outcome answer_request(const gpu_model* gpu, const std::vector<token>& tokens, memo_pool& pool,
                       inference_cache& cache, bool explain = true) {
  if (gpu != nullptr) {
    auto req = resolve_request(*gpu, tokens);
    if (!req) return req.error();
    pack_answer a{gpu, std::move(req->items),  {}, {}, {}, {}, {}, false, {},
                  {},  std::move(req->compute)};
    if (!a.compute.rejected) a.sol = solve_with(*a.gpu, a.items, pool);
    if (explain) finish(a, pool);
    return a;
  }
  const auto& candidates = cache.candidates(tokens);
  if (candidates.empty()) return no_common_model(tokens);
  std::vector<pack_answer> answers;
  std::optional<error> first_error;
  for (const gpu_model* g : candidates) {
    auto req = resolve_request(*g, tokens);
    if (!req) {
      if (!first_error) first_error = req.error();
      continue;
    }
    pack_answer a{g,  std::move(req->items),  {}, {}, {}, {}, {}, false, {},
                  {}, std::move(req->compute)};
    if (!a.compute.rejected) a.sol = solve_with(*g, a.items, pool);
    answers.push_back(std::move(a));
  }
  if (answers.empty()) return *first_error;
  const std::string sig = signature(answers[0]);
  bool same = true;
  for (const pack_answer& a : answers) same = same && signature(a) == sig;
  if (!same) return pack_ambiguity{std::move(answers)};
  pack_answer a = std::move(answers[0]);
  for (std::size_t i = 1; i < answers.size(); ++i) a.same_answer.push_back(answers[i].gpu);
  if (explain) finish(a, pool);
  return a;
}

// Writes `text` to `out`, and says whether it got there: a full disk or a
// closed pipe ends the run rather than answering into the void.
bool emit(context& ctx, std::string& text) {
  ctx.out << text;
  ctx.out.flush();
  text.clear();
  return ctx.out.good();
}

int run_batch(const pack_options& o, const gpu_model* gpu, context& ctx) {
  // Until the first line, a failure is one error document (JSON lines
  // only); from then on each line answers for itself.
  ctx.json_errors = !o.brief;
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
  line_reader lines(file ? *file : ctx.in, max_batch_line);
  int worst = exit_ok;
  memo_pool pool;
  inference_cache cache;
  std::string line, out;
  bool any = false;
  const auto fail = [&](const std::string& message, const pack_ambiguity* amb) {
    const int n = static_cast<int>(lines.number());
    if (o.brief)
      render::pack_brief_error_line(out, n, one_line(message));
    else
      render::pack_error_json_line(out, n,
                                   {amb ? "ambiguous_gpu" : "bad_input", one_line(message), amb});
    worst = exit_bad_input;
  };
  for (;;) {
    // Answer what has been read before waiting for more: a program that
    // writes one request and waits gets its answer.
    if (!out.empty() && (out.size() > (1u << 16) || !lines.ready()) && !emit(ctx, out))
      return exit_bad_input;
    const line_reader::status st = lines.next(line);
    if (st == line_reader::status::end) break;
    if (st == line_reader::status::too_long || lines.bytes() > max_batch_bytes) {
      const std::string why =
          st == line_reader::status::too_long
              ? fmt::format("line {} is longer than {} bytes; nothing after it is read",
                            lines.number(), max_batch_line)
              : fmt::format("the input is larger than {} bytes; nothing after line {} is read",
                            max_batch_bytes, lines.number());
      fail(why, nullptr);
      report_bad_input(ctx, why);
      break;
    }
    any = true;
    const std::size_t hash = line.find('#');
    const std::vector<std::string> words = split_items(std::string_view(line).substr(0, hash));
    if (words.empty()) continue;
    auto tokens = parse_items(words);
    if (!tokens) {
      fail(tokens.error().message, nullptr);
      continue;
    }
    outcome r = answer_request(gpu, *tokens, pool, cache, !o.brief);
    if (const auto* e = std::get_if<error>(&r)) {
      fail(e->message, nullptr);
    } else if (const auto* amb = std::get_if<pack_ambiguity>(&r)) {
      fail(render::pack_ambiguity_sentence(*amb), amb);
    } else {
      const pack_answer& a = std::get<pack_answer>(r);
      if (o.brief)
        render::pack_brief_line(out, a, static_cast<int>(lines.number()));
      else
        render::pack_json_line(out, a, o.all, static_cast<int>(lines.number()));
      if (!a.sol.feasible() && worst == exit_ok) worst = exit_no_fit;
    }
  }
  if (!out.empty() && !emit(ctx, out)) return exit_bad_input;
  if (!any && worst == exit_ok) {
    report_bad_input(ctx, fmt::format("--batch {}: no input (the file or stream was empty)",
                                      o.batch == "-" ? "-" : o.batch));
    return exit_bad_input;
  }
  return worst;
}

// The fewest existing instances whose removal lets the new items fit with
// the rest, as indices into `current`: smallest sets first, each size in
// lexicographic order. A GPU holds at most max_units instances, so at most
// 2^16 requests are tried, each small; in practice one or two.
std::vector<std::size_t> blocking_instances(const gpu_model& g,
                                            const std::vector<current_instance>& current,
                                            const std::vector<item>& added, memo_pool& pool) {
  const std::size_t n = current.size();
  for (std::size_t k = 1; k <= n; ++k) {
    std::vector<bool> drop(n, false);
    std::fill(drop.begin(), drop.begin() + static_cast<std::ptrdiff_t>(k), true);
    do {
      std::vector<item> items;
      for (std::size_t i = 0; i < n; ++i)
        if (!drop[i]) items.push_back({current[i].profile, current[i].start});
      items.insert(items.end(), added.begin(), added.end());
      if (solve_with(g, items, pool).feasible()) {
        std::vector<std::size_t> out;
        for (std::size_t i = 0; i < n; ++i)
          if (drop[i]) out.push_back(i);
        return out;
      }
    } while (std::prev_permutation(drop.begin(), drop.end()));
  }
  return {};
}

// `--emit KIND`: what realizes the preferred layout, on stdout; when the
// request does not fit, nothing there and the reason on stderr (exit 1).
// `index` is the GPU nvidia-smi -i targets.
int emit_answer(const pack_options& o, const pack_answer& a, int index, context& ctx) {
  const render::emit_kind* kind = render::find_emit_kind(*o.emit);
  const gpu_model& g = *a.gpu;
  if (!a.sol.feasible()) {
    ctx.err << fmt::format(
        "migplan: does not fit ({}): {}{}; nothing to emit\n",
        a.blocked_by_current ? "blocked_by_current" : reason_name(a.sol.why.code),
        describe(g, a.sol.why, a.items),
        a.blocked_by_current ? " (blocked by existing instances)" : "");
    return exit_no_fit;
  }
  emit_plan plan;
  plan.gpu = &g;
  plan.index = index;
  plan.node = o.node;
  plan.whole = a.sol.layouts.front().where;
  if (a.current) plan.existing = *a.current;
  // The new instances: the layout less the existing ones, which it holds at
  // their own starts (they are pinned items).
  std::vector<instance> fresh(plan.whole.begin(), plan.whole.end());
  unit_mask occupied = 0;
  for (const current_instance& c : plan.existing) {
    const auto it = std::find(fresh.begin(), fresh.end(), instance{c.profile, c.start});
    if (it != fresh.end()) fresh.erase(it);
    occupied |= g.profiles[static_cast<std::size_t>(c.profile)].mask_at(c.start);
  }
  plan.create = placement_order(g, fresh);
  // The CIs asked of each new GPU instance: the item each instance places
  // carries them (render::items_of matches instances to items).
  plan.cis.assign(plan.create.size(), {});
  if (a.compute.any && !a.compute.gis.empty()) {
    const std::vector<int> owners = render::items_of(a.items, plan.whole);
    std::vector<bool> taken(owners.size(), false);
    for (std::size_t c = 0; c < plan.create.size(); ++c)
      for (int i = 0; i < plan.whole.size(); ++i) {
        const auto k = static_cast<std::size_t>(i);
        if (taken[k] || plan.whole[i] != plan.create[c]) continue;
        taken[k] = true;
        const int item_index = owners[k];
        if (item_index >= 0 && static_cast<std::size_t>(item_index) < a.compute.gis.size()) {
          const gi_compute& gc = a.compute.gis[static_cast<std::size_t>(item_index)];
          if (!gc.asked.empty()) plan.cis[c] = gc.where;
        }
        break;
      }
  }
  plan.fallback = find_creation_order(g, occupied, fresh);
  // A kind that would drop part of the layout (compute instances) refuses.
  if (kind->problem != nullptr)
    if (const std::string why = kind->problem(plan); !why.empty()) {
      report_bad_input(ctx, why);
      return exit_bad_input;
    }
  kind->write(ctx.out, plan);
  return exit_ok;
}

// `pack --current FILE [ITEM...]`: on each GPU of the file (or the one
// --index names), the existing instances pinned where they are, first in the
// request, then the new items. Several GPUs are answered in turn: a text
// section each, or one JSON document per line.
int run_current(const pack_options& o, const gpu_model* gpu, context& ctx,
                const std::function<int(const std::string&)>& bad) {
  const std::string shown = o.current == "-" ? "<stdin>" : o.current;
  auto read = read_listing_file(o.current, ctx.in, gpu, o.index, "pack");
  if (!read) return bad(read.error().message);
  for (const std::string& w : read->notes) ctx.err << "migplan: warning: " << one_line(w) << "\n";
  current_listing* listing = &read->listing;
  const gpu_model& g = *listing->gpu;
  memo_pool pool;
  // What is there must fit together on the model, or the file is not of it.
  for (const current_listing_gpu& now : listing->gpus) {
    std::vector<item> there;
    for (const current_instance& c : now.instances) there.push_back({c.profile, c.start});
    if (there.empty()) continue;
    const solution alone = solve_with(g, there, pool);
    if (!alone.feasible())
      return bad(
          fmt::format("{}: {} {}: {}", shown,
                      listing->from_json ? "the layout does not fit" : "the listing does not match",
                      g.slug, describe(g, alone.why, there)));
  }
  std::vector<item> added;
  compute_request added_compute;
  if (!o.items.empty()) {
    auto tokens = parse_items(o.items);
    if (!tokens) return bad(tokens.error().message);
    auto req = resolve_request(g, *tokens);
    if (!req) return bad(req.error().message);
    added = std::move(req->items);
    added_compute = std::move(req->compute);
  }
  int worst = exit_ok;
  const bool several = listing->gpus.size() > 1;
  if (o.emit && several)
    return bad(
        fmt::format("{}: --emit writes one GPU's layout and the listing holds {} GPUs; "
                    "pick one with --index",
                    shown, listing->gpus.size()));
  for (std::size_t i = 0; i < listing->gpus.size(); ++i) {
    current_listing_gpu& now = listing->gpus[i];
    std::vector<item> items;
    for (const current_instance& c : now.instances) items.push_back({c.profile, c.start});
    items.insert(items.end(), added.begin(), added.end());
    // The existing instances come first in the items and keep their CIs (listed under
    // `current`); the new ones bring theirs.
    compute_request compute = added_compute;
    if (!added_compute.gis.empty()) {
      std::vector<gi_compute> gis(now.instances.size());
      for (gi_compute& e : gis) e.existing = true;
      gis.insert(gis.end(), added_compute.gis.begin(), added_compute.gis.end());
      compute.gis = std::move(gis);
    }
    pack_answer a{&g,        std::move(items),  {}, {}, {}, {}, std::move(now.instances), false, {},
                  now.index, std::move(compute)};
    if (!a.compute.rejected) a.sol = solve_with(g, a.items, pool);
    if (!a.sol.feasible() && !a.compute.rejected && !a.current->empty() && !added.empty() &&
        solve_with(g, added, pool).feasible()) {
      a.blocked_by_current = true;
      a.blocking = blocking_instances(g, *a.current, added, pool);
    }
    finish(a, pool);
    if (o.emit) return emit_answer(o, a, o.index.value_or(now.index.value_or(0)), ctx);
    if (o.json) {
      if (several) {
        std::string line;
        render::pack_json_line(line, a, o.all, 0);
        ctx.out << line;
      } else {
        render::pack_json(ctx.out, a, o.all);
      }
    } else {
      if (several) ctx.out << fmt::format("{}GPU {}\n", i == 0 ? "" : "\n", now.index.value_or(0));
      render::pack_text(ctx.out, a, o.all, ctx.color);
    }
    if (!a.sol.feasible()) worst = exit_no_fit;
  }
  return worst;
}

// "nvidia-smi, nvml, mig-parted, k8s".
std::string emit_kind_list() {
  std::vector<std::string> names;
  for (const render::emit_kind& k : render::emit_kinds()) names.emplace_back(k.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

// Why --emit cannot run with these options, or "" when it can.
std::string emit_conflict(const pack_options& o) {
  std::vector<std::string> names;
  for (const render::emit_kind& k : render::emit_kinds()) names.emplace_back(k.name);
  if (render::find_emit_kind(*o.emit) == nullptr)
    return fmt::format("unknown --emit kind {}{}; kinds: {}", quote_token(*o.emit),
                       did_you_mean(*o.emit, names), emit_kind_list());
  // --emit writes one format of one layout: the other outputs do not combine with it.
  for (const auto& [given, what] :
       {std::pair{!o.batch.empty(), "--batch"}, std::pair{o.json, "--json"},
        std::pair{o.all, "--all"}, std::pair{o.brief, "--brief"}})
    if (given)
      return fmt::format("--emit writes one layout in its own format; it does not combine with {}",
                         what);
  return {};
}

int run_pack(const pack_options& o, context& ctx) {
  const auto bad = [&](const std::string& message, const pack_ambiguity* amb = nullptr) {
    // With --json a failure is also a JSON document, so `| jq` sees it:
    // an ambiguity's names its candidates; report_bad_input writes the rest.
    if (amb != nullptr && ctx.json_errors && !ctx.error_written) {
      render::pack_error_json(ctx.out,
                              {"ambiguous_gpu", render::pack_ambiguity_sentence(*amb), amb});
      ctx.error_written = true;
    }
    report_bad_input(ctx, amb ? render::pack_ambiguity_text(*amb) : message);
    return exit_bad_input;
  };
  if (o.brief && o.batch.empty()) return bad("--brief needs --batch");
  if (!o.batch.empty() && !o.items.empty()) return bad("give either ITEMs or --batch, not both");
  if (!o.batch.empty() && !o.current.empty())
    return bad("give either --current or --batch, not both");
  if (o.emit) {
    if (const std::string why = emit_conflict(o); !why.empty()) return bad(why);
  }
  if (o.index && o.current.empty() && !o.emit) return bad("--index needs --current or --emit");
  if (!o.node.empty()) {
    if (!o.emit || *o.emit != "dra") return bad("--node needs --emit dra");
    render::dra_options opt;
    opt.node_name = o.node;
    opt.gpu_index = o.index.value_or(0);
    if (auto why = render::dra_options_problem(opt)) return bad(*why);
  }
  if (o.batch.empty() && o.current.empty() && o.items.empty())
    return bad("no profiles given; try 'migplan pack 4g.20gb 2g.10gb 1g.5gb'");
  const gpu_model* gpu = nullptr;
  if (o.gpu) {
    auto g = resolve_gpu(*o.gpu);
    if (!g) return bad(g.error().message);
    gpu = *g;
  }
  if (!o.batch.empty()) return run_batch(o, gpu, ctx);
  if (!o.current.empty())
    return run_current(o, gpu, ctx, [&](const std::string& m) { return bad(m); });
  auto tokens = parse_items(o.items);
  if (!tokens) return bad(tokens.error().message);
  memo_pool pool;
  inference_cache cache;
  const outcome r = answer_request(gpu, *tokens, pool, cache);
  if (const auto* e = std::get_if<error>(&r)) return bad(e->message);
  if (const auto* amb = std::get_if<pack_ambiguity>(&r)) return bad({}, amb);
  const pack_answer& a = std::get<pack_answer>(r);
  if (o.emit) {
    if (!a.same_answer.empty()) {
      std::vector<std::string_view> slugs{a.gpu->slug};
      for (const gpu_model* m : a.same_answer) slugs.push_back(m->slug);
      return bad(
          fmt::format("--emit needs one GPU model, and the request answers alike on {}; "
                      "pass --gpu",
                      fmt::join(slugs, ", ")));
    }
    return emit_answer(o, a, o.index.value_or(0), ctx);
  }
  if (o.json)
    render::pack_json(ctx.out, a, o.all);
  else
    render::pack_text(ctx.out, a, o.all, ctx.color);
  return a.sol.feasible() ? exit_ok : exit_no_fit;
}

}  // namespace

void add_pack(CLI::App& app, context& ctx) {
  auto o = std::make_shared<pack_options>();
  CLI::App* cmd = app.add_subcommand("pack", "Place instances on a GPU, or say why not");
  cmd->add_option("--gpu,-g", o->gpu, "GPU model; inferred from the profiles if omitted");
  cmd->add_flag("--all,-a", o->all, "Show every layout with its score");
  cmd->add_flag("--json", o->json, "One JSON object on stdout (schema_version 1)");
  cmd->add_option("--batch", o->batch, "FILE of requests, one per line ('-': stdin)");
  cmd->add_option("--current", o->current, "FILE: the GPU now (nvidia-smi mig -lgi, or JSON)");
  cmd->add_option("--index", o->index, "GPU of the --current listing, or of nvidia-smi -i")
      ->check(CLI::Range(0, 4095));
  cmd->add_option("--emit", o->emit, "Emit KIND: " + emit_kind_list());
  cmd->add_option("--node", o->node, "With --emit dra: the node (default worker-1)");
  cmd->add_flag("--brief", o->brief, "With --batch: one TSV line per request, not JSON");
  cmd->add_option("ITEM", o->items, "[Nx]PROFILE[[CI,...]][@START]: 2x1g.5gb, 3g.20gb@4");
  cmd->footer(
      "Example: migplan pack --gpu h100-80gb 2x3g.40gb 1g.10gb\n"
      "Exit codes: 0 fits, 1 does not fit, 2 bad input.");
  cmd->callback([o, &ctx] { ctx.code = run_pack(*o, ctx); });
}

}  // namespace migplan::cli
