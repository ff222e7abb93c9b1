// SPDX-License-Identifier: Apache-2.0
// `migplan pack`: does a set of instances fit, where does each go, what does
// the layout strand, and if it does not fit, why and what comes closest.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <map>
#include <migplan/catalog.hpp>
#include <migplan/explain.hpp>
#include <migplan/search.hpp>
#include <ostream>
#include <sstream>

#include "app.hpp"
#include "io/names.hpp"
#include "io/request.hpp"
#include "io/source.hpp"
#include "render/diagram.hpp"
#include "render/json.hpp"
#include "render/messages.hpp"
#include "render/style.hpp"

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

// One answered request.
struct answer {
  const gpu_model* gpu = nullptr;
  std::vector<item> items;
  solution sol;
  std::vector<closest_fit> closest;
  std::vector<const gpu_model*> also_fits;    // where it fits instead (when it does not)
  std::vector<const gpu_model*> same_answer;  // other models giving the same answer (inferred gpu)
};

const profile& prof(const gpu_model& g, int p) { return g.profiles[static_cast<std::size_t>(p)]; }

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

void finish(answer& a, memo_pool& pool) {
  if (a.sol.feasible()) return;
  a.sol.why = explain(*a.gpu, a.items, a.sol.why);
  a.closest = closest_fits(*a.gpu, a.items, 3, pool.get(*a.gpu));
  a.also_fits = fits_elsewhere(*a.gpu, a.items);
}

// Answers a request; with `explain` false (--brief), a request that does not
// fit gets its reason code only, no closest fits.
result<answer> answer_request(const std::string& gpu_text, const std::vector<token>& tokens,
                              memo_pool& pool, bool explain = true) {
  if (!gpu_text.empty()) {
    auto g = resolve_gpu(gpu_text);
    if (!g) return g.error();
    auto items = resolve_items(**g, tokens);
    if (!items) return items.error();
    answer a{*g, std::move(*items), {}, {}, {}, {}};
    a.sol = solve_with(*a.gpu, a.items, pool);
    if (explain) finish(a, pool);
    return a;
  }
  const auto candidates = candidate_models(tokens);
  if (candidates.empty()) return no_common_model(tokens);
  std::vector<answer> answers;
  std::optional<error> first_error;
  for (const gpu_model* g : candidates) {
    auto items = resolve_items(*g, tokens);
    if (!items) {
      if (!first_error) first_error = items.error();
      continue;
    }
    answer a{g, std::move(*items), {}, {}, {}, {}};
    a.sol = solve_with(*g, a.items, pool);
    answers.push_back(std::move(a));
  }
  if (answers.empty()) return *first_error;
  const std::string sig = signature(*answers[0].gpu, answers[0].sol);
  bool same = true;
  for (const answer& a : answers) same = same && signature(*a.gpu, a.sol) == sig;
  if (!same) {
    std::string msg =
        "the gpu is ambiguous: these profiles exist on several gpus with different answers; pass "
        "--gpu:";
    for (const answer& a : answers)
      msg += fmt::format("\n  {:<13} {}", a.gpu->slug,
                         a.sol.feasible()
                             ? fmt::format("fits ({} layout{})", a.sol.layout_count,
                                           a.sol.layout_count == 1 ? "" : "s")
                             : fmt::format("does not fit ({})", reason_name(a.sol.why.code)));
    return error{msg};
  }
  answer a = std::move(answers[0]);
  for (std::size_t i = 1; i < answers.size(); ++i) a.same_answer.push_back(answers[i].gpu);
  if (explain) finish(a, pool);
  return a;
}

// The answer as compact JSON (schema_version 1); `line` is added in --batch.
void write_answer(std::string& out, const answer& a, bool all, int line = 0) {
  const gpu_model& g = *a.gpu;
  json_writer w(out);
  w.begin_object().key("schema_version").value(json_schema_version);
  w.key("gpu")
      .begin_object()
      .key("id")
      .value(g.slug)
      .key("name")
      .value(g.display_name)
      .end_object();
  w.key("same_answer_on").begin_array();
  for (const gpu_model* m : a.same_answer) w.value(m->slug);
  w.end_array();
  w.key("request").begin_array();
  for (const item& it : a.items) w.value(prof(g, it.profile).name);
  w.end_array();
  w.key("request_starts").begin_array();
  for (const item& it : a.items) {
    if (it.start == item::any_start)
      w.null();
    else
      w.value(it.start);
  }
  w.end_array();
  w.key("feasible").value(a.sol.feasible());
  w.key("layout_count").value(static_cast<unsigned long long>(a.sol.layout_count));
  w.key("layouts").begin_array();
  for (const scored_layout& sl : a.sol.layouts) {
    write_layout(w, g, sl);
    if (!all) break;
  }
  w.end_array();
  w.key("reason");
  write_reason(w, g, a.sol.why);
  w.key("closest");
  write_closest(w, g, a.closest);
  w.key("also_fits_on").begin_array();
  for (const gpu_model* m : a.also_fits) w.value(m->slug);
  w.end_array();
  w.key("inferred").begin_array();
  std::vector<int> seen;
  for (const item& it : a.items) {
    const profile& p = prof(g, it.profile);
    if (!p.inferred() || std::find(seen.begin(), seen.end(), it.profile) != seen.end()) continue;
    seen.push_back(it.profile);
    w.begin_object().key("profile").value(p.name).key("fields").begin_array();
    for (std::string_view f : inferred_field_names(p.prov.inferred)) w.value(f);
    w.end_array().end_object();
  }
  w.end_array();
  if (line > 0) w.key("line").value(line);
  w.end_object();
  out += '\n';
}

