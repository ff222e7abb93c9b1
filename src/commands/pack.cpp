// SPDX-License-Identifier: Apache-2.0
// `migplan pack`: does a set of instances fit, where does each go, what does
// the layout strand, and if it does not fit, why and what comes closest.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
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

void finish(answer& a) {
  if (a.sol.feasible()) return;
  a.sol.why = explain(*a.gpu, a.items, a.sol.why);
  a.closest = closest_fits(*a.gpu, a.items);
  a.also_fits = fits_elsewhere(*a.gpu, a.items);
}

result<answer> answer_request(const std::string& gpu_text, const std::vector<token>& tokens) {
  if (!gpu_text.empty()) {
    auto g = resolve_gpu(gpu_text);
    if (!g) return g.error();
    auto items = resolve_items(**g, tokens);
    if (!items) return items.error();
    answer a{*g, std::move(*items), {}, {}, {}, {}};
    a.sol = solve(*a.gpu, a.items);
    finish(a);
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
    a.sol = solve(*g, a.items);
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
  finish(a);
  return a;
}

ojson answer_json(const answer& a, bool all) {
  const gpu_model& g = *a.gpu;
  ojson gpu = gpu_json(g);
  ojson same = ojson::array();
  for (const gpu_model* m : a.same_answer) same.push_back(m->slug);
  ojson layouts = ojson::array();
  for (const scored_layout& sl : a.sol.layouts) {
    layouts.push_back(layout_json(g, sl));
    if (!all) break;
  }
  ojson also = ojson::array();
  for (const gpu_model* m : a.also_fits) also.push_back(m->slug);
  ojson inferred = ojson::array();
  for (const item& it : a.items) {
    const profile& p = prof(g, it.profile);
    if (!p.inferred()) continue;
    const ojson row = profile_json(g, p);
    ojson entry{{"profile", p.name}, {"fields", row["inferred"]}};
    if (std::find(inferred.begin(), inferred.end(), entry) == inferred.end())
      inferred.push_back(entry);
  }
  return ojson{{"schema_version", json_schema_version},
               {"gpu", gpu},
               {"same_answer_on", same},
               {"request", request_json(g, a.items)},
               {"request_starts", request_starts_json(a.items)},
               {"feasible", a.sol.feasible()},
               {"layout_count", a.sol.layout_count},
               {"layouts", layouts},
               {"reason", reason_json(g, a.sol.why)},
               {"closest", closest_json(g, a.closest)},
               {"also_fits_on", also},
               {"inferred", inferred}};
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
    result<answer> a = tokens ? answer_request(o.gpu, *tokens) : result<answer>(tokens.error());
    ojson j;
    if (!a) {
      j = ojson{{"schema_version", json_schema_version},
                {"line", number},
                {"error", {{"code", "bad_input"}, {"message", a.error().message}}}};
      worst = exit_bad_input;
    } else {
      j = answer_json(*a, o.all);
      j["line"] = number;
      if (!a->sol.feasible() && worst == exit_ok) worst = exit_no_fit;
    }
    out += j.dump();
    out += '\n';
    if (out.size() > (1u << 16)) {
      ctx.out << out;
      out.clear();
    }
  }
  ctx.out << out;
  return worst;
}

int run_pack(const pack_options& o, context& ctx) {
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
  auto a = answer_request(o.gpu, *tokens);
  if (!a) {
    ctx.err << "migplan: " << a.error().message << "\n";
    return exit_bad_input;
  }
  if (o.json)
    ctx.out << answer_json(*a, o.all).dump(2) << "\n";
  else
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
  cmd->add_option("ITEM", o->items,
                  "[Nx]PROFILE[@START]: 3g.20gb, 2x1g.5gb, 1g.5gb@6; PROFILE is a name as "
                  "nvidia-smi prints it ('MIG ' prefix allowed) or a profile ID");
  cmd->footer(
      "Examples:\n"
      "  migplan pack 4g.20gb 2g.10gb 1g.5gb\n"
      "  migplan pack --gpu h100-80gb 2x3g.40gb 1g.10gb\n"
      "  migplan pack --gpu a100-40gb --all --json 3g.20gb 2g.10gb 2x1g.5gb\n"
      "  printf '3g.20gb 3g.20gb\\n7g.40gb\\n' | migplan pack --gpu a100-40gb --batch -\n"
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
