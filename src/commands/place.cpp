// SPDX-License-Identifier: Apache-2.0
// `migplan place`: where one arriving instance goes on the fleet as it is,
// under the dynamic placement policies `simulate` replays. Reads the fleet
// (a state file, kubectl's nodes with the mig-parted config, or an
// nvidia-smi listing), asks the core's rank_placements (replay.hpp) per
// policy, and hands the answer to render/place, or the chosen instance to
// render/emit's nvidia-smi script.

#include "commands/place.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <migplan/catalog.hpp>
#include <migplan/driver_order.hpp>
#include <migplan/replay.hpp>
#include <migplan/search.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app.hpp"
#include "error.hpp"
#include "io/current.hpp"
#include "io/names.hpp"
#include "io/plan_input.hpp"
#include "io/size.hpp"
#include "io/source.hpp"
#include "model/emit.hpp"
#include "model/place.hpp"
#include "model/policies.hpp"
#include "quote.hpp"
#include "render/emit.hpp"
#include "render/place.hpp"

namespace migplan::cli {
namespace {

// The most alternatives listed per policy.
constexpr long long max_alternatives = 1000;
// The node an nvidia-smi listing's GPUs are put on.
constexpr std::string_view listing_node = "local";

// How a file is named in messages.
std::string shown_as(const std::string& path) { return path == "-" ? "<stdin>" : path; }

struct place_options {
  std::string request;
  std::string current;
  std::string mig_config;
  std::string gpu;
  std::vector<std::string> policies;
  std::string alternatives = "3";
  bool json = false;
  std::string emit;
};

// The fleet as `--current` (and `--mig-config`, or `--gpu` for an
// nvidia-smi listing) describes it, each GPU's instances as a layout; a
// GPU with starts not given gets the layout of them that keeps the most room.
result<place_result> read_fleet_now(const place_options& o, context& ctx) {
  place_result res;
  std::vector<current_node> nodes;
  if (!o.gpu.empty()) {
    if (!o.mig_config.empty())
      return error{"--mig-config is for kubectl's nodes; --gpu reads an nvidia-smi listing"};
    auto g = resolve_gpu(o.gpu);
    if (!g) return error{"--gpu: " + g.error().message};
    const std::string shown = shown_as(o.current);
    bool too_large = false;
    auto text = read_source_bounded(o.current, ctx.in, max_current_bytes, too_large);
    if (!text)
      return error{too_large ? fmt::format("{}: {}, the most place reads of an nvidia-smi listing",
                                           shown, text.error().message)
                             : fmt::format("cannot read {}: {}", quote_token(shown, 200),
                                           text.error().message)};
    auto listing = read_current(*text, shown, *g, std::nullopt);
    if (!listing) return listing.error();
    current_node n;
    n.name = std::string(listing_node);
    n.gpu = listing->gpu;
    n.where = shown;
    int next = 0;
    for (const current_listing_gpu& lg : listing->gpus) {
      current_gpu cg;
      cg.index = lg.index.value_or(next);
      next = cg.index + 1;
      for (const current_instance& c : lg.instances) cg.instances.push_back({c.profile, c.start});
      n.gpus.push_back(std::move(cg));
    }
    nodes.push_back(std::move(n));
  } else {
    auto s = read_current_state(o.current, o.mig_config, ctx.in);
    if (!s) return s.error();
    res.notes = std::move(s->notes);
    nodes = std::move(s->nodes);
  }
  std::vector<std::string> mig_off;
  for (const current_node& n : nodes) {
    if (n.gpus.empty()) {
      res.notes.push_back(fmt::format("node {} has no GPU: left out", n.name));
      continue;
    }
    const int node = static_cast<int>(res.nodes.size());
    res.nodes.push_back({n.name, n.gpu});
    for (const current_gpu& cg : n.gpus) {
      // Placing there needs MIG mode on first: a reset, not an arrival's decision.
      if (!cg.mig_enabled) {
        mig_off.push_back(fmt::format("{} GPU {}", n.name, cg.index));
        continue;
      }
      place_gpu pg;
      pg.node = node;
      pg.index = cg.index;
      std::vector<item> items;
      for (const current_gi& gi : cg.instances) {
        items.push_back({gi.profile, gi.start});
        pg.starts_assumed = pg.starts_assumed || gi.start == item::any_start;
      }
      if (!items.empty()) {
        solve_options one;
        one.max_layouts = 1;
        const solution s = solve(*n.gpu, items, one);
        if (!s.feasible())
          return error{
              fmt::format("{}: node {} GPU {}: its GPU instances do not fit together on {}",
                          n.where, n.name, cg.index, n.gpu->slug)};
        pg.held = s.layouts.front().where;
      }
      res.gpus.push_back(pg);
    }
  }
  if (!mig_off.empty())
    res.notes.push_back(fmt::format(
        "MIG is off on {} (mig-enabled: false in the mig-parted config): left out, since an "
        "instance there needs MIG mode turned on first",
        fmt::join(mig_off, ", ")));
  if (res.gpus.empty())
    return error{fmt::format("{} has no GPU with MIG on to place on", shown_as(o.current))};
  std::vector<std::string> assumed;
  for (const place_gpu& g : res.gpus)
    if (g.starts_assumed)
      assumed.push_back(
          fmt::format("{} GPU {}", res.nodes[static_cast<std::size_t>(g.node)].name, g.index));
  if (!assumed.empty())
    res.notes.push_back(fmt::format(
        "the starts of the instances on {} are not known; taken as the layout of them that "
        "keeps the most room",
        fmt::join(assumed, ", ")));
  return res;
}

// The profile asked for: one instance of a profile some model of the fleet has.
result<std::string> request_of(std::string_view word, const place_result& fleet) {
  auto d = parse_demand_word(word);
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
  for (const place_node& n : fleet.nodes) {
    if (find_profile(*n.gpu, d->profile) >= 0) return d->profile;
    for (const profile& p : n.gpu->profiles)
      if (std::find(names.begin(), names.end(), p.name) == names.end()) names.emplace_back(p.name);
  }
  std::vector<std::string> slugs;
  for (const place_node& n : fleet.nodes)
    if (std::find(slugs.begin(), slugs.end(), n.gpu->slug) == slugs.end())
      slugs.emplace_back(n.gpu->slug);
  return error{fmt::format("no GPU of the fleet ({}) has profile {}{}", fmt::join(slugs, ", "),
                           quote_token(d->profile), did_you_mean(d->profile, names))};
}

// The nvidia-smi script creating `r`'s first policy's choice.
void emit_choice(std::ostream& os, const place_result& r) {
  const place_option& c = r.policies.front().ranking.options.front();
  const place_gpu& pg = r.gpus[static_cast<std::size_t>(c.gpu)];
  const place_node& node = r.nodes[static_cast<std::size_t>(pg.node)];
  emit_plan plan;
  plan.gpu = node.gpu;
  plan.index = pg.index;
  plan.whole = pg.held;
  plan.whole.add(c.where);
  unit_mask occupied = 0;
  for (const instance& in : pg.held) {
    plan.existing.push_back({in.profile, in.start, std::nullopt, {}});
    occupied |= node.gpu->profiles[static_cast<std::size_t>(in.profile)].mask_at(in.start);
  }
  plan.create = {c.where};
  plan.cis.assign(1, {});
  plan.fallback = find_creation_order(*node.gpu, occupied, plan.create);
  plan.command = "place";
  if (node.name != listing_node) plan.host = node.name;
  render::emit_nvidia_smi(os, plan);
}

int run_place(const place_options& o, context& ctx) {
  const auto bad = [&](const std::string& message) {
    report_bad_input(ctx, message);
    return exit_bad_input;
  };
  // Options that do not depend on the files first.
  if (!o.emit.empty()) {
    const std::vector<std::string> kinds{"nvidia-smi"};
    if (o.emit != kinds.front())
      return bad(fmt::format("unknown --emit kind {}{}; place writes nvidia-smi",
                             quote_token(o.emit), did_you_mean(o.emit, kinds)));
    if (o.json) return bad("--emit writes its own format; it does not combine with --json");
    if (o.policies.size() > 1)
      return bad("--emit writes one policy's choice; give at most one --policy");
  }
  auto alternatives = parse_whole_number("--alternatives", o.alternatives, 0, max_alternatives);
  if (!alternatives) return bad(alternatives.error().message);
  std::vector<std::string> names;
  for (const policy_name& p : policy_names)
    if (p.policy.mode == replay_mode::dynamic) names.emplace_back(p.name);
  std::vector<std::string> chosen = o.policies;
  if (chosen.empty()) chosen = names;
  std::vector<place_policy> policies;
  for (const std::string& c : chosen) {
    const auto it = std::find_if(std::begin(policy_names), std::end(policy_names),
                                 [&](const policy_name& p) { return p.name == c; });
    if (it == std::end(policy_names) || it->policy.mode != replay_mode::dynamic)
      return bad(it == std::end(policy_names)
                     ? fmt::format("unknown --policy {}{}; place's policies: {}", quote_token(c),
                                   did_you_mean(c, names), fmt::join(names, ", "))
                     : fmt::format("--policy {} keeps a static geometry; place's policies are "
                                   "the dynamic ones: {}",
                                   quote_token(c), fmt::join(names, ", ")));
    if (std::any_of(policies.begin(), policies.end(),
                    [&](const place_policy& p) { return p.name == c; }))
      return bad(fmt::format("--policy {} is given twice", c));
    policies.push_back({c, it->policy, {}});
  }

  auto fleet = read_fleet_now(o, ctx);
  if (!fleet) return bad(fleet.error().message);
  place_result& res = *fleet;
  auto profile = request_of(o.request, res);
  if (!profile) return bad(profile.error().message);
  res.profile = *profile;
  res.alternatives = static_cast<int>(*alternatives);

  replay_fleet rf;
  replay_item want;
  for (const place_node& n : res.nodes) {
    auto m = std::find(rf.models.begin(), rf.models.end(), n.gpu);
    if (m == rf.models.end()) {
      rf.models.push_back(n.gpu);
      want.profile.push_back(find_profile(*n.gpu, res.profile));
      m = rf.models.end() - 1;
    }
    rf.nodes.push_back({static_cast<int>(m - rf.models.begin()), 0});
  }
  std::vector<layout> held;
  for (const place_gpu& g : res.gpus) {
    ++rf.nodes[static_cast<std::size_t>(g.node)].gpus;
    held.push_back(g.held);
  }
  replay_tables tables;
  for (place_policy& p : policies) p.ranking = rank_placements(rf, want, held, p.policy, tables);
  res.policies = std::move(policies);

  if (!o.emit.empty()) {
    if (!res.placed()) {
      ctx.err << fmt::format("migplan: no GPU can take a {}; nothing to emit\n", res.profile);
      return exit_no_fit;
    }
    emit_choice(ctx.out, res);
    return exit_ok;
  }
  if (o.json)
    render::place_json(ctx.out, res);
  else
    render::place_text(ctx.out, res);
  return res.placed() ? exit_ok : exit_no_fit;
}

}  // namespace

void add_place(CLI::App& app, context& ctx) {
  auto o = std::make_shared<place_options>();
  // One screen (migplan-place(1) has the reference).
  CLI::App* cmd = app.add_subcommand(
      "place", "Where one arriving instance goes on the fleet as it is, per placement policy");
  cmd->add_option("PROFILE", o->request, "The instance to place: 3g.40gb")->required();
  cmd->add_option("--current", o->current, "The fleet now: state file, kubectl, or nvidia-smi")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--mig-config", o->mig_config, "With kubectl --current: the mig-parted config")
      ->type_name("FILE");
  cmd->add_option("--gpu,-g", o->gpu, "--current is an nvidia-smi mig -lgi listing of MODEL")
      ->type_name("MODEL");
  cmd->add_option("--policy", o->policies, "spread|pack-first-fit|best-fit; repeatable")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--alternatives", o->alternatives, "Places listed after each choice (3)")
      ->type_name("N");
  cmd->add_flag("--json", o->json, "One JSON object on stdout (schema_version 1)");
  cmd->add_option("--emit", o->emit, "nvidia-smi: the script creating the choice")
      ->type_name("KIND");
  cmd->footer(
      "Default policies: all four; --emit takes the one --policy names (spread-first-fit).\n"
      "Example: migplan place 3g.40gb --current state.yaml\n"
      "Exit codes: 0 placed, 1 no GPU can take it, 2 bad input.");
  cmd->callback([o, &ctx] {
    ctx.json_errors = o->json;
    const int code = run_place(*o, ctx);
    if (code != exit_bad_input) ctx.code = code;
  });
}

}  // namespace migplan::cli