std::string span_text(int start, int size) {
  return size == 1 ? fmt::format("{}", start) : fmt::format("{}-{}", start, start + size - 1);
}

void print_layout(std::ostream& out, const gpu_model& g, const scored_layout& sl, bool color,
                  bool show_score) {
  out << diagram(g, sl.where, sl.left, color) << "\n";
  out << fmt::format("  {:<3} {:<16} {:>3} {:>6} {:>6} {:>11} {:>5}\n", "", "profile", "id",
                     "start", "units", "memory", "SMs");
  for (int i = 0; i < sl.where.size(); ++i) {
    const instance& in = sl.where[i];
    const profile& p = prof(g, in.profile);
    const std::string letter(1, instance_letter(i));
    out << fmt::format("  {} {:<16} {:>3} {:>6} {:>6} {:>11} {:>5}\n",
                       paint(color, tone::instance, fmt::format("{:<3}", letter), i), p.name, p.id,
                       in.start, span_text(in.start, p.size), gib_text(p.memory_gib_x100),
                       p.sm_count ? fmt::format("{}", *p.sm_count) : "?");
  }
  const stranded st = stranded_of(g, sl.left);
  std::string free_units;
  for (int u = 0; u < g.units; ++u)
    if ((sl.left.free_mask >> u) & 1u)
      free_units += fmt::format("{}{}", free_units.empty() ? "" : ",", u);
  out << "\n"
      << fmt::format("  {:<10}{} unit{}{}, {} compute slice{}\n", "free", sl.left.free_units,
                     sl.left.free_units == 1 ? "" : "s",
                     free_units.empty() ? "" : " (" + free_units + ")", sl.left.free_compute,
                     sl.left.free_compute == 1 ? "" : "s");
  out << fmt::format(
      "  {:<10}{} unit{} ({}), {} compute slice{}{}\n", "stranded", st.units,
      st.units == 1 ? "" : "s",
      st.memory_gib_x100 ? gib_text(st.memory_gib_x100) : "memory unknown", st.compute_slices,
      st.compute_slices == 1 ? "" : "s",
      st.units + st.compute_slices > 0 ? ": free, but no further instance can use it" : "");
  const auto adds = addable_to(g, rules(g), sl.where);
  if (adds.empty()) {
    out << fmt::format("  {:<10}nothing\n", "can add");
  } else {
    bool first = true;
    for (const addable& a : adds) {
      std::string starts;
      for (int u = 0; u < g.units; ++u)
        if ((a.starts >> u) & 1u) starts += fmt::format("{}{}", starts.empty() ? "" : ",", u);
      out << fmt::format("  {:<10}{} at {{{}}}, up to {} more\n", first ? "can add" : "",
                         prof(g, a.profile).name, starts, a.max_more);
      first = false;
    }
  }
  if (show_score)
    out << fmt::format(
        "  {:<10}reaches {} more unit{} and {} more compute slice{}; {} way{} to grow\n", "score",
        sl.rank.reachable_units, sl.rank.reachable_units == 1 ? "" : "s", sl.rank.reachable_compute,
        sl.rank.reachable_compute == 1 ? "" : "s", sl.rank.extensions,
        sl.rank.extensions == 1 ? "" : "s");
}

