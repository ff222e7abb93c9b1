// SPDX-License-Identifier: Apache-2.0
#include "pack/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <migplan/detail/strings.hpp>
#include <migplan/driver_order.hpp>
#include <migplan/explain.hpp>

#include "io/ci_request.hpp"
#include "io/names.hpp"
#include "messages.hpp"
#include "pack/emit_check.hpp"
#include "pack/resolve.hpp"

namespace migplan::cli::pack {
namespace {

// A layout as profile names and starts.
std::string placements_text(const gpu_model& g, const layout& l) {
  std::string out;
  for (const instance& in : l)
    out += fmt::format("{}@{} ", g.profiles[static_cast<std::size_t>(in.profile)].name, in.start);
  return out;
}

// What an answer says of one layout beyond its instances: the room it
// leaves (free units and compute slices, the score), what it strands and
// what can still be added (by profile name: a profile another model lacks
// cannot be added there).
std::string room_text(const gpu_model& g, const scored_layout& sl, const layout_capacity& c) {
  std::string out = fmt::format("|{},{},{},{},{}|{},{}:", sl.left.free_mask, sl.left.free_compute,
                                sl.left.reachable_units, sl.left.reachable_compute,
                                sl.left.extensions, c.strands.units, c.strands.compute_slices);
  for (const addable& ad : c.can_add)
    out += fmt::format("{}@{}x{},", g.profiles[static_cast<std::size_t>(ad.profile)].name,
                       ad.starts, ad.max_more);
  return out;
}

// What two models' answers are compared on: feasibility, reason, every
// layout as profile names and starts, and the compute instances. A request
// that names no CI answers alike whatever its default CIs are: the models
// differ only in which CI profile IDs their tables know. What the answer
// says beyond its layouts is compared too, so that "same answer on" holds
// for all of it: the room each layout shown leaves, and where the request
// does not fit, the closest fits and theirs (the same reason on a smaller
// GPU keeps less of the request).
std::string signature(const pack_answer& a) {
  const solution& s = a.sol;
  std::string out =
      fmt::format("{}|{}|{}|", s.layout_count, static_cast<int>(s.why.code),
                  a.compute.rejected ? static_cast<int>(a.compute.rejected->code) : -1);
  for (const scored_layout& sl : s.layouts) out += placements_text(*a.gpu, sl.where) + ';';
  for (std::size_t i = 0; i < a.capacity.size() && i < s.layouts.size(); ++i)
    out += room_text(*a.gpu, s.layouts[i], a.capacity[i]);
  for (std::size_t i = 0; i < a.closest.size(); ++i) {
    const closest_fit& c = a.closest[i];
    out += "|drop ";
    for (const item& in : c.drop)
      out += fmt::format("{}@{} ", a.gpu->profiles[static_cast<std::size_t>(in.profile)].name,
                         in.start);
    out += "->" + placements_text(*a.gpu, c.where.where);
    if (i < a.closest_capacity.size()) out += room_text(*a.gpu, c.where, a.closest_capacity[i]);
  }
  if (!a.compute.any) return out;
  if (a.compute.rejected) {
    // The message names its model: answers compare alike without the name.
    std::string m = a.compute.rejected->message;
    const std::string_view slug = a.gpu->slug;
    for (std::size_t at = m.find(slug); at != std::string::npos; at = m.find(slug, at + 1))
      m.replace(at, slug.size(), "*");
    out += m;
  }
  for (const gi_compute& c : a.compute.gis) {
    out += "|" + c.shown + ":";
    for (const ci_instance& ci : c.where) out += fmt::format("{}@{},", ci.ci, ci.start);
  }
  return out;
}

std::vector<item> pinned(const std::vector<current_instance>& instances) {
  std::vector<item> items;
  for (const current_instance& c : instances) items.push_back({c.profile, c.start});
  return items;
}

}  // namespace

room_memo* session::memo(const gpu_model& g) {
  auto it = memos_.find(&g);
  if (it != memos_.end()) return &it->second;
  // Building a memo enumerates every layout of the model: two thirds of a
  // one-shot `pack`'s instructions (bench/README.md "Start-up"). The first
  // request on a model goes without (the answers are the same); a second
  // one, in a batch or a listing, builds it for all that follow.
  if (seen_.insert(&g).second) return nullptr;
  return &memos_.emplace(&g, room_memo(g)).first->second;
}

solution session::solve_on(const gpu_model& g, const std::vector<item>& items) {
  solve_options opt;
  opt.memo = memo(g);
  return solve(g, items, opt);
}

void session::explain(pack_answer& a) {
  fill_capacity(a);
  if (a.sol.feasible() || a.compute.rejected) return;
  a.sol.why = migplan::explain(*a.gpu, a.items, a.sol.why);
  a.closest = closest_fits(*a.gpu, a.items, 3, memo(*a.gpu));
  a.also_fits = fits_elsewhere(*a.gpu, a.items, models_);
  for (const closest_fit& c : a.closest) a.closest_capacity.push_back(capacity_of(*a.gpu, c.where));
}

// Only the layouts a renderer shows: with thousands of layouts and no --all,
// the preferred one alone.
void session::fill_capacity(pack_answer& a) const {
  const std::size_t shown =
      all_layouts_ ? a.sol.layouts.size() : std::min<std::size_t>(a.sol.layouts.size(), 1);
  a.capacity.clear();
  for (std::size_t i = 0; i < shown; ++i)
    a.capacity.push_back(capacity_of(*a.gpu, a.sol.layouts[i]));
}

const std::vector<const gpu_model*>& session::candidates(std::span<const token> tokens) {
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
  auto it = inferred_.find(key);
  if (it != inferred_.end()) return it->second;
  if (inferred_.size() >= max_inferences) inferred_.clear();
  return inferred_.emplace(std::move(key), candidate_models(models_, tokens)).first->second;
}

outcome session::answer(const gpu_model* gpu, std::span<const token> tokens, bool explain_it) {
  if (gpu != nullptr) {
    auto req = resolve_request(models_, *gpu, tokens);
    if (!req) return req.error();
    pack_answer a{gpu, std::move(req->items),  {}, {}, {}, {}, {}, false, {},
                  {},  std::move(req->compute)};
    if (!a.compute.rejected) a.sol = solve_on(*a.gpu, a.items);
    if (explain_it) explain(a);
    return a;
  }
  const auto& models = candidates(tokens);
  if (models.empty()) return no_common_model(models_, tokens);
  std::vector<pack_answer> answers;
  std::optional<error> first_error;
  for (const gpu_model* g : models) {
    auto req = resolve_request(models_, *g, tokens);
    if (!req) {
      if (!first_error) first_error = req.error();
      continue;
    }
    pack_answer a{g,  std::move(req->items),  {}, {}, {}, {}, {}, false, {},
                  {}, std::move(req->compute)};
    if (!a.compute.rejected) a.sol = solve_on(*g, a.items);
    // Explained whatever the output, so that the answers compare alike with
    // and without --brief.
    if (models.size() > 1) explain(a);
    answers.push_back(std::move(a));
  }
  if (answers.empty()) return *first_error;
  std::vector<std::string> sigs;
  std::vector<std::size_t> alike;
  for (const pack_answer& a : answers) {
    sigs.push_back(signature(a));
    alike.push_back(
        static_cast<std::size_t>(std::find(sigs.begin(), sigs.end(), sigs.back()) - sigs.begin()));
  }
  if (std::any_of(alike.begin(), alike.end(), [](std::size_t i) { return i != 0; }))
    return pack_ambiguity{std::move(answers), std::move(alike)};
  pack_answer a = std::move(answers[0]);
  for (std::size_t i = 1; i < answers.size(); ++i) a.same_answer.push_back(answers[i].gpu);
  if (explain_it && models.size() == 1) explain(a);
  return a;
}

// The fewest existing instances whose removal lets the new items fit with
// the rest, as indices into `current`: smallest sets first, each size in
// lexicographic order. A GPU holds at most max_units instances, so at most
// 2^16 requests are tried, each small; in practice one or two.
std::vector<std::size_t> session::blocking(const gpu_model& g,
                                           const std::vector<current_instance>& current,
                                           const std::vector<item>& added) {
  const std::size_t n = current.size();
  for (std::size_t k = 1; k <= n; ++k) {
    std::vector<bool> drop(n, false);
    std::fill(drop.begin(), drop.begin() + static_cast<std::ptrdiff_t>(k), true);
    do {
      std::vector<item> items;
      for (std::size_t i = 0; i < n; ++i)
        if (!drop[i]) items.push_back({current[i].profile, current[i].start});
      items.insert(items.end(), added.begin(), added.end());
      if (solve_on(g, items).feasible()) {
        std::vector<std::size_t> out;
        for (std::size_t i = 0; i < n; ++i)
          if (drop[i]) out.push_back(i);
        return out;
      }
    } while (std::prev_permutation(drop.begin(), drop.end()));
  }
  return {};
}

std::optional<listing_misfit> session::misfit(const current_listing& listing) {
  const gpu_model& g = *listing.gpu;
  for (const current_listing_gpu& now : listing.gpus) {
    std::vector<item> there = pinned(now.instances);
    if (there.empty()) continue;
    const solution alone = solve_on(g, there);
    if (!alone.feasible()) return listing_misfit{std::move(there), alone.why};
  }
  return std::nullopt;
}

pack_answer session::answer_on(const gpu_model& g, current_listing_gpu& now,
                               const std::vector<item>& added,
                               const compute_request& added_compute) {
  std::vector<item> items = pinned(now.instances);
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
  if (!a.compute.rejected) a.sol = solve_on(g, a.items);
  if (!a.sol.feasible() && !a.compute.rejected && !a.current->empty() && !added.empty() &&
      solve_on(g, added).feasible()) {
    a.blocked_by_current = true;
    a.blocking = blocking(g, *a.current, added);
  }
  explain(a);
  return a;
}

result<std::vector<pack_answer>> session::answer_listing(current_listing& listing,
                                                         std::span<const std::string> words,
                                                         std::string_view shown) {
  const gpu_model& g = *listing.gpu;
  if (const auto bad = misfit(listing))
    return error{
        fmt::format("{}: {} {}: {}", shown,
                    listing.from_json ? "the layout does not fit" : "the listing does not match",
                    g.slug, describe(g, bad->why, bad->items))};
  std::vector<item> added;
  compute_request added_compute;
  if (!words.empty()) {
    auto tokens = parse_items(words);
    if (!tokens) return tokens.error();
    auto req = resolve_request(models_, g, *tokens);
    if (!req) return req.error();
    added = std::move(req->items);
    added_compute = std::move(req->compute);
  }
  std::vector<pack_answer> out;
  for (current_listing_gpu& now : listing.gpus)
    out.push_back(answer_on(g, now, added, added_compute));
  return out;
}

emit_plan emit_plan_of(model_list models, const pack_answer& a, int index,
                       const std::string& node) {
  const gpu_model& g = *a.gpu;
  emit_plan plan;
  plan.gpu = &g;
  plan.index = index;
  plan.node = node;
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
  // carries them (items_of matches instances to items).
  plan.cis.assign(plan.create.size(), {});
  if (a.compute.any && !a.compute.gis.empty()) {
    const std::vector<int> owners = items_of(a.items, plan.whole);
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
  plan.fallback = find_creation_order(g, occupied, fresh, models);
  plan.devices = emit_devices(plan);
  return plan;
}

}  // namespace migplan::cli::pack