void print_answer(std::ostream& out, const answer& a, bool all, bool color) {
  const gpu_model& g = *a.gpu;
  out << fmt::format("{}  {}  ({} placement units, {} compute slices)\n",
                     paint(color, tone::bold, g.slug), g.display_name, g.units, g.compute_slices);
  if (!a.same_answer.empty()) {
    std::string others;
    for (const gpu_model* m : a.same_answer)
      others += fmt::format("{}{}", others.empty() ? "" : ", ", m->slug);
    out << fmt::format("same answer on {}\n", others);
  }
  out << fmt::format("request  {}\n", items_text(g, a.items));
  if (!a.sol.feasible()) {
    out << paint(color, tone::bad, fmt::format("does not fit ({})", reason_name(a.sol.why.code)))
        << ": " << describe(g, a.sol.why) << "\n";
    if (!a.closest.empty()) {
      out << "\nclosest fits:\n";
      for (const closest_fit& c : a.closest)
        out << fmt::format("  drop {:<20} -> {}\n", items_text(g, c.drop),
                           layout_text(g, c.where.where));
    }
    if (!a.also_fits.empty()) {
      std::string others;
      for (const gpu_model* m : a.also_fits)
        others += fmt::format("{}{}", others.empty() ? "" : ", ", m->slug);
      out << fmt::format("\nfits as requested on {}\n", others);
    }
  } else {
    out << paint(color, tone::good,
                 fmt::format("fits: {} layout{}", a.sol.layout_count,
                             a.sol.layout_count == 1 ? "" : "s"))
        << (a.sol.layout_count > 1 ? ", the one that keeps the most room first" : "") << "\n";
    for (std::size_t i = 0; i < a.sol.layouts.size(); ++i) {
      if (all) out << fmt::format("\nlayout {} of {}\n", i + 1, a.sol.layout_count);
      out << "\n";
      print_layout(out, g, a.sol.layouts[i], color, all);
      if (!all) break;
    }
    if (!all && a.sol.layout_count > 1)
      out << fmt::format("\n{} other layout{}; --all shows every one\n", a.sol.layout_count - 1,
                         a.sol.layout_count == 2 ? "" : "s");
  }
  // Inferred values are shown, never hidden.
  std::vector<std::string> inferred;
  for (const item& it : a.items) {
    const profile& p = prof(g, it.profile);
    if (p.inferred() && std::find(inferred.begin(), inferred.end(), p.name) == inferred.end())
      inferred.emplace_back(p.name);
  }
  if (!inferred.empty())
    out << fmt::format(
        "\nnote: {} on {} has values inferred by analogy, not captured; "
        "'migplan profiles --gpu {}' shows which\n",
        fmt::join(inferred, ", "), g.slug, g.slug);
}

int run_batch(const pack_options& o, context& ctx) {
  std::string text;
  if (o.batch == "-") {
    std::ostringstream ss;
    ss << ctx.in.rdbuf();
    text = ss.str();
  } else {
    auto src = read_source(o.batch);
    if (!src) {
      ctx.err << "migplan: " << src.error().message << "\n";
      return exit_bad_input;
    }
    text = std::move(*src);
  }
  int worst = exit_ok;
  memo_pool pool;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  std::string out;
  while (std::getline(lines, line)) {
    ++number;
    const std::size_t hash = line.find('#');
    const std::vector<std::string> words = split_items(line.substr(0, hash));
    if (words.empty()) continue;
    auto tokens = parse_items(words);
    result<answer> a =
        tokens ? answer_request(o.gpu, *tokens, pool, !o.brief) : result<answer>(tokens.error());
    if (o.brief) {
      // LINE, GPU, STATUS, LAYOUT_COUNT, then the preferred layout, the reason code or the error.
      if (!a) {
        fmt::format_to(std::back_inserter(out), "{}\t-\terror\t0\t{}\n", number, a.error().message);
        worst = exit_bad_input;
      } else if (a->sol.feasible()) {
        fmt::format_to(std::back_inserter(out), "{}\t{}\tfits\t{}\t{}\n", number, a->gpu->slug,
                       a->sol.layout_count, layout_text(*a->gpu, a->sol.layouts.front().where));
      } else {
        fmt::format_to(std::back_inserter(out), "{}\t{}\tno_fit\t0\t{}\n", number, a->gpu->slug,
                       reason_name(a->sol.why.code));
        if (worst == exit_ok) worst = exit_no_fit;
      }
    } else if (!a) {
      json_writer w(out);
      w.begin_object().key("schema_version").value(json_schema_version).key("line").value(number);
      w.key("error").begin_object().key("code").value("bad_input");
      w.key("message").value(a.error().message).end_object().end_object();
      out += '\n';
      worst = exit_bad_input;
    } else {
      write_answer(out, *a, o.all, number);
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
    ctx.err << "migplan: --brief needs --batch\n";
    return exit_bad_input;
  }
  if (!o.batch.empty()) {
    if (!o.items.empty()) {
      ctx.err << "migplan: give either ITEMs or --batch, not both\n";
      return exit_bad_input;
    }
    return run_batch(o, ctx);
  }
  auto tokens = parse_items(o.items);
  if (!tokens) {
    ctx.err << "migplan: " << tokens.error().message << "\n";
    return exit_bad_input;
  }
  memo_pool pool;
  auto a = answer_request(o.gpu, *tokens, pool);
  if (!a) {
    ctx.err << "migplan: " << a.error().message << "\n";
    return exit_bad_input;
  }
  if (o.json) {
    std::string compact;
    write_answer(compact, *a, o.all);
    ctx.out << ojson::parse(compact).dump(2) << "\n";
  } else
    print_answer(ctx.out, *a, o.all, ctx.color);
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
      ctx.err << "migplan: no profiles given; try 'migplan pack 4g.20gb 2g.10gb 1g.5gb'\n";
      ctx.code = exit_bad_input;
      return;
    }
    ctx.code = run_pack(*o, ctx);
  });
}

}  // namespace migplan::cli
